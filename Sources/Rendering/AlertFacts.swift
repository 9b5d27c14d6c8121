import ForecastModel
import Foundation

// What the formats show of the report's warnings, nowcast and air: read once from the report, in the
// options' phrases, each nil (or empty) when the report does not have it.
extension ReportFacts {
    var phrases: Phrases { options.phrases }

    // MARK: Warnings

    /// Every warning in force at the render's moment, in the report's order (confirmed first, most severe
    /// first). A report read later from the status file may hold one that has ended since: it is not shown.
    var allWarnings: [WeatherWarning] { (report.warnings ?? []).filter { $0.isInForce(at: options.now) } }

    /// The warnings in force whose area is confirmed: the ones bars mark, colour and name.
    var warnings: [WeatherWarning] { allWarnings.filter(\.areaConfirmed) }

    /// Warnings in force for the country whose area could not be confirmed: listed in tooltips and tables only.
    var unconfirmedWarnings: [WeatherWarning] { allWarnings.filter { !$0.areaConfirmed } }

    /// How many more warnings are in force than the report lists (`warnings_omitted`).
    var omittedWarnings: Int { report.warningsOmitted ?? 0 }

    /// The warning a bar shows: the most severe, the earliest among equals.
    var topWarning: WeatherWarning? { warnings.first }

    /// `warning-minor` · `warning-moderate` · `warning-severe` · `warning-extreme`, for the top warning.
    var warningClass: String? { topWarning.map { "warning-" + $0.severity.rawValue } }

    /// The mark in front of a bar text when a warning is in force: `⚠` (nerd: U+F071, text: `!`).
    var warningMark: String? { topWarning == nil ? nil : icons.warningGlyph }

    /// `Frost`: a warning's event as a heading (the sources write some in lower case).
    func event(_ warning: WeatherWarning) -> String { warning.heading }

    /// `Frost (minor)`.
    func warningTitle(_ warning: WeatherWarning) -> String { warning.title(phrases: phrases) }

    /// `from Tue 00:00 until 08:00`, `until 21:00`: the onset when it is still ahead, and the expiry, in the
    /// location's local time; nil when the warning has neither.
    func warningTimes(_ warning: WeatherWarning) -> String? {
        warning.times(now: options.now, utcOffsetSeconds: utcOffsetSeconds, phrases: phrases)
    }

    /// `Frost (minor), from Tue 00:00 until 08:00`.
    func warningLine(_ warning: WeatherWarning) -> String {
        phrases.list([warningTitle(warning), warningTimes(warning)].compactMap { $0 })
    }

    /// The note under the warnings when they are the last good ones of a failing source; nil otherwise.
    var warningsStaleNote: String? {
        report.warningsStale == true && !allWarnings.isEmpty ? phrases.warningsStale : nil
    }

    /// `Frost (minor), +1 more`: the top warning and how many others are in force, for one-line texts.
    var warningName: String? {
        guard let top = topWarning else { return nil }
        let others = warnings.count - 1 + omittedWarnings
        return others > 0 ? phrases.list([warningTitle(top), phrases.moreWarnings(others)]) : warningTitle(top)
    }

    /// `⚠ Frost (minor), +1 more`: the warnings in one phrase for one-line texts.
    var warningsPhrase: String? { warningName.map { "⚠ " + $0 } }

    /// ` · Frost (minor), +1 more` after a bar text that starts with the mark already (polybar, tmux), or empty.
    var warningSuffix: String { warningName.map { " · " + $0 } ?? "" }

    /// `08:00` on the day of the render's moment, `Tue 08:00` on another, in the location's local time
    /// (`08:00 UTC` when the report carries no local time).
    func localTime(_ date: Date) -> String {
        phrases.localTime(date, now: options.now, utcOffsetSeconds: utcOffsetSeconds)
    }

    // MARK: Rain soon

