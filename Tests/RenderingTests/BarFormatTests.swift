import ForecastModel
import Foundation
import Rendering
import Testing

@Suite("Bar formats")
struct BarFormatTests {
    static let reports = ReportFixtures.names

    func render(_ name: String, _ format: OutputFormat, icons: IconSet? = nil) throws -> String {
        let report = try ReportFixtures.report(name)
        return Renderer.render(report, as: format, options: ReportFixtures.options(for: report, icons: icons))
    }

    func waybarObject(_ text: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("no format is ever blank, in any icon set", arguments: reports)
    func neverBlank(_ name: String) throws {
        for format in OutputFormat.allCases {
            for icons in IconSet.allCases {
                let output = try render(name, format, icons: icons)
                let firstLine = output.split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
                let blank = firstLine.allSatisfy { $0.isWhitespace }
                #expect(!blank, "\(name) as \(format.rawValue) is blank")
                // i3blocks' third line (the colour) is empty when the bar's own colour should be used.
                #expect(format == .i3blocks || !output.hasSuffix("\n"))
                #expect(output.split(separator: "\n", omittingEmptySubsequences: false).count == format.lineCount)
            }
        }
    }

    @Test("Waybar output is one JSON object with text, alt, tooltip and class", arguments: reports)
    func waybarShape(_ name: String) throws {
        let line = try render(name, .waybar)
        #expect(!line.contains("\n"))
        let object = try waybarObject(line)
        #expect(Set(object.keys) == ["text", "alt", "tooltip", "class"])
        let text = try #require(object["text"] as? String)
        #expect(!text.isEmpty)
        let classes = try #require(object["class"] as? [String])
        #expect(!classes.isEmpty)
        let tooltip = try #require(object["tooltip"] as? String)
        try expectValidPango(tooltip)
    }

    @Test("Waybar classes follow the report: condition, day/night, stale, error, status")
    func waybarClasses() throws {
        #expect(try waybarObject(render("day", .waybar))["class"] as? [String] == ["overcast", "day"])
        #expect(try waybarObject(render("night", .waybar))["class"] as? [String] == ["clear", "night"])
        #expect(try waybarObject(render("night", .waybar))["alt"] as? String == "clear-night")
        #expect(
            try waybarObject(render("stale", .waybar))["class"] as? [String] == ["overcast", "day", "stale", "error"])
        #expect(try waybarObject(render("no_location", .waybar))["class"] as? [String] == ["no_location", "error"])
        #expect(try waybarObject(render("locating", .waybar))["class"] as? [String] == ["locating"])
        #expect(try waybarObject(render("error", .waybar))["alt"] as? String == "no_forecast")
    }

    @Test("hot and cold use °C thresholds, also for a report in °F")
    func thresholds() throws {
        for name in ["day", "imperial"] {  // 11.8 °C = 53.3 °F
            let report = try ReportFixtures.report(name)
            func classes(hot: Double, cold: Double) throws -> [String] {
                let options = RenderOptions(hotCelsius: hot, coldCelsius: cold, now: ReportFixtures.now(of: report))
                let object = try waybarObject(Renderer.render(report, as: .waybar, options: options))
                return object["class"] as? [String] ?? []
            }
            #expect(try classes(hot: 11.5, cold: 0).contains("hot"), "\(name)")
            #expect(try !classes(hot: 12, cold: 0).contains("hot"), "\(name)")
            #expect(try classes(hot: 30, cold: 12).contains("cold"), "\(name)")
            #expect(try !classes(hot: 30, cold: 11.5).contains("cold"), "\(name)")

            let hot = RenderOptions(hotCelsius: 10, now: ReportFixtures.now(of: report))
            #expect(Renderer.render(report, as: .i3blocks, options: hot).hasSuffix("\n" + BarColor.hot))
            #expect(Renderer.render(report, as: .polybar, options: hot).hasPrefix("%{F\(BarColor.hot)}"))
        }
    }

    @Test("tooltips escape Pango markup in place names and error messages")
    func pangoEscaping() throws {
        var report = try ReportFixtures.report("stale")
        report.place?.name = "Bar & <Grill>"
        report.errors[0].message = "HTTP 502: <html> & more"
        let object = try waybarObject(
            Renderer.render(report, as: .waybar, options: ReportFixtures.options(for: report)))
        let tooltip = try #require(object["tooltip"] as? String)
        #expect(tooltip.contains("<b>Bar &amp; &lt;Grill&gt;</b>"))
        #expect(tooltip.contains("HTTP 502: &lt;html&gt; &amp; more"))
        try expectValidPango(tooltip)
    }

    @Test("the tooltip lists every third hour and every day")
    func tooltipContent() throws {
        let tooltip = try #require(try waybarObject(render("day", .waybar))["tooltip"] as? String)
        for hour in ["13:00", "16:00", "19:00", "22:00", "01:00", "04:00", "07:00", "10:00"] {
            #expect(tooltip.contains("<tt>\(hour) "), "\(hour)")
        }
        #expect(!tooltip.contains("<tt>14:00"))
        for day in ["Mon 23", "Tue 24", "Wed 25", "Thu 26", "Fri 27", "Sat 28", "Sun 01"] {
            #expect(tooltip.contains("<tt>\(day) "), "\(day)")
        }
        let stale = try #require(try waybarObject(render("stale", .waybar))["tooltip"] as? String)
        #expect(stale.contains("Stale: forecast from 12:02 (3 h ago)"))
        #expect(stale.contains("⚠ open-meteo: no answer within 15 s"))
    }

