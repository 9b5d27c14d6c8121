import FileStore

/// One message of a gettext `.po` file: its context, its English text, and its translations.
public struct POEntry: Sendable, Hashable {
    /// `msgctxt`, nil when the entry has none.
    public var context: String?
    /// `msgid`: the English text, the key.
    public var msgid: String
    /// `msgid_plural`: the English plural, for entries with plural forms.
    public var msgidPlural: String?
    /// `msgstr`, or `msgstr[0]`, `msgstr[1]` … in order.
    public var msgstr: [String]
    /// Marked `#, fuzzy`: a guess msgmerge made, not a translation; never used at run time.
    public var isFuzzy: Bool
    /// The `#.` comments (for translators), joined by newlines.
    public var extractedComment: String
    /// The line of the file where the entry starts, counting from 1.
    public var line: Int

    /// The key a catalogue looks the entry up by: gettext's `context EOT msgid`.
    public var key: String { POEntry.key(context: context, msgid: msgid) }

    static func key(context: String?, msgid: String) -> String {
        context.map { $0 + "\u{4}" + msgid } ?? msgid
    }
}

/// A `.po` file that cannot be read: where, and what is wrong.
public struct POError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line, counting from 1.
    public var line: Int
    public var message: String

    public var description: String { "line \(line): \(message)" }
}

/// Reads gettext's `.po` format (the GNU gettext manual, "The Format of PO Files"): comments, `msgctxt`,
/// `msgid`, `msgid_plural`, `msgstr[N]`, strings continued over several lines, C escapes; obsolete
/// entries (`#~`) are skipped.
///
/// A catalogue is outside input (anyone may drop one in `$FORECASTD_LOCALEDIR` or the installed `po/`), so
/// what one may hold is bounded, each limit far above what a real catalogue needs: the shipped ones are
/// 60 KB with about 280 entries, their longest text 449 bytes (a header) and at most 3 plural forms.
public enum POFile {
    /// The largest catalogue read, in bytes of UTF-8: 16 times the largest shipped one.
    public static let maximumFileBytes = 1 << 20
    /// The most entries a catalogue may have: the template has about 280.
    public static let maximumEntries = 5_000
    /// The longest text one string may hold once its continuation lines are joined (a `msgctxt`, a `msgid`,
    /// a `msgid_plural`, a `msgstr`): a bar's or a tooltip's text, or a header, is a few hundred bytes.
    public static let maximumStringBytes = 4 << 10
    /// The most plural forms an entry may have (`msgstr[0]` … `msgstr[5]`), as the most any language has.
    public static let maximumPluralForms = 6

