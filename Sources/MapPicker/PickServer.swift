import ForecastModel
import Foundation
import Gazetteer
import NIOCore
import NIOHTTP1
import NIOPosix

/// How much the picker's server accepts: every outside input is bounded.
public struct PickLimits: Sendable {
    /// Connections open at once; one more is closed as soon as it is accepted.
    public var maxConnections = 16
    /// A request body (only the choice has one: a few dozen bytes).
    public var maxBodyBytes = 4096
    /// A request target: the token, a path and a query.
    public var maxTargetBytes = 2048
    /// A request head's fields together (NIO's parser refuses more with 400).
    public var maxHeaderBytes = 16 * 1024
    /// Requests on one connection before it is closed.
    public var maxRequestsPerConnection = 1000
    /// Requests accepted at once, and per second after that, whoever sends them: the rest get 429.
    /// A page moving its map asks a few a second.
    public var burst = 200
    public var perSecond = 50
    /// How long a connection may stay without sending a request.
    public var connectionIdle: TimeAmount = .seconds(30)
    /// How long the page may stay without a request carrying its token before the picker gives up.
    public var sessionIdle: TimeAmount = .minutes(10)

    public init() {}
}

/// What the picker's server has for forecastctl.
public enum PickEvent: Sendable {
    /// The person chose; forecastctl does it and answers through the reply.
    case choice(PickChoice, PickReply)
    /// No request with the token for `PickLimits.sessionIdle`: the page is closed.
    case idle
}

/// The way back to the page for one choice.
public struct PickReply: Sendable {
    let answer: EventLoopPromise<PickAnswer>
    let sent: EventLoopFuture<Void>

    /// Answers the page, and returns once the answer has been written to its connection (or the connection
    /// is gone), so that the server can be stopped right after.
    public func send(_ answer: PickAnswer) {
        self.answer.succeed(answer)
        try? sent.wait()
    }
}

/// The server of `forecastctl pick`: one page on 127.0.0.1, on its own event loop, until a choice is made.
///
/// It serves the page and Leaflet from memory, answers the page's questions from the gazetteer, and
/// hands the choice to the thread that calls ``nextEvent()`` (forecastctl's main thread, which edits the
/// settings), then answers the page with what that thread says. See ``RequestGate`` for who may ask and
/// ``PickLimits`` for how much.
public final class PickServer: Sendable {
    /// The page's address, with its token: `http://127.0.0.1:PORT/TOKEN/`.
    public let url: URL
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let session: PickSession

    private init(url: URL, group: MultiThreadedEventLoopGroup, channel: any Channel, session: PickSession) {
        self.url = url
        self.group = group
        self.channel = channel
        self.session = session
    }

