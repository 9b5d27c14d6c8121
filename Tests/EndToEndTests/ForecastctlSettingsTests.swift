import Control
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real `forecastctl` editing settings files in a private XDG directory: what it prints, its exit
/// codes, and the exact bytes it leaves in the file.
@Suite("forecastctl settings commands")
struct ForecastctlSettingsTests {
    static let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")

    /// A private home for one test: `XDG_CONFIG_HOME` is `<directory>/config`, `XDG_RUNTIME_DIR` `<directory>/run`.
    struct Home {
        let directory: URL
        let environment: [String: String]
        var userFile: String { directory.path + "/config/forecastd/forecastd.toml" }
        var socketPath: String { directory.path + "/run/forecastd/forecastd.sock" }

        init() throws {
            directory = try DaemonProcess.makeDirectory()
            environment = DaemonProcess.environment(for: directory)
        }

        func run(_ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runTool(ForecastctlSettingsTests.forecastctl, arguments, environment: environment)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test("units, mode, set, pin and unpin create the user file from the settings in effect and change only values")
    func editsCreateAndChange() async throws {
        let home = try Home()
        defer { home.remove() }
        let path = home.userFile

        let units = try await home.run("units", "imperial")
        #expect(units.status == 0)
        #expect(
            units.stdout == "created \(path) from the settings in effect\nunits: metric → imperial (\(path))\n")
        #expect(units.stderr == "forecastctl: the daemon is not running; it will read the change when it starts\n")
        // The documented file holding the settings in effect (IP geolocation off in the test environment).
        var expected = documentedInTestEnvironment.replacingOccurrences(
            of: "\nunits = \"metric\"\n", with: "\nunits = \"imperial\"\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(home.directory.path + "/config/forecastd", &info) == 0 && info.st_mode & 0o777 == 0o700)

        let again = try await home.run("units", "imperial")
        #expect(again.status == 0)
        #expect(again.stdout == "units: imperial, unchanged (\(path))\n")

        let set = try await home.run("set", "providers.order", "[\"met-norway\",\"open-meteo\"]")
        #expect(set.status == 0)
        #expect(
            set.stdout
                == "providers.order: [\"open-meteo\", \"met-norway\"] → [\"met-norway\", \"open-meteo\"] (\(path))\n")
        expected = expected.replacingOccurrences(
            of: "order = [\"open-meteo\", \"met-norway\"]", with: "order = [\"met-norway\", \"open-meteo\"]")
        let port = try await home.run("set", "location.gpsd.port", "2948")
        #expect(port.stdout == "location.gpsd.port: 2947 → 2948 (\(path))\n")
        expected = expected.replacingOccurrences(of: "\nport = 2947\n", with: "\nport = 2948\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)

        let beforePin = expected
        let pin = try await home.run("pin", "geo:-34.9011,-56.1645;u=20", "--name", "Montevideo")
        #expect(pin.status == 0)
        #expect(pin.stdout == "location.pin: (none) → -34.9011, -56.1645 \"Montevideo\" (\(path))\n")
        #expect(pin.stderr.contains("mode is \"auto\""))
        expected += "\n[location.pin]\nlatitude = -34.9011\nlongitude = -56.1645\nname = \"Montevideo\"\n"
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)

        let mode = try await home.run("mode", "pinned")
        #expect(mode.stdout == "location.mode: auto → pinned (\(path))\n")
        expected = expected.replacingOccurrences(of: "\nmode = \"auto\"\n", with: "\nmode = \"pinned\"\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == expected)

        // A Google Maps link gives the coordinates and the place's name; the pin is rewritten in place.
        let google = try await home.run(
            "pin", "https://www.google.com/maps/place/Tour+Eiffel/@48.8583701,2.2944813,17z/data=!3m1!4b1")
        #expect(google.status == 0)
        #expect(
            google.stdout
                == "location.pin: -34.9011, -56.1645 \"Montevideo\" → 48.85837, 2.294481 \"Tour Eiffel\" (\(path))\n")

        // Unpinning in pinned mode goes back to auto; the file is then what it was before the pin.
        let unpin = try await home.run("unpin")
        #expect(unpin.status == 0)
        #expect(
            unpin.stdout
                == "location.pin: 48.85837, 2.294481 \"Tour Eiffel\" → (none) (\(path))\n"
                + "location.mode: pinned → auto (\(path))\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == beforePin)
    }

