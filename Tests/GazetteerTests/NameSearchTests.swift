import ForecastModel
import Foundation
import Testing

@testable import Gazetteer

@Suite("Name search")
struct NameSearchTests {
    @Test("an exact name lists its places largest first, each with no distance")
    func exactName() throws {
        let matches = try openShipped().search("Paris")
        let first = try #require(matches.first)
        #expect(first.place.name == "Paris")
        #expect(first.place.countryCode == "FR")
        #expect(first.place.admin1 == "Île-de-France")
        #expect(first.place.coordinate == Coordinate(latitude: 48.85341, longitude: 2.3488))
        #expect(first.place.distanceKm == 0)
        #expect(first.kind == .exact)
        #expect(first.qualifiers.isEmpty)
        #expect(matches.count == 10)
        let exact = matches.filter { $0.kind == .exact }
        #expect(exact.allSatisfy { NameFolding.fold($0.place.name) == "paris" }, "\(exact.map(\.place.name))")
        #expect(exact.map(\.place.population) == exact.map(\.place.population).sorted(by: >))
        // Paris, Texas (24,782) is the largest namesake.
        #expect(exact.dropFirst().first?.place.admin1 == "Texas")
    }

    @Test("prefix matches come after every exact match, largest first")
    func prefixAfterExact() throws {
        let matches = try openShipped().search("Paris", limit: 60)
        let kinds = matches.map(\.kind)
        let firstPrefix = try #require(kinds.firstIndex(of: .prefix))
        #expect(kinds[..<firstPrefix].allSatisfy { $0 == .exact })
        #expect(kinds[firstPrefix...].allSatisfy { $0 == .prefix })
        let prefixed = matches[firstPrefix...]
        #expect(prefixed.first?.place.name == "Paris 15 Vaugirard")
        #expect(prefixed.map(\.place.population) == prefixed.map(\.place.population).sorted(by: >))
        #expect(prefixed.allSatisfy { $0.place.name.hasPrefix("Paris") && $0.place.name != "Paris" })

        let partial = try #require(try openShipped().search("Sao Paul").first)
        #expect(partial.place.name == "São Paulo")
        #expect(partial.place.countryCode == "BR")
        #expect(partial.kind == .prefix)
    }

    @Test(
        "accents, case and punctuation are folded in the query and in the data",
        arguments: [
            ("São Paulo", "São Paulo", "BR"), ("Sao Paulo", "São Paulo", "BR"), ("SAO PAULO", "São Paulo", "BR"),
            ("sāo pâulo", "São Paulo", "BR"), ("Malmo", "Malmö", "SE"), ("Lodz", "Łódź", "PL"),
            ("Giessen", "Gießen", "DE"), ("Tromso", "Tromsø", "NO"), ("Aeroskobing", "Ærøskøbing", "DK"),
            ("saint ouen", "Saint-Ouen", "FR"), ("Páris", "Paris", "FR"), ("Köln", "Köln", "DE"),
            ("  zurich ", "Zürich", "CH"),
        ])
    func folding(query: String, name: String, countryCode: String) throws {
        let first = try #require(try openShipped().search(query).first, "nothing found for \(query)")
        #expect(first.place.name == name)
        #expect(first.place.countryCode == countryCode)
        #expect(first.kind == .exact)
    }

    @Test(
        "a qualifier after the comma picks the country or the state",
        arguments: [
            ("Paris, FR", "FR", "Île-de-France", QualifierMatch.countryCode),
            ("Paris, France", "FR", "Île-de-France", .country),
            ("Paris, Texas", "US", "Texas", .admin1),
            ("Paris, TX", "US", "Texas", .admin1Abbreviation),
            ("paris,tx", "US", "Texas", .admin1Abbreviation),
            ("Paris, Tennessee", "US", "Tennessee", .admin1),
            ("Paris, ON", "CA", "Ontario", .admin1Abbreviation),
            ("Hamilton, Waikato", "NZ", "Waikato Region", .admin1),
            ("Perth, WA", "AU", "Western Australia", .admin1Abbreviation),
            ("Perth, Scotland", "GB", "Scotland", .admin1),
            ("London, UK", "GB", "England", .country),
            ("London, Ontario", "CA", "Ontario", .admin1),
        ])
    func qualifier(query: String, countryCode: String, admin1: String, match: QualifierMatch) throws {
        let gazetteer = try openShipped()
        let first = try #require(gazetteer.search(query).first, "nothing found for \(query)")
        #expect(first.place.countryCode == countryCode)
        #expect(first.place.admin1 == admin1)
        #expect(first.qualifiers == [match])
        guard case .unique(let place) = gazetteer.resolve(query) else {
            Issue.record("\(query) did not resolve to one place: \(gazetteer.resolve(query))")
            return
        }
        #expect(place == first.place)
    }

    @Test("every qualifier must match, and all results satisfy it")
    func severalQualifiers() throws {
        let gazetteer = try openShipped()
        let american = gazetteer.search("Paris, US", limit: 50)
        #expect(american.count > 5)
        #expect(american.allSatisfy { $0.place.countryCode == "US" })
        let both = try #require(gazetteer.search("Paris, Texas, USA").first)
        #expect(both.place.admin1 == "Texas")
        #expect(both.qualifiers == [.admin1, .country])
        #expect(gazetteer.search("Paris, Texas, France").isEmpty)
        #expect(gazetteer.resolve("Paris, Atlantis") == .notFound)
    }

