import AsyncHTTPClient
import FileStore
import Foundation
import NIOCore
import NIOHTTP1

/// Why an exchange produced no answer: the transport's classes, decided once (``Fetcher``'s `classify`).
///
/// Each domain maps the kind onto its own error type once (`ProviderError`, `WarningError`,
/// `IPGeolocationFailure`); ``detail`` is the sentence people read, the same for every service.
public struct FetchFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No connection: DNS, refused, unreachable, a connect or pool timeout. Nothing reached the service.
        case offline
        /// No complete answer within the deadline (a cancelled exchange included).
        case timeout
        /// The server closed the connection before a complete answer.
        case closed
        /// The body ended before its announced length.
        case truncated
        /// The answer was announced or read past the cap (and not read further), or our own request body
        /// was larger than ``Fetcher/Limits/maxRequestBytes`` (and not sent).
        case tooLarge(limit: Int)
        /// The answer is not HTTP.
        case malformed
        /// The URL is not an http(s) URL with a host.
        case invalidURL
        /// 304 Not Modified although no validator was sent.
        case unexpectedNotModified
    }

    /// The service's name in messages and logs (`open-meteo`, `nws`).
    public var service: String
    public var kind: Kind
    /// One sentence without the service's name: `no answer within 15 s`.
    public var detail: String

    public init(service: String, kind: Kind, detail: String) {
        self.service = service
        self.kind = kind
        self.detail = detail
    }

    /// `service: detail`.
    public var description: String { "\(service): \(detail)" }

    /// The kind's stable name, for logs.
    public var kindName: String {
        switch kind {
        case .offline: "offline"
        case .timeout: "timeout"
        case .closed: "closed"
        case .truncated: "truncated"
        case .tooLarge: "too_large"
        case .malformed: "malformed"
        case .invalidURL: "invalid_url"
        case .unexpectedNotModified: "unexpected_not_modified"
        }
    }

    /// Turns whatever the HTTP stack threw into one of the kinds the daemon acts on.
    static func classify(
        _ error: any Error, service: String, url: URL, timeout: Duration, maxBodyBytes: Int
    ) -> FetchFailure {
        if let error = error as? FetchFailure { return error }
        let host = url.host ?? url.absoluteString
        let target = url.port.map { "\(host):\($0)" } ?? host
        func fail(_ kind: Kind, _ detail: String) -> FetchFailure {
            FetchFailure(service: service, kind: kind, detail: detail)
        }
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return fail(.timeout, "no answer within \(describe(timeout))")
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return fail(.offline, "could not connect to \(target) (the connection attempt timed out)")
            case .remoteConnectionClosed:
                return fail(.closed, "\(target) closed the connection without a complete answer")
            case .cancelled:
                return fail(.timeout, "the request to \(target) was cancelled before an answer")
            case .invalidURL, .emptyHost, .emptyScheme:
                return fail(.invalidURL, "the URL \(QueryURL.redacted(url)) is not a valid http(s) URL")
            default:
                return fail(.malformed, "the exchange with \(target) failed (\(error))")
            }
        case let error as IOError:
            return fail(.offline, "could not connect to \(target) (\(String(cString: strerror(error.errnoCode))))")
        case is SocketAddressError:
            return fail(.offline, "could not resolve \(host)")
        case ChannelError.connectTimeout:
            return fail(.offline, "could not connect to \(target) (the connection attempt timed out)")
        case let error as NIOTooManyBytesError:
            return tooLarge(service: service, limit: error.maxBytes ?? maxBodyBytes)
        case HTTPParserError.invalidEOFState:
            return fail(.truncated, "the response from \(target) ended before its announced length")
        case is HTTPParserError:
            return fail(.malformed, "the response from \(target) is not valid HTTP (\(error))")
        case is CancellationError:
            return fail(.timeout, "the request to \(target) was cancelled before an answer")
        default:
            return fail(.offline, "the request to \(target) failed (\(error))")
        }
    }

    /// An answer past the cap, announced or read: what was read of it is dropped.
    static func tooLarge(service: String, limit: Int) -> FetchFailure {
        FetchFailure(
            service: service, kind: .tooLarge(limit: limit), detail: "the response is larger than \(ByteCount(limit))")
    }

    /// Formats a duration the way messages show it: `15 s`, `1.5 s`, `250 ms`.
    static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        let tenths = (Double(milliseconds) / 100).rounded() / 10
        return "\(tenths) s"
    }
}
