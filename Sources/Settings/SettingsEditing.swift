import ForecastModel
import Foundation

/// What an edit does when the file to edit does not exist.
public enum MissingSettingsFile: Sendable, Hashable {
    /// Refuse, and write nothing: the settings in effect did not come from a file this edit can see
    /// (a named file that was deleted), so a new file could only undo them.
    case refuse
    /// Create the file from the settings in effect (``Settings/documentedText(settings:defaults:)``),
    /// so that the edit is all that changes: `settings` are those in effect, `defaults` those of the
    /// environment they were made in.
    case create(from: Settings, defaults: Settings)
}

/// The settings file an edit changes, and what to do if it is missing.
public struct SettingsEditTarget: Sendable, Hashable {
    /// The file.
    public var path: String
    public var whenMissing: MissingSettingsFile

    public init(path: String, whenMissing: MissingSettingsFile) {
        self.path = path
        self.whenMissing = whenMissing
    }

    /// The file an edit changes, by the one rule `forecastctl` and the daemon's socket share.
    ///
    /// A file named by `--config PATH` (`explicit`) or `$FORECASTD_CONFIG` is edited as named, and
    /// refused when it does not exist: the settings in effect may have come from it before it went,
    /// and only the user knows what it should say. Otherwise the file in use (the user's or the
    /// system's) is edited. With none, the user's file is created from `inEffect`, the settings in
    /// effect, which are then the built-in defaults of `defaults`' environment.
    public static func locate(
        explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
        systemPath: String = Settings.systemConfigurationPath, inEffect: Settings, defaults: Settings
    ) -> SettingsEditTarget {
        if let explicit {
            return SettingsEditTarget(path: explicit, whenMissing: .refuse)
        }
        if let named = environment["FORECASTD_CONFIG"], !named.isEmpty {
            return SettingsEditTarget(path: named, whenMissing: .refuse)
        }
        let source = try? Settings.locate(explicit: nil, environment: environment, systemPath: systemPath)
        if let path = source?.path {
            return SettingsEditTarget(path: path, whenMissing: .refuse)
        }
        return SettingsEditTarget(
            path: Settings.userConfigurationPath(environment: environment),
            whenMissing: .create(from: inEffect, defaults: defaults))
    }
}

/// What an edit request did, for people: the lines to print or answer, and notes beside them.
public struct SettingsEditOutcome: Sendable, Hashable {
    /// The file edited, as ``SettingsFileEditor/edit(_:environment:_:)`` reports it; nil when nothing
    /// had to be written and there is no file (unpin without a settings file).
    public var edit: SettingsFileEdit?
    /// What changed, one `key: old → new (PATH)` a line (the pin as one line), or what stays.
    public var lines: [String]
    /// What else to know: the place a name was taken to mean, the mode a pin is used in.
    public var notes: [String]

    /// The lines and notes as one line, for the socket's answer.
    public var message: String { (lines + notes).joined(separator: "; ") }
}

extension SettingsFileEditor {
    /// Applies `request` to the file of `target`, and says what changed.
    ///
    /// - Parameters:
    ///   - places: looks up place names for ``SettingsEditRequest/pin(_:name:)``; without it only
    ///     coordinates, `geo:` URIs and map links are understood.
    ///   - environment: the environment the result is validated in.
    /// - Throws: ``SettingsEditError``; nothing was written.
    public static func apply(
        _ request: SettingsEditRequest, to target: SettingsEditTarget, places: (any PlaceSearching)?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SettingsEditError) -> SettingsEditOutcome {
        var notes: [String] = []
        let edit: SettingsFileEdit
        let unchanged: String
        switch request {
        case .units(let words):
            let (key, value) = try SettingsEditRequest.unitsEdit(words)
            (edit, unchanged) = try set(key, value, in: target, environment: environment)
        case .mode(let value):
            (edit, unchanged) = try set("location.mode", value, in: target, environment: environment)
        case .set(let key, let value):
            (edit, unchanged) = try set(key, value, in: target, environment: environment)
        case .pin(let text, let name):
            let pin = try resolvePin(text, places: places, notes: &notes)
            edit = try self.edit(target, environment: environment) { document throws(SettingsEditError) in
                try document.setPin(pin.coordinate, name: name ?? pin.name)
            }
            unchanged = "location.pin: \(describe(edit.settings.location.pin))"
            if edit.settings.location.mode == .auto {
                notes.append(
                    "mode is \"auto\": the pin is used when no other source knows the position; "
                        + "`forecastctl mode pinned` uses it always")
            }
        case .unpin:
            if !FileManager.default.fileExists(atPath: target.path), case .create = target.whenMissing {
                return SettingsEditOutcome(
                    edit: nil, lines: ["location.pin: (none), unchanged (there is no settings file)"], notes: [])
            }
            edit = try self.edit(target, environment: environment) { document throws(SettingsEditError) in
                let current = try? Settings.decode(
                    document.text, path: "",
                    defaults: Settings.defaults(environment: environment, isSystemService: false))
                if current?.location.mode == .pinned {
                    // Without a pin, "pinned" means nothing; "auto" is what is left.
                    document.set(try SettingsKey("location.mode"), to: .string(LocationMode.auto.rawValue))
                }
                document.remove(["location", "pin"])
            }
            unchanged = "location.pin: (none)"
        }
        return SettingsEditOutcome(edit: edit, lines: lines(edit, unchanged: unchanged), notes: notes)
    }

