import ArgumentParser
import Control
import ForecastModel
import Foundation

/// `forecastctl locate`: what every position source says now, and which one the daemon uses.
struct LocateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Show what every position source says (gpsd, the static file, IP geolocation, the pin) and which one is used, and why.",
        discussion: """
            Sources are listed in the order auto mode prefers them; the one in use is marked with *. \
            Exit codes: 0 shown; 1 unexpected answer; 69 forecastd is not running.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .long, help: "Print the daemon's answer as JSON.")
    var json = false

    func run() throws {
        try reportingFailures {
            let settings = try global.loadSettings()
            let line: String
            do throws(ControlClientError) {
                let client = try ControlClient(socketPath: global.socketPath(settings))
                line = try client.request(.locate)
            } catch {
                throw CommandFailure(message: error.description, exitCode: error.daemonNotRunning ? .unavailable : .requestFailed)
            }
            guard case .locate(let answer) = ControlReply(line: line) else {
                throw CommandFailure(message: "unexpected answer: \(line.prefix(200))", exitCode: .requestFailed)
            }
            if json {
                print(line)
            } else {
                print(Self.text(answer), terminator: "")
            }
        }
    }

    /// The answer as a short table for people.
    static func text(_ answer: LocateAnswer) -> String {
        var text = "mode \(answer.mode): " + (answer.chosen.map { "using \($0)" } ?? "no position") + " (\(answer.reason))\n"
        let width = answer.sources.map(\.source.count).max() ?? 0
        for source in answer.sources {
            let marker = source.used ? "*" : " "
            let name = source.source.padding(toLength: width, withPad: " ", startingAt: 0)
            var position: String
            if let latitude = source.latitude, let longitude = source.longitude {
                position = String(format: "%.5f, %.5f", latitude, longitude)
                if let accuracy = source.accuracyM {
                    position += accuracy >= 1000 ? String(format: " ±%.0f km", accuracy / 1000) : String(format: " ±%.0f m", accuracy)
                }
            } else {
                position = source.state == .off ? "off" : source.state == .problem ? "problem" : "-"
            }
            text += "\(marker) \(name)  \(position.padding(toLength: 30, withPad: " ", startingAt: 0))  \(source.detail)\n"
        }
        return text
    }
}