    /// A settings file kept by hand, with the comments and layout an edit must not disturb.
    static let handWritten = """
        # forecastd — my settings
        # units = "imperial"    <- for the trip to Chicago
        units = "metric"   # back home

        [location]
        mode = "auto"        # gpsd first
        # latitude = 61.5    (the cottage; see the pin below)

        # [location.pin]
        # latitude = 61.5
        # longitude = 23.7

        [location.gpsd]
          host = "127.0.0.1"   # the local gpsd
          # port = 2947

        # done.

        """

    @Test("edits of a heavily commented file change only the intended bytes, LF and CRLF alike")
    func handWrittenFile() async throws {
        let home = try Home()
        defer { home.remove() }
        for lineEnding in ["\n", "\r\n"] {
            let original = Self.handWritten.replacingOccurrences(of: "\n", with: lineEnding)
            let path = home.directory.path + "/hand.toml"
            try Data(original.utf8).write(to: URL(fileURLWithPath: path))

            let units = try await home.run("units", "imperial", "--config", path)
            #expect(units.status == 0)
            let port = try await home.run("set", "--config", path, "location.gpsd.port", "2948")
            #expect(port.status == 0, "\(port.stderr)")
            let icons = try await home.run("set", "display.icons", "nerd", "--config", path)
            #expect(icons.status == 0)
            let expected = """
                # forecastd — my settings
                # units = "imperial"    <- for the trip to Chicago
                units = "imperial"   # back home

                [location]
                mode = "auto"        # gpsd first
                # latitude = 61.5    (the cottage; see the pin below)

                # [location.pin]
                # latitude = 61.5
                # longitude = 23.7

                [location.gpsd]
                  host = "127.0.0.1"   # the local gpsd
                  port = 2948
                  # port = 2947

                # done.

                [display]
                icons = "nerd"

                """.replacingOccurrences(of: "\n", with: lineEnding)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected.utf8))

