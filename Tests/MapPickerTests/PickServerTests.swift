import ForecastModel
import Foundation
import Gazetteer
import Localization
import MapPicker
import TestSupport
import Testing

/// The picker's server on a real socket: what it serves, what it refuses, and how it bounds a misbehaving
/// client.
@Suite("The picker's server")
struct PickServerTests {
    static let gazetteer = try! Gazetteer.loadDefault()

    static func page(
        _ purpose: PickPage.Purpose = .settings, translation: Translation = .english,
        tiles: String = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    ) -> PickPage {
        PickPage(
            purpose: purpose,
            tiles: TileServer(
                urlTemplate: tiles, attribution: "© OpenStreetMap contributors",
                attributionURL: URL(string: "https://www.openstreetmap.org/copyright")),
            translation: translation,
            start: PickStart(pin: Pin(coordinate: Coordinate(latitude: 59.91, longitude: 10.75), name: "Oslo")))
    }

    /// A running server, stopped when the test ends.
    final class Running: Sendable {
        let server: PickServer
        let http: RawHTTP
        var port: Int { http.port }
        var token: String { server.url.pathComponents[1] }
        var origin: (String, String) { ("Origin", "http://127.0.0.1:\(port)") }

        init(_ page: PickPage = PickServerTests.page(), limits: PickLimits = PickLimits()) throws {
            server = try PickServer.start(page: page, gazetteer: PickServerTests.gazetteer, limits: limits)
            http = RawHTTP(port: server.url.port!)
        }

        deinit { server.stop() }

        func get(_ path: String, headers: [(String, String)] = []) async throws -> RawHTTP.Response {
            let http = self.http
            let target = "/\(token)/\(path)"
            return try #require(try await onOwnThread { try http.send("GET", target, headers: headers) })
        }

        func post(_ path: String, _ body: String, headers: [(String, String)]? = nil) async throws -> RawHTTP.Response {
            let http = self.http
            let target = "/\(token)/\(path)"
            let sent = headers ?? [origin, ("Content-Type", "application/json")]
            return try #require(try await onOwnThread { try http.send("POST", target, headers: sent, body: Array(body.utf8)) })
        }

        /// The next event, waited for on a thread of its own.
        func nextEvent() async throws -> PickEvent {
            let server = self.server
            return try await onOwnThread { try server.nextEvent() }
        }
    }

    // MARK: What it serves

