import FileStore
import Foundation
import ForecastModel

/// What a follower makes of a message on a followed report topic.
public enum SharedMessage: Sendable, Hashable {
    case report(SharedReport)
    /// An empty retained message: the publisher took the report away (MQTT switched off there, the city left its
    /// list).
    case removed
}

/// Why a message on a followed topic was not taken; the follower keeps its last good report and logs this.
public struct SharedReportRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// One sentence, without the topic (the caller names it): `is not JSON (…)`.
    public var reason: String
    public var description: String { reason }

    init(_ reason: String) { self.reason = reason }
}

extension SharedReport {
    /// The most of each list a follower takes: far above what a publisher sends (a day's hours are 24, warnings
    /// 20), far below what would make rendering slow.
    public static let maximumHours = 24 * 20
    public static let maximumDays = 31
    public static let maximumPeriods = 4 * 24 * 10
    public static let maximumWarnings = 200
    public static let maximumErrors = 64
    /// How far ahead of this machine's clock a report may be dated (clocks differ a little between machines).
    public static let clockSkewAllowed: TimeInterval = 3600

    /// Reads the payload of a followed report topic: bounded, its schema version checked before anything else
    /// is decoded, its values checked against what a publisher can send. The report in the publisher's units is
    /// not read: the follower renders its own from the model.
    public static func decode(_ payload: [UInt8], now: Date, maximumBytes: Int = SharedReport.maximumBytes)
        throws(SharedReportRefusal) -> SharedMessage
    {
        if payload.isEmpty { return .removed }
        guard payload.count <= maximumBytes else {
            throw SharedReportRefusal(
                "is \(ByteCount(payload.count)), more than the \(ByteCount(maximumBytes)) allowed")
        }
        let data = Data(payload)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch {
            throw SharedReportRefusal("is not a JSON object (\(Self.explain(error)))")
        }
        guard let version = header.version else {
            throw SharedReportRefusal("is not a forecastd report: it has no \"forecastd_share\" number")
        }
        guard version == schemaVersion else {
            throw SharedReportRefusal(
                "uses share schema \(version), and this forecastd reads schema \(schemaVersion)"
                    + (version > schemaVersion ? ": update forecastd here" : ": update the publisher"))
        }
        let envelope: Envelope
        do {
            envelope = try decoder.decode(Envelope.self, from: data)
        } catch {
            throw SharedReportRefusal("is not a usable forecastd report (\(Self.explain(error)))")
        }
        guard let publishedAt = Timestamps.parseUTC(envelope.publishedAt) else {
            throw SharedReportRefusal("has published_at \"\(envelope.publishedAt.prefix(40))\", not an RFC 3339 time")
        }
        let ahead = publishedAt.timeIntervalSince(now)
        guard ahead <= clockSkewAllowed else {
            throw SharedReportRefusal(
                "is dated \(Int(ahead / 60)) minutes ahead of this machine's clock: check the clocks of both machines")
        }
        let report = SharedReport(publishedAt: publishedAt, publisher: envelope.publisher, model: envelope.model)
        if let problem = report.problem { throw SharedReportRefusal(problem) }
        return .report(report)
    }

    /// A value no publisher sends, nil when there is none.
    var problem: String? {
        if publisher.refreshSeconds < 60 || publisher.staleAfterSeconds < 60 {
            return "gives refresh_seconds \(publisher.refreshSeconds) and stale_after_seconds "
                + "\(publisher.staleAfterSeconds); both must be at least 60"
        }
        if let fix = model.fix, !fix.coordinate.isPlausible {
            return "has a position (\(fix.coordinate.latitude), \(fix.coordinate.longitude)) that is no place on Earth"
        }
        if let forecast = model.forecast {
            if forecast.hourly.count > Self.maximumHours || forecast.daily.count > Self.maximumDays
                || (forecast.shortTerm?.periods.count ?? 0) > Self.maximumPeriods
            {
                return "has a forecast of \(forecast.hourly.count) hours, \(forecast.daily.count) days and "
                    + "\(forecast.shortTerm?.periods.count ?? 0) short periods; at most \(Self.maximumHours), "
                    + "\(Self.maximumDays) and \(Self.maximumPeriods) are taken"
            }
            if abs(forecast.utcOffsetSeconds) > 18 * 3600 {
                return "has a UTC offset of \(forecast.utcOffsetSeconds) s, beyond ±18 hours"
            }
        }
        if (model.warnings?.count ?? 0) > Self.maximumWarnings || model.errors.count > Self.maximumErrors {
            return "has \(model.warnings?.count ?? 0) warnings and \(model.errors.count) errors; at most "
                + "\(Self.maximumWarnings) and \(Self.maximumErrors) are taken"
        }
        return nil
    }

    /// A decoding error in one short sentence: where and what (Foundation's own texts are long and vary).
    static func explain(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the top level" : String(keys.dropFirst(keys.hasPrefix(".") ? 1 : 0).prefix(120))
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "\(path(context)) has no \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(path(context)) has a value of the wrong type"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "\(path(context)) holds a value that cannot be used"
        default:
            return "unreadable"
        }
    }

    /// The version alone, read before anything else so that a report of another schema is named as such.
    private struct Header: Decodable {
        var version: Int?
        enum CodingKeys: String, CodingKey { case version = "forecastd_share" }
    }

    private struct Envelope: Decodable {
        var publishedAt: String
        var publisher: SharedPublisher
        var model: SharedModel
        enum CodingKeys: String, CodingKey {
            case publishedAt = "published_at"
            case publisher, model
        }
    }
}
