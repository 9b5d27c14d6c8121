import Foundation

/// How settings messages and edits spell TOML: keys, strings, numbers and lists.
enum TOMLText {
    /// A key path as TOML writes it: bare components, and quoted ones where a bare key cannot say it.
    static func key(_ keyPath: [String]) -> String {
        keyPath.map { component in
            let isBare =
                !component.isEmpty
                && component.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
                        || $0 == "-"
                }
            return isBare ? component : quote(component)
        }.joined(separator: ".")
    }

    /// A string as a TOML basic string, so messages show exactly what was read.
    static func quote(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += String(format: "\\u%04X", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// A range bound: `90` rather than `90.0`, `0.1` as is.
    static func bound(_ bound: Double) -> String {
        bound == bound.rounded() && abs(bound) < 1e15 ? String(Int(bound)) : "\(bound)"
    }

    /// Items as a sentence lists them: `"a", "b" or "c"`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " or " + items[items.count - 1]
    }
}
