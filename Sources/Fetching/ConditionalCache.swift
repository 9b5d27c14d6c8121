import Foundation

/// The last answer per key (a rounded position, a country feed) with its validators, for conditional GETs
/// (``Fetcher/conditionalGet(_:key:cache:accept:now:expires:decode:)``).
public actor ConditionalCache<Value: Sendable> {
    public struct Entry: Sendable {
        public var value: Value
        public var etag: String?
        public var lastModified: String?
        /// When the service last answered for this key (with content or a 304).
        public var fetchedAt: Date
        /// Until when the service said the answer stays fresh, as the caller judged it.
        public var expires: Date?

        public init(value: Value, etag: String?, lastModified: String?, fetchedAt: Date, expires: Date?) {
            self.value = value
            self.etag = etag
            self.lastModified = lastModified
            self.fetchedAt = fetchedAt
            self.expires = expires
        }
    }

    private let capacity: Int
    private var entries: [String: Entry] = [:]
    /// Keys from least to most recently used.
    private var recency: [String] = []

    /// Keeps `capacity` entries (at least one); the least recently used goes first.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The entry for `key`, which becomes the most recently used.
    public func entry(for key: String) -> Entry? {
        guard let entry = entries[key] else { return nil }
        touch(key)
        return entry
    }

    public func store(_ entry: Entry, for key: String) {
        entries[key] = entry
        touch(key)
        while recency.count > capacity {
            entries.removeValue(forKey: recency.removeFirst())
        }
    }

    private func touch(_ key: String) {
        recency.removeAll { $0 == key }
        recency.append(key)
    }
}

/// What a conditional GET came to.
public enum ConditionalAnswer<Value: Sendable>: Sendable {
    /// 2xx, decoded, then kept (a body that cannot be used is never kept).
    case fresh(Value, HTTPAnswer)
    /// 304: the kept value, its validators and times renewed.
    case notModified(Value, HTTPAnswer)
    /// Any other status, for the caller's own mapping; nothing kept.
    case other(HTTPAnswer)
}

/// Why a conditional GET gave no value: the exchange failed, or the body did not decode.
public enum ConditionalFailure<Failure: Error>: Error {
    case fetch(FetchFailure)
    case decode(Failure)
}

extension Fetcher {
    /// A GET that sends `If-None-Match` and `If-Modified-Since` from `cache`'s entry for `key` and serves
    /// the kept value on `304 Not Modified`.
    ///
    /// - Parameters:
    ///   - now: the clock that stamps ``ConditionalCache/Entry/fetchedAt`` when the answer arrives.
    ///   - expires: the entry's freshness from the answer and its arrival (`Expires` unless the caller caps it).
    ///   - decode: the value of a 2xx answer; it is kept only when this succeeds.
    /// - Throws: `.fetch` for a transport failure, or a 304 when no validator was sent
    ///   (``FetchFailure/Kind/unexpectedNotModified``); `.decode` for what `decode` threw.
    public func conditionalGet<Value: Sendable, Failure: Error>(
        _ url: URL, key: String, cache: ConditionalCache<Value>, accept: String = "application/json",
        now: @Sendable () -> Date, expires: (HTTPAnswer, Date) -> Date? = { answer, _ in answer.expires },
        decode: (HTTPAnswer) throws(Failure) -> Value
    ) async throws(ConditionalFailure<Failure>) -> ConditionalAnswer<Value> {
        let kept = await cache.entry(for: key)
        var headers: [(String, String)] = []
        if let etag = kept?.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = kept?.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        let answer: HTTPAnswer
        do {
            answer = try await get(url, accept: accept, headers: headers)
        } catch {
            throw .fetch(error)
        }
        let receivedAt = now()
        switch answer.meaning {
        case .notModified:
            guard var entry = kept, !headers.isEmpty else {
                throw .fetch(
                    FetchFailure(
                        service: service, kind: .unexpectedNotModified,
                        detail: "HTTP 304 Not Modified came back although no validator was sent"))
            }
            entry.etag = answer.etag ?? entry.etag
            entry.lastModified = answer.lastModified ?? entry.lastModified
            entry.fetchedAt = receivedAt
            entry.expires = expires(answer, receivedAt)
            await cache.store(entry, for: key)
            return .notModified(entry.value, answer)
        case .success:
            let value: Value
            do {
                value = try decode(answer)
            } catch {
                throw .decode(error)
            }
            await cache.store(
                ConditionalCache.Entry(
                    value: value, etag: answer.etag, lastModified: answer.lastModified, fetchedAt: receivedAt,
                    expires: expires(answer, receivedAt)),
                for: key)
            return .fresh(value, answer)
        default:
            return .other(answer)
        }
    }
}
