import ForecastModel
import Foundation
import Gazetteer

#if canImport(Glibc)
    import Glibc
#endif

/// Prints how much resident memory the gazetteer adds to a process: after opening it, after
/// one lookup and after many, as the daemon would see over days of moving around.
///
///     GazetteerMemory [--cold] [gazetteer.bin]
///
/// `--cold` first evicts the file from the page cache, as after a reboot: then a lookup maps only
/// the pages it reads. With the file already cached, the kernel maps cached neighbours of each
/// page read as well (fault-around, and whole large folios on kernels that cache files in them).
@main
enum GazetteerMemory {
    static func main() throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let cold = arguments.first == "--cold"
        if cold { arguments.removeFirst() }
        let url: URL
        if let path = arguments.first {
            url = URL(fileURLWithPath: path)
        } else {
            url = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent()  // GazetteerMemory
                .deletingLastPathComponent()  // Sources
                .deletingLastPathComponent()  // Benchmarks
                .deletingLastPathComponent()
                .appendingPathComponent("Sources/Gazetteer/Resources/gazetteer.bin")
        }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        print("file: \(url.path) (\(size / 1024) KiB), page cache: \(cold ? "evicted first" : "as found")")
        if cold { evictFromPageCache(url.path) }
        report("before opening", mapping: url.path)
        let gazetteer = try Gazetteer(contentsOf: url)
        report("after opening", mapping: url.path)
        let paris = gazetteer.nearestPlace(to: Coordinate(latitude: 48.9043, longitude: 2.3330))
        report("after 1 lookup (\(paris?.name ?? "none"))", mapping: url.path)
        for (name, coordinate) in [
            ("Brussels", Coordinate(latitude: 50.8402, longitude: 4.3471)),
            ("Adelboden", Coordinate(latitude: 46.4983, longitude: 7.5674)),
            ("Madrid", Coordinate(latitude: 40.3977, longitude: -3.6527)),
        ] {
            _ = gazetteer.nearestPlace(to: coordinate)
            report("after a lookup near \(name)", mapping: url.path)
        }

        var generator = SystemRandomNumberGenerator()
        var found = 0
        for count in [100, 1_000, 10_000, 100_000] {
            while found < count {
                let point = Coordinate(
                    latitude: asin(Double.random(in: -1...1, using: &generator)) * 180 / .pi,
                    longitude: Double.random(in: -180...180, using: &generator))
                if gazetteer.nearestPlace(to: point) != nil { found += 1 }
            }
            report("after \(count) random lookups", mapping: url.path)
        }
    }

    /// Asks the kernel to drop the file's clean pages from the page cache.
    static func evictFromPageCache(_ path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = posix_fadvise(descriptor, 0, 0, Int32(POSIX_FADV_DONTNEED))
    }

    /// Prints the process's VmRSS and the resident part of the gazetteer's own mapping.
    static func report(_ moment: String, mapping path: String) {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let processRSS = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }?
            .dropFirst("VmRSS:".count).trimmingCharacters(in: .whitespaces) ?? "?"
        // In smaps, a mapping's header line ends with the file's path and its Rss line follows.
        var mappingRSS = "not mapped"
        // String(contentsOfFile:) stops after the first page of a /proc file; read to the end.
        let smapsData = FileHandle(forReadingAtPath: "/proc/self/smaps")?.readDataToEndOfFile() ?? Data()
        let smaps = String(decoding: smapsData, as: UTF8.self)
        var inMapping = false
        for line in smaps.split(separator: "\n") {
            if line.first?.isHexDigit == true && line.contains("-") && !line.hasSuffix(":") {
                inMapping = line.hasSuffix(path)
            } else if inMapping && line.hasPrefix("Rss:") {
                mappingRSS = line.dropFirst("Rss:".count).trimmingCharacters(in: .whitespaces)
            }
        }
        let moment = moment.padding(toLength: 34, withPad: " ", startingAt: 0)
        print("\(moment) process VmRSS \(processRSS), gazetteer mapping Rss \(mappingRSS)")
    }
}
