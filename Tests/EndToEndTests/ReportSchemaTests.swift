import Foundation
import TestSupport
import Testing

/// Validates a report against `docs/report.schema.json` with the reference JSON Schema validator
/// (Python's `jsonschema`), so the documentation cannot drift from what the daemon writes.
func validateAgainstSchema(_ reportLine: String) async throws -> (valid: Bool, output: String) {
    let directory = try DaemonProcess.makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let reportPath = directory.appendingPathComponent("report.json").path
    try reportLine.write(toFile: reportPath, atomically: true, encoding: .utf8)
    let schemaPath = Fixtures.repositoryRoot.appendingPathComponent("docs/report.schema.json").path
    let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
        for e in errors: print("/".join(map(str, e.absolute_path)), e.message)
        sys.exit(1 if errors else 0)
        """
    let result = try await runTool(
        URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, schemaPath, reportPath],
        environment: ProcessInfo.processInfo.environment)
    return (result.status == 0, result.stdout + result.stderr)
}

@Suite("Report schema")
struct ReportSchemaTests {
    @Test("the validator catches a report that breaks the schema")
    func validatorRejects() async throws {
        let broken = #"{"schema":1,"updated_at":"now","stale":false,"status":"ok","units":{},"hourly":[],"daily":[],"errors":[]}"#
        let result = try await validateAgainstSchema(broken)
        #expect(!result.valid)
        #expect(result.output.contains("updated_at"))
    }
}
