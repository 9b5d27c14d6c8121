import Control
import ControlServer
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Many raw clients at once, served by one thread with poll(2): watchers by the hundred cost the
/// test no threads, and a client can be made to never read.
///
/// Its sockets block, so every call runs on a thread of its own (`onOwnThread`), never in the test's task: under
/// `.onEventLoops` that task sits on an event loop, perhaps the one the server under test accepts and answers on.
final class RawClients: @unchecked Sendable {
    private(set) var fds: [Int32] = []
    private var buffers: [[UInt8]] = []

    private init(count: Int, path: String) throws {
        for _ in 0..<count {
            fds.append(try connectedUnixSocket(path))
            buffers.append([])
        }
    }

    /// Connects `count` clients to the socket at `path`.
    static func connect(count: Int, path: String) async throws -> RawClients {
        try await onOwnThread { try RawClients(count: count, path: path) }
    }

    deinit { for fd in fds { close(fd) } }

    /// Sends `line` from every client.
    func sendAll(_ line: String) async throws {
        try await onOwnThread {
            for fd in self.fds {
                _ = (line + "\n").withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    /// Reads until the server has closed every client's connection (end of file), or the timeout; returns
    /// whether it has.
    func waitForClose(timeout: TimeInterval = 20) async throws -> Bool {
        try await onOwnThread { self.readUntilClosed(timeout: timeout) }
    }

    /// Reads until every client has at least `count` complete lines (or the timeout); returns the lines.
    func readLines(atLeast count: Int, timeout: TimeInterval = 20) async throws -> [[String]] {
        try await readLines(until: { $0.count >= count }, timeout: timeout)
    }

    /// Reads until `done` holds for every client's lines (or the timeout); returns the lines.
    func readLines(until done: @escaping @Sendable ([String]) -> Bool, timeout: TimeInterval = 20) async throws -> [[String]] {
        try await onOwnThread { self.read(until: done, timeout: timeout) }
    }

    private func readUntilClosed(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var open = Set(fds.indices)
        while !open.isEmpty, Date() < deadline {
            var polls = open.sorted().map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 200) > 0 else { continue }
            for (slot, index) in open.sorted().enumerated() where polls[slot].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let n = recv(fds[index], &chunk, chunk.count, 0)
                if n > 0 { buffers[index] += chunk[..<n] } else { open.remove(index) }
            }
        }
        return open.isEmpty
    }

    private func read(until done: ([String]) -> Bool, timeout: TimeInterval) -> [[String]] {
        let deadline = Date().addingTimeInterval(timeout)
        func lines(_ index: Int) -> [String] {
            String(decoding: buffers[index], as: UTF8.self).split(separator: "\n").map(String.init)
        }
        while Date() < deadline {
            let pending = fds.indices.filter { !done(lines($0)) }
            if pending.isEmpty { break }
            var polls = pending.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
            guard poll(&polls, nfds_t(polls.count), 200) > 0 else { continue }
            for (slot, index) in pending.enumerated() where polls[slot].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let n = recv(fds[index], &chunk, chunk.count, 0)
                if n > 0 { buffers[index] += chunk[..<n] }
            }
        }
        return fds.indices.map(lines)
    }
}

// Under `.onEventLoops` the test's task runs on an event loop that may be the server's: every blocking client
// (`RawClients`, `ControlClient`, a process's pipe) runs on a thread of its own.
@Suite("Socket protocol v1", .serialized, .onEventLoops)
struct SocketProtocolTests {
    let server = SocketServiceTests()