    /// Reads the page's files, binds `host` (`port` 0: one the kernel chooses) and starts serving.
    public static func start(
        page: PickPage, gazetteer: Gazetteer, host: String = "127.0.0.1", port: Int = 0,
        limits: PickLimits = PickLimits(), environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PickServer {
        let files = try PageFiles.load(environment: environment)
        // One thread: every connection's state and the session's live on it, without locks.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let session = PickSession(
            loop: loop, gate: RequestGate(token: RequestGate.makeToken()), files: files,
            api: PickAPI(gazetteer: gazetteer, page: page), limits: limits)
        let channel: any Channel
        do {
            channel = try ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: Int32(limits.maxConnections))
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        guard session.admit(channel) else {
                            channel.close(promise: nil)
                            return
                        }
                        let sync = channel.pipeline.syncOperations
                        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
                        decoderLimits.maxHeaderListSize = limits.maxHeaderBytes
                        decoderLimits.maxHeaderFieldSize = limits.maxHeaderBytes
                        decoderLimits.maxHeaderFieldCount = 100
                        try sync.addHandler(IdleStateHandler(readTimeout: limits.connectionIdle))
                        try sync.configureHTTPServerPipeline(
                            withPipeliningAssistance: true, withErrorHandling: true,
                            withEncoderConfiguration: HTTPResponseEncoder.Configuration(),
                            withDecoderLimitConfiguration: decoderLimits)
                        try sync.addHandler(PickHTTPHandler(session: session))
                    }
                }
                .bind(host: host, port: port)
                .wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw PickServerError("cannot listen on \(host) port \(port): \(error)")
        }
        guard let bound = channel.localAddress?.port else {
            channel.close(promise: nil)
            try? group.syncShutdownGracefully()
            throw PickServerError("the picker's socket on \(host) has no port")
        }
        let urlHost = host.contains(":") ? "[\(host)]" : host
        let url = URL(string: "http://\(urlHost):\(bound)/\(session.gate.token)/")!
        try loop.submit { session.startIdleTimer() }.wait()
        return PickServer(url: url, group: group, channel: channel, session: session)
    }

    /// Waits for the next choice, or for the page to fall idle. Call it from a thread of your own, never
    /// from an event loop: it blocks.
    public func nextEvent() throws -> PickEvent {
        let session = self.session
        return try session.loop.flatSubmit { session.takeEvent() }.wait()
    }

    /// Stops listening, closes every connection and the event loop.
    public func stop() {
        let (session, channel) = (self.session, self.channel)
        try? session.loop.flatSubmit {
            session.finished = true
            return session.closeAll(server: channel)
        }.wait()
        try? group.syncShutdownGracefully()
    }

    /// How many connections are open now (for tests of the limits).
    public var openConnections: Int {
        let session = self.session
        return (try? session.loop.submit { session.connections.count }.wait()) ?? 0
    }
}

/// The server's state, shared by its connections: everything here is touched on `loop` only.
final class PickSession: @unchecked Sendable {
    // @unchecked: every stored property is read and written on `loop`, which is one thread.
    let loop: any EventLoop
    let gate: RequestGate
    let files: PageFiles
    let api: PickAPI
    let limits: PickLimits
    /// The Content-Security-Policy of every answer: the page's own files, and images from the tile server.
    let contentSecurityPolicy: String

    var limiter: RateLimiter
    var connections: [ObjectIdentifier: any Channel] = [:]
    /// Set once a choice is done or the page fell idle: every request is refused from then on.
    var finished = false
    /// Set while forecastctl works on a choice: a second one is refused until it answers.
    var choosing = false
    /// The last request that carried the token.
    var lastActivity = NIODeadline.now()
    private var events: [PickEvent] = []
    private var waiter: EventLoopPromise<PickEvent>?

    init(loop: any EventLoop, gate: RequestGate, files: PageFiles, api: PickAPI, limits: PickLimits) {
        self.loop = loop
        self.gate = gate
        self.files = files
        self.api = api
        self.limits = limits
        limiter = RateLimiter(capacity: limits.burst, perSecond: limits.perSecond)
        let images = ["'self'", "data:", api.page.tiles.contentSecurityPolicySource].compactMap { $0 }
        contentSecurityPolicy =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src \(images.joined(separator: " ")); "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// Whether a new connection may stay open; counts it when it may.
    func admit(_ channel: any Channel) -> Bool {
        loop.preconditionInEventLoop()
        // A finished page still answers (403) rather than dropping the connection: the browser then says why.
        guard connections.count < limits.maxConnections else { return false }
        let id = ObjectIdentifier(channel)
        connections[id] = channel
        channel.closeFuture.hop(to: loop).whenComplete { _ in self.connections[id] = nil }
        return true
    }

    func closeAll(server: any Channel) -> EventLoopFuture<Void> {
        loop.preconditionInEventLoop()
        let closing = [server] + Array(connections.values)
        return EventLoopFuture.andAllComplete(
            closing.map { channel in
                let promise = loop.makePromise(of: Void.self)
                channel.close(promise: promise)
                return promise.futureResult
            }, on: loop)
    }

    // MARK: Events for forecastctl

    func push(_ event: PickEvent) {
        loop.preconditionInEventLoop()
        if let waiter {
            self.waiter = nil
            waiter.succeed(event)
        } else {
            events.append(event)
        }
    }

    func takeEvent() -> EventLoopFuture<PickEvent> {
        loop.preconditionInEventLoop()
        if !events.isEmpty { return loop.makeSucceededFuture(events.removeFirst()) }
        let promise = loop.makePromise(of: PickEvent.self)
        waiter = promise
        return promise.futureResult
    }

    // MARK: Idle

    /// Sets the one timer for the moment the page would have been idle for `sessionIdle`.
    func startIdleTimer() {
        loop.preconditionInEventLoop()
        lastActivity = .now()
        scheduleIdleCheck(at: lastActivity + limits.sessionIdle)
    }

    private func scheduleIdleCheck(at deadline: NIODeadline) {
        loop.scheduleTask(deadline: deadline) { self.idleCheck() }
    }

    /// Requests since the timer was set moved the moment on: the timer is set again for it, rather than
    /// every request moving a timer.
    private func idleCheck() {
        guard !finished else { return }
        let due = lastActivity + limits.sessionIdle
        if NIODeadline.now() < due || choosing {
            scheduleIdleCheck(at: choosing ? .now() + limits.sessionIdle : due)
            return
        }
        finished = true
        push(.idle)
    }
}

/// One connection's requests: the gate, the limits, then the page's files, its questions and the choice.
final class PickHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let session: PickSession
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    /// A refusal already answered for the request being read: its remaining parts are dropped.
    private var skipping = false
    private var requests = 0
    private var active = true