    @Test("resolves an overwhelming namesake uniquely, also within one country")
    func unique() throws {
        let gazetteer = try openShipped()
        for (query, countryCode, admin1) in [
            ("Paris", "FR", "Île-de-France"), ("Dallas", "US", "Texas"), ("London", "GB", "England"),
            ("São Paulo", "BR", "São Paulo"), ("Sao Paulo", "BR", "São Paulo"), ("Moscow", "RU", "Moscow"),
        ] {
            guard case .unique(let place) = gazetteer.resolve(query) else {
                Issue.record("\(query) did not resolve uniquely: \(gazetteer.resolve(query))")
                continue
            }
            #expect(place.countryCode == countryCode, "\(query)")
            #expect(place.admin1 == admin1, "\(query)")
        }
    }

    @Test("lists the candidates of an ambiguous name, largest first")
    func ambiguous() throws {
        let gazetteer = try openShipped()
        guard case .ambiguous(let hamiltons) = gazetteer.resolve("Hamilton") else {
            Issue.record("Hamilton resolved to \(gazetteer.resolve("Hamilton"))")
            return
        }
        #expect(hamiltons.count == Gazetteer.ambiguousListLength)
        #expect(hamiltons.prefix(2).map(\.countryCode) == ["CA", "NZ"])
        #expect(hamiltons.allSatisfy { $0.name == "Hamilton" })
        #expect(hamiltons.map(\.population) == hamiltons.map(\.population).sorted(by: >))

        guard case .ambiguous(let birminghams) = gazetteer.resolve("Birmingham") else {
            Issue.record("Birmingham resolved to \(gazetteer.resolve("Birmingham"))")
            return
        }
        #expect(birminghams.prefix(2).map(\.countryCode) == ["GB", "US"])

        guard case .ambiguous(let americanParis) = gazetteer.resolve("Paris, US") else {
            Issue.record("Paris, US resolved to \(gazetteer.resolve("Paris, US"))")
            return
        }
        #expect(americanParis.first?.admin1 == "Texas")
        #expect(americanParis.dropFirst().first?.admin1 == "Tennessee")

        // Only prefix matches: Frankfurt am Main has 11 times Frankfurt (Oder)'s population.
        guard case .ambiguous(let frankfurts) = gazetteer.resolve("Frankfurt") else {
            Issue.record("Frankfurt resolved to \(gazetteer.resolve("Frankfurt"))")
            return
        }
        #expect(frankfurts.prefix(2).map(\.name) == ["Frankfurt am Main", "Frankfurt (Oder)"])
    }

    @Test("an unknown or empty name finds nothing", arguments: ["Atlantisville", "", "  ", ",FR", "-", "Paris, "])
    func unknown(query: String) throws {
        let gazetteer = try openShipped()
        if query == "Paris, " {
            // An empty qualifier is ignored.
            #expect(gazetteer.search(query).first?.place.countryCode == "FR")
            return
        }
        #expect(gazetteer.search(query).isEmpty)
        #expect(gazetteer.resolve(query) == .notFound)
    }

    @Test("the limit caps the results")
    func limit() throws {
        let gazetteer = try openShipped()
        #expect(gazetteer.search("San", limit: 3).count == 3)
        #expect(gazetteer.search("Paris", limit: 0).isEmpty)
        // Places named "San" first, then the largest whose names start with it.
        let san = gazetteer.search("San", limit: 5)
        let exact = san.filter { $0.kind == .exact }
        let prefixed = san.filter { $0.kind == .prefix }
        #expect(san.map(\.kind) == exact.map(\.kind) + prefixed.map(\.kind))
        #expect(exact.allSatisfy { NameFolding.fold($0.place.name) == "san" })
        #expect(prefixed.map(\.place.name).first == "Santiago")
        #expect(prefixed.map(\.place.population) == prefixed.map(\.place.population).sorted(by: >))
    }

    @Test("every place is found by its own name: the script and Swift fold alike")
    func everyPlaceByName() throws {
        let gazetteer = try openShipped()
        let tables = gazetteer.tables
        var mismatches: [String] = []
        for position in 0..<tables.count {
            let entry = tables.nameEntry(position)
            let name = try #require(gazetteer.name(at: entry.place))
            let stored = try #require(tables.string(entry.folded))
            if NameFolding.fold(name) != stored {
                mismatches.append("\(name): Swift \(NameFolding.fold(name)), script \(stored)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
    }

    @Test("folding spells out letters that do not decompose")
    func foldingRules() {
        #expect(NameFolding.fold("Straße") == "strasse")
        #expect(NameFolding.fold("Ærøskøbing") == "aeroskobing")
        #expect(NameFolding.fold("St. John's") == "st johns")
        #expect(NameFolding.fold("Frankfurt (Oder)") == "frankfurt oder")
        #expect(NameFolding.fold("İstanbul") == "istanbul")
        #expect(NameFolding.fold("Þórshöfn") == "thorshofn")
        #expect(NameFolding.fold("Paral·lel") == "parallel")
        #expect(NameFolding.fold(" -- ") == "")
    }

    @Test("every abbreviation names an admin1 that exists in the data")
    func abbreviationsExist() throws {
        let gazetteer = try openShipped()
        let tables = gazetteer.tables
        defer { withExtendedLifetime(gazetteer) {} }
        var regions: Set<String> = []
        for index in 0..<tables.regionCount {
            let region = try #require(tables.region(index))
            let key = tables.regionKey(index)
            regions.insert(region.countryCode + ":" + (tables.string(key.admin1) ?? ""))
        }
        for (abbreviation, targets) in AdminAbbreviations.table {
            for target in targets {
                #expect(
                    regions.contains(target.countryCode + ":" + target.admin1),
                    "\(abbreviation) → \(target.admin1), \(target.countryCode) is not in the data")
            }
        }
        let entries = AdminAbbreviations.table.values.map(\.count).reduce(0, +)
        #expect(entries == 72, "51 US states and DC, 13 Canadian, 8 Australian")
    }
}