    @Test("report in every format, JSON requests, status, and clear errors for bad formats and templates")
    func formatsAndStatus() async throws {
        try await server.withServer { path, state in
            await state.forecastSucceeded(snowyForecast(), for: Coordinate(latitude: 46.5, longitude: 7.57))
            let answers = try await onOwnThread { () -> [String] in
                let client = try ControlClient(socketPath: path)
                return try [
                    "report format=waybar", #"{"request":"report","format":"tmux"}"#, "report format=i3blocks",
                    "report format=template template=%C:%t", "report format=html", "report format=template template=%x",
                    "report icons=wide", "status",
                ].map { try client.request($0) }
            }
            let report = await state.report
            let waybar = try JSONSerialization.jsonObject(with: Data(answers[0].utf8)) as? [String: Any]
            #expect(waybar?["text"] as? String == Renderer.render(report, as: .waybar, options: RenderOptions()).waybarText)
            #expect(answers[1] == Renderer.render(report, as: .tmux, options: RenderOptions()))
            #expect(!answers[2].contains("\n") && !answers[2].isEmpty)
            #expect(answers[3] == "Snow:4°C")
            #expect(answers[4].contains("unknown format") && answers[4].contains("html") && answers[4].contains("waybar"))
            #expect(answers[5].contains("bad template") && answers[5].contains("%x"))
            #expect(answers[6].contains("unknown icon set") && answers[6].contains("emoji-safe"))
            let status = try JSONDecoder.snakeCase.decode(DaemonStatus.self, from: Data(answers[7].utf8))
            #expect(status.class == "STATUS")
            #expect(status.clients == 1)
            #expect(status.locationSource == "pinned")
        }
    }

    @Test("200 watchers all get the report at once and again on every change; a reader that never reads delays nobody")
    func manyWatchers() async throws {
        let options = SocketService.Options(maxClients: 300)
        try await server.withServer(options: options) { path, state in
            // With data, so that a units switch changes what every format shows.
            await state.forecastSucceeded(snowyForecast(), for: Coordinate(latitude: 46.5, longitude: 7.57))
            // A client that asks to watch and never reads a byte.
            let stuck = try await RawClients.connect(count: 1, path: path)
            try await stuck.sendAll("watch")
            let watchers = try await RawClients.connect(count: 200, path: path)
            try await watchers.sendAll("watch format=text")
            // Greeting + the report now.
            let first = try await watchers.readLines(atLeast: 2)
            #expect(first.allSatisfy { $0.count >= 2 })

            // Many changes while the stuck one reads nothing: everyone else gets the last one.
            var configuration = await state.currentSettings
            for _ in 0..<20 {
                configuration.units = configuration.units == .metric ? .imperial : .metric
                await state.apply(configuration)
            }
            configuration.units = .imperial
            await state.apply(configuration)
            let expected = Renderer.render(await state.report, as: .text, options: RenderOptions())
            let after = try await watchers.readLines(until: { $0.last == expected })
            #expect(after.allSatisfy { $0.count >= 3 && $0.last == expected }, "\(after.first ?? [])")
            #expect(expected.contains("°F"))
            _ = stuck
        }
    }

    @Test("a watcher that stops reading is kept one line behind: when it reads again, a line or two, then the newest")
    func watcherThatStopsReading() async throws {
        try await server.withServer { path, state in
            // A full day of hours, so that a report is about the size of a real one (some 8 KB of JSON).
            var forecast = snowyForecast()
            forecast.hourly = (1...30).map { hour in
                HourlyForecast(
                    time: Date().addingTimeInterval(Double(hour) * 3600), temperature: 3.5, apparentTemperature: 1,
                    humidity: 80, precipitation: 0.2, precipitationProbability: 40, windSpeed: 12, windDirection: 200,
                    condition: .snow, isDay: true, dewPoint: 1, windGusts: 20, pressure: 1012, cloudCover: 90)
            }
            await state.forecastSucceeded(forecast, for: Coordinate(latitude: 46.5, longitude: 7.57))
            let stuck = try await RawClients.connect(count: 1, path: path)
            try await stuck.sendAll("watch")
            // Forty changes while it reads nothing at all.
            var configuration = await state.currentSettings
            for _ in 0..<40 {
                configuration.units = configuration.units == .metric ? .imperial : .metric
                await state.apply(configuration)
            }
            configuration.units = .imperial
            await state.apply(configuration)
            let newest = await state.reportLine
            #expect(newest.utf8.count > 6000, "a report of a realistic size: \(newest.utf8.count) bytes")
            let lines = try await stuck.readLines(until: { $0.last == newest })[0]
            #expect(lines.last == newest, "it gets the newest report")
            // The greeting, the report when it asked, what the kernel held for it (16 KiB: two reports at
            // most), the line on its way, the newest: never the forty it did not read.
            #expect(lines.count <= 6, "\(lines.count) lines: older reports were queued for a reader that did not read")
        }
    }

