/// A `Plural-Forms` header: how many forms a language has and which one a number takes.
///
/// The expression is the C subset gettext uses (`n`, integers, `! * / % + - < <= > >= == != && || ?:` and
/// parentheses), parsed once into a tree, so a catalogue from any language team works without a table
/// of languages here.
///
/// The parser and the evaluator recurse, so the expression is bounded before it is read: at most
/// ``maximumExpressionLength`` characters and ``maximumNesting`` levels of parentheses, `!`, `-` and `?:`.
/// gettext's longest rules (Arabic, Irish, Slovenian) are under 120 characters and 8 levels; a catalogue
/// beyond either limit is refused as damaged, where it would otherwise overflow the stack (a rule nested
/// 2,000 deep, or 10,000 `!`, ended the process).
public struct PluralRule: Sendable, Hashable {
    /// The longest `plural=` expression read, in characters. It also bounds how deep a chain of binary
    /// operators (`n+n+…`, built without recursion) makes the tree the evaluator walks: under 256 levels.
    public static let maximumExpressionLength = 512
    /// The deepest nesting of parentheses, `!`, unary `-` and `?:` read.
    public static let maximumNesting = 32

    /// `nplurals`.
    public let count: Int
    private let expression: Expression

    /// English and the other two-form languages: `nplurals=2; plural=(n != 1);`.
    ///
    /// Made when asked for (once per catalogue read) rather than kept in a global: the tree's boxes carry the
    /// enum's case in their pointers' spare bits, so a global holding one reads to LeakSanitizer as a leak, and
    /// the fuzzer (`FuzzCatalogue`) must see real leaks only.
    public static var english: PluralRule { PluralRule(count: 2, expression: .binary("!=", .n, .number(1))) }

    private init(count: Int, expression: Expression) {
        self.count = count
        self.expression = expression
    }

    /// Reads `nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);`.
    public init(header: String) throws(PluralRuleError) {
        var count: Int?
        var expression: Expression?
        for part in header.split(separator: ";") {
            let part = part.trimmingWhitespace()
            guard let equals = part.firstIndex(of: "=") else { continue }
            let name = part[..<equals].trimmingWhitespace()
            let value = part[part.index(after: equals)...].trimmingWhitespace()
            switch name {
            case "nplurals":
                guard let number = Int(value), (1...6).contains(number) else {
                    throw PluralRuleError(message: "nplurals=\(value) is not a number from 1 to 6")
                }
                count = number
            case "plural":
                guard value.count <= Self.maximumExpressionLength else {
                    throw PluralRuleError(
                        message: "plural= is \(value.count) characters long, longer than the "
                            + "\(Self.maximumExpressionLength) a plural rule may be")
                }
                var parser = Parser(Array(value))
                expression = try parser.parseAll()
            default: continue
            }
        }
        guard let count, let expression else {
            throw PluralRuleError(message: "Plural-Forms needs nplurals=N; plural=EXPRESSION;")
        }
        self.init(count: count, expression: expression)
    }

    /// The index of the plural form `n` takes, `0..<count`; an expression giving something outside
    /// that range gives nil.
    public func form(for n: Int) -> Int? {
        let value = expression.evaluate(n)
        return (0..<count).contains(value) ? value : nil
    }

    indirect enum Expression: Sendable, Hashable {
        case n
        case number(Int)
        case not(Expression)
        case negate(Expression)
        case binary(String, Expression, Expression)
        case conditional(Expression, Expression, Expression)

        func evaluate(_ n: Int) -> Int {
            switch self {
            case .n: return n
            case .number(let value): return value
            case .not(let operand): return operand.evaluate(n) == 0 ? 1 : 0
            case .negate(let operand): return 0 &- operand.evaluate(n)
            case .conditional(let test, let yes, let no): return test.evaluate(n) != 0 ? yes.evaluate(n) : no.evaluate(n)
            case .binary(let op, let left, let right):
                let a = left.evaluate(n)
                // && and || do not evaluate their right side when the left decides.
                if op == "&&" { return a != 0 && right.evaluate(n) != 0 ? 1 : 0 }
                if op == "||" { return a != 0 || right.evaluate(n) != 0 ? 1 : 0 }
                let b = right.evaluate(n)
                switch op {
                case "*": return a &* b
                // Int.min / -1 overflows: wrapped, like the other operators, rather than a trap (found by
                // FuzzCatalogue: `plural=n / -1` with a count of Int.min ended the process).
                case "/": return b == 0 ? 0 : a.dividedReportingOverflow(by: b).partialValue
                case "%": return b == 0 ? 0 : a.remainderReportingOverflow(dividingBy: b).partialValue
                case "+": return a &+ b
                case "-": return a &- b
                case "<": return a < b ? 1 : 0
                case "<=": return a <= b ? 1 : 0
                case ">": return a > b ? 1 : 0
                case ">=": return a >= b ? 1 : 0
                case "==": return a == b ? 1 : 0
                default: return a != b ? 1 : 0  // "!="
                }
            }
        }
    }