    init(session: PickSession) {
        self.session = session
    }

    func channelInactive(context: ChannelHandlerContext) {
        active = false
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        active = false
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requests += 1
            self.head = head
            body = []
            skipping = false
            if let refusal = refusalAtHead(head) {
                skipping = true
                respond(context, refusal.status, text: refusal.message, close: true)
            }
        case .body(var part):
            guard !skipping else { return }
            guard body.count + part.readableBytes <= session.limits.maxBodyBytes else {
                skipping = true
                respond(context, .payloadTooLarge, text: "the body is over \(session.limits.maxBodyBytes) bytes", close: true)
                return
            }
            body += part.readBytes(length: part.readableBytes) ?? []
        case .end:
            guard !skipping, let head else { return }
            self.head = nil
            handle(context, head)
        }
    }

    /// What refuses a request from its head alone: the rate, the gate, its size.
    private func refusalAtHead(_ head: HTTPRequestHead) -> (status: HTTPResponseStatus, message: String)? {
        let limits = session.limits
        guard session.limiter.take(now: .now()) else {
            return (.tooManyRequests, "too many requests; slow down")
        }
        guard requests <= limits.maxRequestsPerConnection else {
            return (.tooManyRequests, "too many requests on one connection")
        }
        guard head.uri.utf8.count <= limits.maxTargetBytes else {
            return (.uriTooLong, "the request target is over \(limits.maxTargetBytes) bytes")
        }
        if case .refused(let reason) = session.gate.check(head, finished: session.finished) {
            return (.forbidden, "forbidden: \(reason)")
        }
        guard head.method == .GET || head.method == .POST else {
            return (.methodNotAllowed, "only GET and POST are answered")
        }
        if let length = head.headers["Content-Length"].first.flatMap(Int.init), length > limits.maxBodyBytes {
            return (.payloadTooLarge, "the body is over \(limits.maxBodyBytes) bytes")
        }
        return nil
    }

    private func handle(_ context: ChannelHandlerContext, _ head: HTTPRequestHead) {
        // The gate was passed at the head; the session may have finished since (a choice on another connection).
        guard case .allowed(let path, let query) = session.gate.check(head, finished: session.finished) else {
            respond(context, .forbidden, text: "forbidden: the choice has been made; this page is closed", close: true)
            return
        }
        session.lastActivity = .now()
        let keepAlive = head.isKeepAlive && requests < session.limits.maxRequestsPerConnection
        let api = session.api
        let parameters = PickAPI.parameters(query)
        do throws(PickAPI.Refusal) {
            switch (head.method, path) {
            case (.GET, ""):
                serveFile(context, "index.html", keepAlive: keepAlive)
            case (.GET, "api/setup"):
                respond(context, .ok, json: api.setup(), close: !keepAlive)
            case (.GET, "api/places"):
                respond(context, .ok, json: try api.places(parameters), close: !keepAlive)
            case (.GET, "api/search"):
                respond(context, .ok, json: try api.search(parameters), close: !keepAlive)
            case (.GET, "api/nearest"):
                respond(context, .ok, json: try api.nearest(parameters), close: !keepAlive)
            case (.POST, "api/choose"):
                choose(context, try api.choice(body), keepAlive: keepAlive)
            case (.GET, _) where path != "index.html" && PageFiles.served[path] != nil:
                serveFile(context, path, keepAlive: keepAlive)
            case (.GET, _), (.POST, _):
                respond(context, .notFound, text: "not found", close: !keepAlive)
            default:
                respond(context, .methodNotAllowed, text: "only GET and POST are answered", close: true)
            }
        } catch {
            respond(context, HTTPResponseStatus(statusCode: error.status), text: error.message, close: !keepAlive)
        }
    }

    private func serveFile(_ context: ChannelHandlerContext, _ name: String, keepAlive: Bool) {
        guard let file = session.files.files[name] else {
            respond(context, .notFound, text: "not found", close: !keepAlive)
            return
        }
        respond(context, .ok, type: file.mediaType, body: file.bytes, close: !keepAlive)
    }

    /// Hands the choice to forecastctl and answers the page with what it did.
    private func choose(_ context: ChannelHandlerContext, _ choice: PickChoice, keepAlive: Bool) {
        guard !session.choosing else {
            respond(context, .conflict, text: "another choice is being made", close: true)
            return
        }
        session.choosing = true
        let answer = session.loop.makePromise(of: PickAnswer.self)
        let sent = session.loop.makePromise(of: Void.self)
        session.push(.choice(choice, PickReply(answer: answer, sent: sent.futureResult)))
        let session = self.session
        answer.futureResult.assumeIsolated().whenSuccess { answer in
            session.choosing = false
            let (ok, message): (Bool, String)
            switch answer {
            case .done(let text):
                // From now on the gate refuses every request, this connection's too.
                session.finished = true
                (ok, message) = (true, text)
            case .failed(let text):
                (ok, message) = (false, text)
            }
            guard self.active else {
                sent.succeed(())
                return
            }
            struct Outcome: Encodable {
                var ok: Bool
                var message: String
            }
            self.respond(
                context, ok ? .ok : .internalServerError, json: PickAPI.encode(Outcome(ok: ok, message: message)),
                close: ok || !keepAlive, sent: sent)
        }
    }

    // MARK: Answers

    private func respond(
        _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, json: Data, close: Bool,
        sent: EventLoopPromise<Void>? = nil
    ) {
        respond(context, status, type: "application/json", body: Array(json), close: close, sent: sent)
    }

    private func respond(_ context: ChannelHandlerContext, _ status: HTTPResponseStatus, text: String, close: Bool) {
        respond(context, status, type: "text/plain; charset=utf-8", body: Array((text + "\n").utf8), close: close)
    }

    private func respond(
        _ context: ChannelHandlerContext, _ status: HTTPResponseStatus, type: String, body: [UInt8], close: Bool,
        sent: EventLoopPromise<Void>? = nil
    ) {
        guard active else {
            sent?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.count))
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        // Tile requests carry only "http://127.0.0.1:PORT/" as Referer, never the token.
        headers.add(name: "Referrer-Policy", value: "strict-origin")
        headers.add(name: "X-Frame-Options", value: "DENY")
        headers.add(name: "Cross-Origin-Resource-Policy", value: "same-origin")
        headers.add(name: "Content-Security-Policy", value: session.contentSecurityPolicy)
        headers.add(name: "Connection", value: close ? "close" : "keep-alive")
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: body.count)
        buffer.writeBytes(body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        if let sent { written.futureResult.cascade(to: sent) }
        if close {
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
