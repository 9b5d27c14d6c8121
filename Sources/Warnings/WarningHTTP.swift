import AsyncHTTPClient
import Executors
import FileStore
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// One GET to a warning service: a deadline for the whole exchange, forecastd's User-Agent, and a
/// body cap enforced while reading, so an oversized feed is refused after at most the cap's worth of
/// bytes (at once when it announces its length) instead of being held in memory whole.
struct WarningHTTP: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    let source: String
    let httpClient: HTTPClient
    let timeout: Duration
    let userAgent: String
    let maxBodyBytes: Int
    let logger: Logger

    /// Sends the GET and reads the answer, whatever its status.
    ///
    /// - Throws: ``WarningError`` with reason `offline`, `timeout`, `tooLarge` (more than
    ///   ``maxBodyBytes``, announced or read), `truncated` (the connection closed before the announced
    ///   length) or `malformed` (not HTTP).
    func get(_ url: URL, accept: String, headers extra: [(String, String)] = []) async throws(WarningError)
        -> Response
    {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: accept)
        for (name, value) in extra { request.headers.replaceOrAdd(name: name, value: value) }
        var logger = self.logger
        logger[metadataKey: "warnings.source"] = "\(source)"
        logger[metadataKey: "http.url"] = "\(url.absoluteString)"
        logger.debug("Requesting official warnings.")
        let end = ContinuousClock.now.advanced(by: timeout)
        do {
            let response = try await perform(request, until: end)
            logger.debug(
                "The warning service answered.",
                metadata: ["http.status": "\(response.status)", "http.bytes": "\(response.body.count)"])
            return response
        } catch let error as WarningError {
            logger.debug("The warning request failed.", metadata: ["error.message": "\(error.detail)"])
            throw error
        } catch {
            let failure = classify(error, url: url)
            logger.debug("The warning request failed.", metadata: ["error.message": "\(failure.detail)"])
            throw failure
        }
    }

    private func perform(_ request: HTTPClientRequest, until end: ContinuousClock.Instant) async throws -> Response {
        let (seconds, attoseconds) = timeout.components
        let deadline = NIODeadline.now() + .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let response = try await httpClient.execute(request, deadline: deadline, logger: logger)
        let limit = maxBodyBytes
        let source = self.source
        let announced = response.headers.first(name: "content-length").flatMap(Int.init)
        if let announced, announced > limit {
            throw Self.tooLarge(source: source, limit: limit, announced: announced)
        }
        // The client's deadline covers the response head; the body gets what is left of the same budget.
        let body = try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                var data = Data()
                // Room for the announced length at once: growing by doubling would hold up to twice the body.
                if let announced, announced > 0 { data.reserveCapacity(announced) }
                for try await chunk in response.body {
                    guard data.count + chunk.readableBytes <= limit else {
                        throw Self.tooLarge(source: source, limit: limit, announced: nil)
                    }
                    data.append(contentsOf: chunk.readableBytesView)
                }
                return data
            }
            group.addTask {
                try await EventLoopSleep.sleep(until: end)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let data = first else { throw HTTPClientError.deadlineExceeded }
            return data
        }
        return Response(status: Int(response.status.code), headers: response.headers, body: body)
    }

    private static func tooLarge(source: String, limit: Int, announced: Int?) -> WarningError {
        let size = announced.map { " (it announced \(ByteCount($0)))" } ?? ""
        return WarningError(
            source: source, reason: .tooLarge(limit: limit),
            detail: "the response is larger than \(ByteCount(limit))\(size); it was not read")
    }

    /// Turns what the HTTP stack threw into a named reason.
    private func classify(_ error: any Error, url: URL) -> WarningError {
        let target = url.host.map { host in url.port.map { "\(host):\($0)" } ?? host } ?? url.absoluteString
        func fail(_ reason: WarningError.Reason, _ detail: String) -> WarningError {
            WarningError(source: source, reason: reason, detail: detail)
        }
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .cancelled:
                return fail(.timeout, "no complete answer from \(target) within \(timeout)")
            case .connectTimeout, .getConnectionFromPoolTimeout:
                return fail(.offline, "could not connect to \(target) (the attempt timed out)")
            case .remoteConnectionClosed:
                return fail(.truncated, "\(target) closed the connection before the answer was complete")
            default:
                return fail(.malformed, "the exchange with \(target) failed (\(error))")
            }
        case HTTPParserError.invalidEOFState:
            return fail(.truncated, "the response from \(target) ended before its announced length")
        case is HTTPParserError:
            return fail(.malformed, "the response from \(target) is not valid HTTP (\(error))")
        case is CancellationError:
            return fail(.timeout, "the request to \(target) was cancelled before an answer")
        case let error as IOError:
            return fail(.offline, "could not connect to \(target) (\(String(cString: strerror(error.errnoCode))))")
        default:
            return fail(.offline, "the request to \(target) failed (\(error))")
        }
    }
}
