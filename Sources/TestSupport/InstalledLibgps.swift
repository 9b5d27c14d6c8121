import Foundation

/// The libgps API the installed `/usr/include/gps.h` declares, `major.minor` (`11.0` for gpsd 3.22, `14.0` for
/// 3.25): what the accessors and `--version` must report, read independently of them.
public func installedLibgpsAPI() throws -> String {
    let header = try String(contentsOfFile: "/usr/include/gps.h", encoding: .utf8)
    func define(_ name: String) throws -> String {
        let value = header.split(separator: "\n").lazy.compactMap { line -> String? in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            return words.count >= 3 && words[0] == "#define" && words[1] == name ? String(words[2]) : nil
        }.first
        guard let value else { throw TestFailure("no #define \(name) in /usr/include/gps.h") }
        return value
    }
    return "\(try define("GPSD_API_MAJOR_VERSION")).\(try define("GPSD_API_MINOR_VERSION"))"
}
