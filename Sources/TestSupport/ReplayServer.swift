import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A real HTTP/1.1 server on 127.0.0.1 that replays recorded provider responses, so providers and the
/// daemon are tested through their real HTTP stack against real sockets without the internet.
///
/// Each path answers with the responses set for it, in order, the last one repeating, whatever the method
/// (GET or POST); an unknown path gets a 404. A response marked ``ReplayResponse/conditional`` answers a request carrying its `ETag` or
/// `Last-Modified` as validator with `304 Not Modified`. Every request is recorded for inspection, with its
/// body (up to ``maxRecordedBodyBytes``).
public final class ReplayServer: Sendable {
    private let channel: any Channel
    private let state: ReplayState
    /// The TCP port the kernel chose.
    public let port: Int
    /// The address it listens on.
    public let host: String

    /// The most of a request body that is recorded; the rest is read and dropped.
    public static let maxRecordedBodyBytes = 1024 * 1024

    /// `http://<host>:<port>`.
    public var baseURL: URL { URL(string: "http://\(host):\(port)")! }

    private init(channel: any Channel, state: ReplayState, host: String, port: Int) {
        self.channel = channel
        self.state = state
        self.host = host
        self.port = port
    }

    /// Binds to `host` (127.0.0.1 unless a test's network needs another address) on a free port and starts
    /// answering.
    public static func start(host: String = "127.0.0.1") async throws -> ReplayServer {
        let state = ReplayState()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ReplayHandler(state: state))
                }
            }
            .bind(host: host, port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try await channel.close()
            throw ReplayServerError(message: "the replay server bound to \(host) but has no local port")
        }
        return ReplayServer(channel: channel, state: state, host: host, port: port)
    }

    /// A URL on this server: `url("/v1/forecast")`.
    public func url(_ path: String) -> URL {
        URL(string: "http://\(host):\(port)" + (path.hasPrefix("/") ? path : "/" + path))!
    }

    /// Answers every request for `path` (the URI without its query) with `response`.
    public func setRoute(path: String, _ response: ReplayResponse) {
        setRoute(path: path, sequence: [response])
    }

    /// Answers successive requests for `path` with these responses in turn; the last one repeats.
    public func setRoute(path: String, sequence: [ReplayResponse]) {
        state.setRoute(path: path, responses: sequence)
    }

    /// How many requests arrived for `path` (the URI without its query).
    public func requestCount(path: String) -> Int {
        state.requests().filter { $0.path == path }.count
    }

    /// When each request for `path` arrived, in order.
    public func requestTimes(path: String) -> [Date] {
        state.requests().filter { $0.path == path }.map(\.receivedAt)
    }

    /// Every request received so far, oldest first.
    public func requests() -> [RecordedRequest] {
        state.requests()
    }

    /// Closes the listening socket and every open connection; the port then refuses connections.
    public func shutdown() async throws {
        try await channel.close()
        for connection in state.takeConnections() {
            try? await connection.close()
        }
    }
}

/// A replay server that could not start.
public struct ReplayServerError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The server's mutable state, shared by the event loop threads and the test.
private final class ReplayState: @unchecked Sendable {
    // @unchecked: every stored property is only touched under `lock`.
    private let lock = NSLock()
    private var routes: [String: (responses: [ReplayResponse], next: Int)] = [:]
    private var recorded: [RecordedRequest] = []
    private var connections: [ObjectIdentifier: any Channel] = [:]

    func setRoute(path: String, responses: [ReplayResponse]) {
        lock.withLock { routes[path] = (responses, 0) }
    }

    /// Records a request and picks its answer.
    func receive(_ request: RecordedRequest) -> ReplayResponse {
        lock.withLock {
            recorded.append(request)
            guard var route = routes[request.path], !route.responses.isEmpty else {
                return .json(
                    #"{"error":true,"reason":"the replay server has no route for \#(request.path)"}"#, status: 404)
            }
            let response = route.responses[min(route.next, route.responses.count - 1)]
            route.next += 1
            routes[request.path] = route
            return response.conditional(for: request)
        }
    }

    func requests() -> [RecordedRequest] {
        lock.withLock { recorded }
    }

    func opened(_ channel: any Channel) {
        lock.withLock { connections[ObjectIdentifier(channel)] = channel }
    }

    func closed(_ channel: any Channel) {
        _ = lock.withLock { connections.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func takeConnections() -> [any Channel] {
        lock.withLock {
            defer { connections.removeAll() }
            return Array(connections.values)
        }
    }
}

/// Answers one connection's requests from the routes.
private final class ReplayHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let state: ReplayState
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var pending: Scheduled<Void>?

    init(state: ReplayState) {
        self.state = state
    }

    func channelActive(context: ChannelHandlerContext) {
        state.opened(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.cancel()
        pending = nil
        state.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(let chunk):
            let room = ReplayServer.maxRecordedBodyBytes - body.count
            if room > 0 { body.append(contentsOf: chunk.readableBytesView.prefix(room)) }
        case .end:
            guard let head else { return }
            self.head = nil
            let request = RecordedRequest(
                method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                body: body)
            body = []
            let response = state.receive(request)
            if response.delay > .zero {
                let (seconds, attoseconds) = response.delay.components
                let delay = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                pending = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
                    self.pending = nil
                    self.respond(context: context, keepAlive: head.isKeepAlive, with: response)
                }
            } else {
                respond(context: context, keepAlive: head.isKeepAlive, with: response)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func respond(context: ChannelHandlerContext, keepAlive: Bool, with response: ReplayResponse) {
        guard context.channel.isActive else { return }
        if response.behaviour == .closeWithoutAnswer {
            context.close(promise: nil)
            return
        }

        var headers = HTTPHeaders(response.headers.fields.map { ($0.name, $0.value) })
        if !headers.contains(name: "content-length"), !headers.contains(name: "transfer-encoding") {
            headers.add(name: "Content-Length", value: String(response.body.count))
        }
        let closes = !keepAlive || response.behaviour != .answer
        if closes { headers.replaceOrAdd(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)

        let sent: ArraySlice<UInt8>
        switch response.behaviour {
        case .answer, .closeWithoutAnswer: sent = response.body[...]
        case .truncateBody(let count), .stallBody(let count): sent = response.body.prefix(max(0, count))
        }
        if !sent.isEmpty {
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: sent)))), promise: nil)
        }

        switch response.behaviour {
        case .answer:
            if closes {
                context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        case .truncateBody:
            context.flush()
            context.close(promise: nil)
        case .stallBody:
            context.flush()
        case .closeWithoutAnswer:
            break
        }
    }
}