    @Test("i3blocks gives full_text, short_text and color; grey when stale, red without data")
    func i3blocks() throws {
        let stale = try render("stale", .i3blocks).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(stale == ["Samara ☁️ 19°C (stale 3 h)", "☁️ 19°C*", Substring(BarColor.stale)])
        let day = try render("day", .i3blocks).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(day == ["Bromsgrove ☁️ 12°C", "☁️ 12°C", ""])
        #expect(try render("no_location", .i3blocks).hasSuffix("\n" + BarColor.error))
    }

    @Test("i3status-rust states: Idle, Warning when stale, Critical without data, Info while locating")
    func i3statusRust() throws {
        func state(_ name: String) throws -> String? {
            let object = try #require(
                JSONSerialization.jsonObject(with: Data(try render(name, .i3statusRust).utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["icon", "state", "text", "short_text"])
            return object["state"] as? String
        }
        #expect(try state("day") == "Idle")
        #expect(try state("stale") == "Warning")
        #expect(try state("no_location") == "Critical")
        #expect(try state("error") == "Critical")
        #expect(try state("locating") == "Info")
    }

    @Test("tmux uses width-safe icons by default and escapes #")
    func tmux() throws {
        for name in Self.reports {
            let line = try render(name, .tmux)
            #expect(!line.unicodeScalars.contains("\u{FE0F}"), "\(name): \(line)")
        }
        #expect(try render("day", .tmux) == "💭 12°C")
        #expect(try render("night", .tmux) == "🌙 9°C")
        #expect(try render("day", .tmux, icons: .emoji) == "☁️ 12°C")

        var report = try ReportFixtures.report("day")
        report.units.temperature = "#C"
        #expect(Renderer.render(report, as: .tmux, options: ReportFixtures.options(for: report)) == "💭 12##C")
    }

    @Test("stale data is shown with a marker, never hidden")
    func staleIsShown() throws {
        #expect(try render("stale", .waybar).contains("\"text\":\"☁️ 19°C*\""))
        #expect(try render("stale", .text) == "Samara ☁️ 18.5°C, feels 19°C, ↓13 ↑20 (stale 3 h)")
        #expect(try render("stale", .polybar) == "%{F\(BarColor.stale)}%{T2}☁️%{T-} 19°C*%{F-}")
        #expect(try render("stale", .tmux) == "💭 19°C*")
    }

    @Test("states without weather are short words, per icon set")
    func states() throws {
        #expect(try render("no_location", .text) == "📍? no location")
        #expect(try render("no_location", .text, icons: .text) == "no location")
        #expect(try render("locating", .tmux) == "📍 locating…")
        #expect(try render("error", .text) == "Saint-Ouen ⏳ no forecast yet")
        #expect(try render("error", .polybar, icons: .text) == "%{F\(BarColor.error)}no forecast yet%{F-}")
    }

    @Test("json is the report line as published")
    func json() throws {
        let report = try ReportFixtures.report("day")
        let line = Renderer.render(report, as: .json, options: ReportFixtures.options(for: report))
        #expect(line == ReportJSON.line(report))
        #expect(try ReportJSON.decode(line) == report)
    }

    @Test("format names are the ones users write")
    func formatNames() {
        #expect(
            OutputFormat.allCases.map(\.rawValue) == [
                "json", "waybar", "i3blocks", "polybar", "i3status-rust", "tmux", "text", "template",
            ])
        #expect(OutputFormat.tmux.defaultIcons == .emojiSafe)
        #expect(OutputFormat.waybar.defaultIcons == .emoji)
    }

    /// Pango accepts only its tags and entities: every `&` starts an entity and every `<` a known tag,
    /// and tags nest properly.
    func expectValidPango(_ markup: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let allowedTags: Set<String> = ["b", "i", "tt", "small", "span", "big", "u", "s", "sub", "sup"]
        var stack: [String] = []
        var index = markup.startIndex
        while index < markup.endIndex {
            let character = markup[index]
            if character == "&" {
                let rest = markup[index...]
                let ok = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains { rest.hasPrefix($0) }
                #expect(ok, "a bare & in the tooltip", sourceLocation: sourceLocation)
            } else if character == "<" {
                let close = try #require(markup[index...].firstIndex(of: ">"), sourceLocation: sourceLocation)
                var tag = String(markup[markup.index(after: index)..<close])
                if tag.hasPrefix("/") {
                    tag.removeFirst()
                    #expect(stack.popLast() == tag, "</\(tag)> closes nothing", sourceLocation: sourceLocation)
                } else {
                    let name = String(tag.prefix { $0 != " " })
                    #expect(allowedTags.contains(name), "<\(name)> is not Pango", sourceLocation: sourceLocation)
                    stack.append(name)
                }
                index = close
            } else if character == ">" {
                Issue.record("a bare > in the tooltip", sourceLocation: sourceLocation)
            }
            index = markup.index(after: index)
        }
        #expect(stack.isEmpty, "unclosed tags \(stack)", sourceLocation: sourceLocation)
    }
}
