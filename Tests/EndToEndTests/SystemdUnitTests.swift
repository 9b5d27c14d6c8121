import Foundation
import TestSupport
import Testing

/// The shipped unit files load cleanly in systemd's own checker, with ExecStart pointed at the
/// binary this build produced (systemd-analyze insists the executable exists).
@Suite("systemd units")
struct SystemdUnitTests {
    private func prepared(_ relativePath: String, replacing executable: String) throws -> (URL, URL) {
        let directory = try DaemonProcess.makeDirectory()
        let text = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent(relativePath), encoding: .utf8)
        let binary = DaemonProcess.binDirectory.appendingPathComponent("forecastd").path
        #expect(text.contains(executable))
        let unit = directory.appendingPathComponent("forecastd.service")
        try text.replacingOccurrences(of: executable, with: binary).write(to: unit, atomically: true, encoding: .utf8)
        return (directory, unit)
    }

    @Test("the system unit verifies clean and keeps a low exposure score")
    func systemUnit() async throws {
        let (directory, unit) = try prepared("systemd/system/forecastd.service", replacing: "/usr/local/bin/forecastd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = DaemonProcess.environment(for: directory)
        let verify = try await runTool(
            URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["verify", unit.path], environment: environment)
        #expect(verify.status == 0)
        // Unknown keys only print a warning: any output is a failure.
        #expect(verify.stdout.isEmpty && verify.stderr.isEmpty, "\(verify.stdout)\(verify.stderr)")

        let security = try await runTool(
            URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["security", "--offline=yes", "--threshold=20", unit.path],
            environment: environment)
        #expect(security.status == 0, "\(security.stdout)")
    }

    @Test("the user unit verifies clean")
    func userUnit() async throws {
        let (directory, unit) = try prepared("systemd/user/forecastd.service", replacing: "%h/.local/bin/forecastd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let verify = try await runTool(
            URL(fileURLWithPath: "/usr/bin/systemd-analyze"), ["--user", "verify", unit.path],
            environment: DaemonProcess.environment(for: directory))
        #expect(verify.status == 0)
        #expect(verify.stdout.isEmpty && verify.stderr.isEmpty, "\(verify.stdout)\(verify.stderr)")
    }
}
