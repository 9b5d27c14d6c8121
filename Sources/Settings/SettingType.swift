import ForecastModel
import Localization
import Foundation

/// Why a value was refused: what is wrong and what would be accepted.
struct SettingsRefusal: Error, Sendable, Hashable {
    var message: String
    var allowed: String?

    init(_ message: String, allowed: String? = nil) {
        self.message = message
        self.allowed = allowed
    }
}

/// What a key accepts and how its value is written: the type column of the settings table.
///
/// A value read from the file is first checked for its TOML type (``valueType``), then given to
/// ``accept``, which checks its range or spelling and turns it into the type ``Settings`` holds. The
/// messages are those users see after `PATH:LINE:COLUMN: key:`.
struct SettingType<Value: Sendable>: Sendable {
    /// The kind of TOML value the key holds.
    var valueType: SettingsValueType
    /// What is allowed, as error messages say it: `1...1440`, `"metric", "imperial"`; nil when any
    /// value of the type is.
    var allowed: String?
    /// What is allowed, as the documentation says it: `1 to 1440`, `"metric" or "imperial"`.
    var documented: String?
    var accept: @Sendable (SettingsValue) -> Result<Value, SettingsRefusal>
    /// The value as the file writes it; nil when the key is then left out (a pin without a name).
    var represent: @Sendable (Value) -> SettingsValue?
}

// The factories are declared for every `SettingType` so that `.integer(1...10)` and chains such as
// `.absolutePath.emptyMeansNone` are found from a row's key path type.
extension SettingType {
    /// `true` or `false`.
    static var boolean: SettingType<Bool> {
        SettingType<Bool>(
            valueType: .boolean,
            accept: { value in
                guard case .boolean(let boolean) = value else { return .failure(SettingsRefusal("expected a boolean")) }
                return .success(boolean)
            }, represent: { .boolean($0) })
    }

    /// An integer within `range`.
    static func integer(_ range: ClosedRange<Int>) -> SettingType<Int> {
        let allowed = "\(range.lowerBound)...\(range.upperBound)"
        return SettingType<Int>(
            valueType: .integer, allowed: allowed, documented: "\(range.lowerBound) to \(range.upperBound)",
            accept: { value in
                guard case .integer(let integer) = value else {
                    return .failure(SettingsRefusal("expected an integer"))
                }
                guard range.contains(integer) else {
                    return .failure(SettingsRefusal("\(integer) is out of range", allowed: allowed))
                }
                return .success(integer)
            }, represent: { .integer($0) })
    }

    /// A number within `range`; an integer is accepted where a fraction is allowed (`latitude = 45`).
    static func number(_ range: ClosedRange<Double>) -> SettingType<Double> {
        let low = TOMLText.bound(range.lowerBound)
        let high = TOMLText.bound(range.upperBound)
        let allowed = "\(low)...\(high)"
        return SettingType<Double>(
            valueType: .number, allowed: allowed, documented: "\(low) to \(high)",
            accept: { value in
                let number: Double
                let written: String
                switch value {
                case .integer(let integer): (number, written) = (Double(integer), String(integer))
                case .number(let double): (number, written) = (double, "\(double)")
                default: return .failure(SettingsRefusal("expected a number"))
                }
                // NaN fails `contains`, so it is refused here too.
                guard range.contains(number) else {
                    return .failure(SettingsRefusal("\(written) is out of range", allowed: allowed))
                }
                return .success(number)
            }, represent: { .number($0) })
    }

    /// Any string, trimmed of the characters in `trimming`.
    static func string(trimming characters: CharacterSet = []) -> SettingType<String> {
        SettingType<String>(
            valueType: .string,
            accept: { value in
                guard case .string(let string) = value else { return .failure(SettingsRefusal("expected a string")) }
                return .success(string.trimmingCharacters(in: characters))
            }, represent: { .string($0) })
    }

    /// A string that goes into an HTTP header (the User-Agent's contact), trimmed of spaces: no control
    /// characters, since a line break would end the header (and every request would then fail) and the others
    /// are refused by servers.
    static func headerText(_ allowed: String) -> SettingType<String> {
        string(trimming: .whitespaces).refined(allowed: allowed) { string in
            guard let offset = string.unicodeScalars.firstIndex(where: { $0.properties.generalCategory == .control })
            else { return .success(string) }
            let scalar = string.unicodeScalars[offset]
            let position = string.unicodeScalars.distance(from: string.unicodeScalars.startIndex, to: offset) + 1
            let name =
                switch scalar {
                case "\n": "a line feed (\\n)"
                case "\r": "a carriage return (\\r)"
                case "\t": "a tab (\\t)"
                default: "the control character U+\(String(format: "%04X", scalar.value))"
                }
            return .failure(
                SettingsRefusal(
                    "holds \(name) at character \(position), which an HTTP header cannot carry", allowed: allowed))
        }
    }

