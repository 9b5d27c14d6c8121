import ArgumentParser
import Control
import ForecastModel
import Foundation
import Rendering
import Settings

#if canImport(Glibc)
    import Glibc
#endif

// The commands status bars run: watch, refresh, forecast, and the formats of status.

/// The `--format` and `--icons` options of status and watch.
struct FormatOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Output format: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "FORMAT"))
    var format: OutputFormat?

    @Option(
        name: .long,
        help: ArgumentHelp("Icon set: \(IconSet.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "SET"))
    var icons: IconSet?

    @Option(name: .long, help: ArgumentHelp("Template for --format template, e.g. '%c %t' or '{icon} {temp}'.", valueName: "TEXT"))
    var template: String?

    @Option(
        name: .long, help: ArgumentHelp("One of the listed cities (its id or name) instead of here.", valueName: "CITY"),
        completion: Completions.cityIDs)
    var city: String?

    func validate() throws {
        if let template {
            do { _ = try Template(template) } catch { throw ValidationError("--template: \(error)") }
        }
    }

    /// How the daemon renders the report for `report` and `watch`.
    var reportOptions: ReportOptions {
        ReportOptions(format: format, icons: icons, template: template, city: city)
    }

    /// What a bar shows when there is no daemon and no status file: a neutral "no data" (with the icon set's
    /// ``IconSet/noDataGlyph``, one the bar's grey can colour, or none; never a sky condition), grey, class
    /// `unavailable`; never empty, never an exit code that would hide the module. Every line of the format
    /// (three for i3blocks).
    func unavailableLine(_ reason: String, phrases: Phrases = .english) -> String {
        let format = format ?? .text
        let words = phrases.translation.text("no data", context: "bar")
        let glyph = (icons ?? format.defaultIcons).noDataGlyph
        let text = glyph.map { $0 + " " + words } ?? words
        func json(_ object: [String: Any]) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
        switch format {
        case .json: return ControlReply.error(ControlErrorMessage(message: reason)).line
        case .waybar: return json(["text": text, "alt": "unavailable", "tooltip": reason, "class": ["unavailable"]])
        case .i3statusRust: return json(["icon": "", "state": "Idle", "text": text, "short_text": glyph ?? words])
        case .polybar: return "%{F\(BarColor.stale)}\(text)%{F-}"
        case .i3blocks: return "\(text)\n\(glyph ?? words)\n\(BarColor.stale)"
        default: return text
        }
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the report now and again on every change, one line each, until interrupted.",
        discussion: """
            For bars that read a command's output continuously (Waybar `exec` without `interval`, i3blocks \
            `interval=persist`, polybar `tail = true`). --city shows one listed city; --rotate N shows here and \
            each listed city in turn, N seconds each. A line follows a change of the report, and of the \
            [display] settings (language, icons, thresholds). When the daemon is not running or goes away, the \
            last report it wrote to its status file is shown (with --rotate, here and each city in it in \
            turn), marked stale once it no longer holds (the daemon is gone, or the file's time has passed), \
            and followed (inotify) until the daemon's socket is back; with no status file either, a neutral \
            "no data" line. Lines say times, not ages ("stale since 12:22"): they stay on show. It never exits \
            with an error a bar would hide the module for.
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var output: FormatOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Show here and then each listed city in turn, this many seconds each (a bar that rotates).",
            valueName: "SECONDS"))
    var rotate: Int?

    func validate() throws {
        if let rotate, !(1...3600).contains(rotate) {
            throw ValidationError("--rotate \(rotate): out of range (allowed: 1 to 3600 seconds)")
        }
        if rotate != nil, output.city != nil {
            throw ValidationError("--rotate and --city cannot be used together: --rotate shows every city in turn")
        }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)
        let settings = (try? global.loadSettings()) ?? Settings.defaults(isSystemService: false)
        let path = global.socketPath(settings)
        let file = StatusFileReport(path: global.statusFile(settings), city: output.city)
        var away = DaemonAwayWait(statusFile: file.path, socket: path)
        let writer = BarLineWriter()
        if let rotate {
            try rotating(path: path, file: file, settings: settings, away: &away, writer: writer, every: rotate)
            return
        }
        var last: String?
        /// One line per change: a persistent bar block reads one line per update.
        func show(_ text: String) -> Bool {
            let line = firstLine(text)
            guard line != last else { return true }
            last = line
            return writer.emit(line)
        }
        while true {
            do {
                let client = try ControlClient(socketPath: path, timeout: .seconds(86_400 * 365))
                try client.send(ControlRequest.watch(output.reportOptions).line)
                away.served()
                while true {
                    let line = try client.readAnswer()
                    if case .error = ControlReply(line: line) {
                        // A bad format or template: say it once and stop, it will not get better.
                        FileHandle.standardError.write(Data("forecastctl: \(line)\n".utf8))
                        throw ExitCode(64)
                    }
                    guard show(line) else { return }
                }
            } catch let error as ControlClientError {
                // The daemon is away: its last report, marked stale once it no longer holds, until its socket
                // is back. The line stays on show: times, not ages. The settings are read again: the language,
                // icons or thresholds may have changed since the watch started.
                away.arm()
                let settings = (try? global.loadSettings()) ?? settings
                let reading = file.read(socketSaysNotRunning: error.daemonNotRunning)
                let text =
                    reading.map { output.render($0, settings, lasting: true) }
                    ?? output.unavailableLine(error.description, phrases: settings.phrases)
                guard show(text) else { return }
                _ = away.wait(until: reading?.holdsUntil)
            }
        }
    }

    /// Here, then each listed city, one line each `seconds` apart, rendered by the daemon; the list of
    /// cities is read again at every round, so cities added or removed are followed. While the daemon is
    /// away, the same rotation from the reports in its status file, marked stale (a round ends early when
    /// the socket or the file changes, so the daemon's return shows at once); with one report or none, that
    /// line alone until something changes, as a plain watch shows it.
    private func rotating(
        path: String, file: StatusFileReport, settings: Settings, away: inout DaemonAwayWait, writer: BarLineWriter,
        every seconds: Int
    ) throws {
        var last: String?
        while true {
            do {
                let whole = try ControlClient(socketPath: path).request(.report(ReportOptions()))
                let cities = (try? ReportJSON.decode(whole))?.cities?.map(\.id) ?? []
                away.served()
                last = nil
                for city in [nil] + cities.map(Optional.some) {
                    var options = output.reportOptions
                    options.city = city
                    let line = try ControlClient(socketPath: path).request(.report(options))
                    if case .error = ControlReply(line: line), city == nil {
                        FileHandle.standardError.write(Data("forecastctl: \(line)\n".utf8))
                        throw ExitCode(64)
                    }
                    guard writer.emit(line) else { return }
                    sleep(UInt32(seconds))
                }
            } catch let error as ControlClientError {
                away.arm()
                let settings = (try? global.loadSettings()) ?? settings
                let readings = file.rotation(socketSaysNotRunning: error.daemonNotRunning)
                let lines = readings.map { firstLine(output.render($0, settings, lasting: true)) }
                guard lines.count > 1 else {
                    let line =
                        lines.first ?? firstLine(output.unavailableLine(error.description, phrases: settings.phrases))
                    if line != last {
                        guard writer.emit(line) else { return }
                        last = line
                    }
                    _ = away.wait(until: readings.first?.holdsUntil)
                    continue
                }
                last = nil
                for line in lines {
                    guard writer.emit(line) else { return }
                    if away.wait(until: readings.first?.holdsUntil, atMost: .seconds(seconds)) { break }
                }
            }
        }
    }

    /// The line a persistent bar block reads per update: the first of a format's lines (i3blocks has three).
    private func firstLine(_ text: String) -> String {
        (output.format ?? .text).lineCount > 1 ? String(text.prefix { $0 != "\n" }) : text
    }
}

struct Refresh: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch the forecast now, and say how it went.",
        discussion: "Exit codes: 0 a new forecast was fetched; 1 the fetch failed (the message says why); 69 no daemon.")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reportingFailures {
            let settings = try global.loadSettings()
            let answer: String
            do throws(ControlClientError) {
                // The daemon answers when the fetch is done: allow for the provider's timeouts.
                let client = try ControlClient(socketPath: global.socketPath(settings), timeout: .seconds(120))
                answer = try client.request(.refresh)
            } catch {
                throw CommandFailure(message: error.description, exitCode: error.daemonNotRunning ? .unavailable : .requestFailed)
            }
            guard case .outcome(let reply) = ControlReply(line: answer) else {
                throw CommandFailure(message: "unexpected answer: \(answer.prefix(200))", exitCode: .requestFailed)
            }
            let said = Self.say(reply, settings.phrases)
            guard reply.ok else { throw CommandFailure(message: said, exitCode: .requestFailed) }
            print(said)
        }
    }
}

extension Refresh {
    /// The daemon's answer in forecastctl's language, from what it names (`outcome`, `provider`, `error`,
    /// `retry_at`); its English message when it names nothing this version knows. A provider's error stays
    /// in the provider's words.
    static func say(_ reply: ControlAnswer, _ phrases: Phrases) -> String {
        let translation = phrases.translation
        switch reply.outcome {
        case "fetched":
            return translation.text(
                "fetched a new forecast from {provider}", context: "forecastctl", ["provider": reply.provider ?? "?"])
        case "no_position":
            return translation.text("no position to fetch a forecast for", context: "forecastctl")
        case "too_soon":
            // The time as the daemon gives it (RFC 3339, UTC): exact, and with its date.
            return translation.text(
                "the last attempt failed moments ago ({problem}); the next one is due at {time}", context: "forecastctl",
                ["problem": reply.error ?? "", "time": reply.retryAt ?? "?"])
        case "failed":
            return translation.text("the fetch failed: {problem}", context: "forecastctl", ["problem": reply.error ?? reply.message])
        case "following":
            return translation.text(
                "this forecastd follows {topic} on MQTT and asks no provider itself", context: "forecastctl",
                ["topic": reply.provider ?? "?"])
        default:
            return reply.message
        }
    }
}

struct ForecastCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forecast",
        abstract: "Today and the next 6 days as a table, with a temperature chart.")

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("Icon set: \(IconSet.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "SET"))
    var icons: IconSet = .emoji

    func run() throws {
        try reportingFailures {
            let settings = try global.loadSettings()
            let fetched = try fetchReport(
                socketPath: global.socketPath(settings), statusFile: global.statusFile(settings),
                phrases: settings.phrases)
            let report: Report
            do {
                report = try ReportJSON.decode(fetched.line)
            } catch {
                throw CommandFailure(message: "the report is not valid JSON: \(error)", exitCode: .requestFailed)
            }
            print(ForecastTable.render(report, width: terminalWidth(), icons: icons, phrases: settings.phrases))
        }
    }
}

/// The width of the terminal standard output goes to; else `COLUMNS`; else 80.
func terminalWidth() -> Int {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
    return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
}

/// The report the socket answers, or, when the daemon does not answer for any reason (not running, refusing,
/// closed mid-answer), the one in the status file, judged as it is read (``StatusFileReading``: marked stale
/// when it no longer holds) and said on stderr.
struct FetchedReport {
    /// The report line as the daemon published it; from the file, with `stale` as judged.
    var line: String
    /// Why the daemon is away, when the report came from the status file and the file says it no longer holds.
    var absence: DaemonAbsence?
}

func fetchReport(
    socketPath: String, statusFile: String, request: ControlRequest = .report(ReportOptions()),
    phrases: Phrases = .english
) throws -> FetchedReport {
    do throws(ControlClientError) {
        let client = try ControlClient(socketPath: socketPath)
        return FetchedReport(line: try client.request(request), absence: nil)
    } catch {
        let translation = phrases.translation
        guard let whole = StatusFileReport.readWhole(statusFile) else {
            throw CommandFailure(
                message: translation.text(
                    "{problem}, and there is no status file at {path}", context: "forecastctl",
                    ["problem": error.description, "path": statusFile]),
                exitCode: error.daemonNotRunning ? .unavailable : .requestFailed)
        }
        let reading = StatusFileReading.judge(whole, now: Date(), socketSaysNotRunning: error.daemonNotRunning)
        let why =
            error.daemonNotRunning
            ? translation.text("forecastd is not running", context: "absence")
            : translation.text("forecastd did not answer ({problem})", context: "forecastctl", ["problem": error.description])
        note(
            translation.text(
                "{why}; showing the last report it wrote to {path}", context: "forecastctl",
                ["why": why, "path": statusFile]))
        return FetchedReport(line: ReportJSON.line(reading.report), absence: reading.absence)
    }
}
