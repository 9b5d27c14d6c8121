import Foundation
import Localization
import Testing

@testable import ForecastModel
@testable import Rendering

/// The recorded reports in every language that has a catalogue: no text falls back to English, the JSON
/// report does not change, and the bars keep their width rules.
@Suite("Every language")
struct LanguageTests {
    /// Every catalogue in Sources/Localization/po, whichever languages exist when the tests run.
    static let languages = CatalogueLibrary.languages(in: CatalogueLibrary.sourceTreeDirectory).subtracting(["en"])
        .sorted()

    /// The phrases of `language`, recording each text its catalogue lacks.
    static func phrases(_ language: String) throws -> (Phrases, MissingTexts) {
        let catalogue = try CatalogueLibrary.load(language, from: CatalogueLibrary.sourceTreeDirectory).get()
        let missing = MissingTexts()
        return (Phrases(Translation(catalogue, recordingMissingTextsIn: missing)), missing)
    }

    /// The recorded reports and the one with a warning, rain soon and poor air.
    static func reports() throws -> [(String, Report)] {
        let alerts = try AlertRenderingTests()
        var cases = try ReportFixtures.names.map { ($0, try ReportFixtures.report($0)) }
        cases.append(("day with alerts", alerts.full))
        var stopping = alerts.full
        stopping.nowcast?.rainingNow = true
        cases.append(("rain stopping", stopping))
        var near = alerts.full
        near.place?.near = true
        near.stale = true
        near.warningsStale = true
        near.air?.stale = true
        cases.append(("near, stale", near))
        return cases
    }

    /// Everything forecastctl and the bars show of `report`.
    static func everything(_ report: Report, _ phrases: Phrases) -> [String] {
        let now = ReportFixtures.now(of: report)
        var texts = OutputFormat.allCases.map { format in
            Renderer.render(report, as: format, options: RenderOptions(now: now, phrases: phrases))
        }
        let everyField = try? Template(Template.placeholderList.map { "{\($0)}" }.joined(separator: " "))
        texts.append(
            Renderer.render(report, as: .template, options: RenderOptions(template: everyField, now: now, phrases: phrases)))
        texts.append(HumanSummary.render(report, now: now, phrases: phrases))
        texts.append(ForecastTable.render(report, width: 100, now: now, phrases: phrases))
        texts.append(ForecastTable.render(report, width: 40, now: now, phrases: phrases))
        texts.append(WarningsTable.render(report, now: now, phrases: phrases))
        texts.append(ServiceStatusLine.render(report, now: now, timeZone: TimeZone(identifier: "UTC")!, phrases: phrases))
        return texts
    }

    @Test("the reports render with no English fallback", arguments: languages)
    func noFallback(_ language: String) throws {
        let (phrases, missing) = try Self.phrases(language)
        for (_, report) in try Self.reports() {
            _ = Self.everything(report, phrases)
            var none = report
            none.warnings = []
            _ = WarningsTable.render(none, now: ReportFixtures.now(of: report), phrases: phrases)
            none.place = nil
            _ = WarningsTable.render(none, now: ReportFixtures.now(of: report), phrases: phrases)
        }
        #expect(missing.all == [], "\(language) showed these in English")
    }

    @Test("every word the model names is in the catalogue", arguments: languages)
    func vocabulary(_ language: String) throws {
        let (phrases, missing) = try Self.phrases(language)
        _ = ConditionKind.allCases.map(phrases.condition)
        _ = stride(from: 0.0, to: 360, by: 22.5).map(phrases.compassPoint)
        _ = (0..<7).map { (phrases.weekday($0), phrases.weekdayAbbreviated($0)) }
        _ = (1...12).map { (phrases.month($0), phrases.monthAbbreviated($0)) }
        _ = (0...12).map(phrases.beaufort)
        _ = Phrases.translatedUnits.map(phrases.unit)
        _ = [0, 100, 600, 7200, 200_000].map { (phrases.ago(TimeInterval($0)), phrases.duration($0)) }
        _ = AirQualityCategory.allCases.map(phrases.category) + Pollutant.allCases.map(phrases.pollutant)
        _ = AQIScale.allCases.map(phrases.scale) + WarningSeverity.allCases.map(phrases.severity)
        _ = PrecipitationKind.allCases.map(phrases.precipitation) + PrecipitationIntensity.allCases.map(phrases.intensity)
        _ = ["alder", "birch", "grass", "mugwort", "olive", "ragweed"].map(phrases.plant)
        _ = [phrases.starts("R", nil, "i"), phrases.starts("R", 5, "i"), phrases.stops("R", nil), phrases.stops("R", 5)]
        _ = [phrases.continues("R", "t"), phrases.soonStarts(nil), phrases.soonStarts(5), phrases.soonStops(nil)]
        _ = [phrases.soonStops(10), phrases.moreWarnings(2), phrases.warningsInForce(1), phrases.warningsInForce(3)]
        _ = [phrases.warningUpgraded("e", "s"), phrases.chance(5), phrases.today(nil), phrases.today("p")]
        _ = [phrases.dayRange(nil, "1", "2"), phrases.dayRange("c", "1", "2"), phrases.chanceOfPrecipitation(5)]
        _ = [phrases.openWarning, phrases.warningsUnavailable, phrases.air("c", "s", 1, nil)]
        #expect(missing.all == [], "\(language) showed these in English")
    }

