import Control
import ForecastModel
import Foundation
import Rendering
import TestSupport
import Testing

/// `forecastctl pick` in a real browser: Debian's headless Chromium, driven by Selenium
/// (Tests/Browser/pick_flows.py), against the real forecastctl, a real daemon and a local tile server.
/// scripts/test installs the browser (`scripts/deps --test --browser`); without it these tests are skipped,
/// unless FORECASTD_BROWSER_REQUIRED=1 (CI), which makes a missing browser a failure.
@Suite("forecastctl pick in a browser", .serialized, .timeLimit(.minutes(3)))
struct PickBrowserTests {
    static let script = Fixtures.repositoryRoot.appendingPathComponent("Tests/Browser/pick_flows.py")
    static let python = "/usr/bin/python3"

    /// Whether Chromium, its driver and Selenium are installed.
    static let browserInstalled: Bool = {
        let files = ["/usr/bin/chromium", "/usr/bin/chromedriver", python]
        guard files.allSatisfy(FileManager.default.isExecutableFile(atPath:)) else { return false }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = ["-c", "import selenium"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        guard (try? check.run()) != nil else { return false }
        check.waitUntilExit()
        return check.terminationStatus == 0
    }()

    static var required: Bool { ProcessInfo.processInfo.environment["FORECASTD_BROWSER_REQUIRED"] == "1" }

    @Test("the browser the flows need is installed (required in CI)")
    func browserIsInstalled() {
        if Self.required {
            #expect(Self.browserInstalled, "chromium, chromium-driver and python3-selenium: scripts/deps --browser")
        } else if !Self.browserInstalled {
            print("PickBrowserTests: chromium, chromium-driver or python3-selenium is missing; the browser flows are skipped")
        }
    }

    // MARK: Set-up

    /// A home with a settings file; a daemon on it when asked; tiles from a local server, or from a closed port.
    struct Setup {
        let directory: URL
        let configPath: String
        let environment: [String: String]
        let tiles: ReplayServer?
        let forecasts: ReplayServer
        var daemon: DaemonProcess?

        init(tiles online: Bool, language: String = "auto", daemon startDaemon: Bool = false) async throws {
            directory = try DaemonProcess.makeDirectory()
            configPath = directory.path + "/forecastd.toml"
            environment = DaemonProcess.environment(for: directory).merging(["TZ": "UTC"]) { $1 }
            forecasts = try await ReplayServer.start()
            forecasts.setRoute(
                path: "/forecast",
                ReplayResponse(status: 200, headers: ["Content-Type": "application/json"], body: try samaraResponse()))
            let tileURL: String
            if online {
                let server = try await ReplayServer.start()
                server.setRoute(
                    path: "/tile.png", ReplayResponse(status: 200, headers: ["Content-Type": "image/png"], body: TilePNG.bytes))
                tiles = server
                tileURL = server.baseURL.absoluteString + "/tile.png?z={z}&x={x}&y={y}"
            } else {
                tiles = nil
                tileURL = "http://127.0.0.1:\(try closedPort())/{z}/{x}/{y}.png"
            }
            let text =
                settingsText(
                    gpsdPort: nil, openMeteoURL: forecasts.baseURL.appendingPathComponent("forecast"),
                    pin: (59.91273, 10.74609, "Oslo"), mode: "pinned")
                + """

                [display]
                language = "\(language)"

                [map]
                tiles_url = "\(tileURL)"

                """
            if startDaemon {
                let daemon = try DaemonProcess.start(config: text, in: directory)
                try await daemon.waitForSocket()
                try await daemon.wait(for: "the report for Oslo") { try await socketReport(daemon.socketPath).place?.name == "Oslo" }
                self.daemon = daemon
            } else {
                try text.write(toFile: configPath, atomically: true, encoding: .utf8)
            }
        }

        func fileText() -> String { (try? String(contentsOfFile: configPath, encoding: .utf8)) ?? "" }

        func pick(_ arguments: String...) async throws -> PickProcess {
            try await PickProcess.start(
                ["--no-open", "--config", configPath] + arguments, environment: environment, in: directory)
        }

        func finish() async {
            if let daemon { await daemon.stop() }
            try? await tiles?.shutdown()
            try? await forecasts.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Runs one flow of pick_flows.py against `url` and returns what it printed.
    static func flow(_ name: String, _ url: URL, query: String? = nil) async throws -> [String: Any] {
        let screenshots = FileManager.default.temporaryDirectory.appendingPathComponent("pick-screenshots")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        var arguments = [script.path, name, url.absoluteString, "--screenshot-dir", screenshots.path]
        if let query { arguments += ["--query", query] }
        let result = try await runTool(
            URL(fileURLWithPath: python), arguments, environment: ["PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory()],
            timeout: .seconds(120))
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last,
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            throw TestFailure("pick_flows.py \(name) failed (\(result.status)): \(result.stderr)\(result.stdout)")
        }
        // Screenshots for docs/images when asked (FORECASTD_UPDATE_SCREENSHOTS=1); the tests never need them.
        if ProcessInfo.processInfo.environment["FORECASTD_UPDATE_SCREENSHOTS"] == "1" {
            let docs = Fixtures.repositoryRoot.appendingPathComponent("docs/images")
            for file in (try? FileManager.default.contentsOfDirectory(atPath: screenshots.path)) ?? [] {
                let target = docs.appendingPathComponent("pick-" + file)
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: screenshots.appendingPathComponent(file), to: target)
            }
        }
        try? FileManager.default.removeItem(at: screenshots)
        return object
    }

    /// `LAT, LON` as the page shows a coordinate.
    static func coordinate(_ text: Any?) throws -> (Double, Double) {
        let parts = try #require(text as? String).split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        return (try #require(parts.first ?? nil), try #require(parts.last ?? nil))
    }

    /// What `forecastctl place` names a position, for comparing with what the page named it.
    static func placeName(_ latitude: Double, _ longitude: Double, _ setup: Setup) async throws -> String {
        let place = try await runTool(
            DaemonProcess.binDirectory.appendingPathComponent("forecastctl"), ["place", "\(latitude)", "\(longitude)"],
            environment: setup.environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(place.stdout.utf8)) as? [String: Any])
        return try #require(object["name"] as? String)
    }

    // MARK: Flows

    @Test("search a place by name and pin it: the settings hold the pin, the daemon's report names the place", .enabled(if: browserInstalled))
    func searchAndPin() async throws {
        let setup = try await Setup(tiles: true, daemon: true)
        defer { Task { await setup.finish() } }
        let pick = try await setup.pick()
        let result = try await Self.flow("search-pin", pick.url, query: "Paris, TX")
        #expect((result["selection"] as? String)?.hasPrefix("Nearest place: Paris, Texas, US") == true)
        #expect((result["outcome"] as? String)?.hasPrefix("Pinned to Paris, Texas, US") == true)
        #expect(result["console_errors"] as? [String] == [])
        let exit = try await pick.waitForExit()
        #expect(exit.status == 0, "\(exit.stderr)")
        let settings = setup.fileText()
        #expect(settings.contains("latitude = 33.66094\nlongitude = -95.55551\nname = \"Paris\"\n"), "\(settings)")
        #expect(settings.contains("mode = \"pinned\"\n"))
        // The daemon follows: it was told to reload, and watches the file besides.
        let daemon = try #require(setup.daemon)
        let started = ContinuousClock.now
        try await daemon.wait(for: "the report for Paris, Texas", timeout: .seconds(10)) {
            let report = try await socketReport(daemon.socketPath)
            return report.place?.name == "Paris" && report.place?.admin1 == "Texas"
        }
        let followed = ContinuousClock.now - started
        #expect(followed < .seconds(2), "the daemon followed after \(followed)")
        let report = try await socketReport(daemon.socketPath)
        #expect(report.location?.source == "pinned")
        #expect(abs((report.location?.latitude ?? 0) - 33.66094) < 0.0001)
        // The tiles were asked for, and no tile request carried the page's token (Referrer-Policy).
        let tileRequests = try #require(setup.tiles).requests()
        #expect(!tileRequests.isEmpty)
        #expect(tileRequests.allSatisfy { request in !request.headers.contains { $0.value.contains(pick.token) } })
    }

    @Test("click a position on the map and add it as a favourite city named after the nearest place", .enabled(if: browserInstalled))
    func clickAndAddCity() async throws {
        let setup = try await Setup(tiles: true)
        defer { Task { await setup.finish() } }
        let pick = try await setup.pick()
        let result = try await Self.flow("click-city", pick.url)
        let (latitude, longitude) = try Self.coordinate(result["coordinate"])
        // The click was left of and above Oslo, where the map starts.
        #expect(latitude > 59.91273 && longitude < 10.74609)
        let name = try await Self.placeName(latitude, longitude, setup)
        #expect((result["selection"] as? String)?.hasPrefix("Nearest place: \(name),") == true)
        #expect((result["outcome"] as? String)?.contains("is in your cities now, as a favourite.") == true)
        let exit = try await pick.waitForExit()
        #expect(exit.status == 0, "\(exit.stderr)")
        let settings = setup.fileText()
        #expect(settings.contains("[[cities]]\nname = \"\(name)\"\n"), "\(settings)")
        #expect(settings.contains("latitude = \(latitude)\nlongitude = \(longitude)\nfavorite = true\n"))
        #expect(settings.contains("mode = \"pinned\"\n") && settings.contains("name = \"Oslo\"\n"), "the pin is kept")
    }

    @Test("Cancel in the page's language (German) changes nothing and exits 1", .enabled(if: browserInstalled))
    func cancelInGerman() async throws {
        let setup = try await Setup(tiles: true, language: "de")
        defer { Task { await setup.finish() } }
        let before = setup.fileText()
        let pick = try await setup.pick()
        let result = try await Self.flow("cancel", pick.url)
        #expect(result["language"] as? String == "de")
        let words = try #require(result["words"] as? [String: String])
        #expect(words["pin"] == "Hier festlegen")
        #expect(words["city"] == "Zu meinen Städten hinzufügen")
        #expect(words["cancel"] == "Abbrechen")
        #expect(result["outcome"] as? String == "Nichts wurde geändert. Sie können diese Seite schließen.")
        let exit = try await pick.waitForExit()
        #expect(exit.status == 1)
        #expect(setup.fileText() == before)
    }

    @Test("tiles unreachable: the gazetteer's dots, the graticule and the search still work", .enabled(if: browserInstalled))
    func offline() async throws {
        let setup = try await Setup(tiles: false)
        defer { Task { await setup.finish() } }
        let before = setup.fileText()
        let pick = try await setup.pick()
        let result = try await Self.flow("offline", pick.url, query: "Bergen, Norway")
        #expect((result["notice"] as? String)?.hasPrefix("The map's tiles cannot be loaded") == true)
        // Around Oslo at zoom 10, then around Bergen at zoom 11: the largest places in each view.
        #expect((result["dots_before"] as? Int ?? 0) > 20)
        #expect((result["dots_after"] as? Int ?? 0) >= 5)
        #expect((result["labels_before"] as? [String])?.contains("Oslo, Oslo, NO") == true)
        #expect((result["labels_after"] as? [String])?.contains("Bergen, Vestland, NO") == true)
        #expect((result["selection"] as? String)?.hasPrefix("Nearest place: Bergen, Vestland, NO") == true)
        #expect(result["console_errors"] as? [String] == [])
        let exit = try await pick.waitForExit()
        #expect(exit.status == 1)
        #expect(setup.fileText() == before)
    }

    @Test("a wrong token, a foreign host name and another site's page are refused with 403 in the browser", .enabled(if: browserInstalled))
    func refused() async throws {
        let setup = try await Setup(tiles: true)
        defer { Task { await setup.finish() } }
        let before = setup.fileText()
        let pick = try await setup.pick()
        let result = try await Self.flow("refused", pick.url)
        #expect((result["wrong_token"] as? String)?.contains("forbidden: the request does not carry the page's token") == true)
        #expect((result["rebinding"] as? String)?.contains("forbidden: the Host header does not name 127.0.0.1") == true)
        #expect(result["foreign_statuses"] as? [Int] == [403])
        let exit = try await pick.waitForExit()
        // The other site's pin was refused: the only choice made was the page's Cancel.
        #expect(exit.status == 1)
        #expect(setup.fileText() == before)
    }

    @Test("keyboard only: Tab to the search, Enter, arrows pan, Enter marks the centre, P pins it", .enabled(if: browserInstalled))
    func keyboardOnly() async throws {
        let setup = try await Setup(tiles: false)
        defer { Task { await setup.finish() } }
        let pick = try await setup.pick()
        let result = try await Self.flow("keyboard", pick.url, query: "Paris, TX")
        let found = try Self.coordinate(result["found"])
        let (latitude, longitude) = try Self.coordinate(result["coordinate"])
        #expect(found.0 == 33.66094 && found.1 == -95.55551)
        // Right twice and down once from Paris: east and south of it.
        #expect(longitude > found.1 && latitude < found.0)
        let exit = try await pick.waitForExit()
        #expect(exit.status == 0, "\(exit.stderr)")
        let name = try await Self.placeName(latitude, longitude, setup)
        #expect((result["selection"] as? String)?.hasPrefix("Nearest place: \(name),") == true)
        // A point, not a place: pinned as `forecastctl pin LAT,LON` pins it, without a name.
        let settings = setup.fileText()
        #expect(settings.contains("[location.pin]\nlatitude = \(latitude)\nlongitude = \(longitude)\n\n"), "\(settings)")
        #expect(settings.contains("mode = \"pinned\"\n"))
        #expect((result["outcome"] as? String)?.hasPrefix("Pinned to ") == true)
    }
}

/// A 256×256 map tile (a pale land colour with a border), as a tile server would send: a real PNG, made
/// here (zlib's stored blocks, CRC-32 and Adler-32) so that no image library is needed.
enum TilePNG {
    static let bytes: [UInt8] = make()

    static func make(size: Int = 256) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<size {
            raw.append(0)  // filter: none
            for x in 0..<size {
                let edge = x == 0 || y == 0
                raw += edge ? [200, 190, 170] : [242, 239, 233]
            }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        while offset < raw.count {
            let length = min(65535, raw.count - offset)
            let final: UInt8 = offset + length == raw.count ? 1 : 0
            zlib += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            zlib += raw[offset..<offset + length]
            offset += length
        }
        zlib += bigEndian(adler32(raw))
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", bigEndian(UInt32(size)) + bigEndian(UInt32(size)) + [8, 2, 0, 0, 0])
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return png
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}
