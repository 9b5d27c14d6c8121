import ForecastModel
import Foundation

extension OutputFormat {
    /// The icon set a format uses when the options name none.
    public var defaultIcons: IconSet { self == .tmux ? .emojiSafe : .emoji }

    /// The number of lines one rendering has (i3blocks: 3; every other format: 1).
    public var lineCount: Int { self == .i3blocks ? 3 : 1 }
}

/// How to render: icons, the user's template, the hot/cold thresholds, and the clock.
public struct RenderOptions: Sendable {
    /// The icon set; nil uses the format's own default (``OutputFormat/defaultIcons``).
    public var icons: IconSet?
    /// The template for ``OutputFormat/template``; nil uses ``Template/standard``.
    public var template: Template?
    /// From this temperature up (in °C, whatever the report's units) bars get the `hot` class/colour.
    public var hotCelsius: Double
    /// From this temperature down (in °C) bars get the `cold` class/colour.
    public var coldCelsius: Double
    /// The time the text is shown at: ages ("5 min", "stale 3 h") are counted to it.
    public var now: Date
    /// The language: every word, and the decimal separator of every number (the JSON report has neither).
    public var phrases: Phrases
    /// Whether the text stays on show after it is rendered (a status file, a watched bar line): it then says
    /// when the forecast was fetched (`stale since 12:22`), never how long ago, which would freeze there.
    public var lasting: Bool
    /// Why nothing keeps the report up to date, when the reader knows (it read the status file of a daemon
    /// that is gone): tooltips and summaries say so.
    public var absence: DaemonAbsence?

    public init(
        icons: IconSet? = nil, template: Template? = nil, hotCelsius: Double = 30, coldCelsius: Double = 0,
        now: Date = Date(), phrases: Phrases = .english, lasting: Bool = false, absence: DaemonAbsence? = nil
    ) {
        self.lasting = lasting
        self.absence = absence
        self.phrases = phrases
        self.icons = icons
        self.template = template
        self.hotCelsius = hotCelsius
        self.coldCelsius = coldCelsius
        self.now = now
    }
}

/// Why a report read from a status file is no longer kept up to date.
public enum DaemonAbsence: Sendable, Hashable {
    /// The daemon that wrote it is not running (stopped, killed, crashed).
    case notRunning
    /// It runs, but has not written the file for longer than it promised, and does not answer.
    case notAnswering
}

/// Colours the line formats use, as `#rrggbb`.
public enum BarColor {
    /// Old data (stale) and "still locating": grey, shown but quiet.
    public static let stale = "#888888"
    /// No data for a reason the user can act on (no location, no forecast), or a fresh report with errors.
    public static let error = "#FF5555"
    /// At or above the hot threshold.
    public static let hot = "#FFA040"
    /// At or below the cold threshold.
    public static let cold = "#66B2FF"
    /// A moderate (yellow) warning in force.
    public static let moderateWarning = "#FFD75F"
    /// A severe (orange) warning in force.
    public static let severeWarning = "#FF8C00"
    /// An extreme (red) warning in force.
    public static let extremeWarning = "#FF3030"
    /// Poor air or worse (`aqi-poor`, `aqi-very-poor`).
    public static let poorAir = "#C080FF"

    /// The colour of a warning of `severity`; minor warnings (CAP: minimal threat) have none.
    public static func warning(_ severity: WarningSeverity) -> String? {
        switch severity {
        case .unknown, .minor: nil
        case .moderate: moderateWarning
        case .severe: severeWarning
        case .extreme: extremeWarning
        }
    }
}

/// Renders reports in every bar's own format. Pure: the same report and options give the same bytes.
public enum Renderer {
    /// The report as `format`, never empty: one line without a trailing newline (i3blocks: its three
    /// lines joined by `\n`). A report without weather renders a short state (`📍? no location`);
    /// stale data is shown with a marker, never hidden.
    public static func render(_ report: Report, as format: OutputFormat, options: RenderOptions) -> String {
        let facts = ReportFacts(report, options: options, icons: options.icons ?? format.defaultIcons)
        switch format {
        case .json: return ReportJSON.line(report)
        case .waybar: return waybar(facts)
        case .i3blocks: return i3blocks(facts)
        case .polybar: return polybar(facts)
        case .i3statusRust: return i3statusRust(facts)
        case .tmux: return Escape.tmux(Escape.oneLine(facts.barText + facts.warningSuffix))
        case .text: return Escape.oneLine(textLine(facts))
        case .template: return Escape.oneLine(template(facts))
        }
    }

    // MARK: Waybar

