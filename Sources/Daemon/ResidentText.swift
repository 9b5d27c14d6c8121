import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps only the machine code the daemon actually runs resident.
///
/// forecastd's binary carries about 10 MB of code (SwiftNIO, TLS, HTTP, TOML, argument parsing),
/// and the kernel maps executable pages 64 KB at a time around every fault ("fault-around"), so
/// after start-up most of that code counts as resident although an idle daemon runs a small part
/// of it. Advising the executable mappings as random-access turns fault-around off for them, and
/// dropping their pages once lets only the code still in use come back, one page at a time. Only
/// read-only executable mappings are touched: their pages are clean copies of the files on disk,
/// so nothing can be lost.
public enum ResidentText {
    /// Applies the advice to every executable file mapping of this process. Returns the number of
    /// mappings advised.
    @discardableResult
    public static func trim() -> Int {
        guard let maps = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() else {
            return 0
        }
        var advised = 0
        for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            // Only "r-xp" mappings backed by a file: code, never data, never anonymous memory.
            guard fields.count == 6, fields[1] == "r-xp", fields[5].drop(while: { $0 == " " }).hasPrefix("/") else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16),
                end > start, let address = UnsafeMutableRawPointer(bitPattern: start)
            else { continue }
            let length = Int(end - start)
            if madvise(address, length, MADV_RANDOM) == 0 {
                _ = madvise(address, length, MADV_DONTNEED)
                advised += 1
            }
        }
        return advised
    }
}
