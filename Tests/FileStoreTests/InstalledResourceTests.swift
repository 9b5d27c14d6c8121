import FileStore
import Foundation
import Testing

/// The gazetteer, the catalogues, the warning area files and the map page are found in one order.
@Suite("Finding shipped resources")
struct InstalledResourceTests {
    let place = InstalledResource.Place(
        bundle: "forecastd_Localization.resources", inBundle: "po", sourceTree: "/src/forecastd/Sources/Localization/po")

    @Test("the bundles beside the executable, then its prefix's share, the system directories, the source tree")
    func order() {
        #expect(
            InstalledResource.candidates(place, executableDirectories: ["/opt/fc/bin", "/home/u/.local/bin"])
                == [
                    "/opt/fc/bin/forecastd_Localization.resources/po",
                    "/home/u/.local/bin/forecastd_Localization.resources/po",
                    "/opt/fc/share/forecastd/po", "/home/u/.local/share/forecastd/po",
                    "/usr/local/share/forecastd/po", "/usr/share/forecastd/po",
                    "/src/forecastd/Sources/Localization/po",
                ])
        // The map page has another name once installed.
        let page = InstalledResource.Place(bundle: "b.resources", inBundle: "page", installed: "pick", sourceTree: "/s/page")
        #expect(
            InstalledResource.candidates(page, executableDirectories: ["/usr/bin"])
                == ["/usr/bin/b.resources/page", "/usr/share/forecastd/pick", "/usr/local/share/forecastd/pick", "/s/page"])
    }

    @Test("a directory is found under the prefix; a bundle beside the executable wins; a file of that name is no directory")
    func directories() throws {
        let root = NSTemporaryDirectory() + "resource-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: root + "/share/forecastd/po", withIntermediateDirectories: true)
        #expect(
            try InstalledResource.locate(place, kind: .directory, environment: [:], executableDirectories: [root + "/bin"]).path
                == root + "/share/forecastd/po")
        try manager.createDirectory(atPath: root + "/bin/forecastd_Localization.resources", withIntermediateDirectories: true)
        #expect(manager.createFile(atPath: root + "/bin/forecastd_Localization.resources/po", contents: Data()))
        #expect(
            try InstalledResource.locate(place, kind: .directory, environment: [:], executableDirectories: [root + "/bin"]).path
                == root + "/share/forecastd/po")
        try manager.removeItem(atPath: root + "/bin/forecastd_Localization.resources/po")
        try manager.createDirectory(atPath: root + "/bin/forecastd_Localization.resources/po", withIntermediateDirectories: true)
        #expect(
            try InstalledResource.locate(place, kind: .directory, environment: [:], executableDirectories: [root + "/bin"]).path
                == root + "/bin/forecastd_Localization.resources/po")
    }

    @Test("the override variable alone is tried when set; nothing found names every path tried")
    func overrideAndNotFound() throws {
        let error = try #require(throws: InstalledResource.NotFound.self) {
            try InstalledResource.locate(
                place, kind: .directory, overrideVariable: "FORECASTD_LOCALEDIR",
                environment: ["FORECASTD_LOCALEDIR": "/nonexistent/po"], executableDirectories: [])
        }
        #expect(error.tried == ["/nonexistent/po (from FORECASTD_LOCALEDIR)"])
        let none = try #require(throws: InstalledResource.NotFound.self) {
            try InstalledResource.locate(
                place, overrideVariable: "FORECASTD_LOCALEDIR", environment: ["FORECASTD_LOCALEDIR": ""],
                executableDirectories: ["/opt/fc/bin"], accepts: { _ in false })
        }
        #expect(none.tried.count == 5 && none.tried.first == "/opt/fc/bin/forecastd_Localization.resources/po")
        #expect(none.description.hasPrefix("not found (tried /opt/fc/bin/forecastd_Localization.resources/po, /opt/fc/share"))
    }
}