    /// Pins the position to `pin` and makes the mode `pinned`, in one edit (one check, one atomic write):
    /// `forecastctl pick`'s "Pin here", after which the forecast is for the place chosen whatever gpsd or
    /// IP geolocation say. `pin` alone keeps the mode (see ``SettingsEditRequest/pin(_:name:)``).
    public static func pinAndUse(
        _ pin: Pin, to target: SettingsEditTarget,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SettingsEditError) -> SettingsEditOutcome {
        let edit = try self.edit(target, environment: environment) { document throws(SettingsEditError) in
            try document.setPin(pin.coordinate, name: pin.name)
            document.set(try SettingsKey("location.mode"), to: .string(LocationMode.pinned.rawValue))
        }
        let unchanged = "location.pin: \(describe(edit.settings.location.pin)), location.mode: pinned"
        return SettingsEditOutcome(edit: edit, lines: lines(edit, unchanged: unchanged), notes: [])
    }

    /// Sets the key named `dotted` to the value typed as `text`.
    private static func set(
        _ dotted: String, _ text: String, in target: SettingsEditTarget, environment: [String: String]
    ) throws(SettingsEditError) -> (SettingsFileEdit, unchanged: String) {
        let key = try SettingsKey(dotted)
        let value = try key.parse(text)
        let edit = try edit(target, environment: environment) { document throws(SettingsEditError) in
            document.set(key, to: value)
        }
        return (edit, "\(key): \(key.read(edit.settings)?.description ?? "(none)")")
    }

    /// The position `text` names: coordinates, a `geo:` URI or a map link, else a place name.
    private static func resolvePin(
        _ text: String, places: (any PlaceSearching)?, notes: inout [String]
    ) throws(SettingsEditError) -> Pin {
        let name: String
        do {
            return try CoordinateParser.parse(text)
        } catch .notACoordinate(let words) {
            name = words
        } catch {
            throw SettingsEditError(.invalidRequest, error.description)
        }
        switch places?.resolve(name) ?? .notFound {
        case .unique(let place):
            notes.append("\(name) is \(place.summary)")
            return Pin(coordinate: place.coordinate, name: place.name)
        case .ambiguous(let places):
            let list = places.map { "  " + $0.summary }.joined(separator: "\n")
            throw SettingsEditError(
                .invalidRequest,
                "\"\(name)\" matches several places; name one more precisely, e.g. \"\(name), "
                    + "\(places[0].countryCode)\":\n\(list)")
        case .notFound:
            throw SettingsEditError(
                .invalidRequest,
                "\"\(name)\" is not a coordinate, a map link or a known place (places of 1000 inhabitants and more)")
        }
    }

    /// What an edit changed, `key: old → new (PATH)` (the pin's keys as one line), or `unchanged`.
    static func lines(_ edit: SettingsFileEdit, unchanged: String) -> [String] {
        var lines: [String] = []
        if edit.created {
            lines.append("created \(edit.path) from the settings in effect")
        }
        let pinKeys = ["location.pin.latitude", "location.pin.longitude", "location.pin.name"]
        var changes = edit.changes.filter { !pinKeys.contains($0.key) }.map(\.description)
        if edit.changes.contains(where: { pinKeys.contains($0.key) }) {
            let before = pinBefore(edit)
            changes.insert("location.pin: \(describe(before)) → \(describe(edit.settings.location.pin))", at: 0)
        }
        if changes.isEmpty {
            return lines + ["\(unchanged), unchanged (\(edit.path))"]
        }
        return lines + changes.map { "\($0) (\(edit.path))" }
    }

    /// The pin before the edit, rebuilt from the changes (the edit keeps only the new settings).
    private static func pinBefore(_ edit: SettingsFileEdit) -> Pin? {
        func old(_ key: String, _ current: SettingsValue?) -> SettingsValue? {
            guard let change = edit.changes.first(where: { $0.key == key }) else { return current }
            return change.old
        }
        let pin = edit.settings.location.pin
        let latitude = old("location.pin.latitude", pin.map { .number($0.coordinate.latitude) })
        let longitude = old("location.pin.longitude", pin.map { .number($0.coordinate.longitude) })
        let name = old("location.pin.name", pin?.name.map { .string($0) })
        guard let latitude = latitude?.number, let longitude = longitude?.number else { return nil }
        return Pin(coordinate: Coordinate(latitude: latitude, longitude: longitude), name: name?.string)
    }

    /// `48.8566, 2.3522 "Paris"`, or `(none)`.
    static func describe(_ pin: Pin?) -> String {
        guard let pin else { return "(none)" }
        var text = "\(SettingsValue.number(pin.coordinate.latitude)), \(SettingsValue.number(pin.coordinate.longitude))"
        if let name = pin.name { text += " " + SettingsValue.string(name).toml }
        return text
    }
}