    @Test("at most max_clients at once, with a clear refusal; idle clients are dropped, watchers are not")
    func limits() async throws {
        var options = SocketService.Options(maxClients: 3)
        options.idleTimeout = .milliseconds(400)
        try await server.withServer(options: options) { path, _ in
            let three = try await RawClients.connect(count: 3, path: path)
            // Greetings: all three admitted. Each asks something, so none makes room for a newcomer
            // (a silent connection would).
            try await three.sendAll("status")
            _ = try await three.readLines(atLeast: 2)
            let fourth = try await RawClients.connect(count: 1, path: path)
            // The greeting comes from the event loop at once; the refusal follows it.
            let refused = try await fourth.readLines(atLeast: 2, timeout: 5)
            #expect(refused[0].last?.contains("too many clients (the limit is 3)") == true, "\(refused[0])")
            withExtendedLifetime(three) {}

            // After the idle timeout the server closes the three silent ones: new clients get in (once the
            // closed connections' tasks have ended and given their places back, just after the close).
            #expect(try await three.waitForClose())
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            var admitted: (client: RawClients, answer: [String])
            repeat {
                let client = try await RawClients.connect(count: 1, path: path)
                try await client.sendAll("watch")
                admitted = (client, try await client.readLines(atLeast: 2)[0])
            } while admitted.answer.contains(where: { $0.contains("too many clients") }) && ContinuousClock.now < deadline
            let watcher = admitted.client
            #expect(admitted.answer.last?.contains("\"schema\"") == true, "\(admitted.answer)")
            // A client that asks once after the watcher did and then stays silent: once the server has closed
            // it as idle, the watcher has been silent for longer than the idle timeout too.
            let idle = try await RawClients.connect(count: 1, path: path)
            try await idle.sendAll("status")
            #expect(try await idle.waitForClose())
            // The watcher outlived the idle timeout: its connection still answers.
            try await watcher.sendAll("status")
            let lines = try await watcher.readLines(until: { $0.contains { $0.contains("\"class\":\"STATUS\"") } })
            #expect(lines[0].contains { $0.contains("\"class\":\"STATUS\"") }, "\(lines[0])")
        }
    }

