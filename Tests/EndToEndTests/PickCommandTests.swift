import Foundation
import TestSupport
import Testing

/// The real `forecastctl pick` in a private home, driven over HTTP as its page drives it (no browser: the
/// browser flows are PickBrowserTests): what each choice does to the settings file, what it prints, its
/// exit code, and that what the server refuses changes nothing.
@Suite("forecastctl pick", .timeLimit(.minutes(2)))
struct PickCommandTests {
    static let forecastctl = DaemonProcess.binDirectory.appendingPathComponent("forecastctl")

    /// A settings file with the user's own comments and layout.
    static let userSettings = """
        # My settings: forecastctl must keep this comment.
        units = "metric"

        [location]
        # Where I am.
        mode = "auto"

        [location.ip]
        enabled = false

        """

    struct Home {
        let directory: URL
        let environment: [String: String]
        var userFile: String { directory.path + "/config/forecastd/forecastd.toml" }

        init(settings: String? = PickCommandTests.userSettings, extraEnvironment: [String: String] = [:]) throws {
            directory = try DaemonProcess.makeDirectory()
            environment = DaemonProcess.environment(for: directory).merging(["TZ": "UTC"].merging(extraEnvironment) { $1 }) { $1 }
            if let settings {
                try FileManager.default.createDirectory(
                    atPath: directory.path + "/config/forecastd", withIntermediateDirectories: true)
                try settings.write(toFile: userFile, atomically: true, encoding: .utf8)
            }
        }

        func pick(_ arguments: String...) async throws -> PickProcess {
            try await PickProcess.start(arguments, environment: environment, in: directory)
        }

        func run(_ arguments: String...) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runTool(PickCommandTests.forecastctl, arguments, environment: environment)
        }

        func settingsText() -> String? { try? String(contentsOfFile: userFile, encoding: .utf8) }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test("Pin here on a point makes the same edit as `forecastctl pin LAT,LON` then `mode pinned`, comments kept, and exits 0")
    func pinHere() async throws {
        let home = try Home()
        let reference = try Home()
        defer {
            home.remove()
            reference.remove()
        }
        let pick = try await home.pick("--no-open")
        #expect(pick.url.absoluteString.hasPrefix("http://127.0.0.1:"))
        #expect(pick.token.count == 64)
        let answer = try await pick.request("POST", "api/choose", body: #"{"action":"pin","latitude":48.856614,"longitude":2.3522219}"#)
        #expect(answer.status == 200)
        #expect(answer.body.contains("Pinned to Paris, Île-de-France, FR: the forecast is for there now."))
        let exit = try await pick.waitForExit()
        #expect(exit.status == 0, "\(exit.stderr)")
        let path = home.userFile
        #expect(
            exit.stdout == "\(pick.url.absoluteString)\n"
                + "location.pin: (none) → 48.85661, 2.35222 (\(path))\n"
                + "location.mode: auto → pinned (\(path))\n")
        #expect(exit.stderr.contains("the daemon is not running; it will read the change when it starts"))

        // A point clicked is pinned as its coordinates are, without a name (the daemon names it by its rule).
        #expect(try await reference.run("pin", "48.85661,2.35222").status == 0)
        #expect(try await reference.run("mode", "pinned").status == 0)
        let picked = try #require(home.settingsText())
        #expect(picked == reference.settingsText())
        #expect(picked.hasPrefix("# My settings: forecastctl must keep this comment.\n"))
        #expect(picked.contains("# Where I am.\nmode = \"pinned\"\n"))

        // The server is gone with the process.
        #expect(throws: (any Error).self) { try PlainHTTP.exchange(port: pick.port, method: "GET", target: "/", headers: [], body: "") }
    }