    /// The classes Waybar styles with `#custom-forecast.<class>`.
    static func waybarClasses(_ facts: ReportFacts) -> [String] {
        let report = facts.report
        var classes: [String] = []
        if report.status == .ok {
            classes.append(facts.condition?.code ?? "unknown")
            if let isDay = facts.isDay { classes.append(isDay ? "day" : "night") }
            if report.stale { classes.append("stale") }
            if facts.isHot { classes.append("hot") }
            if facts.isCold { classes.append("cold") }
        } else {
            classes.append(report.status.rawValue)
        }
        if let warning = facts.warningClass { classes.append(warning) }
        if facts.rainSoon { classes.append("rain-soon") }
        if let air = facts.air { classes.append(air.className) }
        if facts.hasErrors { classes.append("error") }
        return classes
    }

    private static func waybar(_ facts: ReportFacts) -> String {
        let report = facts.report
        // `alt` selects an icon from the module's `format-icons`; the icon name (`clear-night`) rather
        // than the condition code (`clear`) so that a user's map cannot show a sun at night.
        let alt =
            report.status == .ok
            ? (facts.condition.map { nightAware($0.icon, isDay: facts.isDay) } ?? "unknown") : report.status.rawValue
        return "{\"text\":" + Escape.json(Escape.oneLine(facts.barText)) + ",\"alt\":" + Escape.json(alt)
            + ",\"tooltip\":" + Escape.json(tooltip(facts)) + ",\"class\":" + Escape.json(waybarClasses(facts)) + "}"
    }

    private static func nightAware(_ icon: String, isDay: Bool?) -> String {
        isDay == false && icon.hasSuffix("-day") ? String(icon.dropLast(4)) + "-night" : icon
    }

    /// The tooltip in Pango markup: place, now, every third hour, the days, staleness, errors, credit.
    static func tooltip(_ facts: ReportFacts) -> String {
        let report = facts.report
        var lines = placeHeading(facts) + warningLines(facts)
        guard report.status == .ok else {
            lines.append(Escape.pango(facts.stateSentence))
            if let absence = facts.absenceSentence { lines.append(Escape.pango(absence)) }
            lines += airLines(facts)
            lines += errorLines(facts)
            return lines.joined(separator: "\n")
        }
        lines += nowLines(facts)
        lines += rainSoonLine(facts)
        lines += airLines(facts)
        lines += staleLines(facts)
        lines += hourLines(facts)
        lines += dayLines(facts)
        if !report.errors.isEmpty { lines += [""] + errorLines(facts) }
        lines += creditLines(facts)
        return lines.joined(separator: "\n")
    }

    /// The place's name in bold, then the rest of its line (region, country, source).
    private static func placeHeading(_ facts: ReportFacts) -> [String] {
        guard let place = facts.report.place else { return [] }
        var head = "<b>" + Escape.pango(place.name) + "</b>"
        if let rest = facts.placeLine?.dropFirst(place.name.count), !rest.isEmpty {
            head += Escape.pango(String(rest))
        }
        return [head]
    }

    /// The condition and temperature, then the details (feels like, humidity, wind) as a sentence.
    private static func nowLines(_ facts: ReportFacts) -> [String] {
        let phrases = facts.phrases
        let translation = phrases.translation
        var lines: [String] = []
        var now: [String] = []
        if let condition = facts.condition {
            now.append([facts.glyph, facts.conditionName(condition)].compactMap { $0 }.joined(separator: " "))
        }
        if let t = facts.temperature { now.append(facts.number(t, places: 1) + facts.units.temperature) }
        if !now.isEmpty { lines.append(Escape.pango(phrases.list(now))) }

        var details: [String] = []
        if let feels = facts.feelsText { details.append(translation.text("feels like {temperature}", context: nil, ["temperature": feels])) }
        if let humidity = facts.humidity {
            details.append(translation.text("humidity {percent} %", context: nil, ["percent": facts.number(humidity, places: 0)]))
        }
        if let wind = facts.windPhrase { details.append(wind) }
        if !details.isEmpty {
            let text = phrases.list(details)
            lines.append(Escape.pango(text.prefix(1).uppercased() + text.dropFirst()))
        }
        return lines
    }

    private static func rainSoonLine(_ facts: ReportFacts) -> [String] {
        guard let nowcast = facts.nowcast, let text = facts.nowcastText else { return [] }
        return [Escape.pango(facts.icons.glyph(forIcon: nowcast.kind, isDay: facts.isDay) + " " + text)]
    }

    /// In grey, when the forecast is stale: from when, and (unless the text stays on show) how long ago.
    private static func staleLines(_ facts: ReportFacts) -> [String] {
        guard facts.report.stale else { return [] }
        let phrases = facts.phrases
        var stale =
            facts.fetchedClock.map { phrases.translation.text("Stale: forecast from {time}", context: nil, ["time": $0]) }
            ?? phrases.translation.text("Stale: forecast from an earlier fetch")
        if let age = facts.ageSeconds, !facts.options.lasting {
            stale += " (" + phrases.durationAgo(phrases.duration(age)) + ")"
        }
        return ([stale] + [facts.absenceSentence].compactMap { $0 }).map {
            "<span color=\"\(BarColor.stale)\">" + Escape.pango($0) + "</span>"
        }
    }

