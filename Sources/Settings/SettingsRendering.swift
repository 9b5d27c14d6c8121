import Foundation

extension Settings {
    /// The effective value of the documented key at `keyPath`, as the file would write it.
    ///
    /// Secrets come back as what may be shown (``Secret/shownAs``), never as themselves; keys that
    /// are off by an empty string (`static_file`, `socket_group`, `api_key_file`) come back as `""`.
    /// `nil` when the key has no value: the pin's keys without a pin, its name without a name, and
    /// paths that are not keys.
    public func value(at keyPath: [String]) -> SettingsValue? {
        switch keyPath {
        case ["units"]: .string(units.rawValue)
        case ["refresh_minutes"]: .integer(refreshMinutes)
        case ["location", "mode"]: .string(location.mode.rawValue)
        case ["location", "refresh_distance_km"]: .number(location.refreshDistanceKm)
        case ["location", "naming"]: .string(location.naming.rawValue)
        case ["location", "static_file"]: .string(location.staticFile ?? "")
        case ["location", "max_speed_kmh"]: .number(location.maxSpeedKmh)
        case ["location", "pin", "latitude"]: location.pin.map { .number($0.coordinate.latitude) }
        case ["location", "pin", "longitude"]: location.pin.map { .number($0.coordinate.longitude) }
        case ["location", "pin", "name"]: location.pin?.name.map { .string($0) }
        case ["location", "gpsd", "enabled"]: .boolean(location.gpsd.enabled)
        case ["location", "gpsd", "host"]: .string(location.gpsd.host)
        case ["location", "gpsd", "port"]: .integer(location.gpsd.port)
        case ["location", "gpsd", "max_fix_age_seconds"]: .integer(location.gpsd.maxFixAgeSeconds)
        case ["location", "gpsd", "recent_fix_minutes"]: .integer(location.gpsd.recentFixMinutes)
        case ["location", "ip", "enabled"]: .boolean(location.ip.enabled)
        case ["location", "ip", "services"]: .strings(location.ip.services.map(\.rawValue))
        case ["location", "ip", "ipinfo_url"]: .string(location.ip.url(for: .ipinfo).absoluteString)
        case ["location", "ip", "ipapi_url"]: .string(location.ip.url(for: .ipapi).absoluteString)
        case ["location", "ip", "ifconfig_url"]: .string(location.ip.url(for: .ifconfig).absoluteString)
        case ["location", "ip", "ip_api_url"]: .string(location.ip.url(for: .ipAPI).absoluteString)
        case ["providers", "order"]: .strings(providers.order.map(\.rawValue))
        case ["providers", "coordinate_precision"]: .integer(providers.coordinatePrecision)
        case ["providers", "open_meteo", "url"]: .string(providers.openMeteo.url.absoluteString)
        case ["providers", "open_meteo", "timeout_seconds"]: .integer(providers.openMeteo.timeoutSeconds)
        case ["providers", "open_meteo", "geocoding_url"]: .string(providers.openMeteo.geocodingURL?.absoluteString ?? "")
        case ["providers", "met_norway", "url"]: .string(providers.metNorway.url.absoluteString)
        case ["providers", "met_norway", "contact"]: .string(providers.metNorway.contact)
        case ["providers", "met_norway", "timeout_seconds"]: .integer(providers.metNorway.timeoutSeconds)
        case ["providers", "openweathermap", "url"]: .string(providers.openWeatherMap.url.absoluteString)
        case ["providers", "openweathermap", "api_key"]: .string(providers.openWeatherMap.apiKey?.shownAs ?? "")
        case ["providers", "openweathermap", "api_key_file"]: .string(providers.openWeatherMap.apiKeyFile ?? "")
        case ["providers", "openweathermap", "one_call"]: .boolean(providers.openWeatherMap.oneCall)
        case ["providers", "openweathermap", "timeout_seconds"]: .integer(providers.openWeatherMap.timeoutSeconds)
        case ["output", "status_file"]: .string(output.statusFile)
        case ["output", "socket"]: .string(output.socket)
        case ["output", "socket_group"]: .string(output.socketGroup ?? "")
        case ["output", "max_clients"]: .integer(output.maxClients)
        case ["display", "icons"]: .string(display.icons.rawValue)
        case ["display", "hot_celsius"]: .number(display.hotCelsius)
        case ["display", "cold_celsius"]: .number(display.coldCelsius)
        case ["history", "retention_days"]: .integer(history.retentionDays)
        default: nil
        }
    }

    /// The settings as a TOML document with every key, for `forecastctl config show`.
    ///
    /// It reads back to the same settings, except for the API key: a secret is written as
    /// `"(set)"`, `"(from file PATH)"` or `"(from $VARIABLE)"`, never as itself.
    ///
    /// - Parameter origin: what the settings came from, for the opening comment (a path, or
    ///   "the built-in defaults").
    public func toml(origin: String) -> String {
        var lines = ["# The settings in effect, from \(origin)."]
        for table in SettingsSchema.tables where !table.isArrayOfTables {
            if table.path == ["location", "pin"] && location.pin == nil {
                lines += ["", "# No [location.pin]."]
                continue
            }
            let keys = table.keys.filter { SettingsSchema.valueTypes[table.path + [$0]] != nil }
            guard !keys.isEmpty else { continue }
            if !table.path.isEmpty {
                lines += ["", "[\(SettingsDecoder.render(keyPath: table.path))]"]
            }
            for key in keys {
                guard let value = value(at: table.path + [key]) else { continue }
                lines.append("\(SettingsDecoder.render(keyPath: [key])) = \(value.toml)")
            }
        }
        for file in output.files {
            lines += [
                "", "[[output.files]]",
                "path = \(SettingsDecoder.quote(file.path))",
                "format = \(SettingsDecoder.quote(file.format.rawValue))",
                "template = \(SettingsDecoder.quote(file.template))",
                "icons = \(SettingsDecoder.quote(file.icons.rawValue))",
            ]
        }
        for city in cities {
            lines += ["", "[[cities]]"] + city.tomlLines
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension Settings.City {
    /// The keys of the city's `[[cities]]` table, one `key = value` a line, in documentation order;
    /// keys without a value (no region, no date) are left out, and `id` is written only when it is
    /// not the derived one.
    public var tomlLines: [String] {
        var lines = ["name = \(SettingsDecoder.quote(name))"]
        if let admin1 { lines.append("admin1 = \(SettingsDecoder.quote(admin1))") }
        if let countryCode { lines.append("country = \(SettingsDecoder.quote(countryCode))") }
        lines.append("latitude = \(SettingsValue.number(coordinate.latitude).toml)")
        lines.append("longitude = \(SettingsValue.number(coordinate.longitude).toml)")
        lines.append("favorite = \(favorite)")
        if let added { lines.append("added = \(added)") }
        if let explicitID, explicitID != CityID.derived(name: name, countryCode: countryCode) {
            lines.append("id = \(SettingsDecoder.quote(explicitID))")
        }
        return lines
    }
}
