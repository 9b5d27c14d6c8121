import Localization

/// A notification's body: text with optional emphasis.
///
/// It is written once and rendered for the server: with the specification's markup (`<b>`, `<i>`, text escaped) for
/// a server with the `body-markup` capability, as plain text (emphasis dropped, nothing escaped) for one without.
/// Escaping matters: "PM2.5 <10 µg/m³ & falling" sent raw to a markup server is broken markup, and some servers
/// then show nothing.
public struct NotificationBody: Sendable, Hashable, ExpressibleByStringLiteral {
    /// A run of text and how it is shown.
    public enum Span: Sendable, Hashable {
        case text(String)
        case bold(String)
        case italic(String)
    }

    public var spans: [Span]

    public init(_ spans: [Span] = []) {
        self.spans = spans
    }

    public init(stringLiteral value: String) {
        self.spans = [.text(value)]
    }

    /// A plain-text body.
    public static func text(_ text: String) -> NotificationBody { NotificationBody([.text(text)]) }

    public var isEmpty: Bool {
        spans.allSatisfy { span in
            switch span {
            case .text(let text), .bold(let text), .italic(let text): text.isEmpty
            }
        }
    }

    /// The text without emphasis, as a server without `body-markup` shows it.
    public var plainText: String {
        spans.map { span in
            switch span {
            case .text(let text), .bold(let text), .italic(let text): text
            }
        }.joined()
    }

    /// The text with the specification's markup, every character that markup gives a meaning escaped.
    public var markup: String {
        spans.map { span in
            switch span {
            case .text(let text): Markup.escaped(text)
            case .bold(let text): "<b>" + Markup.escaped(text) + "</b>"
            case .italic(let text): "<i>" + Markup.escaped(text) + "</i>"
            }
        }.joined()
    }
}