    /// The report's nowcast, unless it contradicts the current condition shown beside it: a start while the
    /// condition says it falls, or a stop while it says it is dry (both only when the current conditions
    /// are older than the judgement could use). The model never gives such a pair from fresh data.
    var nowcast: ReportNowcast? {
        guard let nowcast = report.nowcast else { return nil }
        guard let code = report.current?.condition?.code, let kind = ConditionKind(rawValue: code) else {
            return nowcast
        }
        let wet = kind.precipitationKind != nil
        return wet == nowcast.rainingNow ? nowcast : nil
    }

    /// The nowcast's sentence in the options' language: `Rain in 20 min (moderate), until about 14:30`.
    var nowcastText: String? {
        nowcast?.text(phrases: phrases, now: Timestamps.parseUTC(report.updatedAt) ?? options.now)
    }

    /// Whether rain (snow, sleet) starts within the nowcast's horizon while it is dry now: class `rain-soon`.
    var rainSoon: Bool { nowcast.map { !$0.rainingNow } ?? false }

    /// `🌧️ in 10 min`, `🌧️ stops in 15 min`: the nowcast for a bar text, in the report's minutes (the
    /// same as its sentence's); nil without a nowcast, or while it falls past the end of the data.
    var rainShort: String? {
        guard let nowcast else { return nil }
        let now = Timestamps.parseUTC(report.updatedAt) ?? options.now
        let target = nowcast.rainingNow ? nowcast.stopsAt : nowcast.startsAt
        guard let date = target.flatMap(Timestamps.parseUTC) else { return nil }
        let minutes = Phrases.roundedMinutes(date.timeIntervalSince(now) / 60)
        let words = nowcast.rainingNow ? phrases.soonStops(minutes) : phrases.soonStarts(minutes)
        return icons.glyph(forIcon: nowcast.kind, isDay: isDay) + " " + words
    }

    // MARK: The air

    var air: ReportAir? { report.air }

    /// Whether the air is worse than good: only then do texts mention it.
    var airWorthMentioning: Bool { (air?.level ?? 1) > 1 }

    /// `Air quality fair (European AQI 33, mostly PM10)` when the air is worse than good.
    var airLine: String? {
        guard airWorthMentioning, let air else { return nil }
        let text = air.text(phrases: phrases)
        return air.stale == true ? text + " " + phrases.airStale : text
    }

    /// The plants with at least 1 grain/m³, most first, rounded: `[("birch", 45), ("grass", 12)]`.
    var pollenCounts: [(name: String, grains: Int)] {
        guard let pollen = air?.pollen else { return [] }
        let plants: [(String, Double?)] = [
            ("alder", pollen.alder), ("birch", pollen.birch), ("grass", pollen.grass), ("mugwort", pollen.mugwort),
            ("olive", pollen.olive), ("ragweed", pollen.ragweed),
        ]
        return
            plants
            .compactMap { name, value in value.map { (name: name, grains: Int($0.rounded())) } }
            .filter { $0.grains >= 1 }
            .sorted { $0.grains > $1.grains }
            .map { (name: phrases.plant($0.name), grains: $0.grains) }
    }

    /// `Pollen: birch 45, grass 12 grains/m³`, when any plant has at least 1 grain/m³.
    var pollenLine: String? { pollenCounts.isEmpty ? nil : phrases.pollen(pollenCounts) }

    /// The UV index now: the air quality reading's, else the forecast's current one.
    var uvIndex: Double? { air?.uvIndex ?? report.current?.uvIndex }

    // MARK: Together

    /// What one-line texts add after the weather: `⚠ Frost (minor)`, the nowcast's sentence, the air when
    /// it is worse than good.
    var extras: [String] { [warningsPhrase, nowcastText, airLine].compactMap { $0 } }

    /// ` · ⚠ Frost (minor) · Rain in 10 min (moderate), until about 11:30`, or empty.
    var extrasSuffix: String { extras.map { " · " + $0 }.joined() }
}

extension IconSet {
    /// The mark of a warning in force. `⚠` without U+FE0F: one cell for tmux, `wcwidth()` and terminals
    /// alike (with U+FE0F terminals draw two while tmux counts one).
    public var warningGlyph: String {
        switch self {
        case .emoji, .emojiSafe: "⚠"
        case .nerd: "\u{F071}"  // nf-fa-warning
        case .text: "!"
        }
    }
}
