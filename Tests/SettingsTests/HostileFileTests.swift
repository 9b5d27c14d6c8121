import Foundation
import TestSupport
import Testing

@testable import Settings

/// Files no one writes on purpose: a FIFO where the settings file should be, a huge file, a file of
/// tens of thousands of keys. Each is answered at once with a clear error or decoded in linear time,
/// so a reload never wedges the daemon.
@Suite("Hostile settings files")
struct HostileFileTests {
    @Test("a FIFO at the settings path is refused at once instead of blocking in open()")
    func fifo() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/forecastd.toml"
        #expect(mkfifo(path, 0o600) == 0)
        let outcome = loadOnOwnThread(path) {
            // Should the load block in open() waiting for a writer, be that writer so the test ends.
            let writer = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if writer >= 0 { close(writer) }
        }
        #expect(!outcome.blocked, "loading the FIFO blocked until a writer came")
        #expect(outcome.result == "\(path): is a FIFO, not a settings file (allowed: a regular file)")
    }

    @Test("a file over 1 MiB is refused by name; one of exactly 1 MiB is read")
    func sizeCap() throws {
        let directory = try TemporaryDirectory()
        let head = "units = \"imperial\"\n"
        let line = "# " + String(repeating: "padding ", count: 12) + "\n"
        var text = head + String(repeating: line, count: (Settings.maximumFileSize - head.utf8.count) / line.utf8.count)
        text += "#" + String(repeating: "x", count: Settings.maximumFileSize - text.utf8.count - 2) + "\n"
        #expect(text.utf8.count == 1 << 20)
        let largest = try directory.write(text, to: "largest.toml")
        #expect(
            try Settings.load(from: largest, environment: userEnvironment, isSystemService: false).units == .imperial)

        let over = try directory.write(text + "\n", to: "over.toml")
        #expect(
            throws: SettingsError(
                SettingsProblem(path: over, message: "is larger than a settings file can be", allowed: "at most 1 MiB"))
        ) {
            try Settings.load(from: over, environment: userEnvironment, isSystemService: false)
        }
    }

    /// Files near the size cap, each built around one place where decoding once did quadratic work.
    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        /// Tens of thousands of unknown keys, each a problem placed by looking its key up.
        case unknownKeys
        /// The same, inside one `[[output.files]]` table, whose problems are placed within the table.
        case unknownKeysInTableArray
        /// Thousands of `[[cities]]`, each checked against the others for a duplicate id.
        case manyCities
        /// One line of tens of thousands of inline-table pairs, each needing a column.
        case longLine

        var testDescription: String { rawValue }

        func text(bytes: Int) -> String {
            var text = ""
            var index = 0
            while text.utf8.count < bytes - 100 {
                switch self {
                case .unknownKeys:
                    text += "k\(index) = 1\n"
                case .unknownKeysInTableArray:
                    if index == 0 { text += "[[output.files]]\npath = \"/run/a\"\nformat = \"json\"\n" }
                    text += "k\(index) = 1\n"
                case .manyCities:
                    text += "[[cities]]\nname = \"C\(index)\"\nlatitude = 1.5\nlongitude = 2.5\n"
                case .longLine:
                    text += index == 0 ? "location = { k0 = 1" : ", k\(index) = 1"
                }
                index += 1
            }
            return self == .longLine ? text + " }\n" : text
        }
    }

    @Test("a large file allowed in size is decoded in a number of steps linear in its size", arguments: Shape.allCases)
    func linearDecoding(shape: Shape) async throws {
        // A second or two of decoding each: off the cooperative pool (``onOwnThread(_:)``).
        let (bytes, problems, cost) = try await onOwnThread {
            let text = shape.text(bytes: Settings.maximumFileSize)
            var decoder = SettingsDecoder(text: text, path: settingsPath)
            _ = decoder.decode(over: userDefaults)
            return (text.utf8.count, decoder.problems.count, decoder.cost)
        }
        #expect(shape == .manyCities ? problems == 0 : problems > 10_000)
        // A constant number of steps per byte: a quadratic decoder takes thousands of times this.
        #expect(cost <= 8 * bytes, "\(cost) steps for \(bytes) bytes")
    }

    @Test("an error lists the first 100 problems and how many more there are, so it never swamps the report")
    func problemsCapped() {
        let shown = problems(in: Shape.unknownKeys.text(bytes: 20_000))
        #expect(shown.count == 101)
        #expect(
            shown.first
                == "\(settingsPath):1:1: k0: unknown key (allowed: units, refresh_minutes, location, providers, output, display, history, "
                    + "warnings, nowcast, air, notifications, mqtt, map, cities)"
        )
        #expect(shown.last?.hasPrefix("\(settingsPath): ") == true)
        #expect(shown.last?.hasSuffix(" more problems not shown") == true)
    }
}

/// Loads the settings file at `path` on a thread of its own; if it has not answered after a few
/// seconds, `release` is called to unblock it, and the outcome says so.
private func loadOnOwnThread(_ path: String, release: () -> Void) -> (result: String, blocked: Bool) {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox()
    Thread {
        do {
            _ = try Settings.load(from: path, environment: userEnvironment, isSystemService: false)
            box.set("loaded")
        } catch {
            box.set("\(error)")
        }
        done.signal()
    }.start()
    if done.wait(timeout: .now() + 5) == .success { return (box.get(), false) }
    release()
    done.wait()
    return (box.get(), true)
}

private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ""
    func set(_ text: String) { lock.withLock { value = text } }
    func get() -> String { lock.withLock { value } }
}
