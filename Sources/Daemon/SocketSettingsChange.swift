import Control
import ForecastModel
import Foundation
import Settings

/// The settings-changing socket requests (`units`, `pin`, `unpin`, `mode`): they edit the settings
/// file exactly as `forecastctl` does (only the changed values' bytes, validated first, written
/// atomically), then reload it, so the file stays the one source of truth.
enum SocketSettingsChange {
    static func apply(
        _ request: ControlRequest, settingsPath: String?, explicitPath: String?, reloader: SettingsReloader
    ) async -> ControlAnswer {
        // The file in use now, else the user's file (created from the documented defaults).
        let path = (try? Settings.locate(explicit: explicitPath))?.path ?? settingsPath ?? Settings.userConfigurationPath()
        do {
            let edit = try SettingsFileEditor.edit(path: path, create: true) { (document: inout SettingsDocument) throws(SettingsEditError) in
                try change(&document, request)
            }
            _ = await reloader.reload(reason: "a \(request.request) request on the socket")
            let what = edit.changes.isEmpty ? "nothing changed" : edit.changes.map(\.description).joined(separator: "; ")
            return ControlAnswer(class: "SETTINGS", ok: true, message: "\(what) (\(edit.path))")
        } catch {
            return ControlAnswer(class: "SETTINGS", ok: false, message: error.description)
        }
    }

    private static func change(_ document: inout SettingsDocument, _ request: ControlRequest) throws(SettingsEditError) {
        let value = request.value?.trimmingCharacters(in: .whitespaces) ?? ""
        switch request.request {
        case "units":
            let key = try SettingsKey("units")
            document.set(key, to: try key.parse(value))
        case "mode":
            let key = try SettingsKey("location.mode")
            document.set(key, to: try key.parse(value))
        case "unpin":
            document.remove(["location", "pin"])
        case "pin":
            let pin: Pin
            do {
                pin = try CoordinateParser.parse(value)
            } catch {
                throw SettingsEditError(.invalidRequest, "pin: \(error)")
            }
            try document.setPin(pin.coordinate, name: request.name ?? pin.name)
        default:
            throw SettingsEditError(.invalidRequest, "\(request.request) does not change settings")
        }
    }
}
