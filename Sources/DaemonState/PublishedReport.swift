import ForecastModel
import NIOCore
import Rendering

/// The report every reader gets, with its JSON line encoded once: the status file, the socket's
/// answers and watchers all read this one value, so no reader can see a report another has not.
public struct PublishedReport: Sendable {
    public let report: Report
    /// The report as one JSON line, without the newline.
    public let line: String
    /// `line` and a newline, ready for a socket: answering `report` copies nothing.
    package let lineBuffer: ByteBuffer
    /// What the report for here was made from (metric, before the user's units): what MQTT shares, so that a
    /// follower renders its own report from the publisher's values.
    public let inputs: ReportInputs
    /// What each listed city's report was made from, in the order of `report.cities`.
    public let cityInputs: [ReportInputs]

    init(_ report: Report, inputs: ReportInputs, cityInputs: [ReportInputs] = []) {
        self.report = report
        self.inputs = inputs
        self.cityInputs = cityInputs
        line = ReportJSON.line(report)
        var buffer = ByteBuffer(string: line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        lineBuffer = buffer
    }
}