    /// A string with something in it besides spaces; `allowed` says what belongs there.
    static func nonEmpty(_ allowed: String) -> SettingType<String> {
        string().refined(allowed: allowed) { string in
            string.trimmingCharacters(in: .whitespaces).isEmpty
                ? .failure(SettingsRefusal("must not be empty", allowed: allowed)) : .success(string)
        }
    }

    /// An absolute path to a file.
    static var absolutePath: SettingType<String> {
        let allowed = "a path starting with \"/\""
        return string().refined(allowed: allowed) { string in
            guard string.hasPrefix("/"), !string.hasSuffix("/"), !string.utf8.contains(0) else {
                return .failure(
                    SettingsRefusal("\(TOMLText.quote(string)) is not an absolute path to a file", allowed: allowed))
            }
            return .success(string)
        }
    }

    /// A path a Unix socket can be bound at: absolute, and within `sun_path`'s 108 bytes with its NUL.
    static var socketPath: SettingType<String> {
        absolutePath.refined(allowed: "at most 107 bytes") { path in
            guard path.utf8.count <= 107 else {
                return .failure(
                    SettingsRefusal(
                        "is \(path.utf8.count) bytes long, too long for a Unix socket path",
                        allowed: "at most 107 bytes"))
            }
            return .success(path)
        }
    }

    /// A group name, as `groupadd` accepts them.
    static var groupName: SettingType<String> {
        let allowed = "a group name such as \"forecastd\", or \"\" for the owner only"
        return string().refined(allowed: allowed) { group in
            guard group.utf8.count <= 32, group.wholeMatch(of: /[A-Za-z0-9_][A-Za-z0-9_.-]*\$?/) != nil else {
                return .failure(SettingsRefusal("\(TOMLText.quote(group)) is not a group name", allowed: allowed))
            }
            return .success(group)
        }
    }

