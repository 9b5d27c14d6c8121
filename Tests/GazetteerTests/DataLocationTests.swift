import Foundation
import Testing

@testable import Gazetteer

@Suite("Finding the data")
struct DataLocationTests {
    @Test("finds the resource bundle that swift build puts beside the executable")
    func defaultData() throws {
        let url = try Gazetteer.locateDefaultData()
        if let override = ProcessInfo.processInfo.environment["FORECASTD_GAZETTEER"], !override.isEmpty {
            #expect(url.path == override)
        } else {
            #expect(url.path.hasSuffix("/forecastd_Gazetteer.resources/gazetteer.bin"), "found \(url.path)")
        }
        let gazetteer = try Gazetteer.loadDefault()
        #expect(gazetteer.nearestPlace(to: .init(latitude: 50.8402, longitude: 4.3471))?.name == "Brussels")
    }

    @Test("FORECASTD_GAZETTEER overrides the search")
    func environmentOverride() throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.write(try Data(contentsOf: shippedDataURL), named: "custom.bin")
        let found = try Gazetteer.locateData(
            environment: ["FORECASTD_GAZETTEER": copy.path], executableDirectories: ["/opt/x/bin"])
        #expect(found.path == copy.path)
        #expect(try Gazetteer(contentsOf: found).count > 0)
    }

    @Test("a FORECASTD_GAZETTEER naming no file is an error, not a fall-back to other data")
    func environmentMissing() throws {
        let error = try #require(throws: GazetteerError.self) {
            try Gazetteer.locateData(
                environment: ["FORECASTD_GAZETTEER": "/nonexistent/g.bin"], executableDirectories: [],
                fileExists: { $0 != "/nonexistent/g.bin" })
        }
        #expect(error == .dataNotFound(tried: ["/nonexistent/g.bin (from FORECASTD_GAZETTEER)"]))
    }

    @Test("looks beside the executable first, then under its prefix, then the system directories")
    func searchOrder() throws {
        let error = try #require(throws: GazetteerError.self) {
            try Gazetteer.locateData(
                environment: [:], executableDirectories: ["/opt/fc/bin"], fileExists: { _ in false })
        }
        #expect(
            error == .dataNotFound(tried: [
                "/opt/fc/bin/forecastd_Gazetteer.resources/gazetteer.bin",
                "/opt/fc/share/forecastd/gazetteer.bin",
                "/usr/local/share/forecastd/gazetteer.bin",
                "/usr/share/forecastd/gazetteer.bin",
                Gazetteer.sourceTreeDataPath,
            ]))
        let message = String(describing: error)
        #expect(message.contains("/opt/fc/bin/forecastd_Gazetteer.resources/gazetteer.bin, /opt/fc/share"))
        #expect(message.contains("set FORECASTD_GAZETTEER"))

        let found = try Gazetteer.locateData(
            environment: [:], executableDirectories: ["/opt/fc/bin"],
            fileExists: { $0.hasPrefix("/usr/") })
        #expect(found.path == "/usr/local/share/forecastd/gazetteer.bin")
    }

    @Test("the source-tree fall-back is the file the repository ships")
    func sourceTree() {
        #expect(
            URL(fileURLWithPath: Gazetteer.sourceTreeDataPath).resolvingSymlinksInPath()
                == shippedDataURL.resolvingSymlinksInPath())
    }
}
