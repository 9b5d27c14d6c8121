import ForecastModel
import Foundation
import Rendering
import Testing

/// Warnings, rain soon and the air in every bar format, the templates and `forecastctl warnings`: the
/// recorded Bromsgrove report (daytime, overcast, 13:35 UTC) with what the daemon adds to it.
@Suite("Warnings, rain soon and the air in bars")
struct AlertRenderingTests {
    let base: Report
    let now: Date

    init() throws {
        base = try ReportFixtures.report("day")
        now = ReportFixtures.now(of: base)
    }

    func date(_ text: String) -> Date { Timestamps.parseUTC(text)! }

    /// A yellow wind warning (moderate) until 21:00, a minor fog one from 18:00, and one that expired at 13:00.
    var warnings: [WeatherWarning] {
        [
            WeatherWarning(
                source: "meteoalarm", event: "Yellow wind warning", severity: .moderate, urgency: .immediate,
                onset: date("2026-02-23T09:00:00Z"), expires: date("2026-02-23T21:00:00Z"),
                headline: "Strong winds", description: "Gusts of 50 to 60 mph.", area: "West Midlands",
                url: "https://www.metoffice.gov.uk/weather/warnings-and-advice", identifier: "uk-wind-1"),
            WeatherWarning(
                source: "meteoalarm", event: "Fog", severity: .minor, onset: date("2026-02-23T18:00:00Z"),
                expires: date("2026-02-24T08:00:00Z"), area: "West Midlands", identifier: "uk-fog-1"),
            WeatherWarning(
                source: "meteoalarm", event: "Ice", severity: .severe, expires: date("2026-02-23T13:00:00Z"),
                identifier: "uk-ice-1"),
        ]
    }

    var rainIn20: ReportNowcast {
        let start = now.addingTimeInterval(20 * 60)
        return ReportNowcast(
            Nowcast(
                kind: .rain, isOngoing: false, startsAt: start, stopsAt: start.addingTimeInterval(55 * 60),
                knownUntil: now.addingTimeInterval(7200), intensity: .moderate, peakRate: 3.1, probability: 70,
                interpolated: true),
            now: now, utcOffsetSeconds: 0, timeZone: TimeZone(identifier: "Europe/London")!)
    }

    var moderateAir: ReportAir {
        ReportAir(
            AirQuality(
                provider: "open-meteo-air-quality", attribution: "Air quality: CAMS / Open-Meteo",
                coordinate: Coordinate(latitude: 52.34, longitude: -2.06), time: date("2026-02-23T13:00:00Z"),
                fetchedAt: date("2026-02-23T13:10:00Z"), scale: .european, aqi: 44.4, dominant: .pm2_5, pm2_5: 21.6,
                pm10: 30.2, uvIndex: 1.5, pollen: Pollen(alder: 12.4, birch: 0.2)),
            utcOffsetSeconds: 0)
    }

    var full: Report {
        var report = base
        report.warnings = warnings
        report.nowcast = rainIn20
        report.air = moderateAir
        return report
    }

