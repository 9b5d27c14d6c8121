import Foundation
import FuzzSupport
import Settings

/// The settings decoder against arbitrary file contents. Beyond not crashing: a file that decodes must give
/// settings that, written out as the documented file (what an edit writes when it creates the user's file),
/// decode to the same settings (a city's id is written only when it differs from the one its name gives).
let defaults = Settings.defaults(environment: ["HOME": "/home/fuzz"], isSystemService: false, userID: 1000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSettings(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let settings = try Settings.decode(text, path: "/fuzz/forecastd.toml", defaults: defaults)
        let written = Settings.documentedText(settings: settings, defaults: defaults)
        let again = try Settings.decode(written, path: "/fuzz/written.toml", defaults: defaults)
        if normalised(again) != normalised(settings) {
            // Release builds drop precondition messages: say what differs before stopping.
            var report = "settings written out do not read back the same.\nWritten:\n\(written)\n"
            dump(settings, to: &report)
            report += "\nRead back:\n"
            dump(again, to: &report)
            FileHandle.standardError.write(Data(report.utf8))
            fatalError("settings written out do not read back the same")
        }
    } catch {
        _ = error.description
    }
    return 0
}

@_cdecl("FuzzSettings_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzzSettings)
}

/// The settings with each city's id as it takes effect: an id written in the file that equals the one
/// derived from the city's name is the same id.
func normalised(_ settings: Settings) -> Settings {
    var settings = settings
    for index in settings.cities.indices {
        settings.cities[index].explicitID = settings.cities[index].id
    }
    return settings
}
