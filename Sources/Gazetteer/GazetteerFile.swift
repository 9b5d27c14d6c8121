/// The layout of gazetteer.bin, version 1, as written by scripts/build-gazetteer.py.
///
/// The script's docstring is the format's full description. Everything is little-endian and
/// every section starts at a multiple of 8 bytes, so a page-aligned mapping can be read
/// through typed pointers in place.
enum GazetteerFormat {
    static let magic: [UInt8] = Array("FCGAZET\u{0}".utf8)
    static let version: UInt32 = 1
    static let headerLength = 128

    // Header field offsets.
    static let versionOffset = 8
    static let headerLengthOffset = 12
    static let fileLengthOffset = 16
    static let checksumOffset = 24
    static let placeCountOffset = 28
    static let regionCountOffset = 32
    static let countryCountOffset = 36
    static let stringLengthOffset = 40
    static let attributionOffset = 44
    static let scaleExponentOffset = 48
    static let sectionTableOffset = 56

    static let regionRecordLength = 12
    static let countryRecordLength = 8

    /// The sections in the order of the header's offset table.
    enum Section: Int, CaseIterable, CustomStringConvertible {
        case vectors, axes, populations, geonameIDs, names, regionIndices, regions, countries, strings

        var description: String {
            switch self {
            case .vectors: "vectors"
            case .axes: "axes"
            case .populations: "populations"
            case .geonameIDs: "geonameIDs"
            case .names: "names"
            case .regionIndices: "regionIndices"
            case .regions: "regions"
            case .countries: "countries"
            case .strings: "strings"
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
    let countryCount: Int
    /// Stored unit vectors are scaled by this (2^30) and rounded.
    let scale: Double
    let checksum: UInt32
    let attributionReference: UInt32

    let vectors: UnsafePointer<Int32>
    let axes: UnsafePointer<UInt8>
    let populations: UnsafePointer<UInt32>
    let geonameIDs: UnsafePointer<UInt32>
    let names: UnsafePointer<UInt32>
    let regionIndices: UnsafePointer<UInt16>
    let regions: UnsafeRawPointer
    let countries: UnsafeRawPointer
    let strings: UnsafeRawBufferPointer
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
        let declaredLength = UInt64(littleEndian:
            bytes.loadUnaligned(fromByteOffset: GazetteerFormat.fileLengthOffset, as: UInt64.self))
        guard declaredLength == UInt64(bytes.count) else {
            let kind = declaredLength > UInt64(bytes.count) ? "truncated" : "has trailing bytes"
            throw invalid("\(kind): the header says \(declaredLength) bytes, the file has \(bytes.count)")
        }

        count = Int(uint32(GazetteerFormat.placeCountOffset))
        regionCount = Int(uint32(GazetteerFormat.regionCountOffset))
        countryCount = Int(uint32(GazetteerFormat.countryCountOffset))
        let stringLength = Int(uint32(GazetteerFormat.stringLengthOffset))
        guard count > 0 else { throw invalid("it holds no places") }
        guard regionCount <= Int(UInt16.max) + 1, countryCount <= Int(UInt16.max) + 1 else {
            throw invalid("\(regionCount) regions and \(countryCount) countries; at most 65,536 of each are allowed")
        }
        let exponent = uint32(GazetteerFormat.scaleExponentOffset)
        guard (1...30).contains(exponent) else {
            throw invalid("coordinate scale exponent \(exponent), expected 1...30")
        }
        scale = Double(1 << Int(exponent))
        checksum = uint32(GazetteerFormat.checksumOffset)
        attributionReference = uint32(GazetteerFormat.attributionOffset)

        // Each section must lie inside the file, after the header, aligned for its element type.
        var starts: [GazetteerFormat.Section: Int] = [:]
        for section in GazetteerFormat.Section.allCases {
            let length: Int
            switch section {
            case .vectors: length = count * 3 * 4
            case .axes: length = count
            case .populations, .geonameIDs, .names: length = count * 4
            case .regionIndices: length = count * 2
            case .regions: length = regionCount * GazetteerFormat.regionRecordLength
            case .countries: length = countryCount * GazetteerFormat.countryRecordLength
            case .strings: length = stringLength
            }
            let start = Int(uint32(GazetteerFormat.sectionTableOffset + 4 * section.rawValue))
            guard start >= headerLength, start % 8 == 0, start <= bytes.count, length <= bytes.count - start else {
                throw invalid(
                    "section \(section) (\(length) bytes at offset \(start)) does not fit a \(bytes.count)-byte file")
            }
            starts[section] = start
        }

        let base = bytes.baseAddress!
        func pointer<T>(_ section: GazetteerFormat.Section, _ type: T.Type, _ capacity: Int) -> UnsafePointer<T> {
            UnsafePointer(base.advanced(by: starts[section]!).bindMemory(to: type, capacity: capacity))
        }
        vectors = pointer(.vectors, Int32.self, count * 3)
        axes = pointer(.axes, UInt8.self, count)
        populations = pointer(.populations, UInt32.self, count)
        geonameIDs = pointer(.geonameIDs, UInt32.self, count)
        names = pointer(.names, UInt32.self, count)
        regionIndices = pointer(.regionIndices, UInt16.self, count)
        regions = base.advanced(by: starts[.regions]!)
        countries = base.advanced(by: starts[.countries]!)
        strings = UnsafeRawBufferPointer(start: base.advanced(by: starts[.strings]!), count: stringLength)
        body = UnsafeRawBufferPointer(rebasing: bytes[headerLength...])
    }

    /// The string a reference (offset << 8 | length) names, or nil when it points outside the table.
    func string(_ reference: UInt32) -> String? {
        let offset = Int(reference >> 8)
        let length = Int(reference & 0xFF)
        guard offset <= strings.count, length <= strings.count - offset else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: strings[offset..<offset + length]), as: UTF8.self)
    }

    /// A region's admin1 reference, time-zone reference and country index.
    func region(_ index: Int) -> (admin1: UInt32, timezone: UInt32, country: Int)? {
        guard index < regionCount else { return nil }
        let offset = index * GazetteerFormat.regionRecordLength
        return (
            UInt32(littleEndian: regions.loadUnaligned(fromByteOffset: offset, as: UInt32.self)),
            UInt32(littleEndian: regions.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)),
            Int(UInt16(littleEndian: regions.loadUnaligned(fromByteOffset: offset + 8, as: UInt16.self)))
        )
    }

    /// A country's ISO code and name reference.
    func country(_ index: Int) -> (code: String, name: UInt32)? {
        guard index < countryCount else { return nil }
        let offset = index * GazetteerFormat.countryRecordLength
        let code = String(
            decoding: UnsafeRawBufferPointer(start: countries.advanced(by: offset), count: 2), as: UTF8.self)
        return (code, UInt32(littleEndian: countries.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
    }
}
