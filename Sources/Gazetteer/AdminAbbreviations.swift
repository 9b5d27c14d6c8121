/// The abbreviations people write after a place name instead of its state or province.
///
/// Only where they are in everyday use on addresses: US states (and DC), Canadian provinces and
/// territories, Australian states and territories. Keys and admin1 names are folded; the admin1
/// names are GeoNames' (a test checks that each one exists in the shipped data). Some
/// abbreviations name two regions ("WA": Washington and Western Australia); both match.
enum AdminAbbreviations {
    static let table: [String: [(countryCode: String, admin1: String)]] = {
        var table: [String: [(countryCode: String, admin1: String)]] = [:]
        for (countryCode, pairs) in [("US", unitedStates), ("CA", canada), ("AU", australia)] {
            for (abbreviation, admin1) in pairs {
                table[abbreviation.lowercased(), default: []].append((countryCode, NameFolding.fold(admin1)))
            }
        }
        return table
    }()

    /// Country names people write that are not GeoNames' English names, folded, with their codes.
    static let countryAliases: [String: String] = [
        "usa": "US", "united states of america": "US", "america": "US",
        "uk": "GB", "great britain": "GB", "britain": "GB",
    ]

    static let unitedStates: [(String, String)] = [
        ("AL", "Alabama"), ("AK", "Alaska"), ("AZ", "Arizona"), ("AR", "Arkansas"), ("CA", "California"),
        ("CO", "Colorado"), ("CT", "Connecticut"), ("DE", "Delaware"), ("DC", "District of Columbia"),
        ("FL", "Florida"), ("GA", "Georgia"), ("HI", "Hawaii"), ("ID", "Idaho"), ("IL", "Illinois"),
        ("IN", "Indiana"), ("IA", "Iowa"), ("KS", "Kansas"), ("KY", "Kentucky"), ("LA", "Louisiana"),
        ("ME", "Maine"), ("MD", "Maryland"), ("MA", "Massachusetts"), ("MI", "Michigan"), ("MN", "Minnesota"),
        ("MS", "Mississippi"), ("MO", "Missouri"), ("MT", "Montana"), ("NE", "Nebraska"), ("NV", "Nevada"),
        ("NH", "New Hampshire"), ("NJ", "New Jersey"), ("NM", "New Mexico"), ("NY", "New York"),
        ("NC", "North Carolina"), ("ND", "North Dakota"), ("OH", "Ohio"), ("OK", "Oklahoma"), ("OR", "Oregon"),
        ("PA", "Pennsylvania"), ("RI", "Rhode Island"), ("SC", "South Carolina"), ("SD", "South Dakota"),
        ("TN", "Tennessee"), ("TX", "Texas"), ("UT", "Utah"), ("VT", "Vermont"), ("VA", "Virginia"),
        ("WA", "Washington"), ("WV", "West Virginia"), ("WI", "Wisconsin"), ("WY", "Wyoming"),
    ]

    static let canada: [(String, String)] = [
        ("AB", "Alberta"), ("BC", "British Columbia"), ("MB", "Manitoba"), ("NB", "New Brunswick"),
        ("NL", "Newfoundland and Labrador"), ("NS", "Nova Scotia"), ("NT", "Northwest Territories"),
        ("NU", "Nunavut"), ("ON", "Ontario"), ("PE", "Prince Edward Island"), ("QC", "Quebec"),
        ("SK", "Saskatchewan"), ("YT", "Yukon"),
    ]

    static let australia: [(String, String)] = [
        ("ACT", "Australian Capital Territory"), ("NSW", "New South Wales"), ("NT", "Northern Territory"),
        ("QLD", "Queensland"), ("SA", "South Australia"), ("TAS", "Tasmania"), ("VIC", "Victoria"),
        ("WA", "Western Australia"),
    ]
}
