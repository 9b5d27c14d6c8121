import ForecastModel
import Foundation

/// The report as JSON, exactly as the status file and the socket carry it.
public enum ReportJSON {
    /// One line of JSON without a trailing newline.
    public static func line(_ report: Report) -> String {
        // Encoding a Report cannot fail: it holds only strings, finite numbers, bools and arrays.
        let data = (try? Report.makeEncoder().encode(report)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Indented JSON for people.
    public static func pretty(_ report: Report) -> String {
        let data = (try? Report.makeEncoder(pretty: true).encode(report)) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Parses a report line as written by ``line(_:)``.
    public static func decode(_ text: some StringProtocol) throws -> Report {
        try Report.makeDecoder().decode(Report.self, from: Data(text.utf8))
    }
}
