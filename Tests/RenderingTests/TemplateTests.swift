import ForecastModel
import Foundation
import Rendering
import Testing

@Suite("Templates")
struct TemplateTests {
    /// Samara, stale: has feels-like, humidity, pressure, today's chance of rain, sunrise and sunset.
    let samara: Report
    /// Bromsgrove by day: wind from the WSW, no daily chance of rain (taken from the hours).
    let bromsgrove: Report

    init() throws {
        samara = try ReportFixtures.report("stale")
        bromsgrove = try ReportFixtures.report("day")
    }

    func render(_ text: String, _ report: Report? = nil, icons: IconSet? = nil) throws -> String {
        let report = report ?? samara
        return try Template(text).render(report, options: ReportFixtures.options(for: report, icons: icons))
    }

    @Test("every wttr.in code")
    func codes() throws {
        #expect(try render("%c") == "☁️")
        #expect(try render("%C") == "Overcast")
        #expect(try render("%t") == "19°C")
        #expect(try render("%f") == "19°C")
        #expect(try render("%w") == "←11 km/h")  // from the east, blowing west
        #expect(try render("%h") == "78%")
        #expect(try render("%o") == "30%")
        #expect(try render("%P") == "1017 hPa")
        #expect(try render("%l") == "Samara")
        #expect(try render("%S %s") == "06:11 18:49")
        #expect(try render("%T") == "12:00")
        #expect(try render("%Z") == "Europe/Samara")
        #expect(try render("[%u]") == "[]")  // no UV index in reports yet
        #expect(try render("[%p]") == "[]")  // Samara's response had no precipitation now
        #expect(try render("%w", bromsgrove) == "↗20 km/h")
        #expect(try render("%o", bromsgrove) == "33%")  // the wettest of today's remaining hours
        #expect(try render("%t", try ReportFixtures.report("imperial")) == "53°F")
    }

    @Test("every named placeholder")
    func placeholders() throws {
        let expected: [String: String] = [
            "temp": "19°C", "feels": "19°C", "place": "Samara", "admin1": "Samara Oblast", "country": "Russia",
            "condition": "Overcast", "icon": "☁️", "high": "20°C", "low": "13°C", "wind": "←11 km/h",
            "wind_dir": "E", "wind_name": "Light breeze", "humidity": "78%", "precip_prob": "30%", "pressure": "1017 hPa", "sunrise": "06:11",
            "sunset": "18:49", "time": "12:00", "timezone": "Europe/Samara", "updated_ago": "3 h", "source": "gpsd",
            "status": "ok", "stale": "*", "units": "metric", "precip": "", "uv": "",
            // Samara's report has no warnings, nowcast or air (AlertRenderingTests fills them).
            "warning": "", "warning_count": "", "warning_level": "", "rain_soon": "", "rain_soon_short": "",
            "air": "", "aqi": "", "aqi_category": "", "pm2_5": "", "pm10": "", "pollen": "", "uv_index": "",
        ]
        #expect(Set(expected.keys) == Set(Template.placeholderList))
        for (name, value) in expected {
            #expect(try render("{\(name)}") == value, "{\(name)}")
        }
        #expect(try render("{stale}", bromsgrove) == "")
        #expect(try render("{updated_ago}", bromsgrove) == "3 min")
        #expect(try render("{units}", try ReportFixtures.report("imperial")) == "imperial")
    }

    @Test("icons follow the options' set")
    func icons() throws {
        #expect(try render("%c", icons: .text) == "CLOUD")
        #expect(try render("{icon}", try ReportFixtures.report("night"), icons: .emojiSafe) == "🌙")
    }

    @Test("fallbacks replace absent values only")
    func fallbacks() throws {
        #expect(try render("{uv|n/a}") == "n/a")
        #expect(try render("{temp|n/a}") == "19°C")
        #expect(try render("{feels|?}", bromsgrove) == "?")  // Open-Meteo was not asked for it there
        #expect(try render("{sunrise|--:--}", bromsgrove) == "--:--")
        #expect(try render("{uv|}") == "")
        #expect(try render("{place|somewhere}", try ReportFixtures.report("no_location")) == "somewhere")
        #expect(try render("{temp|a|b}") == "19°C")  // everything after the first | is the fallback
        #expect(try render("{uv|a|b}") == "a|b")
    }

