import Control
import DaemonState
import Foundation
import NIOCore

/// Answers the commonest exchange on the event loop itself: the greeting on connect, and a first
/// request that is a plain `report`, from the state's published line (the same value every other
/// reader gets, set before anyone hears of a new report). Everything else goes on to the
/// connection's task. Only the first request is taken, so answers can never overtake each other.
///
/// Why not a task per connection: a task and a thread hop cost three to four times gpsd's `?POLL;`
/// round trip (docs/performance.md); a bar script that asks `report` and leaves costs no task at all.
final class EventLoopAnswers: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = RequestLine
    typealias InboundOut = RequestLine
    typealias OutboundOut = ByteBuffer
    private let published: Broadcast<PublishedReport>
    /// The error line for a client beyond the limit: sent after the greeting, then the connection closes.
    private let refusal: ByteBuffer?
    /// Wraps the channel for the async side and hands it over; called once, on the event loop.
    private let handOver: (any Channel) throws -> Void
    // Only touched on the channel's event loop.
    private var first = true
    private var handedOver = false
    private var lastWrite: EventLoopFuture<Void>?

    init(published: Broadcast<PublishedReport>, refusal: ByteBuffer?, handOver: @escaping (any Channel) throws -> Void) {
        self.published = published
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
            // The one request answered without parsing: the plain word alone, `ControlRequest.report` with no options.
            if first, trimmed.lowercased() == RequestName.report.rawValue {
                first = false
                lastWrite = context.writeAndFlush(wrapOutboundOut(published.value.lineBuffer))
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

/// Frees an admitted connection's place in the same step as it closes. `channelInactive` comes then; the close
/// future completes only in a later task on the loop, and a `status` asked right after clients left could run
/// its settled count (one task on the loop) before that task and count them still (seen under load: 4 watchers
/// that had read their report and closed, counted by the `status` that came next).
final class PlaceRelease: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let connections: SocketConnections

    init(connections: SocketConnections) { self.connections = connections }

    func channelInactive(context: ChannelHandlerContext) {
        connections.closed(context.channel)
        context.fireChannelInactive()
    }
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
            .error(ControlErrorMessage(message: "no request within \(wait) of connecting (send one at once, e.g. report)", closed: true)))
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
