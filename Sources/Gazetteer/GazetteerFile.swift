/// The layout of gazetteer.bin, version 2, as written by scripts/build-gazetteer.py.
///
/// The script's docstring is the format's full description. Everything is little-endian and
/// every section starts at a multiple of 16 bytes, so a page-aligned mapping can be read
/// through typed pointers in place.
enum GazetteerFormat {
    static let magic: [UInt8] = Array("FCGAZET\u{0}".utf8)
    static let version: UInt32 = 2
    static let headerLength = 128

    // Header field offsets.
    static let versionOffset = 8
    static let headerLengthOffset = 12
    static let fileLengthOffset = 16
    static let checksumOffset = 24
    static let placeCountOffset = 28
    static let regionCountOffset = 32
    static let stringLengthOffset = 36
    static let attributionOffset = 40
    static let scaleExponentOffset = 44
    static let sectionTableOffset = 56

    /// Nodes, records and regions are each four 32-bit words.
    static let wordsPerEntry = 4
    /// Name-index entries and region keys are each two 32-bit words.
    static let wordsPerKey = 2
    /// The low bits of a node's fourth word that hold its split axis; the rest hold the largest
    /// population in its subtree.
    static let axisMask: UInt32 = 0b11
    static let axisBits: UInt32 = 2

    /// The sections in the order of the header's offset table.
    enum Section: Int, CaseIterable, CustomStringConvertible {
        case nodes, records, regions, strings, names, regionKeys

        var description: String {
            switch self {
            case .nodes: "nodes"
            case .records: "records"
            case .regions: "regions"
            case .strings: "strings"
            case .names: "names"
            case .regionKeys: "region keys"
            }
        }
    }
}

/// Typed views of the sections of one mapped gazetteer file, checked against the file's size.
///
/// Only the header is read here; a section's pages stay untouched until a lookup reads them.
struct GazetteerTables: @unchecked Sendable {
    // Unchecked: every pointer points into a read-only mapping that the owning Gazetteer keeps
    // alive and nobody writes.

    let count: Int
    let regionCount: Int
    /// Stored unit vectors are scaled by this (2^30) and rounded.
    let scale: Double
    let checksum: UInt32
    let attributionReference: UInt32

    /// Per place: x, y, z of the scaled unit vector and the k-d tree split axis (low two bits)
    /// with the largest population in the node's subtree (the other 30).
    let nodes: UnsafePointer<Int32>
    /// Per place: name reference, population, GeoNames id, region index.
    let records: UnsafePointer<UInt32>
    /// Per region: admin1, time zone and country name references, then the country code's bytes.
    let regions: UnsafePointer<UInt32>
    let strings: UnsafeRawBufferPointer
    /// The name index, sorted by folded name: per entry the folded name's reference and the place.
    let names: UnsafePointer<UInt32>
    /// Per region: the references of its folded admin1 and folded country names.
    let regionKeys: UnsafePointer<UInt32>
    /// Everything after the header: what the checksum covers.
    let body: UnsafeRawBufferPointer

