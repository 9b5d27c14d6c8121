import Foundation

/// How forecastd names itself to web services, made once by each program from its version.
///
/// The strings are kept byte for byte: services' terms (MET Norway's, Nominatim's) and their logs know
/// them, and a generic client string gets 403 from some.
public struct UserAgent: Sendable, Hashable {
    /// forecastd's version (`0.3.0`).
    public var version: String

    public init(version: String) {
        self.version = version
    }

    /// `forecastd/0.3.0 (weather daemon for status bars)`: for services whose terms ask no contact.
    public var daemon: String { "forecastd/\(version) (weather daemon for status bars)" }

    /// `forecastd/0.3.0 (me@example.org)`: product, version and a way to reach the operator, which MET
    /// Norway's terms and every warning service ask for; `forecastd/0.3.0` when no contact is set.
    public func identifying(contact: String?) -> String {
        guard let contact = contact?.trimmingCharacters(in: .whitespaces), !contact.isEmpty else {
            return "forecastd/\(version)"
        }
        return "forecastd/\(version) (\(contact))"
    }

    /// `forecastctl/0.3.0`: the command line's own lookups.
    public var forecastctl: String { "forecastctl/\(version)" }
}
