import ForecastModel
import Localization
import Foundation

// `[output]` with its `[[output.files]]`, `[display]` and `[history]`: the values, each field's
// initial value being its key's default, and the keys' rows.

extension Settings {
    /// `[output]`: absolute paths, already resolved against the environment.
    public struct Output: Sendable, Hashable {
        /// `status_file`: the report, rewritten atomically after every change.
        public var statusFile: String
        /// `socket`: the Unix socket `forecastctl` talks to.
        public var socket: String
        /// `socket_group`: for a system service, the group allowed to read the socket (mode 0660);
        /// `nil` when the key is `""`: the owner only (0600).
        public var socketGroup: String?
        /// `max_clients`: socket clients served at once; more are refused with a message.
        public var maxClients = 64
        /// `[[output.files]]`: extra status files in bars' formats, in the order the file lists them.
        public var files: [StatusFile] = []
    }

    /// One `[[output.files]]` table: a file rewritten atomically on every change, in one format.
    public struct StatusFile: Sendable, Hashable {
        /// `path`: absolute; no two status files share one.
        public var path: String
        /// `format`.
        public var format: OutputFormat
        /// `template`: for ``OutputFormat/template``, where it must not be empty; e.g. `"%c %t"`.
        public var template = ""
        /// `icons`.
        public var icons: IconSet = .emoji
    }

    /// `[display]`: how reports look in bars and in `forecastctl`.
    public struct Display: Sendable, Hashable {
        /// `icons`: the icon set of the socket's formats and of `forecastctl`.
        public var icons: IconSet
        /// `hot_celsius`: at or above this temperature a bar gets the class `hot`.
        public var hotCelsius: Double
        /// `cold_celsius`: at or below this temperature a bar gets the class `cold`; below ``hotCelsius``.
        public var coldCelsius: Double
        /// `language`: the words of bars, tooltips, notifications and forecastctl; `auto` follows the locale.
        public var language: LanguageChoice

        /// The defaults, or the values given.
        public init(icons: IconSet = .emoji, hotCelsius: Double = 30, coldCelsius: Double = 0, language: LanguageChoice = .auto) {
            self.icons = icons
            self.hotCelsius = hotCelsius
            self.coldCelsius = coldCelsius
            self.language = language
        }
    }

    /// `[history]`: the database of favourite cities' readings.
    public struct History: Sendable, Hashable {
        /// `retention_days`: readings and forecasts older than this many days are deleted.
        public var retentionDays = 365

        /// `<state directory>/history.sqlite`, the database the daemon writes and `forecastctl history` reads.
        public static func databasePath(stateDirectory: String) -> String {
            Settings.join(stateDirectory, "history.sqlite")
        }
    }

    /// The history database's path under ``stateDirectory``.
    public var historyDatabasePath: String { History.databasePath(stateDirectory: stateDirectory) }

    // The status file and the socket are opened once, at start; the extra status files follow reloads.
    static let outputTable = SettingsTable.Table(
        ["output"], \Settings.output,
        documentation: """
            Where the daemon publishes. Both paths must be absolute; their defaults depend on how it runs:
              as a user:            $XDG_RUNTIME_DIR/forecastd/, or /tmp/forecastd-UID/ without it
              as a system service:  /run/forecastd/
            """,
        [
            .key(
                "status_file", \.statusFile, .absolutePath, .restart, documented: .environment,
                "The latest report as JSON, replaced whole after every change."),
            .key(
                "socket", \.socket, .socketPath, .restart, documented: .environment,
                "The Unix socket forecastctl talks to (at most 107 bytes long)."),
            .key(
                "socket_group", \.socketGroup, .groupName.emptyMeansNone, .restart,
                """
                For a system service: the group allowed to read the socket, which then gets mode 0660.
                "" keeps it to the owner (mode 0600).
                """),
            .key(
                "max_clients", \.maxClients, .integer(1...10_000), .restart,
                "How many socket clients are served at once ({allowed}); more are refused with a message."),
        ])

    static let statusFilesTable = SettingsTable.Table(
        array: ["output", "files"], \Settings.output.files, .live,
        documentation: """
            Extra status files, each in a bar's format, replaced whole after every change: add one
            [[output.files]] table per file. The format is one of these:
              {allowed:format};
            a template uses wttr.in's codes or named placeholders, e.g. "%c %t" or "{icon} {temp}". Icons
            are {allowed:icons} ("emoji-safe" suits tmux). There are none by default.
            """,
        [
            .example(
                "path", \.path, .absolutePath, .string("/run/user/1000/forecastd/waybar.json")),
            .example("format", \.format, .choice(OutputFormat.self, noun: "an output format"), .string("waybar")),
            .example("template", \.template, .string(), .string("")),
            .example("icons", \.icons, .choice(IconSet.self, noun: "an icon set"), .string("emoji")),
        ])

    // Read for every report rendered, so edits apply at once.
    static let displayTable = SettingsTable.Table(
        ["display"], \Settings.display,
        [
            .key(
                "icons", \.icons, .choice(IconSet.self, noun: "an icon set"), .live,
                """
                The icons of the socket's formats (so of forecastctl status and watch) when a request
                names none: {allowed}.
                With "emoji", tmux keeps its own "emoji-safe".
                """),
            .key(
                "hot_celsius", \.hotCelsius, .number(-100...100), .live,
                "Bars get the class \"hot\" at or above this temperature, in °C ({allowed})."),
            .key(
                "cold_celsius", \.coldCelsius, .number(-100...100), .live,
                "And the class \"cold\" at or below this one, in °C ({allowed}); it must be below hot_celsius."),
            .key(
                "language", \.language, .language, .live,
                """
                The language of bars, tooltips, notifications and forecastctl:
                {allowed}.
                "auto" follows the locale (LC_ALL, LC_MESSAGES, LANG, then LANGUAGE), and is English when
                it names a language without a catalogue. The JSON report is the same in every language.
                """),
        ])

    static let historyTable = SettingsTable.Table(
        ["history"], \Settings.history,
        [
            .key(
                "retention_days", \.retentionDays, .integer(1...36_500), .live,
                """
                How many days forecastd keeps the readings and forecasts of favourite cities ({allowed});
                older ones are deleted. They are kept in history.sqlite in the state directory:
                $XDG_STATE_HOME/forecastd (~/.local/state/forecastd when unset), or /var/lib/forecastd for a
                system service. `forecastctl history NAME` shows them.
                """)
        ])
}
