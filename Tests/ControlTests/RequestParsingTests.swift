import Control
import ForecastModel
import Testing

/// The request parser on its own, without a socket: what each request takes, in both forms.
@Suite("Control requests")
struct RequestParsingTests {
    @Test("plain and JSON forms give the same request")
    func bothForms() throws {
        let plain = try ControlRequest.parse("  WATCH format=waybar icons=nerd city=paris-fr ")
        let json = try ControlRequest.parse(#"{"request":"watch","format":"waybar","icons":"nerd","city":"paris-fr"}"#)
        #expect(plain == json)
        #expect(plain == .watch(ReportOptions(format: .waybar, icons: .nerd, city: "paris-fr")))
        #expect(try ControlRequest.parse("pin 48.85,2.35 name=Paris") == .change(.pin("48.85,2.35", name: "Paris")))
        #expect(try ControlRequest.parse("pin Paris, FR") == .change(.pin("Paris, FR", name: nil)))
        // A value may hold `=`: set takes the rest of the line, the key first.
        #expect(try ControlRequest.parse("set output.socket_group = x") == .change(.set(key: "output.socket_group", value: "= x")))
        #expect(try ControlRequest.parse(#"{"request":"set","value":"refresh_minutes 30"}"#) == .change(.set(key: "refresh_minutes", value: "30")))
        #expect(try ControlRequest.parse("UNITS wind kn") == .change(.units("wind kn")))
        #expect(try ControlRequest.parse("report") == .report(ReportOptions()))
        #expect(try ControlRequest.parse(#"{"request":"unpin"}"#) == .change(.unpin))
    }

    @Test("the line a client sends is the JSON form, and parses back to the same request")
    func lines() throws {
        let requests: [ControlRequest] = [
            .report(ReportOptions()), .report(ReportOptions(format: .i3statusRust, template: "{icon} {temp}", city: "São Paulo")),
            .watch(ReportOptions(format: .waybar, icons: .nerd, city: "paris-fr")), .refresh, .status, .locate,
            .change(.units("imperial")), .change(.pin("48.85,2.35", name: "Paris")), .change(.unpin), .change(.mode("auto")),
            .change(.set(key: "refresh_minutes", value: "30")), .reload,
        ]
        for request in requests {
            #expect(try ControlRequest.parse(request.line) == request)
        }
        #expect(ControlRequest.report(ReportOptions()).line == #"{"request":"report"}"#)
        #expect(ControlRequest.watch(ReportOptions(format: .waybar, city: "a/b")).line == #"{"city":"a/b","format":"waybar","request":"watch"}"#)
        #expect(ControlRequest.change(.set(key: "units", value: "uk")).line == #"{"request":"set","value":"units uk"}"#)
    }

    @Test("what a request does not take, or a value it needs, is an error naming what it takes")
    func refusals() {
        func error(_ line: String) -> String {
            do {
                _ = try ControlRequest.parse(line)
                return ""
            } catch {
                return error.description
            }
        }
        #expect(error("weather") == #"unknown request "weather" (allowed: report, watch, refresh, status, locate, units, pin, unpin, mode, set, reload)"#)
        #expect(error("report junk") == #""report" does not take "junk" (it takes: format=, icons=, template=, city=)"#)
        #expect(error("refresh now") == #""refresh" does not take "now" (it takes: nothing)"#)
        #expect(error("units") == #""units" needs a value: a preset (metric, imperial, uk, si) or a quantity and its unit, e.g. wind kn"#)
        #expect(error("units imperial format=tmux") == #""units" does not take "format=tmux" (it takes: a value (a preset (metric, imperial, uk, si) or a quantity and its unit, e.g. wind kn))"#)
        #expect(error(#"{"request":"pin","value":"1,2","colour":"red"}"#).contains(#"takes no member "colour" (it takes: request, value, name)"#))
        #expect(error(#"{"request":"report","city":1}"#) == #"the member "city" must be a string"#)
        #expect(error(#"{"format":"waybar"}"#).hasPrefix("not a valid request object"))
        #expect(error("") == "empty request")
        #expect(error("report format=bogus") == #"unknown format "bogus" (allowed: json, waybar, i3blocks, polybar, i3status-rust, tmux, text, template)"#)
        #expect(error(#"{"request":"watch","icons":"fancy"}"#) == #"unknown icon set "fancy" (allowed: emoji, emoji-safe, nerd, text)"#)
        // What a request does not take is named before a format that does not exist.
        #expect(error("status format=bogus") == #""status" does not take "format=bogus" (it takes: nothing)"#)
    }

    @Test("the privileged requests are exactly those that change something")
    func privileged() throws {
        #expect(Set(RequestName.allCases.filter(\.isPrivileged)) == [.units, .pin, .unpin, .mode, .set, .reload, .refresh])
        #expect(try ControlRequest.parse("set a b").isPrivileged)
        #expect(try !ControlRequest.parse("watch").isPrivileged)
    }

    @Test("an ERROR the daemon closes the connection after is told apart from one about the request")
    func closingErrors() {
        #expect(ControlReply(line: #"{"class":"ERROR","closed":true,"message":"too many clients"}"#) == .error(ControlErrorMessage(message: "too many clients", closed: true)))
        #expect(ControlReply(line: #"{"class":"ERROR","message":"unknown format"}"#) == .error(ControlErrorMessage(message: "unknown format")))
        #expect(ControlReply(line: "Samara 12°C") == .report("Samara 12°C"))
    }

    @Test("answers are told apart by their class; a report or a bar's JSON is a report")
    func answers() {
        let waybar = #"{"alt":"clear-day","class":["clear-day"],"text":"☀️ 21°C","tooltip":"Paris"}"#
        #expect(ControlReply(line: waybar) == .report(waybar))
        #expect(ControlReply(line: #"{"schema":1,"status":"ok"}"#) == .report(#"{"schema":1,"status":"ok"}"#))
        #expect(ControlReply(line: #"{"class":"VERSION","proto":1,"release":"0.1.0"}"#) == .version(Greeting(release: "0.1.0", proto: 1)))
        #expect(ControlReply(line: #"{"class":"RELOAD","message":"nothing changed","ok":true}"#) == .outcome(ControlAnswer(class: "RELOAD", ok: true, message: "nothing changed")))
        for kind in ControlAnswer.Kind.allCases {
            let outcome = ControlReply.outcome(ControlAnswer(kind, ok: false, message: "m"))
            #expect(outcome.line == #"{"class":"\#(kind.rawValue)","message":"m","ok":false}"#)
            #expect(ControlReply(line: outcome.line) == outcome)
        }
        // A class the protocol has, with members missing, is not mistaken for its answer.
        #expect(ControlReply(line: #"{"class":"STATUS"}"#) == .report(#"{"class":"STATUS"}"#))
        let locate = LocateAnswer(
            mode: "auto", chosen: "gpsd", reason: "a 3D fix",
            sources: [LocateSource(source: "gpsd", state: .position, used: true, latitude: 48.85, accuracyM: 4, ageSeconds: 2, detail: "fix")])
        let status = DaemonStatus(
            release: "0.1.0", uptimeSeconds: 5, clients: 1, watchers: 0, reportStatus: "ok", stale: false, locationSource: nil,
            locationReason: "pinned", lastRefresh: nil, provider: "open-meteo", errors: [])
        // What the daemon encodes, a client decodes: one coder.
        for reply in [ControlReply.locate(locate), .status(status), .error(ControlErrorMessage(message: "x", closed: true))] {
            #expect(ControlReply(line: reply.line) == reply)
        }
        #expect(ControlReply.locate(locate).line.contains(#""accuracy_m":4"#))
        // snake_case keys, sorted; absent fields left out rather than null.
        #expect(ControlReply.status(status).line.hasPrefix(#"{"class":"STATUS","clients":1,"errors":[],"location_reason":"pinned","provider""#))
    }
}
