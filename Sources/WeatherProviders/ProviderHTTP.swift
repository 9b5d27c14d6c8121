import AsyncHTTPClient
import FileStore
import Executors
import ForecastModel
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// How forecastd names itself to web services.
public enum UserAgent {
    /// `forecastd/1.2.0 (+https://example.org/forecastd)`: product, version and a way to reach the
    /// operator, which MET Norway's and Nominatim's terms require (a generic client string gets 403).
    public static func make(version: String, contact: String?) -> String {
        guard let contact = contact?.trimmingCharacters(in: .whitespaces), !contact.isEmpty else {
            return "forecastd/\(version)"
        }
        return "forecastd/\(version) (\(contact))"
    }
}

/// A provider's HTTP answer, read whole and within the size cap.
public struct ProviderHTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// The media type without parameters, lower-cased (`text/html`), when the server named one.
    public var mediaType: String? {
        guard let value = headers.first(name: "content-type") else { return nil }
        let type = value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The `Retry-After` delay, when the server sent one in seconds.
    public var retryAfter: Duration? { ProviderError.parseRetryAfter(headers.first(name: "retry-after")) }
}

/// The provider-neutral part of talking to a weather service: one GET with a deadline, an identifying
/// User-Agent and a body size cap, with every transport failure turned into a ``ProviderError``.
///
/// Status codes are left to the caller, because each service explains its errors differently.
public struct ProviderHTTP: Sendable {
    /// Answers larger than this are refused: a forecast is tens of kilobytes, and a runaway body must
    /// not grow the daemon's memory.
    public static let defaultMaxBodyBytes = 2 * 1024 * 1024

    public let provider: String
    public let httpClient: HTTPClient
    /// The deadline for the whole exchange, from connecting to the last body byte.
    public let timeout: Duration
    public let userAgent: String
    public let maxBodyBytes: Int
    public let logger: Logger

    public init(
        provider: String, httpClient: HTTPClient, timeout: Duration, userAgent: String,
        maxBodyBytes: Int = ProviderHTTP.defaultMaxBodyBytes, logger: Logger
    ) {
        self.provider = provider
        self.httpClient = httpClient
        self.timeout = timeout
        self.userAgent = userAgent
        self.maxBodyBytes = maxBodyBytes
        self.logger = logger
    }

    /// Sends one GET and reads the whole answer, whatever its status.
    ///
    /// - Throws: ``ProviderError`` with kind `offline` when no connection could be made, `timeout`
    ///   when the answer did not arrive in full within ``timeout``, `badResponse` when it was larger
    ///   than ``maxBodyBytes`` or not valid HTTP, `providerError` when the server hung up without answering.
    public func get(_ url: URL, headers extra: [(String, String)] = []) async throws(ProviderError)
        -> ProviderHTTPResponse
    {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }

        let started = ContinuousClock.now
        let end = started.advanced(by: timeout)
        var logger = self.logger
        logger[metadataKey: "provider"] = "\(provider)"
        logger[metadataKey: "http.url"] = "\(Self.redacted(url))"
        logger.debug("Requesting weather data.")
        do {
            let response = try await perform(request, until: end)
            logger.debug(
                "The provider answered.",
                metadata: [
                    "http.status": "\(response.status)", "http.bytes": "\(response.body.count)",
                    "http.elapsed_ms": "\((ContinuousClock.now - started).milliseconds)",
                ])
            return response
        } catch {
            let failure = classify(error, url: url)
            logger.debug(
                "The request failed.",
                metadata: ["error.kind": "\(failure.kind.rawValue)", "error.message": "\(failure.message)"])
            throw failure
        }
    }

    private func perform(_ request: HTTPClientRequest, until end: ContinuousClock.Instant) async throws
        -> ProviderHTTPResponse
    {
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let response = try await httpClient.execute(request, deadline: deadline, logger: logger)
        // The client's deadline stops at the response head; the body gets what is left of the same budget.
        let maxBodyBytes = self.maxBodyBytes
        let buffer = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await response.body.collect(upTo: maxBodyBytes) }
            group.addTask {
                try await EventLoopSleep.sleep(until: end)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let buffer = first else {
                throw HTTPClientError.deadlineExceeded
            }
            return buffer
        }
        return ProviderHTTPResponse(
            status: Int(response.status.code), headers: response.headers, body: Array(buffer.readableBytesView))
    }

    /// Turns whatever the HTTP stack threw into one of the kinds the daemon acts on.
    func classify(_ error: any Error, url: URL) -> ProviderError {
        if let error = error as? ProviderError { return error }
        let host = url.host ?? url.absoluteString
        let target = url.port.map { "\(host):\($0)" } ?? host
        func fail(_ kind: ErrorKind, _ detail: String) -> ProviderError {
            ProviderError(provider: provider, kind: kind, detail: detail)
        }
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return fail(.timeout, "no answer within \(ProviderError.describe(timeout))")
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return fail(.offline, "could not connect to \(target) (the connection attempt timed out)")
            case .remoteConnectionClosed:
                return fail(.providerError, "\(target) closed the connection without a complete answer")
            case .cancelled:
                return fail(.timeout, "the request to \(target) was cancelled before an answer")
            case .invalidURL, .emptyHost, .emptyScheme:
                return fail(.providerError, "the URL \(Self.redacted(url)) is not a valid http(s) URL")
            default:
                return fail(.badResponse, "the exchange with \(target) failed (\(error))")
            }
        case let error as IOError:
            return fail(.offline, "could not connect to \(target) (\(Self.describe(error)))")
        case is SocketAddressError:
            return fail(.offline, "could not resolve \(host)")
        case ChannelError.connectTimeout:
            return fail(.offline, "could not connect to \(target) (the connection attempt timed out)")
        case let error as NIOTooManyBytesError:
            let limit = error.maxBytes ?? maxBodyBytes
            return fail(.badResponse, "the response is larger than \(ByteCount(limit))")
        case HTTPParserError.invalidEOFState:
            return fail(.badResponse, "the response from \(target) ended before its announced length")
        case is HTTPParserError:
            return fail(.badResponse, "the response from \(target) is not valid HTTP (\(error))")
        case is CancellationError:
            return fail(.timeout, "the request to \(target) was cancelled before an answer")
        default:
            return fail(.offline, "the request to \(target) failed (\(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? IOError {
            return String(cString: strerror(error.errnoCode))
        }
        return String(describing: error)
    }

    /// The URL with secrets in the query (API keys) replaced, so it can be logged.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let items = components.percentEncodedQueryItems
        else { return url.absoluteString }
        let secret: Set<String> = ["appid", "apikey", "api_key", "key", "token", "access_token"]
        components.percentEncodedQueryItems = items.map { item in
            secret.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "REDACTED") : item
        }
        return components.string ?? url.absoluteString
    }
}

extension TimeAmount {
    /// The same span as a Swift `Duration`, to the nanosecond.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