    @Test("the JSON report is the same bytes in every language")
    func jsonIsLocaleFree() throws {
        for (name, report) in try Self.reports() {
            let english = Renderer.render(report, as: .json, options: RenderOptions(now: ReportFixtures.now(of: report)))
            for language in Self.languages {
                let (phrases, _) = try Self.phrases(language)
                let text = Renderer.render(
                    report, as: .json, options: RenderOptions(now: ReportFixtures.now(of: report), phrases: phrases))
                #expect(text == english, "\(name) in \(language)")
            }
        }
    }

    @Test("bars keep their width rules in every language", arguments: languages)
    func widths(_ language: String) throws {
        let (phrases, _) = try Self.phrases(language)
        for (name, report) in try Self.reports() {
            let options = RenderOptions(now: ReportFixtures.now(of: report), phrases: phrases)
            // i3blocks' short text and i3status-rust's short_text are for a crowded bar: a glyph and a number.
            let short = Renderer.render(report, as: .i3blocks, options: options).split(separator: "\n")[1]
            #expect(TextWidth.columns(short) <= 24, "\(name) in \(language): i3blocks short text \"\(short)\"")
            // The bar text itself: the weather, a warning mark and the rain to come.
            let waybar = Renderer.render(report, as: .waybar, options: options)
            let object = try #require(JSONSerialization.jsonObject(with: Data(waybar.utf8)) as? [String: Any])
            let text = try #require(object["text"] as? String)
            #expect(TextWidth.columns(text) <= 32, "\(name) in \(language): bar text \"\(text)\"")
            // tmux counts an emoji with U+FE0F as one cell: its line must have none, in any language, and
            // stay one line.
            let tmux = Renderer.render(report, as: .tmux, options: options)
            #expect(!tmux.unicodeScalars.contains { $0.value == 0xFE0F }, "\(name) in \(language): \(tmux)")
            #expect(!tmux.contains("\n"))
            // The forecast table (its header, a row per day and the chart's scale; the sentences above it
            // wrap in the terminal) fits the terminal it was made for.
            let header = phrases.translation.text("Day", context: "forecast table")
            for line in ForecastTable.render(report, width: 80, now: options.now, phrases: phrases).split(separator: "\n")
            where line.hasPrefix(header) || line.contains("█") || line.contains("└") {
                #expect(TextWidth.columns(line) <= 80, "\(name) in \(language): \(line)")
            }
        }
    }

    /// A few Chinese words, enough for a bar, the rain to come and the forecast table: two columns each.
    static let chinese = #"""
        msgid ""
        msgstr ""
        "Language: zh_CN\n"
        "Plural-Forms: nplurals=1; plural=0;\n"

        msgctxt "condition"
        msgid "Overcast"
        msgstr "阴"

        msgctxt "condition"
        msgid "Rain"
        msgstr "雨"

        msgctxt "condition"
        msgid "Rain showers"
        msgstr "阵雨"

        msgctxt "bar"
        msgid "in {minutes} min"
        msgid_plural "in {minutes} min"
        msgstr[0] "{minutes}分钟后"

        msgctxt "day"
        msgid "Today"
        msgstr "今天"

        msgctxt "forecast table"
        msgid "Day"
        msgstr "日期"

        msgctxt "forecast table"
        msgid "Sky"
        msgstr "天气"

        msgctxt "forecast table"
        msgid "Low"
        msgstr "最低"

        msgctxt "forecast table"
        msgid "High"
        msgstr "最高"

        msgctxt "forecast table"
        msgid "Temperature ({unit})"
        msgstr "气温（{unit}）"

