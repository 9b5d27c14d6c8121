import Foundation
import TestSupport
import Testing

/// The shipped unit files load cleanly in systemd's own checker and keep their exposure scores,
/// with the executables pointed at the ones this build produced (systemd-analyze insists they exist).
@Suite("systemd units")
struct SystemdUnitTests {
    static let analyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")

    /// Copies `scope`'s service and socket units into a fresh directory, their executables replaced.
    private func prepared(_ scope: String) throws -> URL {
        let directory = try DaemonProcess.makeDirectory()
        let binaries = DaemonProcess.binDirectory.path + "/"
        for name in ["forecastd.service", "forecastd.socket"] {
            let text = try String(
                contentsOf: Fixtures.repositoryRoot.appendingPathComponent("systemd/\(scope)/\(name)"), encoding: .utf8)
            // The install prefix the Makefile substitutes, and the user unit's ~/.local.
            let local = text.replacingOccurrences(of: "/usr/local/bin/", with: binaries)
                .replacingOccurrences(of: "%h/.local/bin/", with: binaries)
            try local.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return directory
    }

    private func verify(_ scope: String, _ arguments: [String]) async throws {
        let directory = try prepared(scope)
        defer { try? FileManager.default.removeItem(at: directory) }
        let units = ["forecastd.service", "forecastd.socket"].map { directory.appendingPathComponent($0).path }
        let verify = try await runTool(
            Self.analyze, arguments + ["verify"] + units, environment: DaemonProcess.environment(for: directory))
        #expect(verify.status == 0)
        // Unknown keys and bad values only print a warning: any output is a failure.
        #expect(verify.stdout.isEmpty && verify.stderr.isEmpty, "\(verify.stdout)\(verify.stderr)")
    }

    /// The overall exposure `systemd-analyze security` gives the service, ×10 (its `--threshold` scale).
    private func exposure(_ scope: String, _ arguments: [String], threshold: Int) async throws -> String {
        let directory = try prepared(scope)
        defer { try? FileManager.default.removeItem(at: directory) }
        let security = try await runTool(
            Self.analyze,
            arguments + ["security", "--offline=yes", "--threshold=\(threshold)", directory.appendingPathComponent("forecastd.service").path],
            environment: DaemonProcess.environment(for: directory))
        #expect(security.status == 0, "\(security.stdout)\(security.stderr)")
        return security.stdout
    }

    @Test("the system units verify clean")
    func systemUnitsVerify() async throws {
        try await verify("system", [])
    }

    @Test("the user units verify clean")
    func userUnitsVerify() async throws {
        try await verify("user", ["--user"])
    }

    /// 1.3 since AF_NETLINK (the rtnetlink socket that follows the network's return) was allowed; 1.2 before.
    @Test("the system service keeps an exposure of at most 1.3")
    func systemExposure() async throws {
        let report = try await exposure("system", [], threshold: 13)
        #expect(report.contains("Overall exposure level for forecastd.service: 1.3 OK"), "\(report)")
    }

    /// A user's service manager cannot apply mount-namespace sandboxing without user namespaces, so
    /// the user unit goes without it (docs/systemd.md); everything it can apply, it does.
    @Test("the user service keeps the exposure the sandboxing open to user services allows")
    func userExposure() async throws {
        let report = try await exposure("user", ["--user"], threshold: 44)
        for applied in [
            "NoNewPrivileges=", "KeyringMode=", "LockPersonality=", "MemoryDenyWriteExecute=", "RestrictRealtime=",
            "RestrictSUIDSGID=", "RestrictNamespaces=~user", "RestrictAddressFamilies=~AF_PACKET",
            "SystemCallArchitectures=", "SystemCallFilter=~@privileged", "SystemCallFilter=~@resources",
            "SystemCallFilter=~@mount", "SystemCallFilter=~@module",
        ] {
            #expect(report.contains("✓ \(applied)"), "\(applied) is not applied:\n\(report)")
        }
    }
}
