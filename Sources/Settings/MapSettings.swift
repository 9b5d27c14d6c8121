import ForecastModel
import Foundation

// `[map]`: the map `forecastctl pick` shows; the values, each field's initial value being its key's
// default, and the keys' rows.

extension Settings {
    /// `[map]`: where the map's tiles come from, and the credit they need.
    public struct Map: Sendable, Hashable {
        /// `tiles_url`: the tile server's URL template (Leaflet's `{z}/{x}/{y}`, with `{s}` and `{r}`).
        public var tilesURL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
        /// `attribution`: the credit shown in the map's corner.
        public var attribution = "© OpenStreetMap contributors"
        /// `attribution_url`: where the credit links to; nil (the key is `""`) for no link.
        public var attributionURL: URL? = URL(string: "https://www.openstreetmap.org/copyright")

        /// Every key at its default.
        public init() {}
    }

    // Read when `forecastctl pick` starts; the daemon does not use it.
    static let mapTable = SettingsTable.Table(
        ["map"], \Settings.map,
        documentation: """
            The map of `forecastctl pick`, a page served on 127.0.0.1 for choosing a place by clicking.
            Your browser loads its tiles from this server; without them the page still shows forecastd's
            own places and a grid of latitudes and longitudes.
            """,
        [
            .key(
                "tiles_url", \.tilesURL, .tileURLTemplate, .live,
                """
                The tile server, {allowed}.
                OpenStreetMap's standard map by default, under its tile usage policy
                (https://operations.osmfoundation.org/policies/tiles/): for picking a place, not bulk use.
                """),
            .key(
                "attribution", \.attribution, .nonEmpty("the credit the tile server asks for"), .live,
                "The credit shown in the map's corner, as the tile server's terms ask."),
            .key(
                "attribution_url", \.attributionURL, .httpURL.emptyMeansNone, .live,
                "Where the credit links to: an http or https URL, or \"\" for no link."),
        ])
}
