import Control
import FileStore
import ForecastModel
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Rendering
import ServiceLifecycle
import Systemd

#if canImport(Glibc)
    import Glibc
#endif

/// One connection's conversation: requests parsed, checked and answered, watchers fed.
extension SocketService {
    func serve(_ connection: Connection) async {
        // Asked of the kernel only when a request needs it: most clients only read.
        var peer: Peer?
        do {
            try await connection.channel.executeThenClose { inbound, outbound in
                // The greeting was sent on the event loop when the connection opened (`EventLoopAnswers`).
                try await withThrowingDiscardingTaskGroup { group in
                    // When the channel closes (shutdown, a failed write), everything on it ends,
                    // a watcher waiting for the next report included.
                    let closed = connection.channel.channel.closeFuture
                    group.addTask {
                        if await Self.waitUntilClosed(closed) { throw ConnectionClosed() }
                    }
                    var watchStarted = false
                    for try await request in inbound {
                        switch request {
                        case .tooLong:
                            try await outbound.write(
                                line(
                                    ControlErrorMessage(
                                        message: "request line longer than \(ControlProtocol.maxRequestLength) bytes", closed: true)))
                            throw ConnectionClosed()
                        case .text(let text):
                            if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                            let request: ControlRequest
                            let renderer: ReportRenderer
                            do {
                                request = try ControlRequest.parse(text)
                                renderer = try ReportRenderer(request, options: options)
                            } catch {
                                try await outbound.write(line(ControlErrorMessage(message: "\(error)")))
                                continue
                            }
                            if ControlProtocol.settingRequests.contains(request.request) {
                                if peer == nil { peer = await Self.peerUser(of: connection.channel.channel) }
                            }
                            if ControlProtocol.settingRequests.contains(request.request), peer?.mayChangeSettings != true {
                                try await outbound.write(
                                    line(ControlErrorMessage(
                                        message: "\"\(request.request)\" changes the daemon; only its own user or root may send it")))
                                continue
                            }
                            if request.request == "watch" {
                                guard !watchStarted else {
                                    try await outbound.write(line(ControlErrorMessage(message: "already watching on this connection")))
                                    continue
                                }
                                watchStarted = true
                                connections.setWatching(connection.channel.channel)
                                group.addTask { try await watch(renderer, city: request.city, outbound) }
                                continue
                            }
                            try await outbound.write(await answer(request, renderer))
                        }
                    }
                    // The client closed its side: a watcher keeps getting reports until it goes away,
                    // a plain client is done.
                    if !watchStarted { throw ConnectionClosed() }
                }
            }
        } catch is ConnectionClosed {
            // The normal end of a connection.
        } catch {
            logger.debug("A socket client went away with an error.", metadata: ["error": "\(error)"])
        }
    }

    func watch(
        _ renderer: ReportRenderer, city: String?, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws {
        var last: String?
        for await report in await state.subscribe() {
            let text: String
            if let city {
                // A city removed from the list while watched: say so (once) rather than go quiet.
                guard let cityReport = report.city(city) else {
                    let message = line(ControlErrorMessage(message: Self.unknownCity(city, in: report)))
                    let text = String(buffer: message)
                    guard text != last else { continue }
                    last = text
                    try await outbound.write(message)
                    continue
                }
                text = renderer.render(cityReport.report)
            } else {
                text = renderer.render(report)
            }
            // Formats that do not show a change (a new updated_at behind the same text) are not resent.
            guard text != last else { continue }
            last = text
            try await outbound.write(ByteBuffer(string: text + "\n"))
        }
    }

    func answer(_ request: ControlRequest, _ renderer: ReportRenderer) async -> ByteBuffer {
        switch request.request {
        case "report" where request.city != nil:
            let report = state.published.value.report
            guard let city = report.city(request.city!) else {
                return line(ControlErrorMessage(message: Self.unknownCity(request.city!, in: report)))
            }
            return ByteBuffer(string: renderer.render(city.report) + "\n")
        case "report" where renderer.format == .json:
            // The JSON line is encoded once per report change, not once per reader.
            return state.published.value.lineBuffer
        case "report":
            return ByteBuffer(string: renderer.render(state.published.value.report) + "\n")
        case "refresh":
            // The state publishes the report this refresh made before it answers: `forecastctl refresh
            // && forecastctl report` shows it, whichever path answers the second request.
            let outcome = await state.refreshNow()
            return line(ControlAnswer(class: "REFRESH", ok: outcome.ok, message: outcome.message))
        case "status":
            let counts = self.counts
            return line(await state.status(clients: counts.connected, watchers: counts.watching))
        case "locate":
            return line(await state.locate())
        case "reload":
            guard let reload = options.reload else {
                return line(ControlErrorMessage(message: "reload is not available"))
            }
            let outcome = await reload()
            if case .invalid = outcome {
                return line(ControlAnswer(class: "RELOAD", ok: false, message: outcome.summary))
            }
            return line(ControlAnswer(class: "RELOAD", ok: true, message: outcome.summary))
        default:  // units, pin, unpin, mode, set
            guard let change = options.changeSettings else {
                return line(ControlErrorMessage(message: "\(request.request) is not available"))
            }
            return line(await change(request))
        }
    }

    /// The greeting, encoded once.
    static let greeting: ByteBuffer = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var buffer = ByteBuffer(bytes: (try? encoder.encode(Greeting())) ?? Data("{}".utf8))
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }()

    static func unknownCity(_ key: String, in report: Report) -> String {
        let listed = (report.cities ?? []).map(\.id)
        return "unknown city \"\(key.prefix(60))\" (listed: \(listed.isEmpty ? "none; add one with forecastctl cities add NAME" : listed.joined(separator: ", ")))"
    }

    func line(_ value: some Encodable) -> ByteBuffer { Self.encodeLine(value) }

    /// One answer object as a line: snake_case keys, sorted, a newline after it.
    static func encodeLine(_ value: some Encodable) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var buffer = ByteBuffer(bytes: data)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }

    /// Waits for a channel to close; returns false when the waiting task was cancelled first.
    /// (Awaiting the close future itself cannot be cancelled.)
    static func waitUntilClosed(_ closeFuture: EventLoopFuture<Void>) async -> Bool {
        let resumed = NIOLockedValueBox<CheckedContinuation<Bool, Never>?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                resumed.withLockedValue { $0 = continuation }
                closeFuture.whenComplete { _ in
                    resumed.withLockedValue { $0.take() }?.resume(returning: true)
                }
                if Task.isCancelled { resumed.withLockedValue { $0.take() }?.resume(returning: false) }
            }
        } onCancel: {
            resumed.withLockedValue { $0.take() }?.resume(returning: false)
        }
    }
}
