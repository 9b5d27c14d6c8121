import Control
import ForecastModel
import Foundation
import Settings
import Waiting

/// The settings-changing socket requests (`units`, `pin`, `unpin`, `mode`, `set`): the same edit
/// `forecastctl` makes (``SettingsFileEditor/apply(_:to:places:environment:)``, on the file the same
/// rule finds), then a reload, so the file stays the one source of truth.
package enum SocketSettingsChange {
    /// - Parameters:
    ///   - inEffect: the settings the daemon runs on and the built-in defaults of its environment.
    ///   - reload: reads the settings file again and applies it (the reloader's), for the reason given.
    package static func apply(
        _ edit: SettingsEditRequest, explicitPath: String?, places: (any PlaceSearching)?,
        inEffect: @Sendable () async -> (settings: Settings, defaults: Settings),
        reload: @Sendable (String) async -> Void
    ) async -> ControlAnswer {
        // A missing file is created only from what the daemon runs on, and only when no file is named.
        let inEffect = await inEffect()
        let target = SettingsEditTarget.locate(
            explicit: explicitPath, inEffect: inEffect.settings, defaults: inEffect.defaults)
        do {
            // The edit waits for the settings directory's lock (flock: as long as a forecastctl edit holds it)
            // and writes with two fsyncs: on the blocking thread, so the event loops keep answering.
            let outcome = try await Blocking.run { () throws(SettingsEditError) in
                try SettingsFileEditor.apply(edit, to: target, places: places)
            }
            if outcome.edit?.written == true {
                await reload("a \(ControlRequest.change(edit).name.rawValue) request on the socket")
            }
            return ControlAnswer(.settings, ok: true, message: outcome.message)
        } catch {
            return ControlAnswer(.settings, ok: false, message: error.description)
        }
    }
}
