import ForecastModel

/// How a search result's name matched the query.
public enum NameMatchKind: String, Sendable, Hashable, Codable {
    /// The place's folded name equals the query's ("sao paulo" for "São Paulo").
    case exact
    /// The place's folded name starts with the query's ("paris 15 vaugirard" for "Paris").
    case prefix
}

/// What a qualifier (the part of a query after a comma) matched in a place's region.
public enum QualifierMatch: String, Sendable, Hashable, Codable {
    /// The ISO 3166-1 code: "FR".
    case countryCode
    /// The English country name or a common alias: "France", "USA", "UK".
    case country
    /// The first-level division's name, whole or up to a word break: "Texas", "Waikato".
    case admin1
    /// A US state's, Canadian province's or territory's, or Australian state's abbreviation: "TX", "ON", "NSW".
    case admin1Abbreviation
}

/// One place a name search found, and why.
public struct PlaceMatch: Sendable, Hashable {
    /// The place, with `distanceKm` 0 (a name search has no origin).
    public var place: Place
    /// The place's index, for `place(at:distanceFrom:)`, `coordinate(at:)` and `geonameID(at:)`.
    public var index: Int
    /// Whether the whole name matched or only its beginning.
    public var kind: NameMatchKind
    /// What each qualifier of the query matched, in the query's order; empty without qualifiers.
    public var qualifiers: [QualifierMatch]

    public init(place: Place, index: Int, kind: NameMatchKind, qualifiers: [QualifierMatch]) {
        self.place = place
        self.index = index
        self.kind = kind
        self.qualifiers = qualifiers
    }
}

extension Gazetteer {
    /// How many times the runner-up's population the top candidate needs for a name to be
    /// unique (docs/naming.md explains the figure with examples).
    public static let uniqueNamePopulationRatio = 20

    /// How many places an ambiguous resolution lists.
    public static let ambiguousListLength = 10

    /// Finds places by name, offline: exact name matches first, then names that start with the
    /// query, each group largest population first.
    ///
    /// Accents, case and punctuation do not matter ("Sao Paulo" finds São Paulo, "saint ouen"
    /// finds Saint-Ouen). Parts after commas qualify the name and must each match the place's
    /// country code, country name, admin1 name or a US/Canadian/Australian abbreviation:
    /// `Paris, FR`, `Paris, France`, `Paris, Texas`, `Paris, TX`. Returns at most `limit` matches;
    /// none for an empty name.
    public func search(_ query: String, limit: Int = 10) -> [PlaceMatch] {
        guard limit > 0, let parsed = ParsedQuery(query) else { return [] }
        let candidates = candidates(for: parsed, limit: limit)
        return candidates.compactMap { candidate in
            guard let place = placeWithoutDistance(at: candidate.index) else { return nil }
            return PlaceMatch(
                place: place, index: candidate.index, kind: candidate.kind, qualifiers: candidate.qualifiers)
        }
    }

    /// Resolves a name to one place, a short list of plausible places, or nothing.
    ///
    /// Candidates are the exact matches of `search(_:)` or, when there are none, its prefix
    /// matches. The top candidate is unique when it is the only one or has at least
    /// `uniqueNamePopulationRatio` times the runner-up's population (populations below 1000 count
    /// as 1000, the data's threshold): "Paris" is Paris, France (2.1 million, 86 times Paris,
    /// Texas), "Hamilton" lists Hamilton, Ontario and Hamilton, New Zealand, and "Paris, TX" is
    /// unique.
    public func resolve(_ query: String) -> NameResolution {
        guard let parsed = ParsedQuery(query) else { return .notFound }
        let candidates = candidates(for: parsed, limit: Self.ambiguousListLength)
        let kind = candidates.first?.kind
        let places = candidates.filter { $0.kind == kind }.compactMap { placeWithoutDistance(at: $0.index) }
        guard let first = places.first else { return .notFound }
        guard places.count > 1 else { return .unique(first) }
        let ratio = Self.uniqueNamePopulationRatio
        if CityArea.effectivePopulation(first.population)
            >= ratio * CityArea.effectivePopulation(places[1].population)
        {
            return .unique(first)
        }
        return .ambiguous(places)
    }

    /// The place at `index` with distance 0, or nil for a corrupt record.
    private func placeWithoutDistance(at index: Int) -> Place? {
        guard var place = place(at: index, distanceFrom: coordinate(at: index)) else { return nil }
        place.distanceKm = 0
        return place
    }

    private struct Candidate {
        var index: Int
        var population: UInt32
        var kind: NameMatchKind
        var qualifiers: [QualifierMatch]
    }

