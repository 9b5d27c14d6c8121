import Control
import Testing

/// The request parser on its own, without a socket: what each request takes, in both forms.
@Suite("Control requests")
struct RequestParsingTests {
    @Test("plain and JSON forms give the same request")
    func bothForms() throws {
        let plain = try ControlRequest.parse("  WATCH format=waybar icons=nerd city=paris-fr ")
        let json = try ControlRequest.parse(#"{"request":"watch","format":"waybar","icons":"nerd","city":"paris-fr"}"#)
        #expect(plain == json)
        #expect(plain.request == "watch" && plain.format == "waybar" && plain.icons == "nerd" && plain.city == "paris-fr")
        let pin = try ControlRequest.parse("pin 48.85,2.35 name=Paris")
        #expect(pin.value == "48.85,2.35" && pin.name == "Paris")
        // A value may hold `=`: set takes the rest of the line.
        #expect(try ControlRequest.parse("set output.socket_group = x").value == "output.socket_group = x")
        // The line a client sends parses back to the same request.
        #expect(try ControlRequest.parse(plain.line) == plain)
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
    }

    @Test("the privileged requests are exactly those that change something")
    func privileged() {
        #expect(ControlProtocol.settingRequests == ["units", "pin", "unpin", "mode", "set", "reload", "refresh"])
    }

    @Test("an ERROR the daemon closes the connection after is told apart from one about the request")
    func closingErrors() {
        #expect(ControlErrorMessage.decode(#"{"class":"ERROR","closed":true,"message":"too many clients"}"#)?.closed == true)
        #expect(ControlErrorMessage.decode(#"{"class":"ERROR","message":"unknown format"}"#)?.closed == nil)
        #expect(ControlErrorMessage.decode(#"{"class":"STATUS"}"#) == nil)
        #expect(ControlErrorMessage.decode("Samara 12°C") == nil)
    }
}
