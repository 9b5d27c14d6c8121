import Control
import ForecastModel
import Foundation
import Settings

/// The settings-changing socket requests (`units`, `pin`, `unpin`, `mode`, `set`): the same edit
/// `forecastctl` makes (``SettingsFileEditor/apply(_:to:places:environment:)``, on the file the same
/// rule finds), then a reload, so the file stays the one source of truth.
enum SocketSettingsChange {
    static func apply(
        _ request: ControlRequest, explicitPath: String?, places: (any PlaceSearching)?, reloader: SettingsReloader
    ) async -> ControlAnswer {
        let value = request.value?.trimmingCharacters(in: .whitespaces) ?? ""
        let edit: SettingsEditRequest
        switch request.request {
        case "units": edit = .units(value)
        case "mode": edit = .mode(value)
        case "pin": edit = .pin(value, name: request.name)
        case "unpin": edit = .unpin
        case "set":
            // `set KEY VALUE`: the key is the first word.
            let key = value.prefix { $0 != " " }
            edit = .set(key: String(key), value: value.dropFirst(key.count).trimmingCharacters(in: .whitespaces))
        default:
            return ControlAnswer(class: "SETTINGS", ok: false, message: "\(request.request) does not change settings")
        }
        // A missing file is created only from what the daemon runs on, and only when no file is named.
        let inEffect = await reloader.inEffect
        let target = SettingsEditTarget.locate(
            explicit: explicitPath, inEffect: inEffect.settings, defaults: inEffect.defaults)
        do {
            let outcome = try SettingsFileEditor.apply(edit, to: target, places: places)
            if outcome.edit?.written == true {
                _ = await reloader.reload(reason: "a \(request.request) request on the socket")
            }
            return ControlAnswer(class: "SETTINGS", ok: true, message: outcome.message)
        } catch {
            return ControlAnswer(class: "SETTINGS", ok: false, message: error.description)
        }
    }
}
