import ForecastModel
import Foundation

/// The report's problems that come from outside the forecast and the position: the settings file, the
/// saves (state, history, status files) and the warning and air sources, each kept until it is fixed.
struct ReportProblems: Equatable {
    private var configuration: [ReportError] = []
    /// Failures to save, by what failed (kind `state`).
    private var storage: [String: ReportError] = [:]
    private(set) var alerts: [ReportError] = []

    /// Problems in the settings file. Returns whether they changed.
    mutating func setConfiguration(_ problems: [ReportError]) -> Bool {
        guard problems != configuration else { return false }
        configuration = problems
        return true
    }

    /// A failure to save `what` seen at `now`, or its end (`message` nil). The first failure's message
    /// stays while the streak lasts: the report changing is what makes the status file be written
    /// again, and a message that alternated would never let it settle. Returns whether anything changed.
    mutating func setStorage(_ what: String, message: String?, at now: Date) -> Bool {
        if let message {
            guard storage[what] == nil else { return false }
            storage[what] = ReportError(kind: .state, message: message, since: Timestamps.rfc3339(now))
            return true
        }
        return storage.removeValue(forKey: what) != nil
    }

    /// The warning and air sources' problems.
    mutating func setAlerts(_ problems: [ReportError]) { alerts = problems }

    /// The report's `errors`, in a fixed order, with `between` (the position's and the forecast's)
    /// after the settings' and the saves' and before the alerts'.
    func errors(between: [ReportError]) -> [ReportError] {
        configuration + storage.sorted { $0.key < $1.key }.map(\.value) + between + alerts
    }
}