    /// Every third hour of the next 24, so the tooltip stays short; after a blank line.
    private static func hourLines(_ facts: ReportFacts) -> [String] {
        let units = facts.units
        let hours = facts.report.hourly.enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        guard !hours.isEmpty else { return [] }
        return [""]
            + hours.map { hour in
                var cells = [Format.localClock(hour.time, units.timeFormat) ?? hour.time]
                cells.append(facts.icons.glyph(for: hour.condition, isDay: hour.isDay) ?? " ")
                cells.append(pad(hour.temperature.map { facts.number($0, places: 0) + units.temperature } ?? "–", 5))
                if let p = hour.precipitationProbability { cells.append(facts.number(p, places: 0) + " %") }
                return "<tt>" + Escape.pango(trimmed(cells.joined(separator: "  "))) + "</tt>"
            }
    }

    /// The days, after a blank line.
    private static func dayLines(_ facts: ReportFacts) -> [String] {
        let units = facts.units
        guard !facts.report.daily.isEmpty else { return [] }
        return [""]
            + facts.report.daily.map { day in
                var cells = [pad(facts.phrases.shortDate(day.date), 6)]
                cells.append(facts.icons.glyph(for: day.condition, isDay: true) ?? " ")
                let low = day.temperatureMin.map { facts.number($0, places: 0) } ?? "–"
                let high = day.temperatureMax.map { facts.number($0, places: 0) } ?? "–"
                cells.append(pad("\(low) / \(high)\(units.temperature)", 11))
                if let p = day.precipitationProbability { cells.append(facts.number(p, places: 0) + " %") }
                return "<tt>" + Escape.pango(trimmed(cells.joined(separator: "  "))) + "</tt>"
            }
    }

    private static func errorLines(_ facts: ReportFacts) -> [String] {
        facts.report.errors.map { "⚠ " + Escape.pango($0.text(phrases: facts.phrases)) }
    }

    /// The forecast's and the air's credit, small.
    private static func creditLines(_ facts: ReportFacts) -> [String] {
        [facts.report.provider?.attribution, facts.air?.attribution].compactMap { $0 }.map {
            "<small>" + Escape.pango($0) + "</small>"
        }
    }

    /// One line per warning in force, in its colour: `⚠ <b>Frost</b> (minor), until 08:00`; then, in grey,
    /// those whose area is not confirmed (`…, area not confirmed`), how many more are in force than listed, and
    /// that they may be out of date when their source has been failing.
    private static func warningLines(_ facts: ReportFacts) -> [String] {
        func grey(_ text: String) -> String { "<span color=\"\(BarColor.stale)\">" + text + "</span>" }
        func line(_ warning: WeatherWarning) -> String {
            // The event in bold, when the phrase starts with it (a translation may not).
            let title = Escape.pango(facts.warningTitle(warning))
            let event = Escape.pango(facts.event(warning))
            var line = "⚠ " + (title.hasPrefix(event) ? "<b>" + event + "</b>" + title.dropFirst(event.count) : title)
            if let times = facts.warningTimes(warning) { line += Escape.pango(facts.phrases.list(["", times])) }
            return line
        }
        let confirmed = facts.warnings.map { warning in
            guard let color = BarColor.warning(warning.severity) else { return line(warning) }
            return "<span color=\"\(color)\">" + line(warning) + "</span>"
        }
        let unconfirmed = facts.unconfirmedWarnings.map { warning in
            grey(line(warning) + Escape.pango(facts.phrases.list(["", facts.phrases.areaNotConfirmed])))
        }
        let more = facts.omittedWarnings > 0 ? [grey(Escape.pango(facts.phrases.moreWarnings(facts.omittedWarnings)))] : []
        return confirmed + unconfirmed + more + [facts.warningsStaleNote.map { grey(Escape.pango($0)) }].compactMap { $0 }
    }

    /// The air when it is worse than good, and the pollen when there is any.
    private static func airLines(_ facts: ReportFacts) -> [String] {
        [facts.airLine, facts.pollenLine].compactMap { $0 }.map(Escape.pango)
    }

    // MARK: i3blocks, polybar, i3status-rust

    /// The colour a line bar shows, or nil for the bar's own: no data red, locating grey, then a
    /// moderate or worse warning in its colour, old data grey, errors red, poor air purple, then hot and
    /// cold.
    static func color(_ facts: ReportFacts) -> String? {
        let report = facts.report
        switch report.status {
        case .noLocation, .noForecast: return BarColor.error
        case .locating: return BarColor.stale
        case .ok: break
        }
        // A warning outranks grey: stale forecast data says nothing about the warnings' age.
        if let warning = facts.topWarning, let color = BarColor.warning(warning.severity) { return color }
        if report.stale { return BarColor.stale }
        if facts.hasErrors { return BarColor.error }
        if (facts.air?.level ?? 1) >= 4 { return BarColor.poorAir }
        if facts.isHot { return BarColor.hot }
        if facts.isCold { return BarColor.cold }
        return nil
    }

