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
import Settings
import Systemd
import Waiting

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
        /// Most clients connected at once (`[output] max_clients`); more are refused with an error line.
        public var maxClients: Int
        /// A client that sends nothing for this long (and is not watching) is disconnected.
        public var idleTimeout: TimeAmount = .seconds(120)
        /// A new connection that has sent no complete request line after this long is disconnected,
        /// so silent connections cannot hold the places of real clients.
        public var firstRequestTimeout: TimeAmount = .seconds(5)
        /// The socket's group (system service): mode 0660 with this group instead of 0600.
        public var group: String?
        /// `units`, `pin`, `unpin`, `mode`, `set` requests: edit the settings file and apply it.
        public var changeSettings: (@Sendable (SettingsEditRequest) async -> ControlAnswer)?
        /// `reload`: reads the settings file again and applies it; the answer says what changed.
        public var reload: (@Sendable () async -> ControlAnswer)?
        /// A listening socket systemd passed (socket activation), served instead of binding one at
        /// the path. systemd owns its file: the daemon neither replaces nor removes it.
        public var passedSocket: SocketActivation.PassedSocket?
        /// Called once the socket accepts connections.
        public var listening: (@Sendable () -> Void)?

        public init(maxClients: Int) {
            self.maxClients = maxClients
        }
    }

    let path: String
    let state: ForecastState
    let logger: Logger
    /// The one event loop that accepts and serves every connection (chosen once, so that `status` can wait
    /// for it: ``settledCounts()``).
    let loop: any EventLoop
    let options: Options
    /// Every admitted connection, and the rules for who gets a place.
    let connections: SocketConnections

    public init(
        path: String, state: ForecastState, logger: Logger, options: Options,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.path = path
        self.state = state
        self.logger = logger
        self.loop = eventLoopGroup.next()
        self.options = options
        self.connections = SocketConnections(maxClients: options.maxClients)
    }

    public var description: String { "SocketService(\(path))" }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Clients connected now, and how many of them watch (open connections only).
    public var counts: (connected: Int, watching: Int) { connections.counts }

    /// The counts once the event loop has handled everything the kernel told it before now: a client that
    /// closed just before `status` was asked is then no longer counted. (The loop handles its ready
    /// descriptors in a batch, then the tasks given it: a close in the batch that brought the `status`
    /// request, which the task answering it could otherwise overtake from another thread, is handled first.)
    func settledCounts() async -> (connected: Int, watching: Int) {
        try? await loop.submit {}.get()
        return counts
    }

    public func run() async throws {
        // Only a listening Unix stream socket can be served; the composition picks one (`socketToServe`).
        let passed = options.passedSocket.flatMap { $0.unixPath == nil ? nil : $0 }
        if passed == nil {
            let (directory, mode) = (self.directory, options.group == nil ? 0o700 : 0o750)
            try await Blocking.run { () throws(AtomicFile.WriteError) in try AtomicFile.makeDirectory(directory, mode: mode) }
            try await refuseIfAnotherDaemonListens()
        }
        // Connections that need more than the event loop's answers (a request it passes on) are
        // handed over here, wrapped for the async side at that moment. Most bar scripts connect, read
        // the greeting, ask `report` and leave: they never cost a task.
        let (handedOver, handOver) = AsyncStream.makeStream(of: Connection.self)
        let (server, created) = try await listen(makeBootstrap(handOver: handOver), passed: passed, handOver: handOver)
        options.listening?()

        defer {
            // Remove the socket file at exit, but only if it is still ours (not one a newer daemon
            // made, nor the one systemd keeps listening on for the next start).
            var current = stat()
            if passed == nil, stat(path, &current) == 0, current.st_ino == created.st_ino { unlink(path) }
        }
        try await serveHandedOver(handedOver, server: server)
    }

    /// The directory the socket file is in.
    private var directory: String { URL(fileURLWithPath: path).deletingLastPathComponent().path }

    /// The server of every connection: each admitted (or refused with a reason) as it connects, then read by
    /// a pipeline that answers on the event loop and hands the rest over to `handOver`.
    private func makeBootstrap(handOver: AsyncStream<Connection>.Continuation) -> ServerBootstrap {
        let idleTimeout = options.idleTimeout
        let firstRequestTimeout = options.firstRequestTimeout
        let connections = self.connections
        let published = state.published
        // One event loop accepts and serves (`loop`): a connection then never hops to another thread between
        // being accepted and being answered, which is most of a short round trip's cost (measured in
        // docs/performance.md). A status-bar workload fits one loop many times over.
        return ServerBootstrap(group: loop, childGroup: loop)
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
                        // `PlaceRelease` frees the place as the connection closes; the close future is the
                        // backstop for a channel that closes without ever having been active.
                        try channel.pipeline.syncOperations.addHandler(PlaceRelease(connections: connections))
                        channel.closeFuture.whenComplete { _ in connections.closed(channel) }
                        if let evicted {
                            let message = Self.encodeLine(
                                .error(ControlErrorMessage(
                                    message: "closed to make room for another client (the limit is \(connections.maxClients))",
                                    closed: true)))
                            evicted.writeAndFlush(message).whenComplete { _ in evicted.close(promise: nil) }
                        }
                    case .refused(let message):
                        // Refused with a reason, so a script sees why rather than a silent close.
                        refusal = Self.encodeLine(.error(ControlErrorMessage(message: message, closed: true)))
                    }
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(readTimeout: idleTimeout))
                    try pipeline.addHandler(IdleCloser(connections: connections))
                    try pipeline.addHandler(
                        ByteToMessageHandler(RequestLineDecoder(maxLength: ControlProtocol.maxRequestLength)))
                    try pipeline.addHandler(FirstRequestDeadline(timeout: firstRequestTimeout, connections: connections))
                    try pipeline.addHandler(
                        EventLoopAnswers(published: published, refusal: refusal) { channel in
                            // On the event loop, before the request that needs it is passed on.
                            let async = try NIOAsyncChannel<RequestLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                            connections.served(channel)
                            handOver.yield(Connection(channel: async))
                        })
                }
            }
    }

    /// Starts listening: on the socket systemd passed, or bound at the path. Returns the listening channel and
    /// the socket file as it was placed (to remove it at exit only if it is still ours). The stream of
    /// handed-over connections ends when the listening channel closes.
    private func listen(
        _ bootstrap: ServerBootstrap, passed: SocketActivation.PassedSocket?,
        handOver: AsyncStream<Connection>.Continuation
    ) async throws -> (server: any Channel, created: stat) {
        var created = stat()
        if let passed, let passedPath = passed.unixPath {
            // Clients may have connected before the daemon started: they wait in the socket's
            // backlog and are greeted as soon as the channel is registered.
            let server = try await bootstrap.withBoundSocket(passed.descriptor).get()
            server.closeFuture.whenComplete { _ in handOver.finish() }
            do {
                try await checkPassedSocketAccess(passedPath)
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
            return (server, created)
        }
        // Bind under a temporary name, set its mode, then rename it into place: clients can never
        // reach the socket before its mode is right, and a stale socket file left by a crash is
        // replaced in the same step.
        let temporaryPath = directory + "/.forecastd.sock.\(getpid())"
        unlink(temporaryPath)
        let server = try await bootstrap.bind(unixDomainSocketPath: temporaryPath).get()
        server.closeFuture.whenComplete { _ in handOver.finish() }
        try await placeSocket(temporaryPath, server: server)
        stat(path, &created)
        logger.info("Listening on the socket.", metadata: ["path": "\(path)"])
        return (server, created)
    }

    /// Serves each handed-over connection in a child task until graceful shutdown, which closes the listening
    /// channel rather than cancelling this task: the stream of handed-over connections then ends, and each
    /// one is closed the same way.
    private func serveHandedOver(_ handedOver: AsyncStream<Connection>, server: any Channel) async throws {
        let connections = self.connections
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
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
}