    /// The entries of `text`, the header (`msgid ""`) included, in file order.
    ///
    /// - Throws: ``POError`` naming the line, for a text that is not a `.po` file or is beyond one of the
    ///   limits above (larger than ``maximumFileBytes``, more than ``maximumEntries`` entries, a string longer
    ///   than ``maximumStringBytes``, more than ``maximumPluralForms`` forms).
    public static func parse(_ text: String) throws(POError) -> [POEntry] {
        guard text.utf8.count <= maximumFileBytes else {
            throw POError(line: 1, message: "the catalogue is larger than \(ByteCount(maximumFileBytes))")
        }
        var builder = POEntryBuilder()
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            switch try POLine(rawLine.trimmingWhitespace(), number: lineNumber) {
            case .blank: try builder.endIfComplete()
            case .comment(let comment): try builder.add(comment)
            case .continuation(let literal): try builder.continueString(literal, line: lineNumber)
            case .keyword(let keyword, let value): try builder.add(keyword, value, line: lineNumber)
            }
        }
        return try builder.finish()
    }

    /// The text of a C-style string literal: `"a\"b\n"` → `a"b` + newline.
    static func unquote(_ literal: some StringProtocol, line: Int) throws(POError) -> String {
        let characters = Array(literal)
        guard characters.count >= 2, characters.first == "\"", characters.last == "\"" else {
            throw POError(line: line, message: "expected a string in double quotes")
        }
        var out = ""
        var index = 1
        let end = characters.count - 1
        while index < end {
            let character = characters[index]
            if character == "\"" { throw POError(line: line, message: "a double quote inside a string must be written \\\"") }
            guard character == "\\" else {
                out.append(character)
                index += 1
                continue
            }
            guard index + 1 < end else { throw POError(line: line, message: "a string ends with a lone backslash") }
            let next = characters[index + 1]
            index += 2
            switch next {
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "r": out.append("\r")
            case "\"": out.append("\"")
            case "\\": out.append("\\")
            case "a": out.append("\u{7}")
            case "b": out.append("\u{8}")
            case "f": out.append("\u{C}")
            case "v": out.append("\u{B}")
            case _ where next.isASCII && ("0"..."7").contains(next):
                // ASCII only: "0" with a combining mark is one Character that sorts among the digits but is none
                // (found by FuzzCatalogue: `\0̣` ended the process).
                var value = next.wholeNumberValue ?? 0
                var digits = 1
                while digits < 3, index < end, characters[index].isASCII, let digit = characters[index].wholeNumberValue,
                    digit < 8
                {
                    value = value * 8 + digit
                    index += 1
                    digits += 1
                }
                out.unicodeScalars.append(Unicode.Scalar(UInt8(truncatingIfNeeded: value)))
            case "x":
                var value = 0
                var digits = 0
                while index < end, characters[index].isASCII, let digit = characters[index].hexDigitValue {
                    // C takes as many digits as follow: past the last code point the value cannot be one, and
                    // must not overflow (found by FuzzCatalogue: "\x4ddd…" ended the process).
                    guard value <= 0x10FFFF else {
                        throw POError(line: line, message: "\\x\(String(characters[(index - digits)..<index])): not a character")
                    }
                    value = value * 16 + digit
                    index += 1
                    digits += 1
                }
                guard digits > 0, let scalar = Unicode.Scalar(value) else {
                    throw POError(line: line, message: digits > 0 ? "\\x: not a character" : "\\x needs hexadecimal digits")
                }
                out.unicodeScalars.append(scalar)
            default:
                throw POError(line: line, message: "unknown escape \\\(next)")
            }
        }
        return out
    }
}

/// One line of a `.po` file, read on its own: what it is does not depend on the lines before it.
enum POLine {
    case blank
    case comment(Comment)
    /// A string on a line of its own, which extends the string of the keyword above; still quoted, since
    /// what is wrong with it matters less than that it continues nothing.
    case continuation(Substring)
    /// `msgid "…"`, `msgstr[1] "…"`: the keyword and its string, unquoted.
    case keyword(Substring, String)

    enum Comment {
        /// `#, fuzzy` among the flags.
        case fuzzy
        /// `#. …`, for translators.
        case extracted(String)
        /// Any other: `#:` references, `#|` previous strings, `#~` obsolete entries, translators' `# …`.
        case ignored
    }

    /// Reads `line`, trimmed of white space; `number` is its line in the file, for errors.
    init(_ line: Substring, number: Int) throws(POError) {
        if line.isEmpty {
            self = .blank
        } else if line.hasPrefix("#") {
            self = .comment(Self.comment(line))
        } else if line.hasPrefix("\"") {
            self = .continuation(line)
        } else {
            guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else {
                throw POError(line: number, message: "expected a keyword and a quoted string")
            }
            let value = try POFile.unquote(line[space...].trimmingWhitespace(), line: number)
            guard value.utf8.count <= POFile.maximumStringBytes else {
                throw POError(line: number, message: "a string is longer than \(ByteCount(POFile.maximumStringBytes))")
            }
            self = .keyword(line[..<space], value)
        }
    }

    private static func comment(_ line: Substring) -> Comment {
        if line.hasPrefix("#~") { return .ignored }
        if line.hasPrefix("#,") {
            let flags = line.dropFirst(2).split(separator: ",").map { $0.trimmingWhitespace() }
            return flags.contains("fuzzy") ? .fuzzy : .ignored
        }
        if line.hasPrefix("#.") { return .extracted(String(line.dropFirst(2).trimmingWhitespace())) }
        return .ignored
    }
}

/// Makes entries from the lines of a `.po` file in order: which entry is open, which of its strings a
/// continuation extends, and the comments and flags waiting for the next entry; with the checks that need them.
struct POEntryBuilder {
    /// Which string a continuation line extends.
    private enum Field { case context, msgid, plural, msgstr(Int) }

    private var entries: [POEntry] = []
    private var current: POEntry?
    private var field: Field?
    private var comments: [String] = []
    private var fuzzy = false

    /// A blank line ends an entry that has its translation.
    mutating func endIfComplete() throws(POError) {
        if current != nil, !(current?.msgstr.isEmpty ?? true) { try end() }
    }