    @Test("Pin here on a place found by name pins it with its name, as `forecastctl pin \"Paris, TX\"` does")
    func pinPlace() async throws {
        let home = try Home()
        let reference = try Home()
        defer {
            home.remove()
            reference.remove()
        }
        let pick = try await home.pick("--no-open")
        // The coordinates the search gave the page: Paris, Texas's own.
        let answer = try await pick.request("POST", "api/choose", body: #"{"action":"pin","latitude":33.66094,"longitude":-95.55551}"#)
        #expect(answer.body.contains("Pinned to Paris, Texas, US:"))
        let exit = try await pick.waitForExit()
        #expect(exit.status == 0, "\(exit.stderr)")
        #expect(exit.stdout.contains("location.pin: (none) → 33.66094, -95.55551 \"Paris\" (\(home.userFile))\n"))
        #expect(try await reference.run("pin", "Paris, TX").status == 0)
        #expect(try await reference.run("mode", "pinned").status == 0)
        #expect(home.settingsText() == reference.settingsText())
    }

    @Test("Add to my cities adds the position as `cities add LAT,LON --favorite` does, and exits 0")
    func addCity() async throws {
        let home = try Home()
        let reference = try Home()
        defer {
            home.remove()
            reference.remove()
        }
        let pick = try await home.pick("--no-open")
        let answer = try await pick.request(
            "POST", "api/choose", body: #"{"action":"city","latitude":59.91273,"longitude":10.74609,"favorite":true}"#)
        #expect(answer.status == 200)
        #expect(answer.body.contains("is in your cities now, as a favourite."))
        let exit = try await pick.waitForExit()
        #expect(exit.status == 0, "\(exit.stderr)")
        #expect(exit.stdout.contains("\nadded oslo-no: Oslo, Oslo, NO (59.9127, 10.7461), a favourite (\(home.userFile))\n"))
        #expect(try await reference.run("cities", "add", "59.91273,10.74609", "--favorite").status == 0)
        #expect(home.settingsText() == reference.settingsText())
    }

    @Test("with --print the choice is printed as LAT,LON and the place, and the settings are not touched")
    func printOnly() async throws {
        let home = try Home(settings: nil)
        defer { home.remove() }
        let pick = try await home.pick("--no-open", "--print")
        // The page offers only Use this place and Cancel.
        #expect(try await pick.request("POST", "api/choose", body: #"{"action":"pin","latitude":1,"longitude":1}"#).status == 400)
        let answer = try await pick.request("POST", "api/choose", body: #"{"action":"use","latitude":-34.9011,"longitude":-56.1645}"#)
        #expect(answer.status == 200)
        let exit = try await pick.waitForExit()
        #expect(exit.status == 0, "\(exit.stderr)")
        #expect(exit.stdout == "\(pick.url.absoluteString)\n-34.9011,-56.1645\tMontevideo, Montevideo Department, UY\n")
        #expect(home.settingsText() == nil)
    }

    @Test("without --no-open the address goes to xdg-open; Cancel changes nothing and exits 1")
    func xdgOpenAndCancel() async throws {
        let home = try Home()
        defer { home.remove() }
        let bin = home.directory.path + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let opened = home.directory.path + "/opened"
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > \(opened)\n".write(toFile: bin + "/xdg-open", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/xdg-open")
        let pick = try await PickProcess.start(
            [], environment: home.environment.merging(["PATH": bin + ":/usr/bin:/bin"]) { $1 }, in: home.directory)
        var handed: String?
        for _ in 0..<200 where handed == nil {
            handed = try? String(contentsOfFile: opened, encoding: .utf8)
            if handed == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(handed == pick.url.absoluteString + "\n")
        let before = home.settingsText()
        let answer = try await pick.request("POST", "api/choose", body: #"{"action":"cancel"}"#)
        #expect(answer.status == 200)
        #expect(answer.body.contains("Nothing was changed."))
        let exit = try await pick.waitForExit()
        #expect(exit.status == 1)
        #expect(exit.stdout == pick.url.absoluteString + "\n")
        #expect(exit.stderr.contains("forecastctl: cancelled on the page; nothing was changed"))
        #expect(home.settingsText() == before)
    }

    @Test("requests with a wrong token or from another origin are refused and change nothing")
    func refusedRequestsChangeNothing() async throws {
        let home = try Home()
        defer { home.remove() }
        let pick = try await home.pick("--no-open")
        let pin = #"{"action":"pin","latitude":1.5,"longitude":1.5}"#
        let port = pick.port
        let wrongToken = try await onOwnThread {
            try PlainHTTP.exchange(
                port: port, method: "POST", target: "/" + String(repeating: "f", count: 64) + "/api/choose",
                headers: [("Origin", "http://127.0.0.1:\(port)")], body: pin)
        }
        #expect(wrongToken.status == 403)
        #expect(try await pick.request("POST", "api/choose", body: pin, headers: [("Origin", "http://evil.example")]).status == 403)
        #expect(try await pick.request("POST", "api/choose", body: pin, headers: []).status == 403)
        #expect(pick.process.isRunning)
        #expect(try await pick.request("POST", "api/choose", body: #"{"action":"cancel"}"#).status == 200)
        let exit = try await pick.waitForExit()
        #expect(exit.status == 1)
        #expect(home.settingsText() == Self.userSettings)
    }

    @Test("a settings file broken while the page is open: the pin is refused with the file's error, the page may choose again")
    func brokenFileThenCancel() async throws {
        let home = try Home()
        defer { home.remove() }
        let pick = try await home.pick("--no-open")
        let broken = Self.userSettings + "\nrefresh_minutes = \"often\"\n"
        try broken.write(toFile: home.userFile, atomically: true, encoding: .utf8)
        let failed = try await pick.request("POST", "api/choose", body: #"{"action":"pin","latitude":10,"longitude":10}"#)
        #expect(failed.status == 500)
        #expect(failed.body.contains("\"ok\":false"))
        #expect(failed.body.contains("refresh_minutes"))
        #expect(pick.process.isRunning)
        #expect(home.settingsText() == broken)
        #expect(try await pick.request("POST", "api/choose", body: #"{"action":"cancel"}"#).status == 200)
        let exit = try await pick.waitForExit()
        #expect(exit.status == 1)
        #expect(exit.stderr.contains("refresh_minutes"))
    }

    @Test("a tile URL without {z}, {x} and {y} is refused where it is written, and pick does not start")
    func badTileURL() async throws {
        let home = try Home(settings: Self.userSettings + "\n[map]\ntiles_url = \"https://tiles.example.org/map.png\"\n")
        defer { home.remove() }
        let result = try await home.run("pick", "--no-open")
        #expect(result.status == 78)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("map.tiles_url"))
        #expect(result.stderr.contains("is not a tile URL with {z}, {x} and {y}"))
        try Self.userSettings.write(toFile: home.userFile, atomically: true, encoding: .utf8)
        let refused = try await home.run("set", "map.tiles_url", "https://tiles.example.org/map.png")
        #expect(refused.status == 64)
        let set = try await home.run("set", "map.tiles_url", "https://{s}.tiles.example.org/{z}/{x}/{y}.png")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(home.settingsText()?.contains("tiles_url = \"https://{s}.tiles.example.org/{z}/{x}/{y}.png\"") == true)
    }
}
