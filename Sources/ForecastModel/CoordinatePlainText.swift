import Foundation

/// Positions written out: decimal degrees, or degrees, minutes and seconds, with hemisphere letters.
extension CoordinateParser {
    enum Token: Equatable {
        /// The magnitude, and the sign as written (`-0 30` is half a degree south or west).
        case number(Double, isInteger: Bool, sign: Sign)
        case mark(Mark)
        case hemisphere(Character)
        case comma
    }

    enum Sign { case none, plus, minus }

    /// Degree, minute and second marks, in the order they must come.
    enum Mark: Int, Comparable {
        case degrees = 0, minutes = 1, seconds = 2
        static func < (lhs: Mark, rhs: Mark) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    static func parsePlain(_ text: String) throws(CoordinateParseError) -> Coordinate {
        guard text.contains(where: { $0.isASCII && $0.isNumber }) else { throw .notACoordinate(text) }
        let tokens = try tokenize(text)
        let halves = try split(tokens, text: text)
        var first = try component(halves.0, text: text)
        var second = try component(halves.1, text: text)
        if first.axis == .longitude || second.axis == .latitude {
            swap(&first, &second)
        }
        guard first.axis != .longitude, second.axis != .latitude else {
            throw .malformed(text, expected: "one latitude (N or S) and one longitude (E or W)")
        }
        return Coordinate(latitude: first.value, longitude: second.value)
    }

    static func tokenize(_ text: String) throws(CoordinateParseError) -> [Token] {
        var tokens: [Token] = []
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace {
                index += 1
                continue
            }
            if character == "," || character == ";" {
                tokens.append(.comma)
                index += 1
                continue
            }
            if var mark = mark(character) {
                index += 1
                // Two apostrophes (`24''`) are a seconds mark typed without the double quote.
                if mark == .minutes, index < characters.count, self.mark(characters[index]) == .minutes {
                    mark = .seconds
                    index += 1
                }
                tokens.append(.mark(mark))
                continue
            }
            if (character.isASCII && character.isNumber) || character == "." || character == "-" || character == "+"
                || character == "−"
            {
                var end = index + 1
                while end < characters.count,
                    (characters[end].isASCII && characters[end].isNumber) || characters[end] == "."
                {
                    end += 1
                }
                var literal = String(characters[index..<end])
                if literal.hasPrefix("−") { literal = "-" + literal.dropFirst() }
                guard let value = decimal(literal[...]) else {
                    throw .malformed(text, expected: expectedAnything)
                }
                let sign: Sign = literal.hasPrefix("-") ? .minus : literal.hasPrefix("+") ? .plus : .none
                tokens.append(.number(abs(value), isInteger: !literal.contains("."), sign: sign))
                index = end
                continue
            }
            if character.isLetter {
                var end = index + 1
                while end < characters.count, characters[end].isLetter { end += 1 }
                let word = String(characters[index..<end]).uppercased()
                // A word that is not a lone hemisphere letter makes this a name, not a coordinate.
                guard ["N", "S", "E", "W"].contains(word) else { throw .notACoordinate(text) }
                tokens.append(.hemisphere(Character(word)))
                index = end
                continue
            }
            throw .malformed(text, expected: expectedAnything)
        }
        return tokens
    }

    static func mark(_ character: Character) -> Mark? {
        switch character {
        case "°", "º", "˚": .degrees
        case "'", "′", "’", "‘": .minutes
        case "\"", "″", "”", "“": .seconds
        default: nil
        }
    }

