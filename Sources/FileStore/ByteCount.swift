/// A size in bytes as every message writes it: `512 bytes`, `64 KiB`, `1 MiB`, `1.5 MiB`.
///
/// One formatting for every refusal that names a size (a settings file, a catalogue, a list of cities, a
/// provider's or a warning source's answer, a socket request line), so a limit reads the same wherever it is
/// met. Whole multiples of a unit are written whole, others with one decimal; below 1 KiB in bytes.
public struct ByteCount: Sendable, Hashable, CustomStringConvertible {
    public var bytes: Int

    public init(_ bytes: Int) { self.bytes = bytes }

    public var description: String {
        let units: [(Int, String)] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (size, name) in units where bytes >= size {
            if bytes % size == 0 { return "\(bytes / size) \(name)" }
            // One decimal, rounded up: the sizes messages name are those over a limit, and one just over
            // must not read as the limit itself.
            let tenths = Int((Double(bytes) / Double(size) * 10).rounded(.up))
            return "\(tenths / 10).\(tenths % 10) \(name)"
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}
