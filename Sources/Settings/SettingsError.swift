/// Everything wrong with a settings file, all problems at once so one edit can fix them all.
///
/// Its description is one problem per line, each as
/// `PATH:LINE:COLUMN: key.path: problem (allowed: …)`, the format editors and compilers use.
public struct SettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, in the order they appear in the file.
    public var problems: [SettingsProblem]

    public init(problems: [SettingsProblem]) {
        self.problems = problems
    }

    public init(_ problem: SettingsProblem) {
        self.problems = [problem]
    }

    /// The most problems one error lists: enough for any file a person wrote, few enough that a file of
    /// a hundred thousand mistakes does not become a report of a hundred thousand errors.
    static let maximumProblems = 100

    /// The first ``maximumProblems`` of `problems`, in file order, then one saying how many more there are.
    init(problems: [SettingsProblem], path: String) {
        guard problems.count > Self.maximumProblems else {
            self.problems = problems
            return
        }
        let more = problems.count - Self.maximumProblems
        self.problems =
            Array(problems.prefix(Self.maximumProblems))
            + [SettingsProblem(path: path, message: "\(more) more problem\(more == 1 ? "" : "s") not shown")]
    }

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}

/// One thing wrong with a settings file: what, where, and what would be accepted.
public struct SettingsProblem: Sendable, Hashable, CustomStringConvertible {
    /// The settings file's path, as it was given.
    public var path: String
    /// The 1-based line, when the problem has a place in the file.
    public var line: Int?
    /// The 1-based column (in characters), when the problem has a place in the file.
    public var column: Int?
    /// The dotted key the problem is about (`location.pin.latitude`), or `nil` for the file as a whole.
    public var keyPath: String?
    /// What is wrong, e.g. `"kelvin" is not a unit system`.
    public var message: String
    /// What would be accepted, e.g. `"metric", "imperial"`; `nil` when there is no short answer.
    public var allowed: String?

    public init(
        path: String, line: Int? = nil, column: Int? = nil, keyPath: String? = nil, message: String,
        allowed: String? = nil
    ) {
        self.path = path
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.message = message
        self.allowed = allowed
    }

    /// `PATH:LINE:COLUMN: key.path: problem (allowed: …)`, leaving out the parts the problem lacks.
    public var description: String {
        var text = path
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if let keyPath { text += keyPath + ": " }
        text += message
        if let allowed { text += " (allowed: \(allowed))" }
        return text
    }
}