    /// Splits the tokens into the two coordinates: at a comma, at the hemisphere letters, or in half.
    static func split(_ tokens: [Token], text: String) throws(CoordinateParseError) -> ([Token], [Token]) {
        let commas = tokens.indices.filter { tokens[$0] == .comma }
        if !commas.isEmpty {
            guard commas.count == 1 else { throw .malformed(text, expected: "two values separated by one comma") }
            return (Array(tokens[..<commas[0]]), Array(tokens[(commas[0] + 1)...]))
        }
        let hemispheres = tokens.indices.filter {
            if case .hemisphere = tokens[$0] { return true }
            return false
        }
        if !hemispheres.isEmpty {
            guard hemispheres.count == 2 else {
                throw .malformed(text, expected: "a hemisphere letter for both values, or for neither")
            }
            // `N48 E2`: the second letter starts the second value; `48N 2E`: the first letter ends the first.
            let cut = hemispheres[0] == 0 ? hemispheres[1] : hemispheres[0] + 1
            return (Array(tokens[..<cut]), Array(tokens[cut...]))
        }
        let degreeMarks = tokens.indices.filter { tokens[$0] == .mark(.degrees) }
        if degreeMarks.count == 2 {
            // The second value starts with the number right before its degree mark.
            let cut = degreeMarks[1] - 1
            guard cut > 0 else { throw .malformed(text, expected: expectedAnything) }
            return (Array(tokens[..<cut]), Array(tokens[cut...]))
        }
        let numbers = tokens.indices.filter {
            if case .number = tokens[$0] { return true }
            return false
        }
        guard [2, 4, 6].contains(numbers.count) else {
            throw .malformed(text, expected: expectedAnything)
        }
        let cut = numbers[numbers.count / 2]
        return (Array(tokens[..<cut]), Array(tokens[cut...]))
    }

    enum Axis { case latitude, longitude, unknown }

    /// One coordinate: `[sign]D[°] [M[']] [S["]]` with a hemisphere letter before or after.
    static func component(
        _ tokens: [Token], text: String
    ) throws(CoordinateParseError) -> (value: Double, axis: Axis) {
        var hemisphere: Character?
        var parts: [(value: Double, isInteger: Bool, sign: Sign, mark: Mark?)] = []
        for (offset, token) in tokens.enumerated() {
            switch token {
            case .hemisphere(let letter):
                guard hemisphere == nil, offset == 0 || offset == tokens.count - 1 else {
                    throw .malformed(text, expected: "N, S, E or W before or after each value")
                }
                hemisphere = letter
            case .number(let value, let isInteger, let sign):
                parts.append((value, isInteger, sign, nil))
            case .mark(let mark):
                guard let last = parts.last, last.mark == nil else {
                    throw .malformed(text, expected: "a number before each °, ' or \" mark")
                }
                parts[parts.count - 1].mark = mark
            case .comma:
                throw .malformed(text, expected: expectedAnything)
            }
        }
        guard (1...3).contains(parts.count) else {
            throw .malformed(text, expected: "degrees, or degrees and minutes, or degrees, minutes and seconds")
        }
        // Unmarked numbers take the next place: degrees, then minutes, then seconds.
        var places: [Mark] = []
        for part in parts {
            let place = part.mark ?? (places.last.flatMap { Mark(rawValue: $0.rawValue + 1) } ?? .degrees)
            guard places.last.map({ $0 < place }) ?? true else {
                throw .malformed(text, expected: "degrees, minutes and seconds in that order")
            }
            places.append(place)
        }
        guard places.first == .degrees else {
            throw .malformed(text, expected: "degrees first, then minutes and seconds")
        }
        var value = 0.0
        for (index, part) in parts.enumerated() {
            let place = places[index]
            if index > 0 {
                guard part.sign == .none else { throw .malformed(text, expected: "a sign on the degrees only") }
                guard part.value < 60 else {
                    let name = place == .minutes ? "minutes" : "seconds"
                    throw .outOfRange("\(name) \(format(part.value))", allowed: "0 up to 60")
                }
            }
            // Only the last number may have a fraction: `48.5°30'` means nothing.
            guard index == parts.count - 1 || part.isInteger else {
                throw .malformed(text, expected: "a fraction on the last number only")
            }
            let divisor: Double = place == .degrees ? 1 : place == .minutes ? 60 : 3600
            value += part.value / divisor
        }
        var axis = Axis.unknown
        if let hemisphere {
            guard parts[0].sign == .none else {
                throw .malformed(text, expected: "either a sign or a hemisphere letter, not both")
            }
            axis = hemisphere == "N" || hemisphere == "S" ? .latitude : .longitude
            if hemisphere == "S" || hemisphere == "W" { value = -value }
        } else if parts[0].sign == .minus {
            value = -value
        }
        return (value, axis)
    }
}
