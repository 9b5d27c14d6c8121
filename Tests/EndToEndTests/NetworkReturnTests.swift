import ForecastModel
import Foundation
import TestSupport
import Testing

extension NetworkQuietTests {
    /// The network going away and coming back while the daemon runs, in a network namespace of the test's own:
    /// the daemon runs inside it (`ip netns exec`) and reaches the replay server over a veth pair whose inner end
    /// the test takes down and brings up. Needs root and iproute2 (scripts/deps --test); skipped without them.
    @Suite("The forecast when the network returns", .serialized)
    struct NetworkReturnTests {
        static var canMakeNamespaces: Bool {
            getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
        }

        /// Runs `ip ARGUMENTS`; throws with its output when it fails.
        @discardableResult
        static func ip(_ arguments: String...) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            guard process.terminationStatus == 0 else {
                throw TestFailure("ip \(arguments.joined(separator: " ")) failed: \(text)")
            }
            return text
        }

        @Test(
            "forecasts that failed offline (here's and the listed cities') are fetched within seconds of the link coming up, not after their backoff",
            .enabled(if: canMakeNamespaces), .timeLimit(.minutes(2)))
        func fetchedWhenLinkComesUp() async throws {
            // Names of this run's own: another run (or a crashed one) never meets them.
            let tag = String(UInt32.random(in: 0...0xFFFFF), radix: 16)
            let namespace = "fd-net-\(tag)", outer = "fdo\(tag)", inner = "fdi\(tag)"
            let subnet = "10.\(200 + Int.random(in: 0...50)).\(Int.random(in: 0...255))"
            try Self.ip("netns", "add", namespace)
            defer {
                _ = try? Self.ip("link", "del", outer)
                _ = try? Self.ip("netns", "del", namespace)
            }
            try Self.ip("link", "add", outer, "type", "veth", "peer", "name", inner, "netns", namespace)
            try Self.ip("addr", "add", "\(subnet).1/30", "dev", outer)
            try Self.ip("link", "set", outer, "up")
            try Self.ip("-n", namespace, "addr", "add", "\(subnet).2/30", "dev", inner)
            try Self.ip("-n", namespace, "link", "set", "lo", "up")
            // The inner end stays down: the daemon starts with no route to the provider.

            let server = try await ReplayServer.start(host: "\(subnet).1")
            defer { Task { try? await server.shutdown() } }
            server.setRoute(path: "/v1/forecast", .json(try samaraResponse()))
            // With two listed cities: theirs failed offline too, and come back with here's.
            let text =
                settingsText(
                    gpsdPort: nil, openMeteoURL: server.url("/v1/forecast"), pin: (53.2, 50.15, nil), mode: "pinned")
                + CitiesDaemonTests.cities
            let daemon = try DaemonProcess.start(config: text, wrapper: ["/usr/sbin/ip", "netns", "exec", namespace])
            defer { _ = Task { await daemon.stop() } }
            try await daemon.waitForSocket()
            try await daemon.wait(for: "the first fetch to fail offline") {
                try await socketReport(daemon.socketPath).errors.contains { $0.kind == "offline" }
            }
            #expect(server.requestCount(path: "/v1/forecast") == 0)

            // The first retry after an offline failure is 30 s away; the wake comes within the jitter (5 s).
            let up = ContinuousClock.now
            try Self.ip("-n", namespace, "link", "set", inner, "up")
            try await daemon.wait(for: "the forecasts after the link came up", timeout: .seconds(15)) {
                let report = try await socketReport(daemon.socketPath)
                return report.current != nil && report.cities?.count == 2
                    && report.cities?.allSatisfy { $0.report.current != nil } == true
            }
            let latency = ContinuousClock.now - up
            // Well before the backoff's retry, about 30 s after the failure.
            #expect(latency < .seconds(10))
            #expect(server.requestCount(path: "/v1/forecast") == 3)
            #expect(daemon.log.contains("The network or the clock changed"))
        }
    }
}