    func waybar(_ report: Report) throws -> [String: Any] {
        let text = Renderer.render(report, as: .waybar, options: ReportFixtures.options(for: report))
        return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("Waybar: the top warning's level, rain-soon and the air's category as classes; the warnings in the tooltip")
    func waybarClassesAndTooltip() throws {
        let object = try waybar(full)
        let classes = try #require(object["class"] as? [String])
        #expect(classes.contains("warning-moderate"))
        #expect(classes.contains("rain-soon"))
        #expect(classes.contains("aqi-moderate"))
        #expect(!classes.contains("warning-severe"), "the expired severe warning is not shown")
        let text = try #require(object["text"] as? String)
        #expect(text.hasPrefix("⚠ "))
        let tooltip = try #require(object["tooltip"] as? String)
        #expect(tooltip.contains("<b>Yellow wind warning</b> (moderate), until 21:00"))
        #expect(tooltip.contains("⚠ <b>Fog</b> (minor), from 18:00 until Tue 08:00"))
        #expect(!tooltip.contains("Ice"))
        #expect(tooltip.contains("Rain in 20 min (moderate)"))
        #expect(tooltip.contains("Air quality moderate (European AQI 44, mostly PM2.5)"))
        #expect(tooltip.contains("Pollen: alder 12 grains/m³"))

        let plain = try waybar(base)
        let plainClasses = try #require(plain["class"] as? [String])
        #expect(!plainClasses.contains { $0.hasPrefix("warning-") || $0 == "rain-soon" || $0.hasPrefix("aqi-") })
    }

    @Test("Stale warnings and air stay in the bar, and the tooltip says they may be out of date")
    func staleStayWithNote() throws {
        var report = full
        report.warningsStale = true
        report.air?.stale = true
        let object = try waybar(report)
        let classes = try #require(object["class"] as? [String])
        #expect(classes.contains("warning-moderate"))
        #expect(classes.contains("aqi-moderate"))
        let tooltip = try #require(object["tooltip"] as? String)
        #expect(tooltip.contains("<b>Yellow wind warning</b> (moderate), until 21:00"))
        #expect(tooltip.contains("These warnings may be out of date: their source has not answered lately."))
        #expect(tooltip.contains("Air quality moderate (European AQI 44, mostly PM2.5) (may be out of date)"))
        let summary = HumanSummary.render(report, now: now)
        #expect(summary.contains("These warnings may be out of date"))

        let fresh = try #require(try waybar(full)["tooltip"] as? String)
        #expect(!fresh.contains("may be out of date"))
    }

    @Test("A warning past its expiry at render time is not shown, even from an older status file")
    func expiredAtRenderTime() throws {
        var report = base
        report.warnings = [warnings[0]]
        let later = RenderOptions(now: date("2026-02-23T21:00:00Z"))
        let text = Renderer.render(report, as: .waybar, options: later)
        #expect(!text.contains("warning-moderate"))
        #expect(!text.contains("Yellow wind"))
    }

    @Test("On a 12-hour clock the nowcast's and the warnings' times read 2:50 PM, not 14:50")
    func twelveHourClock() throws {
        var report = full
        let text24 = Renderer.render(report, as: .text, options: ReportFixtures.options(for: report))
        report.units.time = TimeFormat.h12.rawValue
        let text12 = Renderer.render(report, as: .text, options: ReportFixtures.options(for: report))
        let tooltip = try #require(try waybar(report)["tooltip"] as? String)
        let until24 = try #require(text24.range(of: #"until about \d\d:\d\d"#, options: .regularExpression))
        #expect(!text12.contains(String(text24[until24])), "\(text12)")
        #expect(text12.range(of: #"until about \d{1,2}:\d\d [AP]M"#, options: .regularExpression) != nil, "\(text12)")
        #expect(tooltip.range(of: #"until \d{1,2}:\d\d [AP]M"#, options: .regularExpression) != nil, "\(tooltip)")
    }

    @Test("Every line format carries the warning and the rain to come")
    func lineFormats() {
        for format in [OutputFormat.text, .i3blocks, .polybar, .tmux, .i3statusRust] {
            let output = Renderer.render(full, as: format, options: ReportFixtures.options(for: full))
            #expect(output.contains("Yellow wind warning") || output.contains("⚠"), "\(format): \(output)")
        }
        let text = Renderer.render(full, as: .text, options: ReportFixtures.options(for: full))
        #expect(text.contains("⚠ Yellow wind warning (moderate), +1 more"))
        #expect(text.contains("Rain in 20 min (moderate)"))
        let i3blocks = Renderer.render(full, as: .i3blocks, options: ReportFixtures.options(for: full))
        #expect(i3blocks.hasSuffix("\n" + BarColor.moderateWarning))
        let rust = Renderer.render(full, as: .i3statusRust, options: ReportFixtures.options(for: full))
        #expect(rust.contains("\"state\":\"Warning\""))
    }

    @Test("Template tokens for warnings, rain soon and the air")
    func templateTokens() throws {
        func render(_ text: String, _ report: Report) throws -> String {
            try Template(text).render(report, options: ReportFixtures.options(for: report))
        }
        #expect(try render("{warning}", full) == "⚠ Yellow wind warning")
        #expect(try render("{warning_count}", full) == "2")
        #expect(try render("{warning_level}", full) == "moderate")
        #expect(try render("{rain_soon}", full) == rainIn20.text)
        #expect(try render("{rain_soon_short}", full) == "🌧️ in 20 min")
        #expect(try render("{aqi} {aqi_category}", full) == "44 moderate")
        #expect(try render("{pm2_5}", full) == "22 µg/m³")
        #expect(try render("{pollen}", full) == "alder 12")
        #expect(try render("[{warning}{warning_count}{rain_soon}{aqi}]", base) == "[]")
    }

    @Test("While it rains, the nowcast says when it stops and no rain-soon class is set")
    func rainingNow() throws {
        var report = base
        report.nowcast = ReportNowcast(
            Nowcast(
                kind: .rain, isOngoing: true, startsAt: now.addingTimeInterval(-600),
                stopsAt: now.addingTimeInterval(15 * 60), knownUntil: now.addingTimeInterval(7200), intensity: .light,
                peakRate: 0.8, probability: nil, interpolated: false),
            now: now, utcOffsetSeconds: 0, timeZone: TimeZone(identifier: "Europe/London")!)
        // The recorded condition is overcast: a nowcast that says it rains now contradicts it and is not shown.
        #expect(
            !Renderer.render(report, as: .text, options: ReportFixtures.options(for: report)).contains("Rain stops"))
        report.current?.condition = Condition(kind: .rain, isDay: true)
        let classes = try #require(try waybar(report)["class"] as? [String])
        #expect(!classes.contains("rain-soon"))
        #expect(
            Renderer.render(report, as: .text, options: ReportFixtures.options(for: report)).contains(
                "Rain stops in 15 min"))
    }

    @Test("forecastctl warnings: a table of those in force, then each one's texts; or why there are none")
    func warningsTable() {
        let table = WarningsTable.render(full, now: now)
        let lines = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Bromsgrove, England, United Kingdom")
        #expect(lines[1].hasPrefix("Severity"))
        #expect(lines[2].hasPrefix("moderate  Yellow wind warning"))
        #expect(lines[3].hasPrefix("minor     Fog"))
        #expect(table.contains("⚠ Yellow wind warning (moderate): Strong winds"))
        #expect(table.contains("  Gusts of 50 to 60 mph."))
        #expect(!table.contains("Ice"))

        var none = base
        none.warnings = []
        #expect(WarningsTable.render(none, now: now).hasSuffix("No warning is in force for Bromsgrove."))
        // Wrapped to the terminal's width (80 columns unless told).
        let unavailable = WarningsTable.render(base, now: now).split(separator: "\n").dropFirst().joined(separator: " ")
        #expect(unavailable == Phrases.english.warningsUnavailable)
    }

    @Test("polybar and tmux name the warning after the bar text, as docs/formats.md says")
    func shortLineFormatsNameTheWarning() {
        for format in [OutputFormat.polybar, .tmux] {
            let output = Renderer.render(full, as: format, options: ReportFixtures.options(for: full))
            #expect(output.contains("⚠ "), "\(format): \(output)")
            #expect(output.contains("Yellow wind warning (moderate), +1 more"), "\(format): \(output)")
        }
        let polybar = Renderer.render(full, as: .polybar, options: ReportFixtures.options(for: full))
        #expect(polybar.hasPrefix("%{F" + BarColor.moderateWarning + "}"))
    }

    @Test(
        "A warning whose area is not confirmed is listed in the tooltip and the table, and sets neither the bar's mark nor its class"
    )
    func areaNotConfirmed() throws {
        var report = base
        var severe = warnings[0]
        severe.severity = .severe
        severe.areaConfirmed = false
        report.warnings = [warnings[1], severe]
        let object = try waybar(report)
        let classes = try #require(object["class"] as? [String])
        #expect(classes.contains("warning-minor"))
        #expect(!classes.contains("warning-severe"))
        let tooltip = try #require(object["tooltip"] as? String)
        #expect(tooltip.contains("<b>Yellow wind warning</b> (severe), until 21:00, area not confirmed"))
        #expect(tooltip.contains("<span color=\"\(BarColor.stale)\">⚠ <b>Yellow wind warning</b>"))
        let text = Renderer.render(report, as: .text, options: ReportFixtures.options(for: report))
        #expect(text.contains("⚠ Fog (minor)"))
        #expect(!text.contains("Yellow wind"))
        let table = WarningsTable.render(report, now: now)
        #expect(table.contains("West Midlands, are…"), "the area cell says it too, clipped to fit 80 columns")
        #expect(table.contains("⚠ Yellow wind warning (severe), area not confirmed: Strong winds"))

        // Alone, it leaves the bar without a mark: the errors entry the daemon adds says why.
        report.warnings = [severe]
        let alone = try waybar(report)
        #expect((alone["text"] as? String)?.hasPrefix("⚠") == false)
        #expect((alone["tooltip"] as? String)?.contains("area not confirmed") == true)
    }

    @Test(
        "The notices (warnings not placed, too many, IP geolocation not used behind a VPN) colour no bar as an error; a failure does"
    )
    func noticesAreNotErrors() throws {
        var report = base
        var severe = warnings[0]
        severe.areaConfirmed = false
        report.warnings = [severe]
        report.errors = [
            ReportError(kind: .warningsUnplaced, message: "meteoalarm sent 1 warning for this country whose area could not be placed."),
            ReportError(kind: .warningsPartial, message: "meteoalarm sent more than 2000 warnings."),
            ReportError(
                kind: .vpn,
                message: "IP geolocation is not used: the IPv4 default route goes through wg0 (WireGuard), so a service "
                    + "would place the VPN's exit, not this machine."),
        ]
        let classes = try #require(try waybar(report)["class"] as? [String])
        #expect(!classes.contains("error"))
        #expect(try #require(try waybar(report)["tooltip"] as? String).contains("through wg0 (WireGuard)"))
        let options = ReportFixtures.options(for: report)
        #expect(!Renderer.render(report, as: .polybar, options: options).contains(BarColor.error))
        #expect(!Renderer.render(report, as: .i3blocks, options: options).contains(BarColor.error))

        report.errors.append(ReportError(kind: .warnings, message: "Official warnings from meteoalarm could not be read."))
        #expect(try #require(try waybar(report)["class"] as? [String]).contains("error"))
        #expect(Renderer.render(report, as: .polybar, options: options).contains(BarColor.error))
    }

    @Test("Warnings beyond the report's bound are counted: +N more in bars, tooltip and table")
    func omittedCounted() throws {
        var report = full
        report.warningsOmitted = 5
        let text = Renderer.render(report, as: .text, options: ReportFixtures.options(for: report))
        #expect(text.contains("⚠ Yellow wind warning (moderate), +6 more"))
        let tooltip = try #require(try waybar(report)["tooltip"] as? String)
        #expect(tooltip.contains("+5 more"))
        #expect(WarningsTable.render(report, now: now).contains("\n+5 more\n"))
    }

    @Test("forecastctl status names the warnings first, then the rain and the air")
    func humanSummary() {
        let text = HumanSummary.render(full, now: now)
        #expect(text.contains("⚠ Yellow wind warning (moderate), until 21:00"))
        #expect(text.contains("Rain in 20 min (moderate)"))
        #expect(text.contains("Air quality moderate"))
    }
}
