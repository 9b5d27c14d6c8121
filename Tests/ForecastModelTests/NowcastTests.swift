import ForecastModel
import Foundation
import Testing

/// The nowcast judgement on short-term periods: when rain starts and stops, how hard, whether the data
/// is a 15-minute model's own, and that it never contradicts the current condition.
@Suite("Nowcast")
struct NowcastTests {
    /// 2026-06-15T12:00:00Z, 14:00 in Berlin (CEST, UTC+2).
    static let noon = Timestamps.parseUTC("2026-06-15T12:00:00Z")!
    static let berlin = TimeZone(identifier: "Europe/Berlin")!

    static func at(_ minutes: Double) -> Date { noon.addingTimeInterval(minutes * 60) }

    /// Quarter-hour periods from noon with these amounts (mm per 15 minutes); nil is a hole.
    static func quarters(_ amounts: [Double?], probability: Double? = nil, interpolated: Bool = false)
        -> ShortTermPrecipitation
    {
        ShortTermPrecipitation(
            periods: amounts.enumerated().map { index, amount in
                PrecipitationPeriod(
                    start: at(Double(index) * 15), end: at(Double(index + 1) * 15), amount: amount,
                    probability: probability)
            }, interpolated: interpolated)
    }

    static func forecast(
        _ series: ShortTermPrecipitation, current: ConditionKind? = nil, currentAt: Date = noon,
        hourly: [HourlyForecast] = []
    ) -> Forecast {
        Forecast(
            provider: "open-meteo", attribution: "", coordinate: Coordinate(latitude: 52.52, longitude: 13.42),
            fetchedAt: noon, utcOffsetSeconds: 7200, timezone: "Europe/Berlin",
            current: current.map { CurrentConditions(time: currentAt, condition: $0) }, hourly: hourly, daily: [],
            shortTerm: series)
    }

    @Test("Intensity by rate: light below 2.5 mm/h, moderate to 10, heavy above (WMO)")
    func intensityThresholds() {
        #expect(PrecipitationIntensity(rate: 0.1) == .light)
        #expect(PrecipitationIntensity(rate: 2.49) == .light)
        #expect(PrecipitationIntensity(rate: 2.5) == .moderate)
        #expect(PrecipitationIntensity(rate: 10) == .moderate)
        #expect(PrecipitationIntensity(rate: 10.01) == .heavy)
        #expect(PrecipitationIntensity(rate: 80) == .heavy)
        // A quarter hour's amount is a quarter of its hourly rate: 0.7 mm in 15 minutes is 2.8 mm/h.
        #expect(PrecipitationPeriod(start: Self.noon, end: Self.at(15), amount: 0.7).rate == 2.8)
    }

    @Test("Dry for two hours: no nowcast")
    func dry() {
        let forecast = Self.forecast(Self.quarters(Array(repeating: 0, count: 12)), current: .overcast)
        #expect(Nowcast.judge(forecast, now: Self.at(10)) == nil)
        // 0.05 mm is below the smallest amount providers report: still dry.
        #expect(Nowcast.judge(Self.forecast(Self.quarters([0, 0.05, 0.05, 0])), now: Self.at(10)) == nil)
    }

    @Test("Rain in 20 min (moderate), until about 15:00 in Berlin")
    func rainSoon() throws {
        let series = Self.quarters([0, 0, 0.8, 0.5, 0, 0, 0, 0, 0, 0, 0, 0], probability: 70)
        let forecast = Self.forecast(series, current: .partlyCloudy)
        let now = Self.at(10)
        let nowcast = try #require(Nowcast.judge(forecast, now: now))
        #expect(nowcast.kind == .rain)
        #expect(!nowcast.isOngoing)
        #expect(nowcast.startsAt == Self.at(30))
        #expect(nowcast.stopsAt == Self.at(60))
        #expect(nowcast.minutesUntilStart(at: now) == 20)
        #expect(nowcast.minutesUntilStop(at: now) == 50)
        #expect(nowcast.intensity == .moderate)  // 0.8 mm in 15 min = 3.2 mm/h
        #expect(nowcast.peakRate == 3.2)
        #expect(nowcast.probability == 70)
        #expect(nowcast.interpolated == false)
        #expect(nowcast.knownUntil == Self.at(180))
        #expect(nowcast.text(now: now, timeZone: Self.berlin) == "Rain in 20 min (moderate), until about 15:00")
    }