    private static func i3blocks(_ facts: ReportFacts) -> String {
        let short = Escape.oneLine(facts.compactBarText)
        var full = Escape.oneLine(facts.barText)
        if facts.report.status == .ok {
            let body = [facts.placeName, facts.glyph, facts.temperatureText].compactMap { $0 }.joined(separator: " ")
            full = Escape.oneLine((body.isEmpty ? facts.barText : body) + facts.staleSuffix + facts.extrasSuffix)
        } else if let place = facts.placeName {
            full = Escape.oneLine(place + " " + facts.stateText + facts.extrasSuffix)
        } else if !facts.extras.isEmpty {
            full = Escape.oneLine(facts.stateText + facts.extrasSuffix)
        }
        return [full, short, color(facts) ?? ""].joined(separator: "\n")
    }

    private static func polybar(_ facts: ReportFacts) -> String {
        let text = Escape.polybarEmoji(Escape.oneLine(facts.barText + facts.warningSuffix))
        guard let color = color(facts) else { return text }
        return "%{F" + color + "}" + text + "%{F-}"
    }

    /// i3status-rust's states: `Critical` when there is nothing to show or a severe or extreme warning is
    /// in force, `Warning` for a moderate or minor warning, old data, errors or poor air, `Info` while
    /// locating, when rain is coming, or beyond a temperature threshold, `Idle` otherwise.
    static func i3statusRustState(_ facts: ReportFacts) -> String {
        let report = facts.report
        let severity = facts.topWarning?.severity
        if let severity, severity >= .severe { return "Critical" }
        switch report.status {
        case .noLocation, .noForecast: return "Critical"
        case .locating: return severity == nil ? "Info" : "Warning"
        case .ok: break
        }
        if severity != nil || report.stale || facts.hasErrors || (facts.air?.level ?? 1) >= 4 { return "Warning" }
        if facts.rainSoon || facts.isHot || facts.isCold { return "Info" }
        return "Idle"
    }

    private static func i3statusRust(_ facts: ReportFacts) -> String {
        let text = Escape.oneLine(facts.barText)
        let short =
            facts.report.status == .ok
            ? Escape.oneLine(
                [facts.warningMark, (facts.temperatureText ?? facts.glyph ?? text) + facts.staleMark].compactMap { $0 }
                    .joined(separator: " ")) : text
        return "{\"icon\":\"\",\"state\":" + Escape.json(i3statusRustState(facts)) + ",\"text\":" + Escape.json(text)
            + ",\"short_text\":" + Escape.json(short) + "}"
    }

    // MARK: Text and templates

    /// `Bromsgrove ☁️ 11.8°C, feels 10°C, ↓8 ↑12`, with ` (stale 3 h)` when stale.
    private static func textLine(_ facts: ReportFacts) -> String {
        let report = facts.report
        guard report.status == .ok else {
            return [facts.placeName, facts.stateText].compactMap { $0 }.joined(separator: " ") + facts.extrasSuffix
        }
        var head = [facts.placeName, facts.glyph].compactMap { $0 }
        if let t = facts.temperature {
            head.append(facts.number(t, places: 1) + report.units.temperature)
        } else if let condition = facts.condition {
            head.append(facts.conditionName(condition))
        }
        var parts = [head.joined(separator: " ")]
        if let feels = facts.feelsText {
            parts.append(facts.phrases.translation.text("feels {temperature}", context: nil, ["temperature": feels]))
        }
        let range = [
            facts.today?.temperatureMin.map { "↓" + facts.number($0, places: 0) },
            facts.today?.temperatureMax.map { "↑" + facts.number($0, places: 0) },
        ].compactMap { $0 }
        if !range.isEmpty { parts.append(range.joined(separator: " ")) }
        return facts.phrases.list(parts.filter { !$0.isEmpty }) + facts.staleSuffix + facts.extrasSuffix
    }

    /// A template describes weather: without any (no location, locating, no forecast) the short state
    /// is shown instead, and a template that renders only blanks falls back to the bar text.
    private static func template(_ facts: ReportFacts) -> String {
        guard facts.report.status == .ok else { return facts.stateText }
        let text = (facts.options.template ?? Template.standard).render(facts)
        return text.allSatisfy(\.isWhitespace) ? facts.barText : text
    }

    static func trimmed(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let columns = TextWidth.columns(text)
        return columns >= width ? text : text + String(repeating: " ", count: width - columns)
    }
}