        msgctxt "weekday abbreviated"
        msgid "Tue"
        msgstr "周二"
        """#

    @Test("CJK words keep the width rules: short bar texts, and the forecast table's columns line up in cells")
    func cjkWidths() throws {
        let phrases = Phrases(Translation(try Catalogue(language: "zh_CN", poText: Self.chinese)))
        let report = try AlertRenderingTests().full
        let options = RenderOptions(now: ReportFixtures.now(of: report), phrases: phrases)
        let bar = Renderer.render(report, as: .i3blocks, options: options).split(separator: "\n")
        #expect(TextWidth.columns(bar[1]) <= 24, "\(bar[1])")
        // The rain to come, in Chinese, is in the bar text (the short text leaves it out).
        let polybar = Renderer.render(report, as: .polybar, options: options)
        #expect(polybar.contains("分钟后"), "\(polybar)")
        let lines = ForecastTable.render(report, width: 80, now: options.now, phrases: phrases).split(separator: "\n")
        let header = try #require(lines.firstIndex { $0.hasPrefix("日期") })
        let scale = try #require(lines.last { $0.contains("└") })
        let chartStart = TextWidth.columns(scale.prefix { $0 != "└" })
        // The chart's title starts where the scale does, and each row's chart ends where the scale ends.
        let title = try #require(lines[header].range(of: "气温"))
        #expect(TextWidth.columns(lines[header][..<title.lowerBound]) == chartStart, "\(lines[header])\n\(scale)")
        for row in lines[(header + 1)...] where row.contains("█") {
            let high = row.split(separator: " ").last ?? ""
            #expect(TextWidth.columns(row) - high.count - 2 == TextWidth.columns(scale), "\(row)\n\(scale)")
        }
        #expect(lines.contains { $0.hasPrefix("今天") && $0.contains("雨") })
    }

    @Test("Spanish reads as Spanish: conditions, decimal comma, wind, days and the nowcast")
    func spanish() throws {
        let (phrases, _) = try Self.phrases("es")
        let report = try AlertRenderingTests().full
        let now = ReportFixtures.now(of: report)
        let summary = HumanSummary.render(report, now: now, phrases: phrases)
        #expect(summary.contains("Cubierto"), "\(summary)")
        #expect(summary.contains("Lluvia en 20 min (moderada), hasta las"), "\(summary)")
        #expect(summary.contains("Calidad del aire regular (ICA europeo 44, sobre todo PM2,5)"), "\(summary)")
        #expect(summary.contains("Previsión de open-meteo"), "\(summary)")
        let text = Renderer.render(report, as: .text, options: RenderOptions(now: now, phrases: phrases))
        #expect(text.contains(","), "\(text)")
        let table = ForecastTable.render(report, width: 100, now: now, phrases: phrases)
        #expect(table.contains("Hoy"), "\(table)")
        #expect(table.contains("Día") && table.contains("Cielo") && table.contains("Temperatura (°C)"), "\(table)")
        let bar = Renderer.render(report, as: .waybar, options: RenderOptions(now: now, phrases: phrases))
        #expect(bar.contains("en 20 min"), "\(bar)")
        #expect(bar.contains("Ahora") == false)
    }

    /// Everything that shows a report's errors, with the errors' lines picked out where the format has others.
    static func errorViews(_ report: Report, _ phrases: Phrases) throws -> [(String, String)] {
        let now = ReportFixtures.now(of: report)
        let waybar = Renderer.render(report, as: .waybar, options: RenderOptions(now: now, phrases: phrases))
        let object = try #require(JSONSerialization.jsonObject(with: Data(waybar.utf8)) as? [String: Any])
        return [
            ("waybar tooltip", try #require(object["tooltip"] as? String)),
            ("summary", HumanSummary.render(report, now: now, phrases: phrases)),
            ("forecast table", ForecastTable.render(report, width: 100, now: now, phrases: phrases)),
            ("status line", ServiceStatusLine.render(report, now: now, timeZone: TimeZone(identifier: "UTC")!, phrases: phrases)),
        ]
    }

    /// A settings mistake, as the settings service reports it: its message names the file, line and column.
    static let configError = ReportError(
        kind: .config, message: "/home/ana/.config/forecastd/config.toml:4:12: [display] units: \"metrik\" is not "
            + "one of \"metric\", \"imperial\", \"uk\"; the last good settings stay in force.")

    @Test("a report's errors read in the language, with the English detail only where it is needed to act", arguments: languages)
    func errorsTranslated(_ language: String) throws {
        let (phrases, missing) = try Self.phrases(language)
        var cases = try ["error", "stale", "no_location"].map { ($0, try ReportFixtures.report($0)) }
        var config = try ReportFixtures.report("stale")
        config.errors.insert(Self.configError, at: 0)
        cases.append(("stale with a settings mistake", config))
        for (name, report) in cases {
            let first = try #require(report.errors.first)
            let sentence = try #require(phrases.error(first.kind))
            #expect(sentence != Phrases.english.error(first.kind), "\(name) in \(language): \(sentence)")
            let shown = first.text(phrases: phrases)
            #expect(shown.hasPrefix(sentence))
            if ReportError.detailedKinds.contains(first.kind) {
                // The detail names what to fix, so it stays, in English, after the sentence.
                #expect(shown.contains(String(first.message.dropLast())), "\(name) in \(language): \(shown)")
            } else {
                #expect(shown == sentence)
            }
            // The status line shows one error (the position's when there is no position), cut to 200
            // characters; the others show every error in full.
            let noLocation = report.errors.first { $0.kind == ErrorKind.noLocation.rawValue }
            let lineError = report.status == .noLocation ? try #require(noLocation) : first
            let lineSentence = try #require(phrases.error(lineError.kind))
            for (view, text) in try Self.errorViews(report, phrases) {
                let expected =
                    view == "status line" ? ServiceStatusLine.withoutFullStop(lineSentence) : Escape.pango(shown)
                #expect(text.contains(expected), "\(name) in \(language), \(view): \(text)")
                #expect(!text.contains(first.message.prefix(24)) || ReportError.detailedKinds.contains(first.kind),
                    "\(name) in \(language), \(view) shows the English message: \(text)")
            }
        }
        #expect(missing.all == [], "\(language) showed these in English")
    }

    @Test("every error kind has its sentence in every language; an unknown kind keeps its English message")
    func everyErrorKind() throws {
        for kind in ErrorKind.allCases {
            let english = try #require(Phrases.english.error(kind.rawValue))
            #expect(english.hasSuffix("."), "\(kind)")
            for language in Self.languages {
                let (phrases, missing) = try Self.phrases(language)
                let sentence = try #require(phrases.error(kind.rawValue))
                #expect(sentence != english && missing.all == [], "\(kind) in \(language)")
            }
        }
        let (spanish, _) = try Self.phrases("es")
        #expect(spanish.error("solar_flare") == nil)
        let unknown = ReportError(kind: .offline, message: "something new happened.")
        var renamed = unknown
        renamed.kind = "solar_flare"
        #expect(renamed.text(phrases: spanish) == "something new happened.")
        #expect(unknown.text(phrases: spanish) == "No se puede acceder al servicio meteorológico (sin red).")
        // English shows the report's own message, whatever the kind.
        #expect(unknown.text(phrases: .english) == "something new happened.")
    }

    @Test("Spanish shows the offline and timeout sentences in the tooltip, and a settings mistake with its place")
    func spanishErrors() throws {
        let (phrases, _) = try Self.phrases("es")
        let offline = try ReportFixtures.report("error")
        let tooltip = try #require(Self.errorViews(offline, phrases).first?.1)
        #expect(tooltip.contains("⚠ No se puede acceder al servicio meteorológico (sin red)."), "\(tooltip)")
        #expect(!tooltip.contains("cannot connect"), "\(tooltip)")
        let stale = try ReportFixtures.report("stale")
        let table = ForecastTable.render(stale, width: 100, now: ReportFixtures.now(of: stale), phrases: phrases)
        #expect(table.contains("! El servicio meteorológico no ha respondido a tiempo."), "\(table)")
        var config = stale
        config.errors = [Self.configError]
        let summary = HumanSummary.render(config, now: ReportFixtures.now(of: config), phrases: phrases)
        #expect(
            summary.contains(
                "! El archivo de ajustes tiene un error; siguen en vigor los últimos ajustes válidos. "
                    + "(/home/ana/.config/forecastd/config.toml:4:12: [display] units:"), "\(summary)")
    }

    @Test("English composed again from the report's fields is the report's own text")
    func englishRoundTrip() throws {
        let alerts = try AlertRenderingTests()
        let report = alerts.full
        let now = ReportFixtures.now(of: report)
        let nowcast = try #require(report.nowcast)
        #expect(nowcast.composedText(phrases: .english, now: now) == nowcast.text)
        let air = try #require(report.air)
        #expect(air.composedText(phrases: .english) == air.text)
    }
}
