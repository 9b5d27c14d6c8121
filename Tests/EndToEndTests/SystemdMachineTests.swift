import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The shipped units under a real systemd (this machine's own, booted as PID 1 in namespaces of the
/// test's own by `scripts/systemd-machine`): socket activation, `Type=notify`, reload, the watchdog,
/// `DynamicUser=` and the system call filter, all as a user's machine would run them.
@Suite("the real units under a real systemd", .serialized)
struct SystemdMachineTests {
    /// The port of the machine's own replay server (its network namespace holds nothing else).
    static let replayPort = 8123

    /// The daemon's settings: pinned to Bromsgrove, forecasts from the replay server inside the machine.
    static var settings: String {
        """
        units = "metric"

        [location]
        mode = "pinned"

        [location.pin]
        latitude = 52.3357
        longitude = -2.0579
        name = "Bromsgrove"

        [location.ip]
        enabled = false

        [location.gpsd]
        enabled = false

        [providers]
        order = ["open-meteo"]

        [providers.open_meteo]
        url = "http://127.0.0.1:\(replayPort)/forecast.json"
        timeout_seconds = 5

        [warnings]
        enabled = false

        [air]
        enabled = false

        """
    }

    /// Files laid over the machine's root: the units exactly as shipped, the built executables
    /// where the units expect them, the settings, and a replay server with the recorded forecast.
    func stage(_ extra: [String: String] = [:]) throws -> URL {
        let manager = FileManager.default
        let stage = URL(fileURLWithPath: "/tmp/fd-stage-" + String(UInt32.random(in: 0...UInt32.max), radix: 36))
        try manager.createDirectory(at: stage, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        func write(_ path: String, _ text: String) throws {
            let url = stage.appendingPathComponent(path)
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        for scope in ["system", "user"] {
            for name in ["forecastd.service", "forecastd.socket"] {
                try write(
                    "etc/systemd/\(scope)/\(name)",
                    try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("systemd/\(scope)/\(name)"), encoding: .utf8))
            }
        }
        // The executables and the resource bundles they read, themselves rather than links to the build
        // folder: the machine has its own empty /tmp, /run and /dev, and a clone may well be under /tmp (CI's
        // is). Hard links where the build is on the stage's file system, copies otherwise.
        let bin = stage.appendingPathComponent("usr/local/bin")
        try manager.createDirectory(at: bin, withIntermediateDirectories: true)
        let built = try manager.contentsOfDirectory(atPath: DaemonProcess.binDirectory.path)
            .filter { $0 == "forecastd" || $0 == "forecastctl" || $0.hasSuffix(".resources") }
        // The gazetteer where an install puts it: the user unit names it under ~/.local/share, linked there.
        let share = stage.appendingPathComponent("usr/local/share/forecastd")
        try manager.createDirectory(at: share, withIntermediateDirectories: true)
        for (source, target) in built.map({
            (DaemonProcess.binDirectory.appendingPathComponent($0), bin.appendingPathComponent($0))
        }) + [
            (
                Fixtures.repositoryRoot.appendingPathComponent("Sources/Gazetteer/Resources/gazetteer.bin"),
                share.appendingPathComponent("gazetteer.bin")
            )
        ] {
            do {
                try manager.linkItem(at: source, to: target)
            } catch {
                try? manager.removeItem(at: target)
                try manager.copyItem(at: source, to: target)
            }
        }
        try write("etc/forecastd/forecastd.toml", Self.settings)
        try write("srv/forecastd-replay/forecast.json", try samaraResponse())
        try write(
            "etc/systemd/system/forecastd-replay.service",
            """
            [Service]
            ExecStart=/usr/bin/python3 -m http.server \(Self.replayPort) --bind 127.0.0.1 --directory /srv/forecastd-replay

            """)
        for (path, text) in extra { try write(path, text) }
        return stage
    }

    /// Boots a machine over `stage`, runs `body`, and always powers it off.
    func withMachine(stage: URL, _ body: (SystemdMachine) async throws -> Void) async throws {
        defer { try? FileManager.default.removeItem(at: stage) }
        let machine = try await SystemdMachine.boot(stage: stage)
        do {
            try await machine.run(["systemctl", "start", "forecastd-replay.service"])
            try await body(machine)
        } catch {
            await machine.shutdown()
            throw error
        }
        await machine.shutdown()
    }

    /// Waits until `condition` holds on the unit's properties; throws with the unit's journal when not.
    func waitFor(
        _ what: String, _ machine: SystemdMachine, _ unit: String, user: String? = nil, timeout: Duration = .seconds(30),
        _ condition: ([String: String]) -> Bool
    ) async throws -> [String: String] {
        let names = ["ActiveState", "SubState", "StatusText", "MainPID", "NRestarts", "Result", "WatchdogTimestampMonotonic"]
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var properties: [String: String] = [:]
        while ContinuousClock.now < deadline {
            properties = try await machine.properties(unit, names, user: user)
            if condition(properties) { return properties }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("timed out waiting for \(what): \(properties)\n\(await machine.journal(unit, user: user))")
    }

    /// Connects to the socket (which starts the service through its socket unit) and asks for the report.
    func greetingAndReport(_ path: String) async throws -> (Greeting?, Report) {
        let (greeting, line) = try await onOwnThread { () throws -> (Greeting?, String) in
            let client = try ControlClient(socketPath: path, timeout: .seconds(30))
            return (client.greeting, try client.request("report"))
        }
        return (greeting, try ReportJSON.decode(line))
    }

    @Test("the system units: socket activation, READY and status, reload, the watchdog, DynamicUser and the system call filter")
    func systemService() async throws {
        try #require(getuid() == 0, "booting systemd in namespaces needs root")
        // The watchdog as shipped pings every 2 minutes; here every 1.5 s, so a test sees several.
        let stage = try stage([
            "etc/systemd/system/forecastd.service.d/watchdog.conf": "[Service]\nWatchdogSec=3s\n"
        ])
        try await withMachine(stage: stage) { machine in
            let unit = "forecastd.service"
            #expect(try await machine.run(["systemctl", "start", "forecastd.socket"]).status == 0)
            let socketPath = try machine.root + "/run/forecastd/forecastd.sock"
            #expect(try await machine.properties(unit, ["ActiveState"])["ActiveState"] == "inactive")

            // A client connects before the daemon runs: systemd starts it, and the client is greeted.
            let (greeting, _) = try await greetingAndReport(socketPath)
            #expect(greeting?.class == "VERSION")
            // Type=notify: active only once READY=1 came, with the status line; then the forecast.
            let running = try await waitFor("the forecast in the status line", machine, unit) {
                $0["SubState"] == "running" && ($0["StatusText"] ?? "").contains("open-meteo forecast from")
            }
            #expect(running["StatusText"]?.hasPrefix("Bromsgrove, 18 °C, open-meteo forecast from ") == true, "\(running)")
            let pid = try #require(running["MainPID"])
            let kind = try await machine.properties(unit, ["Type", "NotifyAccess", "WatchdogUSec"])
            #expect(kind == ["Type": "notify", "NotifyAccess": "main", "WatchdogUSec": "3s"])

            // The process runs as a dynamic user, under the unit's seccomp filter, and keeps working:
            // it fetched the forecast over HTTP and answers on the socket it was given.
            let status = try String(contentsOfFile: try machine.root + "/proc/\(pid)/status", encoding: .utf8)
            #expect(status.contains("Seccomp:\t2"), "\(status)")
            #expect(status.contains("NoNewPrivs:\t1"))
            let uid = status.split(separator: "\n").first { $0.hasPrefix("Uid:") }?.split(separator: "\t").dropFirst().first
            #expect(uid != nil && uid != "0")
            let (_, report) = try await greetingAndReport(socketPath)
            #expect(report.current?.temperature == 18.5)
            #expect(report.place?.name == "Bromsgrove")
            var info = stat()
            #expect(stat(socketPath, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(String(info.st_uid) == uid.map(String.init))
            #expect(FileManager.default.fileExists(atPath: try machine.root + "/var/lib/private/forecastd/state.json"))

            // `systemctl reload` (ExecReload= forecastctl reload) returns once the settings apply.
            let settingsPath = try machine.root + "/etc/forecastd/forecastd.toml"
            try Self.settings.replacingOccurrences(of: #"units = "metric""#, with: #"units = "imperial""#)
                .write(toFile: settingsPath, atomically: true, encoding: .utf8)
            let reload = try await machine.run(["systemctl", "reload", unit])
            let reloadJournal = reload.status == 0 ? "" : await machine.journal(unit)
            #expect(reload.status == 0, "\(reload.stderr)\n\(reloadJournal)")
            _ = try await waitFor("the status line in °F", machine, unit) { ($0["StatusText"] ?? "").contains("65 °F") }
            // A broken file: the reload fails and says why; the daemon keeps its last good settings.
            try "units = \"kelvin\"\n".write(toFile: settingsPath, atomically: true, encoding: .utf8)
            let refused = try await machine.run(["systemctl", "reload", unit])
            #expect(refused.status != 0)
            try Self.settings.write(toFile: settingsPath, atomically: true, encoding: .utf8)
            // SIGHUP (and any reload the daemon starts itself): RELOADING=1, then READY=1.
            #expect(try await machine.run(["systemctl", "kill", "-s", "HUP", unit]).status == 0)
            _ = try await waitFor("the status line back in °C", machine, unit) {
                $0["SubState"] == "running" && ($0["StatusText"] ?? "").contains("18 °C")
            }

            // The watchdog: pings keep arriving (their time moves) and systemd never had to restart it.
            let before = try await machine.properties(unit, ["WatchdogTimestampMonotonic"])["WatchdogTimestampMonotonic"]
            _ = try await waitFor("two more watchdog pings", machine, unit) { $0["WatchdogTimestampMonotonic"] != before }
            let pinged = try await machine.properties(unit, ["WatchdogTimestampMonotonic"])["WatchdogTimestampMonotonic"]
            let later = try await waitFor("another watchdog ping", machine, unit) { $0["WatchdogTimestampMonotonic"] != pinged }
            #expect(later["MainPID"] == pid)
            #expect(later["NRestarts"] == "0")

            // Stopping: a clean exit; the socket stays with systemd, and the next client starts it again.
            #expect(try await machine.run(["systemctl", "stop", unit]).status == 0)
            let stopped = try await machine.properties(unit, ["Result", "ExecMainCode", "ExecMainStatus", "ActiveState"])
            let stopJournal = stopped["Result"] == "success" ? "" : await machine.journal(unit)
            #expect(stopped["Result"] == "success", "\(stopped)\n\(stopJournal)")
            #expect(stopped["ExecMainCode"] == "1" && stopped["ExecMainStatus"] == "0", "\(stopped)")
            let (again, _) = try await greetingAndReport(socketPath)
            #expect(again?.class == "VERSION")
            _ = try await waitFor("the restarted service", machine, unit) { $0["SubState"] == "running" }
            let journal = await machine.journal(unit)
            #expect(!journal.contains("status=31/SYS"), "\(journal)")
            // The unit lets the daemon open its rtnetlink socket (RestrictAddressFamilies): the forecast follows the
            // network's return at once, not after its retry timer.
            #expect(!journal.contains("could not be opened"), "\(journal)")
            #expect(try await machine.run(["systemctl", "stop", unit, "forecastd.socket"]).status == 0)
        }
    }

    /// The control that shows the filter test can fail: the same unit, with denied system calls
    /// killing the process (systemd's default, as the unit was before), dies at start with SIGSYS.
    @Test("without SystemCallErrorNumber=EPERM the unit's filter kills the daemon at start (SIGSYS)")
    func filterWithoutErrorNumber() async throws {
        try #require(getuid() == 0, "booting systemd in namespaces needs root")
        let stage = try stage([
            "etc/systemd/system/forecastd.service.d/kill.conf": "[Service]\nSystemCallErrorNumber=\nRestart=no\n"
        ])
        try await withMachine(stage: stage) { machine in
            _ = try await machine.run(["systemctl", "start", "forecastd.service"])
            let failed = try await waitFor("the daemon to fail", machine, "forecastd.service") { $0["ActiveState"] == "failed" }
            let main = try await machine.properties("forecastd.service", ["ExecMainCode", "ExecMainStatus"])
            // CLD_KILLED by signal 31, SIGSYS.
            #expect(main["ExecMainCode"] == "2" && main["ExecMainStatus"] == "31", "\(failed) \(main)")
        }
    }

    @Test(
        "the user units: socket activation, READY, reload and stop, with and without user namespaces",
        arguments: [true, false])
    func userService(userNamespaces: Bool) async throws {
        try #require(getuid() == 0, "booting systemd in namespaces needs root")
        let uid = userNamespaces ? 4242 : 4243
        var extra: [String: String] = [:]
        if !userNamespaces {
            // As where unprivileged user namespaces are off or confined: the user's manager cannot
            // create one, so namespace-based sandboxing cannot be set up for its services.
            extra["etc/systemd/system/user@\(uid).service.d/no-user-namespaces.conf"] = "[Service]\nRestrictNamespaces=~user\n"
        }
        try await withMachine(stage: try stage(extra)) { machine in
            // user@.service needs logind, which needs the system bus.
            #expect(try await machine.run(["systemctl", "start", "dbus.socket", "systemd-logind.service"]).status == 0)
            let user = "fdtest"
            let home = "/home/\(user)"
            let setup = try await machine.run([
                "sh", "-euc",
                """
                useradd --create-home --uid \(uid) \(user)
                mkdir -p \(home)/.local/bin \(home)/.local/share/forecastd \(home)/.config/forecastd
                ln -s /usr/local/bin/forecastd /usr/local/bin/forecastctl \(home)/.local/bin/
                ln -s /usr/local/share/forecastd/gazetteer.bin \(home)/.local/share/forecastd/
                cp /etc/forecastd/forecastd.toml \(home)/.config/forecastd/
                chown -R \(user): \(home)
                systemctl start user@\(uid).service
                """,
            ])
            #expect(setup.status == 0, "\(setup.stderr)")
            let started = try await machine.run(SystemdMachine.asUser(user, ["systemctl", "--user", "start", "forecastd.socket"]))
            #expect(started.status == 0, "\(started.stderr)")

            let socketPath = try machine.root + "/run/user/\(uid)/forecastd/forecastd.sock"
            let (greeting, _) = try await greetingAndReport(socketPath)
            #expect(greeting?.class == "VERSION")
            let running = try await waitFor("the forecast in the status line", machine, "forecastd.service", user: user) {
                $0["SubState"] == "running" && ($0["StatusText"] ?? "").contains("open-meteo forecast from")
            }
            #expect(running["StatusText"]?.hasPrefix("Bromsgrove, 18 °C") == true, "\(running)")
            let (_, report) = try await greetingAndReport(socketPath)
            #expect(report.place?.name == "Bromsgrove")
            var info = stat()
            #expect(stat(socketPath, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_uid == uid_t(uid))
            let pid = try #require(running["MainPID"])
            let status = try String(contentsOfFile: try machine.root + "/proc/\(pid)/status", encoding: .utf8)
            #expect(status.contains("Seccomp:\t2"))

            // The daemon edits the user's settings and writes its state under ~: the sandbox leaves
            // that alone, with namespaces or without.
            // (Sent as the user: with a user namespace, root outside it is nobody to the daemon.)
            let edit = try await machine.run(
                SystemdMachine.asUser(
                    user, ["sh", "-c", "printf 'units imperial\\n' | socat -t 10 - UNIX-CONNECT:/run/user/\(uid)/forecastd/forecastd.sock"]))
            #expect(edit.stdout.contains(#""class":"SETTINGS","message""#) && edit.stdout.contains(#""ok":true"#), "\(edit)")
            _ = try await waitFor("the status line in °F", machine, "forecastd.service", user: user) {
                ($0["StatusText"] ?? "").contains("°F")
            }
            let reload = try await machine.run(SystemdMachine.asUser(user, ["systemctl", "--user", "reload", "forecastd.service"]))
            #expect(reload.status == 0, "\(reload.stderr)")
            #expect(FileManager.default.fileExists(atPath: try machine.root + "\(home)/.local/state/forecastd/state.json"))

            let stop = try await machine.run(SystemdMachine.asUser(user, ["systemctl", "--user", "stop", "forecastd.service"]))
            #expect(stop.status == 0)
            let stopped = try await machine.properties("forecastd.service", ["Result", "ExecMainStatus"], user: user)
            #expect(stopped["Result"] == "success" && stopped["ExecMainStatus"] == "0", "\(stopped)")
            let journal = await machine.journal("forecastd.service", user: user)
            #expect(!journal.contains("could not be opened"), "\(journal)")
        }
    }
}
