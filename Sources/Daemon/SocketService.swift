import Control
import ForecastModel
import FileStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import Rendering
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Serves the report on a Unix socket: a greeting line on connect, then one answer line per request.
///
/// Each connection runs in its own child task with its own error handling, so one bad client can
/// never stop the server or the daemon.
public struct SocketService: Service, CustomStringConvertible {
    let path: String
    let state: ForecastState
    let logger: Logger
    let eventLoopGroup: any EventLoopGroup
    let reload: (@Sendable () async -> ReloadOutcome)?

    /// - Parameter reload: what the `reload` request does (nil: the request is refused).
    public init(
        path: String, state: ForecastState, logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        reload: (@Sendable () async -> ReloadOutcome)? = nil
    ) {
        self.path = path
        self.state = state
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        self.reload = reload
    }

    public var description: String { "SocketService(\(path))" }

    public struct StartError: Error, CustomStringConvertible {
        public var description: String
    }

    public func run() async throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try AtomicFile.makeDirectory(directory)
        try refuseIfAnotherDaemonListens()

        // Bind under a temporary name, restrict it to this user, then rename it into place: clients
        // can never reach the socket before its mode is 0600, and a stale socket file left by a
        // crash is replaced in the same step.
        let temporaryPath = directory + "/.forecastd.sock.\(getpid())"
        unlink(temporaryPath)
        let server = try await ServerBootstrap(group: eventLoopGroup)
            // `echo report | socat - UNIX-CONNECT:…` closes its sending side right after the request:
            // keep the connection open to answer it.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(unixDomainSocketPath: temporaryPath) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(RequestLineDecoder(maxLength: ControlProtocol.maxRequestLength)))
                    return try NIOAsyncChannel<RequestLine, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        guard chmod(temporaryPath, 0o600) == 0, rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            try? await server.channel.close()
            throw StartError(description: "\(path): cannot put the socket in place: \(reason)")
        }
        var created = stat()
        stat(path, &created)
        logger.info("Listening on the socket.", metadata: ["path": "\(path)"])

        defer {
            // Remove the socket file at exit, but only if it is still ours (not one a newer daemon made).
            var current = stat()
            if stat(path, &current) == 0, current.st_ino == created.st_ino { unlink(path) }
        }

        // Graceful shutdown closes the listening channel rather than cancelling this task: the
        // connection stream then ends after handing over every connection already accepted (NIO
        // traps on accepted channels that are dropped unserved). Each connection is closed the same way.
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask {
                            await withGracefulShutdownHandler {
                                await serve(connection)
                            } onGracefulShutdown: {
                                connection.channel.close(promise: nil)
                            }
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
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

    private func serve(_ connection: NIOAsyncChannel<RequestLine, ByteBuffer>) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                try await outbound.write(line(Greeting()))
                for try await request in inbound {
                    switch request {
                    case .text(let text):
                        let command = text.trimmingCharacters(in: .whitespaces).lowercased()
                        switch command {
                        case "":
                            continue
                        case "report":
                            let report = await state.report
                            try await outbound.write(ByteBuffer(string: ReportJSON.line(report) + "\n"))
                        case "reload" where reload != nil:
                            let outcome = await reload!()
                            try await outbound.write(line(ReloadAnswer(outcome)))
                        default:
                            try await outbound.write(
                                line(ControlErrorMessage(message: "unknown request \"\(command.prefix(40))\" (allowed: report, reload)")))
                        }
                    case .tooLong:
                        try await outbound.write(
                            line(ControlErrorMessage(message: "request line longer than \(ControlProtocol.maxRequestLength) bytes")))
                        return
                    }
                }
            }
        } catch {
            logger.debug("A socket client went away with an error.", metadata: ["error": "\(error)"])
        }
    }

    private func line(_ value: some Encodable) -> ByteBuffer {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        var buffer = ByteBuffer(bytes: data)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return buffer
    }
}

/// The answer to `reload`: `{"class":"RELOAD","ok":true,"message":"…"}`.
struct ReloadAnswer: Encodable {
    var `class` = "RELOAD"
    var ok: Bool
    var message: String

    init(_ outcome: ReloadOutcome) {
        if case .invalid = outcome { ok = false } else { ok = true }
        message = outcome.summary
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
