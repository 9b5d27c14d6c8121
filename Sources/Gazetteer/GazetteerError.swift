/// Why the gazetteer's data could not be found, opened or trusted.
public enum GazetteerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or mapped; `reason` is the system's message.
    case cannotOpen(path: String, reason: String)
    /// The file opened but is not a gazetteer this build can read: truncated, corrupt or of another version.
    case invalidFile(path: String, problem: String)
    /// No gazetteer file exists at any of the places looked at, listed in search order.
    case dataNotFound(tried: [String])

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open the gazetteer \(path): \(reason)"
        case .invalidFile(let path, let problem):
            return "the gazetteer \(path) is not usable: \(problem); "
                + "rebuild it with scripts/build-gazetteer.py or reinstall forecastd"
        case .dataNotFound(let tried):
            return "no gazetteer data (gazetteer.bin) found; looked at: \(tried.joined(separator: ", ")); "
                + "set \(Gazetteer.pathVariable) to the file's path"
        }
    }
}