    @Test("Heavy rain far enough ahead: only within the two hours")
    func horizon() throws {
        var amounts = Array(repeating: 0.0, count: 12)
        amounts[9] = 3  // 14:15–14:30 UTC, 12 mm/h
        let series = Self.quarters(amounts)
        // At 12:10 the rain is 2 h 05 min away: beyond the horizon.
        #expect(Nowcast.judge(Self.forecast(series), now: Self.at(10)) == nil)
        // At 12:20 it is 1 h 55 min away.
        let nowcast = try #require(Nowcast.judge(Self.forecast(series), now: Self.at(20)))
        #expect(nowcast.intensity == .heavy)
        #expect(nowcast.minutesUntilStart(at: Self.at(20)) == 115)
        #expect(
            nowcast.text(now: Self.at(20), timeZone: Self.berlin) == "Rain in 115 min (heavy), until about 16:30")
    }

    @Test("Raining now by the current condition: says when it stops")
    func rainStops() throws {
        let series = Self.quarters([0.3, 0.4, 0.2, 0, 0, 0, 0, 0])
        let now = Self.at(10)
        let nowcast = try #require(Nowcast.judge(Self.forecast(series, current: .rain), now: now))
        #expect(nowcast.isOngoing)
        #expect(nowcast.startsAt == Self.noon)
        #expect(nowcast.minutesUntilStart(at: now) == 0)
        #expect(nowcast.stopsAt == Self.at(45))
        #expect(nowcast.intensity == .light)  // 0.4 mm in 15 min = 1.6 mm/h
        #expect(nowcast.text(now: now, timeZone: Self.berlin) == "Rain stops in 35 min")
    }

    @Test("Never contradicts the current condition: rain now although the model's quarter is dry")
    func currentRainWins() throws {
        let nowcast = try #require(
            Nowcast.judge(Self.forecast(Self.quarters([0, 0, 0, 0]), current: .drizzle), now: Self.at(5)))
        #expect(nowcast.isOngoing)
        // The current quarter counts as wet; the next one is dry.
        #expect(nowcast.stopsAt == Self.at(15))
        #expect(nowcast.intensity == .light)
        #expect(nowcast.peakRate == nil)
        #expect(nowcast.text(now: Self.at(5), timeZone: Self.berlin) == "Rain stops in 10 min")
    }

    @Test("Never contradicts the current condition: dry now although the model's quarter is wet")
    func currentDryWins() throws {
        let now = Self.at(7)
        let nowcast = try #require(
            Nowcast.judge(Self.forecast(Self.quarters([0.2, 0.2, 0, 0]), current: .clear), now: now))
        #expect(!nowcast.isOngoing)
        #expect(nowcast.startsAt == now)
        #expect(nowcast.text(now: now, timeZone: Self.berlin) == "Rain any minute (light), until about 14:30")
    }

    @Test("Without fresh current conditions the period holding now decides")
    func staleCurrent() throws {
        let series = Self.quarters([0.2, 0.2, 0, 0])
        // Current conditions from two hours ago say clear: too old to speak for now.
        let stale = Self.forecast(series, current: .clear, currentAt: Self.at(-120))
        let nowcast = try #require(Nowcast.judge(stale, now: Self.at(5)))
        #expect(nowcast.isOngoing)
        #expect(nowcast.stopsAt == Self.at(30))
        // No current conditions at all: the same.
        #expect(Nowcast.judge(Self.forecast(series), now: Self.at(5))?.isOngoing == true)
    }

    @Test("Where the data ends or has a hole, nothing is claimed beyond it")
    func endOfData() throws {
        let now = Self.at(5)
        // Raining now and still raining at the hole: no stop time, "until after".
        let ongoing = try #require(
            Nowcast.judge(Self.forecast(Self.quarters([0.2, 0.3, nil, 0]), current: .rain), now: now))
        #expect(ongoing.stopsAt == nil)
        #expect(ongoing.knownUntil == Self.at(30))
        #expect(ongoing.minutesUntilStop(at: now) == nil)
        #expect(ongoing.text(now: now, timeZone: Self.berlin) == "Rain until after 14:30")

        // Starting soon and still falling where the data ends.
        let starting = try #require(
            Nowcast.judge(Self.forecast(Self.quarters([0, 0, 0.2, 0.3]), current: .overcast), now: now))
        #expect(starting.stopsAt == nil)
        #expect(starting.text(now: now, timeZone: Self.berlin) == "Rain in 25 min (light), lasting past 15:00")

        // Rain only after a hole is not rain soon: the hole ends what is known.
        #expect(Nowcast.judge(Self.forecast(Self.quarters([0, nil, 1, 1])), now: now) == nil)
        // No period holds now (an old forecast): nothing to say.
        #expect(Nowcast.judge(Self.forecast(Self.quarters([1, 1])), now: Self.at(45)) == nil)
    }

    @Test("Snow and sleet are called so: by the current condition, or the hourly one at the start")
    func kinds() throws {
        let series = Self.quarters([0.3, 0.3, 0, 0, 0.4, 0.4, 0, 0])
        let now = Self.at(5)
        let snowing = try #require(Nowcast.judge(Self.forecast(series, current: .snowShowers), now: now))
        #expect(snowing.kind == .snow)
        #expect(snowing.text(now: now, timeZone: Self.berlin) == "Snow stops in 25 min")

        let hourly = [
            HourlyForecast(time: Self.noon, condition: .overcast), HourlyForecast(time: Self.at(60), condition: .sleet),
        ]
        let dryNow = Self.forecast(Self.quarters([0, 0, 0, 0, 0.4, 0.4, 0, 0]), current: .overcast, hourly: hourly)
        let sleet = try #require(Nowcast.judge(dryNow, now: now))
        #expect(sleet.kind == .sleet)
        #expect(sleet.text(now: now, timeZone: Self.berlin) == "Sleet in 55 min (light), until about 15:30")
    }

    @Test("MET Norway's hourly periods: coarser, marked interpolated")
    func hourlyPeriods() throws {
        let series = ShortTermPrecipitation(
            periods: (0..<4).map { hour in
                PrecipitationPeriod(
                    start: Self.at(Double(hour) * 60), end: Self.at(Double(hour + 1) * 60),
                    amount: [0, 3.0, 0.5, 0][hour], probability: [5, 80, 60, 10][hour])
            }, interpolated: true)
        let now = Self.at(20)
        let nowcast = try #require(Nowcast.judge(Self.forecast(series, current: .overcast), now: now))
        #expect(nowcast.interpolated)
        #expect(nowcast.startsAt == Self.at(60))
        #expect(nowcast.stopsAt == Self.at(180))
        #expect(nowcast.intensity == .moderate)  // 3.0 mm in an hour
        #expect(nowcast.probability == 80)
        #expect(nowcast.text(now: now, timeZone: Self.berlin) == "Rain in 40 min (moderate), until about 17:00")
    }

    @Test("The text's minutes: nearest 5 (halves down), at least 5, 'any minute' up to 2.5")
    func roundedMinutes() {
        #expect(Phrases.roundedMinutes(0) == nil)
        #expect(Phrases.roundedMinutes(2.5) == nil)
        #expect(Phrases.roundedMinutes(2.6) == 5)
        #expect(Phrases.roundedMinutes(7.5) == 5)
        #expect(Phrases.roundedMinutes(8) == 10)
        #expect(Phrases.roundedMinutes(17.5) == 15)
        #expect(Phrases.roundedMinutes(17.6) == 20)
        #expect(Phrases.roundedMinutes(20) == 20)
        #expect(Phrases.roundedMinutes(23) == 25)
        #expect(Phrases.english.timeOfDay(Self.at(30), in: Self.berlin) == "14:30")
        #expect(Phrases.english.timeOfDay(Self.at(30), in: TimeZone(identifier: "America/New_York")!) == "08:30")
        #expect(Phrases.english.timeOfDay(Self.at(-13 * 60), in: TimeZone(identifier: "Asia/Kolkata")!) == "04:30")
        var twelve = Phrases.english
        twelve.clock = .h12
        #expect(twelve.timeOfDay(Self.at(30), in: Self.berlin) == "2:30 PM")
        #expect(twelve.timeOfDay(Self.at(-13 * 60), in: TimeZone(identifier: "Asia/Kolkata")!) == "4:30 AM")
    }

    @Test("The next moment to judge again: when rain enters the window, and when the text's minutes change")
    func nextChange() throws {
        var amounts = Array(repeating: 0.0, count: 12)
        amounts[10] = 1  // 14:30–14:45 UTC
        let dry = Self.forecast(Self.quarters(amounts))
        // Nothing yet at 12:05; the rain enters the two hours at 12:30.
        #expect(Nowcast.nextChange(dry, after: Self.at(5)) == Self.at(30))

        let soon = Self.forecast(Self.quarters([0, 0, 0.8, 0, 0, 0, 0, 0]))
        // Starts at 12:30; at 12:10 the text says 20 min until 12:12:30, when 17.5 min round to 15.
        #expect(Nowcast.nextChange(soon, after: Self.at(10)) == Self.at(12.5))
        #expect(Nowcast.judge(soon, now: Self.at(12.5))?.text(now: Self.at(12.5), timeZone: Self.berlin)
            == "Rain in 15 min (moderate), until about 14:45")
        // The current conditions stop counting an hour after their time.
        let withCurrent = Self.forecast(Self.quarters([0, 0, 0, 0, 0, 0, 0, 0]), current: .clear)
        #expect(Nowcast.nextChange(withCurrent, after: Self.at(10)) == Self.at(60))
        // Without short-term data there is nothing to wait for.
        var none = withCurrent
        none.shortTerm = nil
        #expect(Nowcast.nextChange(none, after: Self.at(10)) == nil)
    }

    @Test("A forecast keeps its short-term periods when saved, and one saved before them still loads")
    func codable() throws {
        let forecast = Self.forecast(Self.quarters([0, 0.4], probability: 30, interpolated: true), current: .rain)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let data = try encoder.encode(forecast)
        #expect(try decoder.decode(Forecast.self, from: data) == forecast)

        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object.removeValue(forKey: "shortTerm")
        let old = try decoder.decode(Forecast.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(old.shortTerm == nil)
        #expect(old.current == forecast.current)
    }

    @Test("The report's nowcast object: snake_case, absent not null, times at the location's offset")
    func reportShape() throws {
        let series = Self.quarters([0, 0, 0.8, 0.5, 0, 0, 0, 0], probability: 70)
        let now = Self.at(10)
        let nowcast = try #require(Nowcast.judge(Self.forecast(series, current: .overcast), now: now))
        let value = ReportNowcast(nowcast, now: now, utcOffsetSeconds: 7200, timeZone: Self.berlin)
        let json = try #require(String(data: Report.makeEncoder().encode(value), encoding: .utf8))
        #expect(
            json == #"{"intensity":"moderate","interpolated":false,"kind":"rain","known_until":"2026-06-15T16:00:00+02:00","#
                + #""minutes_until":20,"minutes_until_stop":50,"probability":70,"raining_now":false,"#
                + #""starts_at":"2026-06-15T14:30:00+02:00","stops_at":"2026-06-15T15:00:00+02:00","#
                + #""text":"Rain in 20 min (moderate), until about 15:00"}"#)
        #expect(try Report.makeDecoder().decode(ReportNowcast.self, from: Data(json.utf8)) == value)
        // Straight from the forecast: its offset and time zone.
        #expect(ReportNowcast(Self.forecast(series, current: .overcast), now: now) == value)
        #expect(ReportNowcast(Self.forecast(Self.quarters([0, 0, 0, 0])), now: now) == nil)
        var fixed = Self.forecast(series, current: .overcast)
        fixed.timezone = nil
        #expect(fixed.localTimeZone.secondsFromGMT(for: now) == 7200)

        let ongoing = try #require(
            Nowcast.judge(Self.forecast(Self.quarters([0.3, 0.3, 0.3, 0.3, nil]), current: .rain), now: now))
        let open = try #require(
            String(
                data: Report.makeEncoder().encode(
                    ReportNowcast(ongoing, now: now, utcOffsetSeconds: 7200, timeZone: Self.berlin)),
                encoding: .utf8))
        #expect(!open.contains("stops_at") && !open.contains("minutes_until_stop") && !open.contains("null"))
        #expect(open.contains(#""raining_now":true"#) && open.contains(#""minutes_until":0"#))
    }
}
