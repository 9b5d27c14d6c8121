import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Writes one readable line per log message to stderr: `LEVEL: message key=value …`.
///
/// Under systemd (`JOURNAL_STREAM` is set) the line starts with a `<N>` syslog priority prefix
/// and no timestamp: journald adds its own and maps the prefix to the entry's priority.
public struct LineLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let journald: Bool

    public init(label: String, level: Logger.Level, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.label = label
        self.logLevel = level
        self.journald = environment["JOURNAL_STREAM"] != nil
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var line = journald ? "<\(Self.syslogPriority(event.level))>" : Timestamp.now() + " "
        line += "\(event.level.rawValue): \(event.message)"
        for key in merged.keys.sorted() {
            line += " \(key)=\(Self.quoted("\(merged[key]!)"))"
        }
        line += "\n"
        // One write(2) per line: lines from different threads never interleave.
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { raw in
            _ = Glibc.write(STDERR_FILENO, raw.baseAddress, raw.count)
        }
    }

    private static func quoted(_ value: String) -> String {
        if !value.isEmpty, !value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }) { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }

    private static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private enum Timestamp {
        static func now() -> String {
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            var parts = tm()
            var seconds = time.tv_sec
            localtime_r(&seconds, &parts)
            return String(
                format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec, time.tv_nsec / 1_000_000)
        }
    }
}
