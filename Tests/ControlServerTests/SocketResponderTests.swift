@testable import ControlServer
import Control
import DaemonState
import ForecastModel
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Settings
import Testing
import TestSupport

/// The socket's responder called directly, without a socket, as Hummingbird tests its routers: each
/// request line and what a client would read back, and who may change what.
@Suite("Socket responder", .onEventLoops)
struct SocketResponderTests {
    /// A state pinned in Adelboden (no source to ask, nothing fetched) and a socket service that is never run.
    func service(options: SocketService.Options = SocketService.Options(maxClients: 64)) async -> (SocketService, ForecastState) {
        let directory = "/tmp/fd-responder-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let settings = Settings.pinnedInAdelboden(directory: directory)
        let state = ForecastState(settings: settings, places: nil, logger: Logger(label: "test"))
        await state.tick()
        return (SocketService(path: settings.output.socket, state: state, logger: Logger(label: "test"), options: options), state)
    }

    /// The answer line to `text`, and whether the responder asked who is asking.
    func answer(
        _ service: SocketService, _ text: String, privileged: Bool = true, watching: Bool = false
    ) async -> (line: String?, asked: Bool) {
        var asked = false
        let response = await service.respond(to: text, watching: watching) {
            asked = true
            return privileged
        }
        guard case .line(let buffer) = response else { return (nil, asked) }
        return (String(buffer: buffer), asked)
    }

    @Test("report answers the published line; format, city and bad words answer as a client reads them")
    func reports() async throws {
        let (service, state) = await service()
        let (report, asked) = await answer(service, "  REPORT ", privileged: false)
        #expect(report == String(buffer: state.published.value.lineBuffer))
        #expect(!asked, "reading needs no credentials")
        #expect(ControlReply(line: String(report!.dropLast())) == .report(String(report!.dropLast())))
        let text = try #require(await answer(service, #"{"request":"report","format":"text","icons":"text"}"#).line)
        #expect(!text.hasPrefix("{") && text.hasSuffix("\n"))
        #expect(
            await answer(service, "report city=atlantis").line
                == #"{"class":"ERROR","message":"unknown city \"atlantis\" (listed: none; add one with forecastctl cities add NAME)"}"# + "\n")
        #expect(
            await answer(service, "report template={nope").line?.hasPrefix(#"{"class":"ERROR","message":"bad template: "#) == true)
        #expect(
            await answer(service, "weather").line
                == #"{"class":"ERROR","message":"unknown request \"weather\" (allowed: report, watch, refresh, status, locate, units, pin, unpin, mode, set, reload)"}"# + "\n")
    }

    @Test("watch starts a watch with its renderer, once per connection")
    func watches() async {
        let (service, _) = await service()
        let response = await service.respond(to: "watch format=waybar city=bern-ch", watching: false) { true }
        guard case .watch(let renderer, let city) = response else {
            Issue.record("watch did not start a watch")
            return
        }
        #expect(renderer.format == .waybar && city == "bern-ch")
        #expect(
            await answer(service, "watch", watching: true).line
                == #"{"class":"ERROR","message":"already watching on this connection"}"# + "\n")
    }

    @Test("requests that change something are refused to other users, and passed on typed to the owner's")
    func privileged() async {
        let edits = NIOLockedValueBox<[SettingsEditRequest]>([])
        var options = SocketService.Options(maxClients: 64)
        options.changeSettings = { edit in
            edits.withLockedValue { $0.append(edit) }
            return ControlAnswer(.settings, ok: true, message: "units: metric → imperial")
        }
        let (service, _) = await service(options: options)
        let refused = await answer(service, "units imperial", privileged: false)
        #expect(refused.asked)
        #expect(
            refused.line
                == #"{"class":"ERROR","message":"\"units\" changes the daemon; only its own user or root may send it"}"# + "\n")
        #expect(edits.withLockedValue { $0 }.isEmpty)

        let accepted = await answer(service, "units imperial")
        #expect(accepted.line == #"{"class":"SETTINGS","message":"units: metric → imperial","ok":true}"# + "\n")
        _ = await answer(service, #"{"request":"set","value":"refresh_minutes  30"}"#)
        _ = await answer(service, "pin 48.85,2.35 name=Paris")
        _ = await answer(service, "unpin")
        #expect(
            edits.withLockedValue { $0 } == [
                .units("imperial"), .set(key: "refresh_minutes", value: "30"), .pin("48.85,2.35", name: "Paris"), .unpin,
            ])
        // Without the daemon's reloader wired, reload says so rather than pretending.
        #expect(await answer(service, "reload").line == #"{"class":"ERROR","message":"reload is not available"}"# + "\n")
    }

    @Test("status and locate answer their classes, decoded by the client's coder")
    func statusAndLocate() async throws {
        let (service, _) = await service()
        let status = try #require(await answer(service, "status", privileged: false).line)
        guard case .status(let health) = ControlReply(line: String(status.dropLast())) else {
            Issue.record("not a STATUS: \(status)")
            return
        }
        #expect(health.clients == 0 && health.release == ForecastdVersion.current)
        let locate = try #require(await answer(service, #"{"request":"locate"}"#, privileged: false).line)
        guard case .locate(let answer) = ControlReply(line: String(locate.dropLast())) else {
            Issue.record("not a LOCATE: \(locate)")
            return
        }
        #expect(answer.mode == "pinned" && answer.chosen == "pinned")
    }
}