            let pin = try await home.run("pin", "61.5", "23.7", "--config", path)
            #expect(pin.status == 0)
            let unpin = try await home.run("unpin", "--config", path)
            #expect(unpin.status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(expected.utf8))
        }
    }

    @Test("refused edits leave the file byte for byte and exit 64 or 78 with the reason")
    func refusals() async throws {
        let home = try Home()
        defer { home.remove() }
        let path = home.directory.path + "/forecastd.toml"
        try Data(Self.handWritten.utf8).write(to: URL(fileURLWithPath: path))
        let original = try Data(contentsOf: URL(fileURLWithPath: path))

        let cases: [([String], Int32, String)] = [
            (
                ["set", "units", "kelvin"], 64,
                "forecastctl: the change would make the settings invalid, so \(path) was not changed:\n"
                    + "  units: \"kelvin\" is not a unit system (allowed: \"metric\", \"imperial\", \"uk\", \"si\")\n"
            ),
            (
                ["set", "refresh_minutes", "soon"], 64,
                "forecastctl: refresh_minutes: \"soon\" is not an integer (example: 15)\n"
            ),
            (
                ["set", "location.gpsd.port", "70000"], 64,
                "forecastctl: the change would make the settings invalid, so \(path) was not changed:\n"
                    + "  location.gpsd.port: 70000 is out of range (allowed: 1...65535)\n"
            ),
            (
                ["set", "colour", "red"], 64,
                "forecastctl: colour is not a settings key "
                    + "(allowed: units, refresh_minutes, units.…, location.…, providers.…, output.…, display.…, history.…, "
                    + "warnings.…, nowcast.…, air.…, notifications.…, mqtt.…, map.…)\n"
            ),
            (
                ["set", "units"], 64,
                "forecastctl: set needs a KEY and a VALUE, e.g. `forecastctl set units imperial`\n"
            ),
            (["units", "kelvin"], 64, ""),
            (["mode", "gps"], 64, ""),
            (
                ["mode", "pinned"], 64,
                "forecastctl: the change would make the settings invalid, so \(path) was not changed:\n"
                    + "  location.mode: \"pinned\" needs a [location.pin] table with latitude and longitude\n"
            ),
            (
                ["pin", "Nowhereville Qwx"], 64,
                "forecastctl: \"Nowhereville Qwx\" is not a coordinate, a map link or a known place (places of 1000 inhabitants and more)\n"
            ),
            (["pin", "95,10"], 64, "forecastctl: latitude 95 is out of range (allowed: -90...90)\n"),
            (
                ["pin", "0,0"], 64,
                "forecastctl: 0, 0 is \"null island\", where receivers without a fix claim to be (allowed: any other point)\n"
            ),
            (["pin", "48.85"], 64, ""),
            (
                ["pin", "geo:48.85,2.35;crs=nad27"], 64,
                "forecastctl: geo: URI in the coordinate reference system \"nad27\" (allowed: wgs84)\n"
            ),
            (["pin", "https://www.openstreetmap.org/about"], 64, ""),
            (["set", "output.files.path", "/x"], 64, ""),
        ]
        for (arguments, status, stderr) in cases {
            let result = try await runTool(
                Self.forecastctl, arguments + ["--config", path], environment: home.environment)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            if !stderr.isEmpty {
                #expect(result.stderr == stderr, "\(arguments)")
            } else {
                #expect(!result.stderr.isEmpty, "\(arguments) said nothing")
            }
            #expect(result.stdout == "", "\(arguments)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original, "\(arguments) changed the file")
        }

        // A file that has errors is left alone, with every problem and its place.
        let broken = "units = \"metric\"\n[location.gpsd]\nport = \"2947\"  # quoted by mistake\n"
        try Data(broken.utf8).write(to: URL(fileURLWithPath: path))
        for arguments in [["units", "imperial"], ["pin", "48.85,2.35"], ["unpin"], ["set", "refresh_minutes", "30"]] {
            let result = try await runTool(
                Self.forecastctl, arguments + ["--config", path], environment: home.environment)
            #expect(result.status == 78, "\(arguments)")
            #expect(
                result.stderr
                    == "forecastctl: \(path) has errors, so it was left as it is; fix them first:\n"
                    + "\(path):3:8: location.gpsd.port: expected an integer, found a string\n")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == broken)
        }
    }

    @Test("an edit of a named settings file that does not exist, or is no settings file, is refused with exit 78")
    func missingNamedFile() async throws {
        let home = try Home()
        defer { home.remove() }
        let path = home.directory.path + "/gone.toml"
        for arguments in [["units", "imperial"], ["pin", "48.85,2.35"], ["set", "refresh_minutes", "30"], ["unpin"]] {
            let result = try await runTool(Self.forecastctl, arguments + ["--config", path], environment: home.environment)
            #expect(result.status == 78, "\(arguments)")
            #expect(
                result.stderr
                    == "forecastctl: \(path) does not exist, so nothing was written: the settings in effect may have "
                    + "come from it, and a new file would undo them. Restore it, or start one with "
                    + "`forecastctl config default > \(path)`\n", "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        // A directory or a binary file where the settings file should be is a settings problem too.
        let binary = home.directory.path + "/binary.toml"
        try Data([0x75, 0x6E, 0xFF, 0xFE, 0x00]).write(to: URL(fileURLWithPath: binary))
        for (named, problem) in [(home.directory.path, "is a directory, not a settings file"), (binary, "is not UTF-8 text (allowed: a UTF-8 TOML file)")] {
            let result = try await runTool(Self.forecastctl, ["units", "imperial", "--config", named], environment: home.environment)
            #expect(result.status == 78, "\(named)")
            #expect(result.stderr == "forecastctl: \(named): \(problem)\n")
        }
        let generated = try await home.run("config", "default")
        #expect(generated.status == 0)
        #expect(generated.stdout == (try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("config/forecastd.toml"), encoding: .utf8)))
    }

    @Test("config path, show and check")
    func configCommands() async throws {
        let home = try Home()
        defer { home.remove() }

        let none = try await home.run("config", "path")
        #expect(none.status == 0)
        #expect(
            none.stdout
                == "(none: the built-in defaults apply; edits create \(home.userFile))\nsearched, in order:\n"
                + "  \(home.userFile)  (the user's file): not found\n"
                + "  /etc/forecastd/forecastd.toml  (the system's file): not found\n")
        let defaultsCheck = try await home.run("config", "check")
        #expect(defaultsCheck.status == 0)
        #expect(defaultsCheck.stdout == "no settings file: the built-in defaults apply: OK\n")

        _ = try await home.run("units", "imperial")
        let found = try await home.run("config", "path")
        #expect(found.stdout == "\(home.userFile)\nsearched, in order:\n  \(home.userFile)  (the user's file): used\n")
        let check = try await home.run("config", "check")
        #expect(check.status == 0)
        #expect(check.stdout == "\(home.userFile): OK\n")

        // The key is set through forecastctl, and never printed back.
        let secret = "owm-0123456789abcdef"
        let setKey = try await home.run("set", "providers.openweathermap.api_key", secret)
        #expect(setKey.status == 0)
        #expect(setKey.stdout == "providers.openweathermap.api_key: \"\" → (set) (\(home.userFile))\n")
        let show = try await home.run("config", "show")
        #expect(show.status == 0)
        #expect(show.stdout.hasPrefix("# The settings in effect, from \(home.userFile).\nunits = \"imperial\"\n"))
        #expect(
            show.stdout.contains(
                "\n[providers.openweathermap]\nurl = \"https://api.openweathermap.org\"\napi_key = \"(set)\"\n"))
        #expect(show.stdout.contains("\nsocket = \"\(home.socketPath)\"\n"))
        #expect(!show.stdout.contains(secret) && !show.stderr.contains(secret) && !setKey.stdout.contains(secret))

        // Readable by others: a warning, with the fix.
        chmod(home.userFile, 0o644)
        let warned = try await home.run("config", "check")
        #expect(warned.status == 0)
        #expect(
            warned.stderr
                == "forecastctl: warning: \(home.userFile): holds an API key and is readable by other users; "
                + "chmod 600 \(home.userFile)\n")

        let bad = home.directory.path + "/bad.toml"
        try "units = \"kelvin\"\nrefresh_minutes = 0\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let badCheck = try await home.run("config", "check", bad)
        #expect(badCheck.status == 78)
        #expect(badCheck.stdout == "")
        #expect(
            badCheck.stderr
                == "\(bad):1:9: units: \"kelvin\" is not a unit system (allowed: \"metric\", \"imperial\", \"uk\", \"si\")\n"
                + "\(bad):2:19: refresh_minutes: 0 is out of range (allowed: 1...1440)\n")
        let badShow = try await home.run("config", "show", "--config", bad)
        #expect(badShow.status == 78)
        let missing = try await home.run("config", "check", home.directory.path + "/missing.toml")
        #expect(missing.status == 78)
        #expect(missing.stderr == "\(home.directory.path)/missing.toml: no such file\n")
        let explicitPath = try await home.run("config", "path", "--config", bad)
        #expect(explicitPath.stdout == "\(bad)\nsearched, in order:\n  \(bad)  (named by --config): used\n")
    }

    @Test("reload: exit 69 without a daemon; a listening daemon gets `reload` after each edit and from the command")
    func reload() async throws {
        let home = try Home()
        defer { home.remove() }

        let absent = try await home.run("reload")
        #expect(absent.status == 69)
        #expect(absent.stderr == "forecastctl: \(home.socketPath): forecastd is not running (no one listens there)\n")

        try FileManager.default.createDirectory(
            atPath: home.directory.path + "/run/forecastd", withIntermediateDirectories: true)
        let reloaded = #"{"class":"RELOAD","ok":true,"message":"reloaded /x/forecastd.toml: changed units"}"#
        let daemon = try ListeningSocket(path: home.socketPath, answer: reloaded)
        defer { daemon.stop() }

        let units = try await home.run("units", "imperial")
        #expect(units.status == 0)
        #expect(units.stderr == "forecastctl: forecastd: reloaded /x/forecastd.toml: changed units\n")
        let reload = try await home.run("reload")
        #expect(reload.status == 0)
        #expect(reload.stdout == "reloaded /x/forecastd.toml: changed units\n")
        // An edit that changes nothing writes nothing and does not disturb the daemon.
        _ = try await home.run("units", "imperial")
        #expect(try daemon.requests().map(ControlRequest.parse) == [.reload, .reload])

        daemon.answer = #"{"class":"RELOAD","ok":false,"message":"the settings file has errors; the last good settings stay in force"}"#
        let invalid = try await home.run("reload")
        #expect(invalid.status == 78)
        #expect(
            invalid.stderr == "forecastctl: forecastd: the settings file has errors; the last good settings stay in force\n")

        daemon.answer = #"{"class":"ERROR","message":"reload is not available"}"#
        let refused = try await home.run("reload")
        #expect(refused.status == 1)
        #expect(refused.stderr == "forecastctl: forecastd: reload is not available\n")
        let edited = try await home.run("units", "metric")
        #expect(edited.status == 0)
        #expect(edited.stderr == "forecastctl: forecastd did not reload (reload is not available); it follows the file by itself\n")
    }

    @Test("a kill at any moment of a write leaves the old file or the new one, never a mix")
    func killDuringWrite() async throws {
        let home = try Home()
        defer { home.remove() }
        let path = home.directory.path + "/large.toml"
        // Nearly the 1 MiB a settings file may have, as a file with very long comments would be, so that
        // writing takes a while.
        let padding = String(repeating: "# " + String(repeating: "padding, ", count: 10) + "\n", count: 11_000)
        let first = "units = \"metric\"\nrefresh_minutes = 15\n" + padding + "[location]\nmode = \"auto\"\n"
        try Data(first.utf8).write(to: URL(fileURLWithPath: path))
        #expect(first.utf8.count > 1_000_000 && first.utf8.count <= 1 << 20)
        let environment = home.environment
        let binary = Self.forecastctl

        let outcome = try await onOwnThread { () throws -> (old: Int, new: Int, killed: Int) in
            func start(_ minutes: Int) throws -> Process {
                let process = Process()
                process.executableURL = binary
                process.arguments = ["set", "refresh_minutes", String(minutes), "--config", path]
                process.environment = environment
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                return process
            }
            // One uninterrupted run tells how long an edit takes here.
            let clock = ContinuousClock()
            let began = clock.now
            let timing = try start(15)
            timing.waitUntilExit()
            let fullRun = began.duration(to: clock.now)
            let fullMicroseconds =
                Int(fullRun.components.seconds) * 1_000_000 + Int(fullRun.components.attoseconds / 1_000_000_000_000)

            var counts = (old: 0, new: 0, killed: 0)
            var minutes = 15
            for _ in 0..<30 {
                let before = try Data(contentsOf: URL(fileURLWithPath: path))
                let next = minutes == 15 ? 16 : 15
                // The value is on the second line: the new file is the old one with that line's value changed.
                let oldHead = Data("units = \"metric\"\nrefresh_minutes = \(minutes)\n".utf8)
                let newHead = Data("units = \"metric\"\nrefresh_minutes = \(next)\n".utf8)
                guard before.starts(with: oldHead) else { throw TestFailure("the file does not start as written") }
                var after = newHead
                after.append(before.dropFirst(oldHead.count))
                let process = try start(next)
                usleep(UInt32.random(in: 0...UInt32(fullMicroseconds * 6 / 5)))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                if process.terminationReason == .uncaughtSignal { counts.killed += 1 }
                let now = try Data(contentsOf: URL(fileURLWithPath: path))
                if now == before {
                    counts.old += 1
                } else if now == after {
                    counts.new += 1
                    minutes = next
                } else {
                    throw TestFailure("after a kill the file is neither the old nor the new bytes (\(now.count) bytes)")
                }
            }
            return counts
        }
        #expect(outcome.old + outcome.new == 30)
        // Kills landed mid-write: the old bytes survived them. (Whether a kill also landed after the
        // rename depends on the machine's speed, so it is not required.)
        #expect(outcome.killed > 0)
        #expect(outcome.old > 0)
        // Whatever was left behind, the file is valid and editable.
        let check = try await home.run("config", "check", path)
        #expect(check.status == 0)
    }
}

