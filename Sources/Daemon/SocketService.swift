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

/// Serves reports on a Unix socket: protocol version 1 (`docs/protocol.md`).
///
/// Each connection runs in its own child task with its own error handling, so one bad client can
/// never stop the server or the daemon. Watchers get the newest report only (older ones a slow
/// reader has not taken yet are dropped), so a reader that never reads costs one stalled task and
/// one pending report, and delays nobody.
public struct SocketService: Service, CustomStringConvertible {
    /// What the socket needs besides the state: limits, access and the handlers of requests that act.
    public struct Options: Sendable {
        /// Most clients connected at once; more are refused with an error line.
        public var maxClients: Int = 64
        /// A client that sends nothing for this long (and is not watching) is disconnected.
        public var idleTimeout: TimeAmount = .seconds(120)
        /// A new connection that has sent no complete request line after this long is disconnected,
        /// so silent connections cannot hold the places of real clients.
        public var firstRequestTimeout: TimeAmount = .seconds(5)
        /// The socket's group (system service): mode 0660 with this group instead of 0600.
        public var group: String?
        /// The icon set and hot/cold thresholds of a format in the `[display]` settings in force, read
        /// for each answer so that edits apply at once; a request's own `icons` wins.
        public var renderOptions: @Sendable (OutputFormat) -> RenderOptions = { _ in RenderOptions() }
        /// `units`, `pin`, `unpin`, `mode` requests: edit the settings file and apply it.
        public var changeSettings: (@Sendable (ControlRequest) async -> ControlAnswer)?
        /// `reload`.
        public var reload: (@Sendable () async -> ReloadOutcome)?
        /// A listening socket systemd passed (socket activation), served instead of binding one at
        /// the path. systemd owns its file: the daemon neither replaces nor removes it.
        public var passedSocket: SocketActivation.PassedSocket?
        /// Called once the socket accepts connections.
        public var listening: (@Sendable () -> Void)?

        public init() {}
    }

    let path: String
    let state: ForecastState
    let logger: Logger
    let eventLoopGroup: any EventLoopGroup
    let options: Options
    /// Every admitted connection, and the rules for who gets a place.
    private let connections: SocketConnections
    /// The current report's JSON line, for the event-loop fast path.
    private let cachedReport = ReportLineCache()