    @Test("literal percent and braces")
    func literals() throws {
        #expect(try render("%h%%") == "78%%")  // the humidity's own "%", then the literal one
        #expect(try render("100%% {{temp}} }}") == "100% {temp} }")
        #expect(try render("{{%t}}") == "{19°C}")
        #expect(try render("no codes at all") == "no codes at all")
        #expect(try render("") == "")
    }

    @Test("errors name the problem, its column and what is allowed")
    func errors() {
        func failure(_ text: String) -> TemplateError? {
            do {
                _ = try Template(text)
                return nil
            } catch {
                return error
            }
        }
        let unknownCode = failure("%t %x")
        #expect(unknownCode?.column == 4)
        #expect(unknownCode?.message.contains("unknown code \"%x\"") == true)
        #expect(unknownCode?.message.contains("%c %C %t %f %w %h %p %o %P %u %l %S %s %T %Z") == true)
        #expect(unknownCode?.description.hasPrefix("template column 4: ") == true)

        let unknownName = failure("ab {tmp}")
        #expect(unknownName?.column == 4)
        #expect(unknownName?.message.contains("unknown placeholder \"{tmp}\"") == true)
        #expect(unknownName?.message.contains("{temp}") == true)

        let fallbackName = failure("{nope|x}")
        #expect(fallbackName?.column == 1)
        #expect(fallbackName?.message.contains("\"{nope}\"") == true)

        let unclosed = failure("é {temp")
        #expect(unclosed?.column == 3)  // columns count characters, not bytes
        #expect(unclosed?.message.contains("never closed") == true)
        #expect(unclosed?.message.contains("{{") == true)

        let stray = failure("a } b")
        #expect(stray?.column == 3)
        #expect(stray?.message.contains("}}") == true)

        let trailing = failure("50%")
        #expect(trailing?.column == 3)
        #expect(trailing?.message.contains("%%") == true)

        #expect(failure("{}")?.message.contains("unknown placeholder \"{}\"") == true)
        #expect(failure("{ temp }")?.column == 1)
    }

    @Test("the template format uses the user's template, and states when there is no weather")
    func templateFormat() throws {
        let template = try Template("%l: %c %t{stale}")
        func render(_ name: String) throws -> String {
            let report = try ReportFixtures.report(name)
            return Renderer.render(
                report, as: .template, options: ReportFixtures.options(for: report, template: template))
        }
        #expect(try render("stale") == "Samara: ☁️ 19°C*")
        #expect(try render("no_location") == "📍? no location")
        #expect(try render("locating") == "📍 locating…")

        // A template that renders only blanks falls back to the bar text rather than an empty bar.
        let blank = try Template("{uv} ")
        let report = samara
        #expect(
            Renderer.render(report, as: .template, options: ReportFixtures.options(for: report, template: blank))
                == "☁️ 19°C*")
    }

    @Test("the examples in docs/formats.md")
    func documentedExamples() throws {
        #expect(try render("%l: %c %t{stale}") == "Samara: ☁️ 19°C*")
        #expect(try render("{icon} {temp} (feels {feels|?}) ↑{high} ↓{low}") == "☁️ 19°C (feels 19°C) ↑20°C ↓13°C")
        #expect(try render("%c %t %w %h, rain %o") == "☁️ 19°C ←11 km/h 78%, rain 30%")
        #expect(try render("☀ %S  🌙 %s") == "☀ 06:11  🌙 18:49")
        #expect(try render("UV {uv|n/a}, 100%% {{raw}}") == "UV n/a, 100% {raw}")
    }

    @Test("templates compare by their text")
    func equality() throws {
        #expect(try Template("%t") == Template("%t"))
        #expect(try Template("%t") != Template("{temp}"))
        #expect(Template.standard.text == "{icon} {temp}{stale} {place}")
    }
}
