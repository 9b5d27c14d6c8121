import Localization

/// The words of the picker's page, from the catalogues (msgctxt "map picker"), in the language of
/// `[display] language`. The page receives them as one JSON object and writes no word of its own.
enum PageTexts {
    /// Every text the page shows, by the name pick.js uses.
    static func all(_ translation: Translation) -> [String: String] {
        return [
            "title": translation.text("Choose a place – forecastd", context: "map picker"),
            "searchLabel": translation.text("Search for a place", context: "map picker"),
            "searchButton": translation.text("Search", context: "map picker"),
            "searchNone": translation.text("No place of that name is known offline.", context: "map picker"),
            "searchSeveral": translation.text("Several places have that name; choose one:", context: "map picker"),
            "hint": translation.text("Click the map or search for a place.", context: "map picker"),
            "nearest": translation.text("Nearest place: {place}", context: "map picker"),
            "pin": translation.text("Pin here", context: "map picker"),
            "city": translation.text("Add to my cities", context: "map picker"),
            "favorite": translation.text("as a favourite", context: "map picker"),
            "use": translation.text("Use this place", context: "map picker"),
            "cancel": translation.text("Cancel", context: "map picker"),
            "pinnedNow": translation.text("Pinned now: {place}", context: "map picker"),
            "forecastNow": translation.text("The forecast is for {place} now.", context: "map picker"),
            "position": translation.text("Current position, within {metres} m", context: "map picker"),
            "offline": translation.text("The map's tiles cannot be loaded: shown instead are forecastd's own places and a grid of latitudes and longitudes.", context: "map picker"),
            "keys": translation.text("Keys: Tab reaches the search; on the map, arrows move it, + and − zoom, Enter marks the centre, P pins it, C adds it to your cities.", context: "map picker"),
            "map": translation.text("Map", context: "map picker"),
            "saving": translation.text("Saving…", context: "map picker"),
            "lost": translation.text("forecastctl pick no longer answers; run it again.", context: "map picker"),
            "failed": translation.text("That did not work: {reason}", context: "map picker"),
        ]
    }

    /// What the page says once the position is pinned.
    static func pinned(_ place: String, _ translation: Translation) -> String {
        translation.text(
            "Pinned to {place}: the forecast is for there now. You can close this page.", context: "map picker",
            ["place": place])
    }

    /// What the page says once the place is in the list of cities.
    static func cityAdded(_ place: String, favorite: Bool, _ translation: Translation) -> String {
        favorite
            ? translation.text(
                "{place} is in your cities now, as a favourite. You can close this page.", context: "map picker",
                ["place": place])
            : translation.text(
                "{place} is in your cities now. You can close this page.", context: "map picker", ["place": place])
    }

    /// What the page says when the place was listed already.
    static func cityListed(_ place: String, _ translation: Translation) -> String {
        translation.text(
            "{place} was in your cities already; nothing changed. You can close this page.", context: "map picker",
            ["place": place])
    }

    /// What the page says when forecastctl printed the choice.
    static func used(_ place: String, _ translation: Translation) -> String {
        translation.text("Chosen: {place}. You can close this page.", context: "map picker", ["place": place])
    }

    /// What the page says after Cancel.
    static func cancelled(_ translation: Translation) -> String {
        translation.text("Nothing was changed. You can close this page.", context: "map picker")
    }
}

extension PickPage {
    /// The page's words for the outcomes forecastctl reports, so that they come from the same catalogue.
    public func pinnedText(place: String) -> String { PageTexts.pinned(place, translation) }
    public func cityAddedText(place: String, favorite: Bool) -> String {
        PageTexts.cityAdded(place, favorite: favorite, translation)
    }
    public func cityListedText(place: String) -> String { PageTexts.cityListed(place, translation) }
    public func usedText(place: String) -> String { PageTexts.used(place, translation) }
    public func cancelledText() -> String { PageTexts.cancelled(translation) }
}
