import ForecastModel
import Rendering
import Testing

@Suite("Icon sets")
struct IconSetTests {
    /// Every icon name the model can put in a report, day and night.
    static let modelIcons: [String] = ConditionKind.allCases.flatMap { kind in
        [kind.condition(isDay: true).icon, kind.condition(isDay: false).icon]
    }

    /// Glyphs that draw a sun, per set, written out here so that a table change cannot hide one.
    static let sunGlyphs: [IconSet: [String]] = [
        .emoji: ["☀️", "☀", "🌤️", "🌤", "⛅", "🌥️", "🌥", "🌦️", "🌦", "🌞", "🌅", "🌄"],
        .emojiSafe: ["☀️", "☀", "🌤️", "🌤", "⛅", "🌥️", "🌥", "🌦️", "🌦", "🌞", "🌅", "🌄"],
        // nf-weather-day_* (U+E300–U+E30F), nf-weather-hot (U+E36B), sunrise/sunset (U+E34C, U+E34D).
        .nerd: (0xE300...0xE30F).map { String(UnicodeScalar($0)!) } + ["\u{E36B}", "\u{E34C}", "\u{E34D}"],
        .text: ["SUN"],
    ]

    @Test("every icon name the model emits has a glyph in every set", arguments: IconSet.allCases)
    func complete(_ set: IconSet) {
        for name in Self.modelIcons {
            #expect(set.glyph(forIcon: name) != set.unknownGlyph, "\(set.rawValue) has no glyph for \(name)")
            #expect(IconSet.iconNames.contains(name), "\(name) is missing from IconSet.iconNames")
        }
        #expect(set.glyph(forIcon: "no-such-icon") == set.unknownGlyph)
        #expect(!set.unknownGlyph.isEmpty)
    }

    @Test("night never shows a sun", arguments: IconSet.allCases)
    func nightHasNoSun(_ set: IconSet) {
        let suns = Self.sunGlyphs[set] ?? []
        for name in Self.modelIcons + IconSet.iconNames {
            let night = set.glyph(forIcon: name, isDay: false)
            #expect(!suns.contains { night.contains($0) }, "\(set.rawValue): \(name) at night shows \(night)")
            if name.hasSuffix("-night") {
                let plain = set.glyph(forIcon: name)
                #expect(!suns.contains { plain.contains($0) }, "\(set.rawValue): \(name) shows \(plain)")
            }
        }
        // The sky icons do change between day and night.
        #expect(set.glyph(forIcon: "clear-day") != set.glyph(forIcon: "clear-night"))
        #expect(set.glyph(forIcon: "clear-day", isDay: false) == set.glyph(forIcon: "clear-night"))
    }

    @Test("emoji-safe glyphs are one Wide code point with emoji presentation and no U+FE0F")
    func emojiSafeWidth() {
        for name in IconSet.iconNames + ["no-such-icon"] {
            let glyph = IconSet.emojiSafe.glyph(forIcon: name)
            let scalars = Array(glyph.unicodeScalars)
            #expect(scalars.count == 1, "\(name): \(glyph) is \(scalars.count) code points")
            #expect(scalars.allSatisfy { $0.properties.isEmojiPresentation }, "\(name): \(glyph)")
            #expect(!glyph.unicodeScalars.contains("\u{FE0F}"))
        }
    }

    @Test("the emoji set is the model's emoji by day")
    func emojiMatchesModel() {
        for kind in ConditionKind.allCases {
            let condition = kind.condition(isDay: true)
            #expect(IconSet.emoji.glyph(forIcon: condition.icon, isDay: true) == condition.emoji, "\(kind)")
        }
        #expect(IconSet.emoji.glyph(forIcon: "drizzle", isDay: true) == "🌦️")
        #expect(IconSet.emoji.glyph(forIcon: "drizzle", isDay: false) == "🌧️")
    }

    @Test("Nerd glyphs are single code points of the Weather Icons block; text glyphs are short ASCII")
    func nerdAndText() {
        for name in IconSet.iconNames {
            let nerd = Array(IconSet.nerd.glyph(forIcon: name).unicodeScalars)
            #expect(nerd.count == 1 && (0xE300...0xE3E3).contains(nerd[0].value), "\(name)")
            let text = IconSet.text.glyph(forIcon: name)
            #expect(text.allSatisfy { $0.isASCII && $0.isUppercase } && text.count <= 8, "\(name): \(text)")
        }
        #expect(IconSet.nerd.glyph(forIcon: "clear-day") == "\u{E30D}")  // nf-weather-day_sunny
        #expect(IconSet.nerd.glyph(forIcon: "clear-night") == "\u{E32B}")  // nf-weather-night_clear
        #expect(IconSet.text.glyph(forIcon: "rain-showers") == "RAIN")
    }

    @Test("icon sets are chosen by name as users write them")
    func names() {
        #expect(IconSet(rawValue: "emoji-safe") == .emojiSafe)
        #expect(IconSet.allCases.map(\.rawValue) == ["emoji", "emoji-safe", "nerd", "text"])
    }
}