    /// Reads and checks the header; throws naming the first problem found.
    init(bytes: UnsafeRawBufferPointer, path: String) throws(GazetteerError) {
        func invalid(_ problem: String) -> GazetteerError {
            .invalidFile(path: path, problem: problem)
        }
        func uint32(_ offset: Int) -> UInt32 {
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }

        guard 1.littleEndian == 1 else {
            throw invalid("this build reads little-endian data only and this machine is big-endian")
        }
        let magic = GazetteerFormat.magic
        guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else {
            throw invalid("it does not start with the gazetteer signature \"FCGAZET\"")
        }
        guard bytes.count >= GazetteerFormat.headerLength else {
            throw invalid(
                "truncated: \(bytes.count) bytes, shorter than the \(GazetteerFormat.headerLength)-byte header")
        }
        let version = uint32(GazetteerFormat.versionOffset)
        guard version == GazetteerFormat.version else {
            throw invalid("format version \(version), but this build reads version \(GazetteerFormat.version) only")
        }
        let headerLength = Int(uint32(GazetteerFormat.headerLengthOffset))
        guard headerLength == GazetteerFormat.headerLength else {
            throw invalid("header length \(headerLength), expected \(GazetteerFormat.headerLength)")
        }
        let declaredLength = UInt64(
            littleEndian: bytes.loadUnaligned(fromByteOffset: GazetteerFormat.fileLengthOffset, as: UInt64.self))
        guard declaredLength == UInt64(bytes.count) else {
            let kind = declaredLength > UInt64(bytes.count) ? "truncated" : "has trailing bytes"
            throw invalid("\(kind): the header says \(declaredLength) bytes, the file has \(bytes.count)")
        }

        count = Int(uint32(GazetteerFormat.placeCountOffset))
        regionCount = Int(uint32(GazetteerFormat.regionCountOffset))
        let stringLength = Int(uint32(GazetteerFormat.stringLengthOffset))
        guard count > 0 else { throw invalid("it holds no places") }
        let exponent = uint32(GazetteerFormat.scaleExponentOffset)
        guard (1...30).contains(exponent) else {
            throw invalid("coordinate scale exponent \(exponent), expected 1...30")
        }
        scale = Double(1 << Int(exponent))
        checksum = uint32(GazetteerFormat.checksumOffset)
        attributionReference = uint32(GazetteerFormat.attributionOffset)

        // Each section must lie inside the file, after the header, aligned for 32-bit words.
        let entryLength = GazetteerFormat.wordsPerEntry * 4
        var starts = [Int](repeating: 0, count: GazetteerFormat.Section.allCases.count)
        for section in GazetteerFormat.Section.allCases {
            let length: Int
            switch section {
            case .nodes, .records: length = count * entryLength
            case .regions: length = regionCount * entryLength
            case .strings: length = stringLength
            case .names: length = count * GazetteerFormat.wordsPerKey * 4
            case .regionKeys: length = regionCount * GazetteerFormat.wordsPerKey * 4
            }
            let start = Int(uint32(GazetteerFormat.sectionTableOffset + 4 * section.rawValue))
            guard start >= headerLength, start % 16 == 0, start <= bytes.count, length <= bytes.count - start else {
                throw invalid(
                    "section \(section) (\(length) bytes at offset \(start)) does not fit a \(bytes.count)-byte file")
            }
            starts[section.rawValue] = start
        }

        let base = bytes.baseAddress!
        func words<T>(_ section: GazetteerFormat.Section, _ type: T.Type, count: Int) -> UnsafePointer<T> {
            UnsafePointer(base.advanced(by: starts[section.rawValue]).bindMemory(to: type, capacity: count))
        }
        nodes = words(.nodes, Int32.self, count: count * GazetteerFormat.wordsPerEntry)
        records = words(.records, UInt32.self, count: count * GazetteerFormat.wordsPerEntry)
        regions = words(.regions, UInt32.self, count: regionCount * GazetteerFormat.wordsPerEntry)
        names = words(.names, UInt32.self, count: count * GazetteerFormat.wordsPerKey)
        regionKeys = words(.regionKeys, UInt32.self, count: regionCount * GazetteerFormat.wordsPerKey)
        strings = UnsafeRawBufferPointer(
            start: base.advanced(by: starts[GazetteerFormat.Section.strings.rawValue]), count: stringLength)
        body = UnsafeRawBufferPointer(rebasing: bytes[headerLength...])
    }

    /// The string a reference (offset << 8 | length) names, or nil when it points outside the table.
    func string(_ reference: UInt32) -> String? {
        guard isValid(reference) else { return nil }
        let offset = Int(reference >> 8)
        return String(
            decoding: UnsafeRawBufferPointer(rebasing: strings[offset..<offset + Int(reference & 0xFF)]),
            as: UTF8.self)
    }

    /// Whether a string reference lies inside the string table.
    func isValid(_ reference: UInt32) -> Bool {
        let offset = Int(reference >> 8)
        return offset <= strings.count && Int(reference & 0xFF) <= strings.count - offset
    }

    // The typed sections are read as native integers: init refuses big-endian machines.

    /// A place's name reference, population, GeoNames id and region index.
    func record(_ index: Int) -> (name: UInt32, population: UInt32, geonameID: UInt32, region: Int) {
        let entry = records + GazetteerFormat.wordsPerEntry * index
        return (entry[0], entry[1], entry[2], Int(entry[3]))
    }

    /// A node's split axis (0, 1 or 2 in a sound file) and the largest population in its subtree.
    @inline(__always)
    func split(_ index: Int) -> (axis: Int, largestPopulation: UInt32) {
        let word = UInt32(bitPattern: nodes[GazetteerFormat.wordsPerEntry * index + 3])
        return (Int(word & GazetteerFormat.axisMask), word >> GazetteerFormat.axisBits)
    }

    /// The name-index entry at `position`: the folded name's reference and the place's index.
    @inline(__always)
    func nameEntry(_ position: Int) -> (folded: UInt32, place: Int) {
        let entry = names + GazetteerFormat.wordsPerKey * position
        return (entry[0], Int(entry[1]))
    }

    /// A region's folded admin1 and folded country-name references.
    @inline(__always)
    func regionKey(_ index: Int) -> (admin1: UInt32, country: UInt32) {
        let entry = regionKeys + GazetteerFormat.wordsPerKey * index
        return (entry[0], entry[1])
    }

    /// The bytes a string reference names, or nil when it points outside the table.
    @inline(__always)
    func bytes(_ reference: UInt32) -> UnsafeRawBufferPointer? {
        guard isValid(reference) else { return nil }
        let offset = Int(reference >> 8)
        return UnsafeRawBufferPointer(rebasing: strings[offset..<offset + Int(reference & 0xFF)])
    }

    /// A region's admin1, time-zone and country-name references and its country code, or nil
    /// when the index is outside the table.
    func region(_ index: Int) -> (admin1: UInt32, timezone: UInt32, countryName: UInt32, countryCode: String)? {
        guard index >= 0, index < regionCount else { return nil }
        let entry = regions + GazetteerFormat.wordsPerEntry * index
        let code = UnsafeRawBufferPointer(start: entry + 3, count: 2)
        return (entry[0], entry[1], entry[2], String(decoding: code, as: UTF8.self))
    }
}
