import ArgumentParser
import Control
import ForecastModel
import Foundation
import Gazetteer
import MapPicker
import Rendering
import Settings

struct PickCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pick",
        abstract: "Choose a place on a map in your browser: pin it, or add it to your cities.",
        discussion: """
            forecastctl serves one page on 127.0.0.1 (a port the system chooses, or --port), prints its address \
            as the first line of its output and opens it with xdg-open. The page shows a map: click anywhere, \
            or search a place by name (offline, as `forecastctl pin "Paris, TX"` does); the nearest place of \
            the offline gazetteer names the position. "Pin here" pins it and sets [location] mode = "pinned" \
            (one edit of the settings file, as `forecastctl pin` makes them: comments and layout kept, a \
            running daemon follows at once); "Add to my cities" adds it as `forecastctl cities add LAT,LON` \
            does, optionally as a favourite; "Cancel" changes nothing. The keyboard works too: Tab reaches the \
            search, arrows move the map, Enter marks its centre, P pins, C adds it to your cities.

            The map's tiles come from [map] tiles_url (OpenStreetMap's by default): your browser loads them, \
            not forecastctl (docs/privacy.md). Without them the page still works: it draws forecastd's own \
            places as dots on a grid of latitudes and longitudes. The page speaks [display] language.

            The address carries a one-time token; requests without it, from another web page or another \
            host name, and every request after the choice are refused. forecastctl stops after the choice, on \
            Ctrl-C, or when the page has sent nothing for 10 minutes.

            Over SSH, run `forecastctl pick --no-open --port 8765` on the remote machine and forward the port: \
            ssh -L 8765:127.0.0.1:8765 HOST (or type ~C and -L 8765:127.0.0.1:8765 in a running session), \
            then open the printed address on your own machine.

            Exit codes: 0 a place was pinned, added (or was listed already) or printed; 1 cancelled, no \
            choice within 10 minutes, or the page could not be served; 64 bad arguments; 78 the settings file \
            is invalid.
            """)

    @OptionGroup var global: GlobalOptions

    @Flag(name: .customLong("no-open"), help: "Print the address only; do not start a browser (over SSH, say).")
    var noOpen = false

    @Flag(name: .customLong("print"), help: "Print the chosen position and place (LAT,LON, a tab, the place) instead of pinning.")
    var printOnly = false

    @Option(name: .long, help: ArgumentHelp("The port to listen on, on 127.0.0.1 (default: one the system chooses).", valueName: "PORT"))
    var port: Int?

    func validate() throws {
        if let port, !(1...65535).contains(port) {
            throw ValidationError("--port \(port) is not a port (allowed: 1 to 65535; leave it out for one the system chooses)")
        }
    }

    func run() throws {
        try reportingFailures {
            let settings = try global.loadSettings()
            let gazetteer: Gazetteer
            do {
                gazetteer = try Gazetteer.loadDefault()
            } catch {
                throw CommandFailure(message: "\(error)", exitCode: .requestFailed)
            }
            let page = PickPage(
                purpose: printOnly ? .print : .settings,
                tiles: TileServer(
                    urlTemplate: settings.map.tilesURL, attribution: settings.map.attribution,
                    attributionURL: settings.map.attributionURL),
                translation: settings.phrases.translation, start: startingPoint(settings))
            let server: PickServer
            do {
                server = try PickServer.start(page: page, gazetteer: gazetteer, port: port ?? 0)
            } catch {
                throw CommandFailure(message: "\(error)", exitCode: .requestFailed)
            }
            defer { server.stop() }
            // Written at once, unbuffered: a script or a test reads the address while forecastctl waits.
            FileHandle.standardOutput.write(Data((server.url.absoluteString + "\n").utf8))
            if noOpen {
                note("open the address above in a browser; waiting for a choice (Ctrl-C stops)")
            } else {
                openInBrowser(server.url)
            }
            try waitForChoice(server, page, settings: settings, gazetteer: gazetteer)
        }
    }

    /// Answers the page's choices until one is done, or the page falls idle.
    private func waitForChoice(_ server: PickServer, _ page: PickPage, settings: Settings, gazetteer: Gazetteer) throws {
        while true {
            let event: PickEvent
            do {
                event = try server.nextEvent()
            } catch {
                throw CommandFailure(message: "the page's server stopped: \(error)", exitCode: .requestFailed)
            }
            switch event {
            case .idle:
                throw CommandFailure(message: "no word from the page for 10 minutes; nothing was changed", exitCode: .requestFailed)
            case .choice(let choice, let reply):
                do {
                    let answer = try carryOut(choice, page, settings: settings, gazetteer: gazetteer)
                    reply.send(.done(answer))
                } catch let failure as CommandFailure {
                    FileHandle.standardError.write(Data(("forecastctl: " + failure.message + "\n").utf8))
                    reply.send(.failed(failure.message))
                    continue
                }
                if choice.action == .cancel {
                    throw CommandFailure(message: "cancelled on the page; nothing was changed", exitCode: .requestFailed)
                }
                return
            }
        }
    }

    /// Does what the page asked, prints it as `pin` and `cities add` would, and returns the page's sentence.
    private func carryOut(_ choice: PickChoice, _ page: PickPage, settings: Settings, gazetteer: Gazetteer) throws -> String {
        guard choice.action != .cancel else { return page.cancelledText() }
        guard let coordinate = choice.coordinate, let place = choice.place else {
            throw CommandFailure(message: "the choice has no position", exitCode: .requestFailed)
        }
        let label = placeLabel(place)
        switch choice.action {
        case .pin:
            // A place found by name or a dot clicked is exactly a gazetteer place: pinned with its name, as
            // `forecastctl pin "Paris, TX"` pins it. Any other point is pinned as `forecastctl pin LAT,LON`
            // pins it, without a name: the daemon names it by [location] naming, as in its report.
            let isPlace = place.distanceKm == 0
            let outcome: SettingsEditOutcome
            do {
                outcome = try SettingsFileEditor.pinAndUse(
                    Pin(coordinate: coordinate, name: isPlace ? place.name : nil), to: editTarget(global))
            } catch {
                throw CommandFailure(editError: error)
            }
            outcome.lines.forEach { print($0) }
            outcome.notes.forEach(note)
            if let edit = outcome.edit { afterEdit(edit, global) }
            let named = isPlace ? place : gazetteer.namedPlace(at: coordinate, preferCity: settings.location.naming == .city)?.place
            return page.pinnedText(place: placeLabel(named ?? place))
        case .city:
            // The point chosen is the city's position; the nearest place lends its name and region.
            let city = Settings.City(
                name: place.name, admin1: place.admin1, countryCode: place.countryCode, coordinate: coordinate,
                favorite: choice.favorite, added: CalendarDate(Date()))
            switch try addCity(city, global: global) {
            case .added(let added): return page.cityAddedText(place: label, favorite: added.favorite)
            case .listed: return page.cityListedText(place: label)
            }
        case .use:
            print("\(coordinate.latitude),\(coordinate.longitude)\t\(label)")
            return page.usedText(place: label)
        case .cancel:
            return page.cancelledText()
        }
    }

    /// The pin, and where the daemon's report (or the status file it left) says the forecast is for.
    private func startingPoint(_ settings: Settings) -> PickStart {
        var start = PickStart(pin: settings.location.pin)
        var line: String?
        if let client = try? ControlClient(socketPath: global.socketPath(settings), timeout: .seconds(2)) {
            line = try? client.request(.report(ReportOptions()))
        }
        if line == nil, let data = FileManager.default.contents(atPath: global.statusFile(settings)) {
            line = String(data: data, encoding: .utf8)?.split(separator: "\n").first.map(String.init)
        }
        if let line, let report = try? ReportJSON.decode(line) {
            if let location = report.location {
                start.position = PickStart.Position(
                    coordinate: Coordinate(latitude: location.latitude, longitude: location.longitude),
                    accuracyM: location.accuracyM, source: location.source)
            }
            start.forecastPlace = report.place?.name
        }
        return start
    }

    /// Starts `xdg-open URL` without waiting for the browser; a missing xdg-open is a note, not a failure.
    private func openInBrowser(_ url: URL) {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { $0 + "/xdg-open" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else {
            note("xdg-open is not installed: open the address above in a browser; waiting for a choice")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [url.absoluteString]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
            note("opened the page with xdg-open; waiting for a choice (Ctrl-C stops)")
        } catch {
            note("xdg-open could not start (\(error.localizedDescription)): open the address above in a browser")
        }
    }
}
