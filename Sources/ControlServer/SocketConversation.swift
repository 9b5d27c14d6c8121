import Control
import DaemonState
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
                                    .error(ControlErrorMessage(
                                        message: "request line longer than \(ByteCount(ControlProtocol.maxRequestLength))", closed: true))))
                            throw ConnectionClosed()
                        case .text(let text):
                            if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                            let channel = connection.channel.channel
                            let response = await respond(to: text, watching: watchStarted) {
                                if peer == nil { peer = await Self.peerUser(of: channel) }
                                return peer?.mayChangeSettings == true
                            }
                            switch response {
                            case .line(let answer):
                                try await outbound.write(answer)
                            case .watch(let renderer, let city):
                                watchStarted = true
                                connections.setWatching(channel)
                                group.addTask { try await watch(renderer, city: city, on: channel) }
                            }
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

    /// Sends a watcher the report now, and again whenever the report or the `[display]` settings change,
    /// rendered anew each time (a language, icon or threshold edit reaches a running bar at once).
    ///
    /// One line at most is on its way at a time: the next is rendered once the last has been taken by the
    /// kernel, from the newest report (changes meanwhile only leave a wake-up behind). So a watcher that does
    /// not read holds one line in the daemon (a JSON watcher none of its own: the published line is shared),
    /// older reports are never queued for it, and with its small socket buffer the kernel holds at most
    /// ``watcherSendBuffer`` bytes more: when it reads again, it gets a line or two, then the newest.
    func watch(_ renderer: ReportRenderer, city: String?, on channel: any Channel) async throws {
        try? await channel.setOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.watcherSendBuffer).get()
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let published = state.published
        let settings = state.settings
        let reportWakes = published.wake(wake)
        let settingsWakes = settings.wake(wake)
        defer {
            published.stopWaking(reportWakes)
            settings.stopWaking(settingsWakes)
        }
        wake.yield()
        var last: ByteBuffer?
        for await _ in wakes {
            let current = published.value
            let next: ByteBuffer
            if let city {
                // A city removed from the list while watched: say so (once) rather than go quiet.
                if let cityReport = current.report.city(city) {
                    next = ByteBuffer(string: renderer.render(cityReport.report) + "\n")
                } else {
                    next = line(.error(ControlErrorMessage(message: Self.unknownCity(city, in: current.report))))
                }
            } else if renderer.format == .json {
                next = current.lineBuffer
            } else {
                next = ByteBuffer(string: renderer.render(current.report) + "\n")
            }
            // Formats that do not show a change (a new updated_at behind the same text) are not resent.
            guard next != last else { continue }
            last = next
            try await channel.writeAndFlush(next).get()
        }
    }

    /// The socket send buffer a watcher's connection gets (`SO_SNDBUF`; Linux doubles it): about one JSON
    /// report. The default (about 208 KiB) would keep some twenty old reports for a reader that stopped
    /// reading, and hand them all to it before the newest.
    static let watcherSendBuffer: SocketOptionValue = 8192

    /// What one request line gets: an answer line, or a watch to start.
    enum Response {
        case line(ByteBuffer)
        case watch(ReportRenderer, city: String?)
    }

    /// Answers one request line, as it would on a connection: parsed, checked against who asks
    /// (`mayChangeSettings` is asked only for a request that changes something), then dispatched.
    /// Needs no socket: what it answers is what a client reads.
    func respond(
        to text: String, watching: Bool, mayChangeSettings: () async -> Bool
    ) async -> Response {
        let request: ControlRequest
        do {
            request = try ControlRequest.parse(text)
        } catch {
            return .line(line(.error(ControlErrorMessage(message: error.description))))
        }
        if request.isPrivileged, await !mayChangeSettings() {
            return .line(
                line(.error(ControlErrorMessage(
                    message: "\"\(request.name.rawValue)\" changes the daemon; only its own user or root may send it"))))
        }
        switch request {
        case .watch(let report):
            let renderer: ReportRenderer
            do {
                renderer = try ReportRenderer(report, settings: state.settings, lasting: true)
            } catch {
                return .line(line(.error(ControlErrorMessage(message: error.description))))
            }
            guard !watching else {
                return .line(line(.error(ControlErrorMessage(message: "already watching on this connection"))))
            }
            return .watch(renderer, city: report.city)
        case .report(let report):
            let renderer: ReportRenderer
            do {
                renderer = try ReportRenderer(report, settings: state.settings)
            } catch {
                return .line(line(.error(ControlErrorMessage(message: error.description))))
            }
            let published = state.published.value
            if let key = report.city {
                guard let city = published.report.city(key) else {
                    return .line(line(.error(ControlErrorMessage(message: Self.unknownCity(key, in: published.report)))))
                }
                return .line(ByteBuffer(string: renderer.render(city.report) + "\n"))
            }
            // The JSON line is encoded once per report change, not once per reader.
            if renderer.format == .json { return .line(published.lineBuffer) }
            return .line(ByteBuffer(string: renderer.render(published.report) + "\n"))
        case .refresh:
            // The state publishes the report this refresh made before it answers: `forecastctl refresh
            // && forecastctl report` shows it, whichever path answers the second request.
            let outcome = await state.refreshNow()
            var answer = ControlAnswer(.refresh, ok: outcome.ok, message: outcome.message)
            answer.outcome = outcome.kind.rawValue
            answer.provider = outcome.provider
            answer.error = outcome.error
            answer.retryAt = outcome.retryAt.map { Timestamps.rfc3339($0) }
            return .line(line(.outcome(answer)))
        case .status:
            let counts = await settledCounts()
            return .line(line(.status(await state.status(clients: counts.connected, watchers: counts.watching))))
        case .locate:
            return .line(line(.locate(await state.locate())))
        case .reload:
            guard let reload = options.reload else {
                return .line(line(.error(ControlErrorMessage(message: "reload is not available"))))
            }
            return .line(line(.outcome(await reload())))
        case .change(let change):
            guard let apply = options.changeSettings else {
                return .line(line(.error(ControlErrorMessage(message: "\(request.name.rawValue) is not available"))))
            }
            return .line(line(.outcome(await apply(change))))
        }
    }

    /// The greeting, encoded once.
    static let greeting = encodeLine(.version(Greeting()))

    static func unknownCity(_ key: String, in report: Report) -> String {
        let listed = (report.cities ?? []).map(\.id)
        return "unknown city \"\(key.prefix(60))\" (listed: \(listed.isEmpty ? "none; add one with forecastctl cities add NAME" : listed.joined(separator: ", ")))"
    }

    func line(_ reply: ControlReply) -> ByteBuffer { Self.encodeLine(reply) }

    /// One answer as a line, by the protocol's coder, with its newline.
    static func encodeLine(_ reply: ControlReply) -> ByteBuffer {
        ByteBuffer(string: reply.line + "\n")
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