    mutating func add(_ comment: POLine.Comment) throws(POError) {
        // A comment after a complete entry starts the next one.
        try endIfComplete()
        switch comment {
        case .fuzzy: fuzzy = true
        case .extracted(let text): comments.append(text)
        case .ignored: break
        }
    }

    mutating func continueString(_ literal: Substring, line: Int) throws(POError) {
        guard let field else { throw POError(line: line, message: "a string continues nothing") }
        try append(try POFile.unquote(literal, line: line), to: field, line: line)
    }

    mutating func add(_ keyword: Substring, _ value: String, line: Int) throws(POError) {
        switch keyword {
        case "msgctxt":
            if current != nil { try end() }
            start(line)
            current?.context = value
            field = .context
        case "msgid":
            if current != nil, current?.msgstr.isEmpty == false || current?.msgid.isEmpty == false { try end() }
            start(line)
            current?.msgid = value
            field = .msgid
        case "msgid_plural":
            guard current != nil, case .msgid = field else {
                throw POError(line: line, message: "msgid_plural must follow msgid")
            }
            current?.msgidPlural = value
            field = .plural
        default:
            try addTranslation(keyword, value, line: line)
        }
    }

    /// `msgstr`, or `msgstr[N]` in order from 0.
    private mutating func addTranslation(_ keyword: Substring, _ value: String, line: Int) throws(POError) {
        guard current != nil, keyword.hasPrefix("msgstr") else {
            throw POError(line: line, message: "unknown keyword \"\(keyword)\"")
        }
        var index = 0
        if keyword != "msgstr" {
            guard keyword.hasPrefix("msgstr["), keyword.hasSuffix("]"), let number = Int(keyword.dropFirst(7).dropLast())
            else { throw POError(line: line, message: "unknown keyword \"\(keyword)\"") }
            index = number
        }
        guard index == current?.msgstr.count else {
            throw POError(line: line, message: "\(keyword) out of order: expected msgstr[\(current?.msgstr.count ?? 0)]")
        }
        guard index < POFile.maximumPluralForms else {
            throw POError(line: line, message: "more than \(POFile.maximumPluralForms) plural forms")
        }
        current?.msgstr.append(value)
        field = .msgstr(index)
    }

    /// The entries once the last line is read; an entry without a translation, or with plural translations
    /// but no plural, is an error.
    mutating func finish() throws(POError) -> [POEntry] {
        if current != nil { try end() }
        for entry in entries where entry.msgstr.isEmpty {
            throw POError(line: entry.line, message: "msgid \"\(entry.msgid)\" has no msgstr")
        }
        for entry in entries where entry.msgidPlural == nil && entry.msgstr.count != 1 {
            throw POError(line: entry.line, message: "msgid \"\(entry.msgid)\" has msgstr[N] but no msgid_plural")
        }
        return entries
    }

    private mutating func end() throws(POError) {
        if let entry = current {
            guard entries.count < POFile.maximumEntries else {
                throw POError(line: entry.line, message: "more than \(POFile.maximumEntries) entries")
            }
            entries.append(entry)
        }
        current = nil
        field = nil
    }

    /// Opens an entry, unless one is open, with the comments and flags read since the last.
    private mutating func start(_ line: Int) {
        guard current == nil else { return }
        current = POEntry(
            context: nil, msgid: "", msgidPlural: nil, msgstr: [], isFuzzy: fuzzy,
            extractedComment: comments.joined(separator: "\n"), line: line)
        comments = []
        fuzzy = false
    }

    private mutating func append(_ string: String, to field: Field, line: Int) throws(POError) {
        let joined: Int
        switch field {
        case .context:
            let context = (current?.context ?? "") + string
            current?.context = context
            joined = context.utf8.count
        case .msgid:
            current?.msgid += string
            joined = current?.msgid.utf8.count ?? 0
        case .plural:
            let plural = (current?.msgidPlural ?? "") + string
            current?.msgidPlural = plural
            joined = plural.utf8.count
        case .msgstr(let index):
            current?.msgstr[index] += string
            joined = current?.msgstr[index].utf8.count ?? 0
        }
        guard joined <= POFile.maximumStringBytes else {
            throw POError(line: line, message: "a string is longer than \(ByteCount(POFile.maximumStringBytes))")
        }
    }
}

extension StringProtocol {
    func trimmingWhitespace() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text.removeLast() }
        return text
    }
}