    /// Precedence climbing over C's levels, lowest first.
    private struct Parser {
        let characters: [Character]
        var index = 0
        /// How many parentheses, `!`, `-` and `?:` arms the parser is inside: bounded by ``maximumNesting``.
        var depth = 0

        init(_ characters: [Character]) { self.characters = characters }

        static let levels: [[String]] = [["||"], ["&&"], ["==", "!="], ["<=", ">=", "<", ">"], ["+", "-"], ["*", "/", "%"]]

        mutating func parseAll() throws(PluralRuleError) -> Expression {
            let expression = try conditional()
            skipSpaces()
            guard index == characters.count else { throw error("unexpected \"\(characters[index])\"") }
            return expression
        }

        func error(_ message: String) -> PluralRuleError {
            PluralRuleError(message: "plural=\(String(characters)): \(message) at character \(index + 1)")
        }

        mutating func skipSpaces() {
            while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 }
        }

        mutating func take(_ token: String) -> Bool {
            skipSpaces()
            let token = Array(token)
            guard index + token.count <= characters.count, Array(characters[index..<index + token.count]) == token
            else { return false }
            // "<" must not take the first half of "<=", nor "!" of "!=".
            let after = index + token.count
            if token.count == 1, after < characters.count, characters[after] == "=", "<>!=".contains(token[0]) {
                return false
            }
            if token == ["&"] || token == ["|"] { return false }
            index = after
            return true
        }

        /// Goes one level deeper for `parse`, refusing to go beyond ``maximumNesting``.
        mutating func nested(_ parse: (inout Parser) throws(PluralRuleError) -> Expression) throws(PluralRuleError)
            -> Expression
        {
            guard depth < PluralRule.maximumNesting else {
                throw error("nested more than \(PluralRule.maximumNesting) levels deep")
            }
            depth += 1
            defer { depth -= 1 }
            return try parse(&self)
        }

        mutating func conditional() throws(PluralRuleError) -> Expression {
            let test = try binary(0)
            guard take("?") else { return test }
            let yes = try nested { parser throws(PluralRuleError) in try parser.conditional() }
            guard take(":") else { throw error("expected \":\"") }
            let no = try nested { parser throws(PluralRuleError) in try parser.conditional() }
            return .conditional(test, yes, no)
        }

        mutating func binary(_ level: Int) throws(PluralRuleError) -> Expression {
            guard level < Self.levels.count else { return try unary() }
            var left = try binary(level + 1)
            outer: while true {
                for op in Self.levels[level] where take(op) {
                    left = .binary(op, left, try binary(level + 1))
                    continue outer
                }
                return left
            }
        }

        mutating func unary() throws(PluralRuleError) -> Expression {
            if take("!") { return .not(try nested { parser throws(PluralRuleError) in try parser.unary() }) }
            if take("-") { return .negate(try nested { parser throws(PluralRuleError) in try parser.unary() }) }
            return try primary()
        }

        mutating func primary() throws(PluralRuleError) -> Expression {
            skipSpaces()
            guard index < characters.count else { throw error("the expression ends too soon") }
            if take("(") {
                let inner = try nested { parser throws(PluralRuleError) in try parser.conditional() }
                guard take(")") else { throw error("expected \")\"") }
                return inner
            }
            if characters[index] == "n" {
                index += 1
                return .n
            }
            var digits = ""
            while index < characters.count, characters[index].isASCII, characters[index].isNumber {
                digits.append(characters[index])
                index += 1
            }
            guard let value = Int(digits) else { throw error("expected n, a number or \"(\"") }
            return .number(value)
        }
    }
}

/// A `Plural-Forms` header that cannot be read.
public struct PluralRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