/// A Unix socket that speaks the daemon's greeting and answers every request line with `answer`,
/// recording the requests: the part of forecastd that `forecastctl reload` talks to.
final class ListeningSocket: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()
    private var received: [String] = []
    private var currentAnswer: String

    var answer: String {
        get { lock.withLock { currentAnswer } }
        set { lock.withLock { currentAnswer = newValue } }
    }

    init(path: String, answer: String) throws {
        currentAnswer = answer
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(descriptor, 8) == 0 else {
            throw TestFailure("cannot listen on \(path): \(String(cString: strerror(errno)))")
        }
        Thread { [self] in serve() }.start()
    }

    func requests() -> [String] { lock.withLock { received } }

    func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
    }

    private func serve() {
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            write(client, #"{"class":"VERSION","release":"0.1.0","proto":1}"# + "\n")
            var line: [UInt8] = []
            var byte: UInt8 = 0
            while read(client, &byte, 1) == 1 {
                guard byte != UInt8(ascii: "\n") else {
                    let request = String(decoding: line, as: UTF8.self)
                    let reply = lock.withLock {
                        received.append(request)
                        return currentAnswer
                    }
                    write(client, reply + "\n")
                    line = []
                    continue
                }
                line.append(byte)
            }
            close(client)
        }
    }

    private func write(_ descriptor: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}