    @Test("the page, its script, its style and Leaflet are served from the token's path with the security headers")
    func servesThePage() async throws {
        let running = try Running()
        let page = try await running.get("")
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.text.contains("<script src=\"leaflet/leaflet.js\" defer></script>"))
        let policy = try #require(page.header("Content-Security-Policy"))
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("script-src 'self';"))
        #expect(policy.contains("img-src 'self' data: https://tile.openstreetmap.org;"))
        #expect(policy.contains("connect-src 'self'"))
        #expect(page.header("Referrer-Policy") == "strict-origin")
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        #expect(page.header("Cache-Control") == "no-store")
        for (path, type) in [
            ("pick.js", "text/javascript"), ("pick.css", "text/css"), ("leaflet/leaflet.js", "text/javascript"),
            ("leaflet/leaflet.css", "text/css"), ("leaflet/images/marker-icon.png", "image/png"),
        ] {
            let file = try await running.get(path)
            #expect(file.status == 200, "\(path)")
            #expect(file.header("Content-Type")?.hasPrefix(type) == true, "\(path)")
            #expect(file.body.count > 100, "\(path)")
        }
        let leaflet = try await running.get("leaflet/leaflet.js")
        #expect(leaflet.text.contains("Redistribution and use in source and binary forms"), "Leaflet's licence travels with it")
        #expect(try await running.get("../../etc/passwd").status == 404)
        #expect(try await running.get("leaflet/../pick.js").status == 404)
        #expect(try await running.get("nothing.html").status == 404)
    }

    @Test("a tile template with a {s} subdomain and a port gives the policy a wildcard origin with that port")
    func tileOrigins() {
        func source(_ template: String) -> String? {
            TileServer(urlTemplate: template, attribution: "x", attributionURL: nil).contentSecurityPolicySource
        }
        #expect(source("https://{s}.tile.example.org/{z}/{x}/{y}{r}.png") == "https://*.tile.example.org")
        #expect(source("http://127.0.0.1:8080/tiles/{z}/{x}/{y}.png") == "http://127.0.0.1:8080")
        #expect(source("https://tiles-{s}.example.org/{z}/{x}/{y}.png") == nil)
        #expect(source("ftp://tiles.example.org/{z}/{x}/{y}.png") == nil)
        #expect(source("https://x'; script-src *; '/{z}/{x}/{y}.png") == nil)
    }

    @Test("setup gives the page its words in the page's language, the tiles, the pin and the places' credit")
    func setup() async throws {
        let french = Translation(try CatalogueLibrary.load("fr", from: CatalogueLibrary.sourceTreeDirectory).get())
        let running = try Running(Self.page(translation: french))
        let setup = try #require(try await running.get("api/setup").json)
        #expect(setup["language"] as? String == "fr")
        #expect(setup["purpose"] as? String == "settings")
        let texts = try #require(setup["texts"] as? [String: String])
        #expect(texts["pin"] == "Fixer ici")
        #expect(texts["cancel"] == "Annuler")
        #expect(texts.count == 21)
        let tiles = try #require(setup["tiles"] as? [String: Any])
        #expect(tiles["url"] as? String == "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
        #expect(tiles["attributionURL"] as? String == "https://www.openstreetmap.org/copyright")
        let pin = try #require(setup["pin"] as? [String: Any])
        #expect(pin["name"] as? String == "Oslo")
        #expect((setup["placesCredit"] as? String)?.contains("GeoNames") == true)
    }

    @Test("the page's questions are answered from the gazetteer as forecastctl answers them")
    func questions() async throws {
        let running = try Running()
        let places = try #require(try await running.get("api/places?south=48.5&west=1.8&north=49.2&east=3&limit=5").json)
        let dots = try #require(places["places"] as? [[String: Any]])
        #expect(dots.count == 5)
        #expect(dots.first?["label"] as? String == "Paris, Île-de-France, FR")

        let texas = try #require(try await running.get("api/search?q=Paris%2C%20TX").json)
        #expect(texas["result"] as? String == "unique")
        #expect((texas["places"] as? [[String: Any]])?.first?["label"] as? String == "Paris, Texas, US")
        let hamilton = try #require(try await running.get("api/search?q=Hamilton").json)
        #expect(hamilton["result"] as? String == "ambiguous")
        #expect(((hamilton["places"] as? [[String: Any]])?.count ?? 0) > 1)
        let nowhere = try #require(try await running.get("api/search?q=Xqzzyville").json)
        #expect(nowhere["result"] as? String == "none")

        let nearest = try #require(try await running.get("api/nearest?lat=48.9043&lon=2.3330").json)
        #expect((nearest["place"] as? [String: Any])?["name"] as? String == "Saint-Ouen")
        // A longitude a turn away names the same place.
        let wrapped = try #require(try await running.get("api/nearest?lat=48.9043&lon=362.3330").json)
        #expect((wrapped["place"] as? [String: Any])?["name"] as? String == "Saint-Ouen")
    }

    @Test(
        "questions with bad numbers are refused with 400 and a reason",
        arguments: [
            "api/places?south=x&west=1&north=2&east=3", "api/places?south=3&west=1&north=2&east=3",
            "api/places?south=1&west=1&north=2", "api/places?south=1&west=1&north=2&east=3&limit=0",
            "api/places?south=nan&west=1&north=2&east=3", "api/nearest?lat=91&lon=0", "api/nearest?lat=1e400&lon=0",
            "api/nearest?lat=1", "api/search?q=", "api/search",
        ])
    func badQuestions(_ path: String) async throws {
        let running = try Running()
        let answer = try await running.get(path)
        #expect(answer.status == 400, "\(path): \(answer)")
        #expect(!answer.text.isEmpty)
    }

    // MARK: Who may ask

    @Test("a wrong token, a foreign Host, a foreign Origin and a POST without Origin get 403")
    func refusals() async throws {
        let running = try Running()
        let http = running.http
        let token = running.token
        let port = running.port
        let answers = try await onOwnThread {
            [
                try http.send("GET", "/" + String(repeating: "0", count: 64) + "/"),
                try http.send("GET", "/favicon.ico"),
                try http.send("GET", "/\(token)/", host: "evil.example:\(port)"),
                try http.send("GET", "/\(token)/api/setup", headers: [("Origin", "http://evil.example")]),
                try http.send("GET", "/\(token)/api/setup", headers: [("Sec-Fetch-Site", "cross-site")]),
                try http.send("POST", "/\(token)/api/choose", body: Array(#"{"action":"cancel"}"#.utf8)),
                try http.send(
                    "POST", "/\(token)/api/choose", headers: [("Origin", "http://127.0.0.1:1")],
                    body: Array(#"{"action":"cancel"}"#.utf8)),
            ]
        }
        for answer in answers {
            #expect(answer?.status == 403, "\(String(describing: answer))")
        }
        // None of them was a choice: a real one still goes through.
        async let event = running.nextEvent()
        async let cancel = running.post("api/choose", #"{"action":"cancel"}"#)
        guard case .choice(let choice, let reply) = try await event else {
            Issue.record("no choice")
            return
        }
        #expect(choice.action == .cancel)
        reply.send(.done("ok"))
        #expect(try await cancel.status == 200)
    }

    // MARK: The choice

    @Test("a choice reaches forecastctl with the nearest place; once done, a second choice and every request get 403")
    func choiceThenClosed() async throws {
        let running = try Running()
        async let event = running.nextEvent()
        async let answer = running.post("api/choose", #"{"action":"pin","latitude":48.856614,"longitude":2.3522219}"#)
        guard case .choice(let choice, let reply) = try await event else {
            Issue.record("no choice")
            return
        }
        #expect(choice.action == .pin)
        #expect(choice.coordinate == Coordinate(latitude: 48.85661, longitude: 2.35222))
        // The nearest place, as `forecastctl place` names it.
        #expect(choice.place?.name == "Paris 04 Hôtel-de-Ville")
        reply.send(.done("Pinned to Paris"))
        let done = try await answer
        #expect(done.status == 200)
        #expect(done.json?["ok"] as? Bool == true)
        #expect(done.json?["message"] as? String == "Pinned to Paris")

        let second = try await running.post("api/choose", #"{"action":"city","latitude":1,"longitude":1}"#)
        #expect(second.status == 403)
        #expect(second.text.contains("the choice has been made"))
        #expect(try await running.get("").status == 403)
        #expect(try await running.get("api/setup").status == 403)
    }

    @Test("a choice forecastctl could not carry out is answered as failed, and the next one is taken")
    func failedChoice() async throws {
        let running = try Running()
        async let first = running.nextEvent()
        async let failedAnswer = running.post("api/choose", #"{"action":"city","latitude":60.39,"longitude":5.32,"favorite":true}"#)
        guard case .choice(let choice, let reply) = try await first else {
            Issue.record("no choice")
            return
        }
        #expect(choice.favorite && choice.place?.name == "Bergen")
        reply.send(.failed("the settings file has errors"))
        let failed = try await failedAnswer
        #expect(failed.status == 500)
        #expect(failed.json?["ok"] as? Bool == false)
        #expect(failed.json?["message"] as? String == "the settings file has errors")

        async let second = running.nextEvent()
        async let cancelAnswer = running.post("api/choose", #"{"action":"cancel"}"#)
        guard case .choice(let cancel, let cancelReply) = try await second else {
            Issue.record("no second choice")
            return
        }
        #expect(cancel.action == .cancel)
        cancelReply.send(.done("Nothing was changed."))
        #expect(try await cancelAnswer.status == 200)
    }

    @Test("a second choice while the first is being carried out gets 409")
    func choiceWhileChoosing() async throws {
        let running = try Running()
        async let first = running.nextEvent()
        async let firstAnswer = running.post("api/choose", #"{"action":"pin","latitude":10,"longitude":10}"#)
        guard case .choice(_, let reply) = try await first else {
            Issue.record("no choice")
            return
        }
        let second = try await running.post("api/choose", #"{"action":"pin","latitude":11,"longitude":11}"#)
        #expect(second.status == 409)
        reply.send(.done("done"))
        #expect(try await firstAnswer.status == 200)
    }

    @Test(
        "malformed choices are refused with 400 and never reach forecastctl",
        arguments: [
            "", "{", "[]", #"{"action":"delete"}"#, #"{"action":"pin"}"#, #"{"action":"pin","latitude":91,"longitude":0}"#,
            #"{"action":"pin","latitude":"48","longitude":"2"}"#, #"{"action":"use","latitude":1,"longitude":1}"#,
            #"{"action":"city","latitude":1,"longitude":1e999}"#,
        ])
    func malformedChoice(_ body: String) async throws {
        let running = try Running()
        let answer = try await running.post("api/choose", body)
        #expect(answer.status == 400, "\(body): \(answer)")
        // The gate is still open and nothing is waiting for forecastctl: a cancel is the first event.
        async let event = running.nextEvent()
        async let cancel = running.post("api/choose", #"{"action":"cancel"}"#)
        guard case .choice(let choice, let reply) = try await event else {
            Issue.record("no event")
            return
        }
        #expect(choice.action == .cancel)
        reply.send(.done("x"))
        #expect(try await cancel.status == 200)
    }

    @Test("with --print only Use this place and Cancel are offered")
    func printPurpose() async throws {
        let running = try Running(Self.page(.print))
        #expect(try await running.post("api/choose", #"{"action":"pin","latitude":1,"longitude":1}"#).status == 400)
        async let event = running.nextEvent()
        async let answer = running.post("api/choose", #"{"action":"use","latitude":-34.9011,"longitude":-56.1645}"#)
        guard case .choice(let choice, let reply) = try await event else {
            Issue.record("no choice")
            return
        }
        #expect(choice.action == .use && choice.place?.name == "Montevideo")
        reply.send(.done("Chosen"))
        #expect(try await answer.status == 200)
    }

    // MARK: Bounds

    @Test("oversized and malformed requests are refused and the connection closed; the server goes on")
    func badRequests() async throws {
        var limits = PickLimits()
        limits.connectionIdle = .seconds(5)
        let running = try Running(limits: limits)
        let token = running.token
        let port = running.port
        let answers = try await onOwnThread { () -> [(String, Int?)] in
            func exchange(_ name: String, _ bytes: [UInt8]) throws -> (String, Int?) {
                let connection = try RawHTTP.Connection(port: port)
                try? connection.send(bytes)
                return (name, RawHTTP.parseAll(connection.readToEnd()).first?.status)
            }
            return [
                try exchange("target", RawHTTP.requestBytes("GET", "/\(token)/api/search?q=" + String(repeating: "a", count: 3000), host: "127.0.0.1:\(port)")),
                try exchange("header", RawHTTP.requestBytes("GET", "/\(token)/", host: "127.0.0.1:\(port)", headers: [("X-Big", String(repeating: "b", count: 20_000))])),
                try exchange("headers", RawHTTP.requestBytes("GET", "/\(token)/", host: "127.0.0.1:\(port)", headers: (0..<200).map { ("X-\($0)", "v") })),
                try exchange("declared body", Array("POST /\(token)/api/choose HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nContent-Length: 100000\r\n\r\n".utf8)),
                try exchange("body", Array("POST /\(token)/api/choose HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nTransfer-Encoding: chunked\r\n\r\n2000\r\n".utf8) + [UInt8](repeating: 65, count: 8192) + Array("\r\n0\r\n\r\n".utf8)),
                try exchange("request line", Array("GARBAGE\r\n\r\n".utf8)),
                try exchange("binary", [0, 1, 2, 255, 254, 13, 10, 13, 10]),
                try exchange("method", RawHTTP.requestBytes("DELETE", "/\(token)/", host: "127.0.0.1:\(port)")),
                try exchange("no host", RawHTTP.requestBytes("GET", "/\(token)/", host: nil)),
            ]
        }
        let expected: [String: Int] = [
            "target": 414, "header": 400, "headers": 400, "declared body": 413, "body": 413, "request line": 400,
            "binary": 400, "method": 405, "no host": 403,
        ]
        for (name, status) in answers {
            #expect(status == expected[name], "\(name)")
        }
        #expect(try await running.get("").status == 200)
    }

    @Test("a flood of requests is answered at the rate limit and no faster; the server answers again once it slows")
    func flood() async throws {
        var limits = PickLimits()
        limits.burst = 100
        limits.perSecond = 50
        let running = try Running(limits: limits)
        let port = running.port
        let token = running.token
        // 1000 requests in one write on one connection (HTTP pipelining), 1000 more on ten connections.
        let started = Date()
        let (pipelined, parallel) = try await onOwnThread { () -> ([Int], [Int]) in
            let one = try RawHTTP.Connection(port: port)
            let request = RawHTTP.requestBytes("GET", "/\(token)/api/nearest?lat=1&lon=1", host: "127.0.0.1:\(port)", close: false)
            try? one.send(Array((0..<1000).map { _ in request }.joined()))
            let pipelined = RawHTTP.parseAll(one.readToEnd()).map(\.status)
            var parallel: [Int] = []
            for _ in 0..<10 {
                let connection = try RawHTTP.Connection(port: port)
                try? connection.send(Array((0..<100).map { _ in request }.joined()))
                parallel += RawHTTP.parseAll(connection.readToEnd()).map(\.status)
            }
            return (pipelined, parallel)
        }
        let elapsed = Date().timeIntervalSince(started)
        let accepted = (pipelined + parallel).filter { $0 == 200 }.count
        // The bucket: the burst, and what it refilled while the flood lasted (and one for rounding).
        #expect(accepted <= limits.burst + Int(Double(limits.perSecond) * elapsed) + 1, "\(accepted) in \(elapsed) s")
        #expect(accepted >= limits.burst)
        // A refused request ends its connection: the pipelined one stops at its first 429.
        #expect(pipelined.last == 429)
        #expect(pipelined.dropLast().allSatisfy { $0 == 200 })
        #expect(parallel.contains(429))
        // Slowed down, a request is answered again.
        var answered = false
        for _ in 0..<50 where !answered {
            try await Task.sleep(for: .milliseconds(100))
            answered = try await running.get("api/setup").status == 200
        }
        #expect(answered)
    }

    @Test("connections beyond the limit are closed at once; idle ones after connectionIdle")
    func connections() async throws {
        var limits = PickLimits()
        limits.maxConnections = 4
        limits.connectionIdle = .milliseconds(500)
        let running = try Running(limits: limits)
        let port = running.port
        let server = running.server
        let closedAtOnce = try await onOwnThread { () -> Int in
            var open: [RawHTTP.Connection] = []
            for _ in 0..<4 { open.append(try RawHTTP.Connection(port: port, timeout: 0.3)) }
            // Wait until the server has counted the four before the fifth arrives.
            for _ in 0..<100 where server.openConnections < 4 { usleep(10_000) }
            var closed = 0
            for _ in 0..<6 {
                let extra = try RawHTTP.Connection(port: port, timeout: 2)
                if extra.isClosedByServer() { closed += 1 }
            }
            // The four say nothing: each is closed within connectionIdle (and a little).
            let idleClosed = open.map { connection -> Bool in
                var waited = 0.0
                while waited < 5 {
                    if connection.isClosedByServer() { return true }
                    waited += 0.3
                }
                return false
            }
            return idleClosed.allSatisfy { $0 } ? closed : -1
        }
        #expect(closedAtOnce == 6)
        // The client sees the close before the server's loop has counted the connection out: wait for it.
        let counted = try await onOwnThread { () -> Int in
            for _ in 0..<200 where server.openConnections > 0 { usleep(10_000) }
            return server.openConnections
        }
        #expect(counted == 0)
        #expect(try await running.get("").status == 200)
    }

    @Test("a page silent for sessionIdle ends the picker with the idle event, and then every request gets 403")
    func sessionIdle() async throws {
        var limits = PickLimits()
        limits.sessionIdle = .milliseconds(600)
        let running = try Running(limits: limits)
        #expect(try await running.get("").status == 200)
        guard case .idle = try await running.nextEvent() else {
            Issue.record("a choice instead of idle")
            return
        }
        #expect(try await running.get("").status == 403)
    }
}