    /// An ISO 3166-1 alpha-2 code, two ASCII letters in either case; kept upper-case.
    static var countryCode: SettingType<String> {
        let allowed = "an ISO 3166-1 alpha-2 code such as \"FR\", or no country key at all"
        return string().refined(allowed: allowed) { string in
            guard string.count == 2, string.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic })
            else {
                return .failure(SettingsRefusal("\(TOMLText.quote(string)) is not a country code", allowed: allowed))
            }
            return .success(string.uppercased())
        }
    }

    /// A TOML local date, `2026-11-22` without quotes.
    static var date: SettingType<CalendarDate> {
        SettingType<CalendarDate>(
            valueType: .date, allowed: SettingsValueType.dateAllowed,
            accept: { value in
                guard case .date(let date) = value else { return .failure(SettingsRefusal("expected a date")) }
                return .success(date)
            }, represent: { .date($0) })
    }

    /// A time of day on a 24-hour clock, `"07:30"`.
    static var timeOfDay: SettingType<TimeOfDay> {
        let allowed = "a time of day such as \"07:30\" (24-hour clock), or \"\" for none"
        return string().refined(allowed: allowed, documented: "a time such as \"07:30\"") { string in
            guard let time = TimeOfDay(string) else {
                return .failure(SettingsRefusal("\(TOMLText.quote(string)) is not a time of day", allowed: allowed))
            }
            return .success(time)
        } represent: {
            .string($0.description)
        }
    }

    /// A daily span of the clock, `"22:00-07:00"`, which may run past midnight.
    static var dailyPeriod: SettingType<DailyPeriod> {
        let allowed = "two times of day such as \"22:00-07:00\" (24-hour clock, not the same), or \"\" for none"
        return string().refined(allowed: allowed, documented: "a span such as \"22:00-07:00\"") { string in
            guard let period = DailyPeriod(string) else {
                return .failure(
                    SettingsRefusal("\(TOMLText.quote(string)) is not a span of the day", allowed: allowed))
            }
            return .success(period)
        } represent: {
            .string($0.description)
        }
    }

    /// This type, with "" meaning "none" (`nil`): `static_file = ""` turns the static file off.
    var emptyMeansNone: SettingType<Value?> {
        let accept = self.accept
        let represent = self.represent
        return SettingType<Value?>(
            valueType: valueType, allowed: allowed, documented: documented,
            accept: { value in
                if case .string("") = value { return .success(nil) }
                return accept(value).map { $0 }
            }, represent: { $0.flatMap(represent) ?? .string("") })
    }

    /// This type, with a key that is left out meaning `nil` (a pin without a name).
    var optional: SettingType<Value?> {
        let accept = self.accept
        let represent = self.represent
        return SettingType<Value?>(
            valueType: valueType, allowed: allowed, documented: documented, accept: { accept($0).map { $0 } },
            represent: { $0.flatMap(represent) })
    }

    /// This type, with `check` run on what it accepts.
    func refined(
        allowed: String? = nil, documented: String? = nil,
        _ check: @escaping @Sendable (Value) -> Result<Value, SettingsRefusal>
    ) -> SettingType<Value> {
        refined(allowed: allowed, documented: documented, check, represent: represent)
    }

    /// This type, with `check` turning what it accepts into another type, written back by `represent`.
    func refined<Refined>(
        allowed: String? = nil, documented: String? = nil,
        _ check: @escaping @Sendable (Value) -> Result<Refined, SettingsRefusal>,
        represent: @escaping @Sendable (Refined) -> SettingsValue?
    ) -> SettingType<Refined> {
        let accept = self.accept
        return SettingType<Refined>(
            valueType: valueType, allowed: allowed ?? self.allowed, documented: documented ?? self.documented,
            accept: { accept($0).flatMap(check) }, represent: represent)
    }

    /// One of `Choice`'s raw values; `noun` names what it is (`a unit system`).
    static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _: Choice.Type, noun: String
    )
        -> SettingType<Choice> where Choice.RawValue == String
    {
        let names = Choice.allCases.map { TOMLText.quote($0.rawValue) }
        return string().refined(allowed: names.joined(separator: ", "), documented: TOMLText.list(names)) { string in
            guard let choice = Choice(rawValue: string) else {
                return .failure(
                    SettingsRefusal("\(TOMLText.quote(string)) is not \(noun)", allowed: names.joined(separator: ", ")))
            }
            return .success(choice)
        } represent: {
            .string($0.rawValue)
        }
    }

    /// `"auto"` or the code of a language with a catalogue (``CatalogueLibrary/available``, English
    /// included). The file's documentation names no list, so that it stays the same as catalogues are added.
    static var language: SettingType<LanguageChoice> {
        let codes = CatalogueLibrary.available.sorted()
        let allowed = (["auto"] + codes).map(TOMLText.quote).joined(separator: ", ")
        return string().refined(
            allowed: allowed, documented: "\"auto\" or a language code such as \"es\" or \"pt_BR\""
        ) { string in
            if string == "auto" { return .success(.auto) }
            guard codes.contains(string) else {
                return .failure(SettingsRefusal("\(TOMLText.quote(string)) is not a language with a catalogue", allowed: allowed))
            }
            return .success(.code(string))
        } represent: {
            .string($0.description)
        }
    }

    /// A list of `Choice`'s raw values: not empty, none twice.
    static func choices<Choice: RawRepresentable & CaseIterable & Sendable & Equatable>(
        _: Choice.Type, noun: String
    )
        -> SettingType<[Choice]> where Choice.RawValue == String
    {
        let names = Choice.allCases.map { TOMLText.quote($0.rawValue) }
        let allowed = names.joined(separator: ", ")
        return SettingType<[Choice]>(
            valueType: .strings, allowed: allowed, documented: TOMLText.list(names),
            accept: { value in
                guard case .strings(let strings) = value else { return .failure(SettingsRefusal("expected names")) }
                var result: [Choice] = []
                for string in strings {
                    guard let choice = Choice(rawValue: string) else {
                        return .failure(SettingsRefusal("\(TOMLText.quote(string)) is not \(noun)", allowed: allowed))
                    }
                    guard !result.contains(choice) else {
                        return .failure(SettingsRefusal("\(TOMLText.quote(string)) is listed twice", allowed: allowed))
                    }
                    result.append(choice)
                }
                guard !result.isEmpty else {
                    return .failure(SettingsRefusal("must name at least one", allowed: allowed))
                }
                return .success(result)
            }, represent: { .strings($0.map(\.rawValue)) })
    }

    /// An http or https URL with a host.
    static var httpURL: SettingType<URL> {
        let allowed = "a URL such as \"https://api.open-meteo.com/v1/forecast\""
        return string().refined(allowed: allowed, documented: "an http or https URL") { string in
            guard let components = URLComponents(string: string),
                let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = components.host, !host.isEmpty,
                let url = components.url
            else {
                return .failure(
                    SettingsRefusal("\(TOMLText.quote(string)) is not an http or https URL", allowed: allowed))
            }
            return .success(url)
        } represent: {
            .string($0.absoluteString)
        }
    }
}

extension SettingType {
    /// A tile server's URL template as Leaflet reads it: http or https, with `{z}`, `{x}` and `{y}`, and
    /// optionally `{s}` (a subdomain, a, b or c) and `{r}` (`@2x` on high-density screens); no other braces.
    static var tileURLTemplate: SettingType<String> {
        let allowed = "a URL such as \"https://tile.openstreetmap.org/{z}/{x}/{y}.png\""
        return string().refined(allowed: allowed, documented: "an http or https URL with {z}, {x} and {y}") {
            template in
            let refusal = SettingsRefusal(
                "\(TOMLText.quote(template)) is not a tile URL with {z}, {x} and {y}", allowed: allowed)
            guard ["{z}", "{x}", "{y}"].allSatisfy(template.contains) else { return .failure(refusal) }
            var filled = template
            for (placeholder, sample) in [("{s}", "a"), ("{z}", "1"), ("{x}", "1"), ("{y}", "1"), ("{r}", "")] {
                filled = filled.replacingOccurrences(of: placeholder, with: sample)
            }
            guard !filled.contains("{"), !filled.contains("}"), !filled.contains(where: \.isWhitespace),
                let components = URLComponents(string: filled),
                let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
            else { return .failure(refusal) }
            return .success(template)
        }
    }
}