    @Test("another user may read but not change settings (peer credentials, socket group 0660)")
    func otherUserReadsOnly() async throws {
        var options = SocketService.Options(maxClients: 64)
        options.group = "nogroup"
        options.changeSettings = { _ in ControlAnswer(class: "SETTINGS", ok: true, message: "changed") }
        try await server.withServer(options: options, directoryMode: 0o755) { path, _ in
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o660 && info.st_gid == 65534)
            // socat as user nobody, group nogroup.
            let result = try await runTool(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c",
                 "printf 'report\\nunits imperial\\n' | /usr/bin/socat -t 2 - UNIX-CONNECT:\(path)"],
                environment: ["PATH": "/usr/bin:/bin"])
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3, "\(result.stdout)\(result.stderr)")
            #expect(lines.dropFirst().first?.contains("\"schema\":1") == true)
            #expect(lines.last?.contains("only its own user or root") == true)
            // The daemon's own user (root here) may.
            let own = try await onOwnThread { try ControlClient(socketPath: path).request("units imperial") }
            #expect(own.contains("\"ok\":true"))
        }
    }

    @Test("arguments a request does not take are answered with an ERROR naming what it takes, and the connection stays")
    func unknownArguments() async throws {
        var options = SocketService.Options(maxClients: 64)
        options.changeSettings = { _ in ControlAnswer(class: "SETTINGS", ok: true, message: "changed") }
        try await server.withServer(options: options) { path, _ in
            let answers = try await onOwnThread { () -> [String] in
                let client = try ControlClient(socketPath: path)
                return try [
                    "report junk", "report colour=red", "status format=json", "locate now", "units", "mode",
                    #"{"request":"report","colour":"red"}"#, #"{"request":"report","format":3}"#,
                    #"{"request":"status","value":"x"}"#, "unpin name=Home", "report format=tmux",
                ].map { try client.request($0) }
            }
            let errors = answers.dropLast()
            #expect(errors.allSatisfy { $0.hasPrefix(#"{"class":"ERROR""#) && !$0.contains("closed") }, "\(answers)")
            #expect(answers[0].contains(#"\"report\" does not take \"junk\" (it takes: format=, icons=, template=, city=)"#), "\(answers[0])")
            #expect(answers[1].contains(#"does not take \"colour=red\""#), "\(answers[1])")
            #expect(answers[2].contains(#"\"status\" does not take \"format=json\" (it takes: nothing)"#), "\(answers[2])")
            #expect(answers[3].contains(#"\"locate\" does not take \"now\""#), "\(answers[3])")
            #expect(answers[4].contains(#"\"units\" needs a value: a preset (metric, imperial, uk, si) or a quantity and its unit, e.g. wind kn"#), "\(answers[4])")
            #expect(answers[5].contains(#"\"mode\" needs a value: auto or pinned"#), "\(answers[5])")
            #expect(answers[6].contains(#"takes no member \"colour\" (it takes: request, format, icons, template, city)"#), "\(answers[6])")
            #expect(answers[7].contains(#"the member \"format\" must be a string"#), "\(answers[7])")
            #expect(answers[8].contains(#"\"status\" takes no member \"value\""#), "\(answers[8])")
            #expect(answers[9].contains(#"\"unpin\" does not take \"name=Home\""#), "\(answers[9])")
            // The connection stayed open through all of them.
            #expect(!answers[10].contains("ERROR") && !answers[10].isEmpty)
        }
    }

    @Test("a reader in socket_group holds at most half the places, so it cannot lock the owner out")
    func otherUserCannotFillTheTable() async throws {
        var options = SocketService.Options(maxClients: 4)
        options.group = "nogroup"
        try await server.withServer(options: options, directoryMode: 0o755) { path, _ in
            // User nobody opens four watchers, one after the other, and keeps them for 3 s.
            var nobody: [Task<(status: Int32, stdout: String, stderr: String), any Error>] = []
            for _ in 1...4 {
                nobody.append(
                    Task {
                        try await runTool(
                            URL(fileURLWithPath: "/usr/bin/setpriv"),
                            ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c",
                             "(echo watch; sleep 3) | /usr/bin/socat -T 2 - UNIX-CONNECT:\(path)"],
                            environment: ["PATH": "/usr/bin:/bin"])
                    })
                try await Task.sleep(for: .milliseconds(150))
            }
            try await Task.sleep(for: .seconds(1))
            // The owner still gets in while they are there.
            let own = try await onOwnThread { try ControlClient(socketPath: path).request("status") }
            #expect(own.contains("\"class\":\"STATUS\""), "\(own)")
            var lines: [Substring] = []
            for task in nobody { lines += try await task.value.stdout.split(separator: "\n") }
            // Two of nobody's four got a place; the other two were refused (socat may drop the
            // refusal's line when its own write fails first).
            #expect(lines.filter { $0.contains("\"schema\":1") }.count == 2, "\(lines)")
            #expect(!lines.contains { $0.contains("closed to make room") }, "\(lines)")
        }
    }

    @Test("refresh without a position says why; refresh and settings requests answer in one line")
    func refreshWithoutPosition() async throws {
        try await server.withServer { path, state in
            var configuration = await state.currentSettings
            configuration.location.mode = .auto
            configuration.location.pin = nil
            configuration.location.gpsd.enabled = false
            await state.apply(configuration)
            let answer = try await onOwnThread { try ControlClient(socketPath: path).request("refresh") }
            #expect(answer.contains("\"class\":\"REFRESH\""))
            #expect(answer.contains("\"ok\":false"))
            #expect(answer.contains("no position"))
        }
    }
}

/// A forecast with a temperature, so units show in every format.
func snowyForecast() -> Forecast {
    Forecast(
        provider: "open-meteo", attribution: "test", coordinate: Coordinate(latitude: 46.5, longitude: 7.57),
        fetchedAt: Date(), utcOffsetSeconds: 3600, timezone: "Europe/Zurich",
        current: CurrentConditions(time: Date(), temperature: 3.5, condition: .snow, isDay: true), hourly: [], daily: [])
}

extension String {
    /// The `text` member of a Waybar JSON line.
    fileprivate var waybarText: String? {
        (try? JSONSerialization.jsonObject(with: Data(utf8)) as? [String: Any])?["text"] as? String
    }
}

extension JSONDecoder {
    static var snakeCase: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