    /// The exact matches, largest first, then the largest prefix matches, `limit` in all.
    private func candidates(for query: ParsedQuery, limit: Int) -> [Candidate] {
        query.name.withUnsafeBytes { name in
            var position = lowerBound(of: name)
            var exact: [Candidate] = []
            // Exact matches are contiguous and stored largest first.
            while position < tables.count, exact.count < limit {
                let entry = tables.nameEntry(position)
                guard let key = tables.bytes(entry.folded), NameKey.compare(key, name) == 0 else { break }
                if let qualifiers = qualifiersMatching(query.qualifiers, place: entry.place) {
                    exact.append(
                        Candidate(
                            index: entry.place, population: tables.record(entry.place).population, kind: .exact,
                            qualifiers: qualifiers))
                }
                position += 1
            }
            // Skip exact matches beyond the limit, then keep the largest prefix matches.
            while position < tables.count, let key = tables.bytes(tables.nameEntry(position).folded),
                NameKey.compare(key, name) == 0
            {
                position += 1
            }
            var prefixed: [Candidate] = []
            let wanted = limit - exact.count
            while wanted > 0, position < tables.count {
                let entry = tables.nameEntry(position)
                guard let key = tables.bytes(entry.folded), NameKey.hasPrefix(key, name) else { break }
                position += 1
                let population = tables.record(entry.place).population
                // The list is kept sorted, largest first; ties keep name-index order.
                if prefixed.count == wanted, let last = prefixed.last, population <= last.population { continue }
                guard let qualifiers = qualifiersMatching(query.qualifiers, place: entry.place) else { continue }
                let candidate = Candidate(
                    index: entry.place, population: population, kind: .prefix, qualifiers: qualifiers)
                let slot = prefixed.firstIndex { $0.population < population } ?? prefixed.endIndex
                prefixed.insert(candidate, at: slot)
                if prefixed.count > wanted { prefixed.removeLast() }
            }
            return exact + prefixed
        }
    }

    /// The first name-index position whose folded name is not below `name`.
    private func lowerBound(of name: UnsafeRawBufferPointer) -> Int {
        var low = 0
        var high = tables.count
        while low < high {
            let middle = low + (high - low) >> 1
            // A reference outside the table (a corrupt file) sorts first: the search stays finite.
            let key = tables.bytes(tables.nameEntry(middle).folded)
            if let key, NameKey.compare(key, name) >= 0 {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }

    /// What each qualifier matched in the place's region, or nil when one of them matches nothing.
    private func qualifiersMatching(_ qualifiers: [Qualifier], place index: Int) -> [QualifierMatch]? {
        guard !qualifiers.isEmpty else { return [] }
        let regionIndex = tables.record(index).region
        guard let region = tables.region(regionIndex) else { return nil }
        let keys = tables.regionKey(regionIndex)
        guard let admin1 = tables.bytes(keys.admin1), let country = tables.bytes(keys.country) else { return nil }
        var matches: [QualifierMatch] = []
        for qualifier in qualifiers {
            guard let match = qualifier.match(countryCode: region.countryCode, country: country, admin1: admin1)
            else { return nil }
            matches.append(match)
        }
        return matches
    }
}

/// A query split into its folded name and folded qualifiers.
struct ParsedQuery {
    var name: [UInt8]
    var qualifiers: [Qualifier]

    /// Nil when the name part is empty after folding.
    init?(_ query: String) {
        let parts = query.split(separator: ",", omittingEmptySubsequences: false)
        let name = NameFolding.fold(String(parts.first ?? ""))
        guard !name.isEmpty else { return nil }
        self.name = Array(name.utf8)
        qualifiers = parts.dropFirst().map { NameFolding.fold(String($0)) }.filter { !$0.isEmpty }.map(Qualifier.init)
    }
}

/// One folded qualifier and the regions it may name.
struct Qualifier {
    let folded: [UInt8]
    /// The country code it spells, upper-cased, when it has two letters.
    let countryCode: String?
    /// The country codes an alias names ("usa" → US).
    let aliasCountryCode: String?
    /// The (country code, folded admin1) pairs it abbreviates ("wa" → Washington and Western Australia).
    let abbreviated: [(countryCode: String, admin1: [UInt8])]

    init(_ folded: String) {
        self.folded = Array(folded.utf8)
        countryCode = folded.utf8.count == 2 ? folded.uppercased() : nil
        aliasCountryCode = AdminAbbreviations.countryAliases[folded]
        abbreviated = (AdminAbbreviations.table[folded] ?? []).map { ($0.countryCode, Array($0.admin1.utf8)) }
    }

    func match(countryCode code: String, country: UnsafeRawBufferPointer, admin1: UnsafeRawBufferPointer)
        -> QualifierMatch?
    {
        if countryCode == code { return .countryCode }
        return folded.withUnsafeBytes { folded in
            if NameKey.compare(country, folded) == 0 || aliasCountryCode == code { return .country }
            // A whole admin1 name, or its beginning up to a word break ("waikato" for "waikato region").
            if NameKey.hasPrefix(admin1, folded), admin1.count == folded.count || admin1[folded.count] == 0x20 {
                return .admin1
            }
            for (abbreviatedCode, name) in abbreviated where abbreviatedCode == code {
                if name.withUnsafeBytes({ NameKey.compare(admin1, $0) }) == 0 { return .admin1Abbreviation }
            }
            return nil
        }
    }
}