    public init(
        path: String, state: ForecastState, logger: Logger, options: Options = Options(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.path = path
        self.state = state
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        self.options = options
        self.connections = SocketConnections(maxClients: options.maxClients)
    }

    public var description: String { "SocketService(\(path))" }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Clients connected now, and how many of them watch (open connections only).
    public var counts: (connected: Int, watching: Int) { connections.counts }

    public func run() async throws {
        // Only a listening Unix stream socket can be served; the daemon picks one (`Daemon.run`).
        let passed = options.passedSocket.flatMap { $0.unixPath == nil ? nil : $0 }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if passed == nil {
            try AtomicFile.makeDirectory(directory, mode: options.group == nil ? 0o700 : 0o750)
            try refuseIfAnotherDaemonListens()
        }

        // Bind under a temporary name, set its mode, then rename it into place: clients can never
        // reach the socket before its mode is right, and a stale socket file left by a crash is
        // replaced in the same step.
        let temporaryPath = directory + "/.forecastd.sock.\(getpid())"
        if passed == nil { unlink(temporaryPath) }
        let idleTimeout = options.idleTimeout
        let firstRequestTimeout = options.firstRequestTimeout
        let connections = self.connections
        let cache = cachedReport
        cache.set(await state.reportLine)
        // One event loop accepts and serves: a connection then never hops to another thread between
        // being accepted and being answered, which is most of a short round trip's cost (measured in
        // docs/performance.md). A status-bar workload fits one loop many times over.
        let loop = eventLoopGroup.next()
        // Connections that need more than the event-loop fast path (a request it passes on) are
        // handed over here, wrapped for the async side at that moment. Most bar scripts connect, read
        // the greeting, ask `report` and leave: they never cost a task.
        let (handedOver, handOver) = AsyncStream.makeStream(of: Connection.self)
        let bootstrap = ServerBootstrap(group: loop, childGroup: loop)
            // `echo report | socat - UNIX-CONNECT:…` closes its sending side right after the request:
            // keep the connection open to answer it.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                // Who connected, from the kernel, before anything else: the limits are per user.
                Self.peerUID(of: channel).flatMapThrowing { uid in
                    // Counted from the moment they connect, silent ones included, so the limit holds
                    // for clients that never send a byte.
                    var refusal: ByteBuffer?
                    switch connections.admit(channel, uid: uid) {
                    case .admitted(let evicted):
                        channel.closeFuture.whenComplete { _ in connections.closed(channel) }
                        if let evicted {
                            let message = Self.encodeLine(
                                ControlErrorMessage(
                                    message: "closed to make room for another client (the limit is \(connections.maxClients))",
                                    closed: true))
                            evicted.writeAndFlush(message).whenComplete { _ in evicted.close(promise: nil) }
                        }
                    case .refused(let message):
                        // Refused with a reason, so a script sees why rather than a silent close.
                        refusal = Self.encodeLine(ControlErrorMessage(message: message, closed: true))
                    }
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                    try pipeline.addHandler(IdleCloser(connections: connections))
                    try pipeline.addHandler(
                        ByteToMessageHandler(RequestLineDecoder(maxLength: ControlProtocol.maxRequestLength)))
                    try pipeline.addHandler(FirstRequestDeadline(timeout: firstRequestTimeout, connections: connections))
                    try pipeline.addHandler(
                        FirstReportFastPath(cache: cache, refusal: refusal) { channel in
                            // On the event loop, before the request that needs it is passed on.
                            let async = try NIOAsyncChannel<RequestLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                            connections.served(channel)
                            handOver.yield(Connection(channel: async))
                        })
                }
            }
        let server: any Channel
        var created = stat()
        if let passed, let passedPath = passed.unixPath {
            // Clients may have connected before the daemon started: they wait in the socket's
            // backlog and are greeted as soon as the channel is registered.
            server = try await bootstrap.withBoundSocket(passed.descriptor).get()
            server.closeFuture.whenComplete { _ in handOver.finish() }
            do {
                try checkPassedSocketAccess(passedPath)
            } catch {
                server.close(promise: nil)
                throw error
            }
            logger.info(
                "Listening on the socket systemd passed.", metadata: ["path": "\(passedPath)", "name": "\(passed.name)"])
            if passedPath != path {
                logger.notice(
                    "The socket systemd passed is not where output.socket says; clients that read the settings look there.",
                    metadata: ["path": "\(passedPath)", "output.socket": "\(path)"])
            }
        } else {
            server = try await bootstrap.bind(unixDomainSocketPath: temporaryPath).get()
            server.closeFuture.whenComplete { _ in handOver.finish() }
            try placeSocket(temporaryPath, server: server)
            stat(path, &created)
            logger.info("Listening on the socket.", metadata: ["path": "\(path)"])
        }
        options.listening?()

        defer {
            // Remove the socket file at exit, but only if it is still ours (not one a newer daemon
            // made, nor the one systemd keeps listening on for the next start).
            var current = stat()
            if passed == nil, stat(path, &current) == 0, current.st_ino == created.st_ino { unlink(path) }
        }

        // Graceful shutdown closes the listening channel rather than cancelling this task: the stream
        // of handed-over connections then ends, and each one is closed the same way.
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                // Keep the fast path's copy of the report current.
                group.addTask {
                    for await _ in await state.subscribe().cancelOnGracefulShutdown() {
                        cache.set(await state.reportLine)
                    }
                }
                for await connection in handedOver {
                    group.addTask {
                        // Its place is freed only now that nothing of it is left (the socket closes
                        // first), so the limit bounds the memory connections hold.
                        defer { connections.taskEnded(connection.channel.channel) }
                        // A connection that closed while its task waited to start costs nothing more.
                        guard connection.channel.channel.isActive else { return }
                        await withGracefulShutdownHandler {
                            await serve(connection)
                        } onGracefulShutdown: {
                            connection.channel.channel.close(promise: nil)
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            server.close(promise: nil)
        }
    }

    /// Sets the mode (and group) of the freshly bound socket and renames it to its real path.
    private func placeSocket(_ temporaryPath: String, server: any Channel) throws {
        var mode: mode_t = 0o600
        if let group = options.group, !group.isEmpty {
            guard let entry = getgrnam(group) else {
                unlink(temporaryPath)
                server.close(promise: nil)
                throw StartError(description: "output.socket_group: no group named \"\(group)\" on this system")
            }
            chown(temporaryPath, getuid(), entry.pointee.gr_gid)
            mode = 0o660
        }
        guard chmod(temporaryPath, mode) == 0, rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            server.close(promise: nil)
            throw StartError(description: "\(path): cannot put the socket in place: \(reason)")
        }
    }

    /// Gives the socket systemd passed the mode and group a socket of the daemon's own gets
    /// (0600, or 0660 and `output.socket_group`), when its file differs and the daemon may change it.
    /// A difference it cannot change is logged with the socket unit's settings that fix it.
    private func checkPassedSocketAccess(_ socketPath: String) throws {
        var group: gid_t?
        if let name = options.group, !name.isEmpty {
            guard let entry = getgrnam(name) else {
                throw StartError(description: "output.socket_group: no group named \"\(name)\" on this system")
            }
            group = entry.pointee.gr_gid
        }
        let mode: mode_t = group == nil ? 0o600 : 0o660
        var info = stat()
        guard stat(socketPath, &info) == 0 else { return }
        if info.st_mode & 0o777 != mode { chmod(socketPath, mode) }
        if let group, info.st_gid != group { chown(socketPath, uid_t.max, group) }
        guard stat(socketPath, &info) == 0 else { return }
        let wrongGroup = group.map { info.st_gid != $0 } ?? false
        if info.st_mode & 0o777 != mode || wrongGroup {
            logger.warning(
                "The socket systemd passed does not have the access output.socket_group asks for, and forecastd cannot change it; set SocketMode= and SocketGroup= in forecastd.socket (systemctl edit forecastd.socket).",
                metadata: [
                    "path": "\(socketPath)", "mode": "\(String(info.st_mode & 0o777, radix: 8))",
                    "wanted_mode": "\(String(mode, radix: 8))", "group": "\(options.group ?? "")",
                ])
        }
    }

    /// A second daemon must not steal the socket of a running one, and a file that is not a socket
    /// is not ours to replace; a stale socket file from a crash is fine to replace.
    private func refuseIfAnotherDaemonListens() throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw StartError(description: "\(path): exists and is not a socket; refusing to replace it")
        }
        if (try? ControlClient(socketPath: path, timeout: .seconds(1))) != nil {
            throw StartError(description: "\(path): another forecastd is already running and listening there")
        }
    }

    // MARK: Connections

    private func serve(_ connection: Connection) async {
        // Asked of the kernel only when a request needs it: most clients only read.
        var peer: Peer?
        do {
            try await connection.channel.executeThenClose { inbound, outbound in
                // The greeting was sent by the event-loop fast path when the connection opened.
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

    private func watch(
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

    private func answer(_ request: ControlRequest, _ renderer: ReportRenderer) async -> ByteBuffer {
        switch request.request {
        case "report" where request.city != nil:
            let report = await state.report
            guard let city = report.city(request.city!) else {
                return line(ControlErrorMessage(message: Self.unknownCity(request.city!, in: report)))
            }
            return ByteBuffer(string: renderer.render(city.report) + "\n")
        case "report" where renderer.format == .json:
            // The JSON line is encoded once per report change, not once per reader.
            return ByteBuffer(string: await state.reportLine + "\n")
        case "report":
            return ByteBuffer(string: renderer.render(await state.report) + "\n")
        case "refresh":
            let outcome = await state.refreshNow()
            // The fast path's copy follows the state one task hop behind: bring it up to date before
            // answering, so that `forecastctl refresh && forecastctl status` shows the report this
            // refresh made, not the one before it. (Should the copy task set an older line after this,
            // it sets the current one again at once: the new report is still queued for it.)
            cachedReport.set(await state.reportLine)
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

    private func line(_ value: some Encodable) -> ByteBuffer { Self.encodeLine(value) }

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

    // MARK: Peer credentials

    struct Peer {
        var uid: uid_t?
        /// Settings may be changed by the daemon's own user and by root only; others may read.
        var mayChangeSettings: Bool { uid == getuid() || uid == 0 }
    }

    /// The user id at the other end of a new connection (SO_PEERCRED), nil when the kernel does not say.
    static func peerUID(of channel: any Channel) -> EventLoopFuture<uid_t?> {
        guard let provider = channel as? any SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { Optional($0.uid) }.recover { _ in nil }
    }

    /// The user at the other end of a Unix socket, from the kernel (SO_PEERCRED), not from anything
    /// the client says.
    static func peerUser(of channel: any Channel) async -> Peer {
        guard let provider = channel as? any SocketOptionProvider else { return Peer(uid: nil) }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        guard let credentials = try? await future.get() else { return Peer(uid: nil) }
        return Peer(uid: credentials.uid)
    }

    /// Linux's `struct ucred` (glibc shows it only with _GNU_SOURCE, so Swift does not see it).
    struct PeerCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }
}

/// The current report's JSON line, readable from any event loop without a hop to the state's actor.
final class ReportLineCache: Sendable {
    private let line = NIOLockedValueBox(ByteBuffer())
    func set(_ text: String) {
        var buffer = ByteBuffer(string: text)
        buffer.writeInteger(UInt8(ascii: "\n"))
        line.withLockedValue { $0 = buffer }
    }
    var current: ByteBuffer { line.withLockedValue { $0 } }
}

/// Answers the commonest exchange on the event loop itself: the greeting on connect, and a first
/// request that is a plain `report`, from the cached line. Everything else goes on to the
/// connection's task. Only the first request is taken, so answers can never overtake each other.
final class FirstReportFastPath: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = RequestLine
    typealias InboundOut = RequestLine
    typealias OutboundOut = ByteBuffer
    private let cache: ReportLineCache
    /// The error line for a client beyond the limit: sent after the greeting, then the connection closes.
    private let refusal: ByteBuffer?
    /// Wraps the channel for the async side and hands it over; called once, on the event loop.
    private let handOver: (any Channel) throws -> Void
    // Only touched on the channel's event loop.
    private var first = true
    private var handedOver = false
    private var lastWrite: EventLoopFuture<Void>?

    init(cache: ReportLineCache, refusal: ByteBuffer?, handOver: @escaping (any Channel) throws -> Void) {
        self.cache = cache
        self.refusal = refusal
        self.handOver = handOver
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(SocketService.greeting), promise: nil)
        if let refusal {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(refusal)).whenComplete { _ in channel.close(promise: nil) }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard refusal == nil else { return }
        if handedOver {
            context.fireChannelRead(data)
            return
        }
        let request = unwrapInboundIn(data)
        if case .text(let text) = request {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return }
            if first, trimmed.lowercased() == "report" {
                first = false
                lastWrite = context.writeAndFlush(wrapOutboundOut(cache.current))
                return
            }
        }
        first = false
        do {
            try handOver(context.channel)
            handedOver = true
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A client that asked `report` and closed its sending side (`echo report | socat …`) is done
        // once the answer is out, unless the async side took the connection over.
        if case ChannelEvent.inputClosed = event, !handedOver {
            let channel = context.channel
            if let lastWrite {
                lastWrite.whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Ends a connection's tasks (not an error).
struct ConnectionClosed: Error {}

/// One accepted connection handed to a task.
struct Connection: Sendable {
    let channel: NIOAsyncChannel<RequestLine, ByteBuffer>
}

/// Closes connections that sent nothing for the idle timeout, unless they watch.
final class IdleCloser: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let connections: SocketConnections

    init(connections: SocketConnections) { self.connections = connections }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, !connections.isWatching(context.channel) {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Closes a new connection that has sent no complete request line within a few seconds, with an
/// error saying so: a silent connection holds a place a real client may need. The first non-blank
/// line marks the connection as one that asked something (the last to make room for newcomers).
final class FirstRequestDeadline: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = RequestLine
    typealias InboundOut = RequestLine
    private let timeout: TimeAmount
    private let connections: SocketConnections
    // Only touched on the channel's event loop.
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount, connections: SocketConnections) {
        self.timeout = timeout
        self.connections = connections
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let seconds = timeout.nanoseconds / 1_000_000_000
        let wait = seconds >= 1 ? "\(seconds) s" : "\(timeout.nanoseconds / 1_000_000) ms"
        let message = SocketService.encodeLine(
            ControlErrorMessage(message: "no request within \(wait) of connecting (send one at once, e.g. report)", closed: true))
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            channel.writeAndFlush(message).whenComplete { _ in channel.close(promise: nil) }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let deadline, case .text(let text) = unwrapInboundIn(data), !text.allSatisfy(\.isWhitespace) {
            deadline.cancel()
            self.deadline = nil
            connections.markRequested(context.channel)
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }
}

/// Renders reports for one request's `format`, `icons` and `template`.
struct ReportRenderer: Sendable {
    let format: OutputFormat
    let options: RenderOptions

    init(_ request: ControlRequest, options socket: SocketService.Options) throws(ControlRequestError) {
        let name = request.format ?? "json"
        guard let format = OutputFormat(rawValue: name) else {
            throw ControlRequestError(
                "unknown format \"\(name.prefix(40))\" (allowed: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        var icons: IconSet?
        if let name = request.icons {
            guard let set = IconSet(rawValue: name) else {
                throw ControlRequestError(
                    "unknown icon set \"\(name.prefix(40))\" (allowed: \(IconSet.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            icons = set
        }
        var template: Template?
        if let text = request.template {
            do {
                template = try Template(text)
            } catch {
                throw ControlRequestError("bad template: \(error)")
            }
        }
        self.format = format
        var options = socket.renderOptions(format)
        options.icons = icons ?? options.icons
        options.template = template
        self.options = options
    }

    /// One line: multi-line formats (i3blocks) send their first line, which is what a persistent
    /// i3blocks block reads per update.
    func render(_ report: Report) -> String {
        var options = self.options
        options.now = Date()
        let text = Renderer.render(report, as: format, options: options)
        return format.lineCount > 1 ? String(text.prefix { $0 != "\n" }) : text
    }
}

/// One request line, or the news that a client sent more than the limit without a newline.
enum RequestLine: Sendable {
    case text(String)
    case tooLong
}

/// Splits input into lines, refusing to buffer more than `maxLength` bytes of one line.
struct RequestLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = RequestLine
    let maxLength: Int

    func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        if let newline = view.firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - view.startIndex
            guard length <= maxLength else {
                buffer.moveReaderIndex(to: buffer.writerIndex)
                context.fireChannelRead(Self.wrapInboundOut(.tooLong))
                return .needMoreData
            }
            var text = buffer.readString(length: length) ?? ""
            buffer.moveReaderIndex(forwardBy: 1)
            if text.hasSuffix("\r") { text.removeLast() }
            context.fireChannelRead(Self.wrapInboundOut(.text(text)))
            return .continue
        }
        if view.count > maxLength {
            buffer.moveReaderIndex(to: buffer.writerIndex)
            context.fireChannelRead(Self.wrapInboundOut(.tooLong))
        }
        return .needMoreData
    }

    func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without a newline (`printf report | socat …`) still counts.
        if buffer.readableBytes > 0, buffer.readableBytes <= maxLength {
            var text = buffer.readString(length: buffer.readableBytes) ?? ""
            if text.hasSuffix("\r") { text.removeLast() }
            context.fireChannelRead(Self.wrapInboundOut(.text(text)))
        }
        return .needMoreData
    }
}
