import Foundation

/// This machine's own systemd booted as PID 1 in namespaces of its own (`scripts/systemd-machine`),
/// for running forecastd's real units under a real service manager.
///
/// The machine's root is the host's file system under a throwaway writable layer: files staged
/// before the boot (units, settings, links to the built binaries) appear in it, and nothing it
/// writes reaches the host. It has a network namespace of its own with only a loopback interface.
public final class SystemdMachine: @unchecked Sendable {
    public let directory: String
    private static let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/systemd-machine").path

    /// Boots a machine with `stage`'s files copied over its root. Needs root.
    public static func boot(stage: URL) async throws -> SystemdMachine {
        let directory = "/tmp/fd-machine-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let started = try await runTool(
            URL(fileURLWithPath: script), ["start", directory, stage.path], environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
            timeout: .seconds(60))
        let machine = SystemdMachine(directory: directory)
        guard started.status == 0 else {
            await machine.shutdown()
            throw TestFailure("systemd-machine start failed (\(started.status)): \(started.stderr)")
        }
        return machine
    }

    private init(directory: String) {
        self.directory = directory
    }

    /// A host path to the machine's root directory (through /proc/PID/root).
    public var root: String {
        get throws {
            let pid = try String(contentsOfFile: directory + "/pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            return "/proc/\(pid)/root"
        }
    }

    /// Runs a command inside the machine as root.
    @discardableResult
    public func run(_ arguments: [String], timeout: Duration = .seconds(60)) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        try await runTool(
            URL(fileURLWithPath: Self.script), ["run", directory] + arguments,
            environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], timeout: timeout)
    }

    /// `systemctl show UNIT -p NAME…` as a dictionary.
    public func properties(_ unit: String, _ names: [String], user: String? = nil) async throws -> [String: String] {
        let command = ["systemctl"] + (user == nil ? [] : ["--user"]) + ["show", unit] + names.flatMap { ["-p", $0] }
        let shown = try await run(Self.asUser(user, command))
        var values: [String: String] = [:]
        for line in shown.stdout.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return values
    }

    /// A command run as `user` in their service manager's environment (nil: as root).
    public static func asUser(_ user: String?, _ command: [String]) -> [String] {
        guard let user else { return command }
        return ["runuser", "-u", user, "--", "sh", "-c", #"XDG_RUNTIME_DIR=/run/user/$(id -u) exec "$0" "$@""#] + command
    }

    /// The journal of a unit (or everything, with nil), for failure messages.
    public func journal(_ unit: String? = nil, user: String? = nil) async -> String {
        var command = ["journalctl", "--no-pager", "-o", "short-monotonic", "-b"]
        if let unit { command += user == nil ? ["-u", unit] : ["_SYSTEMD_USER_UNIT=\(unit)", "+", "USER_UNIT=\(unit)"] }
        return (try? await run(command).stdout) ?? ""
    }

    /// Powers the machine off and removes everything it left.
    public func shutdown() async {
        _ = try? await runTool(
            URL(fileURLWithPath: Self.script), ["stop", directory], environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"],
            timeout: .seconds(30))
    }
}
