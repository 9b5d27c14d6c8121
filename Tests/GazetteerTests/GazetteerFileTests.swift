import ForecastModel
import Foundation
import Testing

@testable import Gazetteer

@Suite("Gazetteer file")
struct GazetteerFileTests {
    @Test("the shipped file opens, passes the full check and credits GeoNames")
    func shippedFile() throws {
        let gazetteer = try openShipped()
        try gazetteer.verify()
        #expect(gazetteer.count > 100_000)
        #expect(gazetteer.attribution == "Place data from GeoNames (geonames.org), CC BY 4.0")
    }

    @Test("every place's record decodes, with its source coordinate")
    func records() throws {
        let gazetteer = try openShipped()
        let origin = Coordinate(latitude: 0, longitude: 0)
        var countryCodes: Set<String> = []
        for index in 0..<gazetteer.count {
            let place = try #require(gazetteer.place(at: index, distanceFrom: origin))
            #expect(!place.name.isEmpty)
            #expect(place.countryCode.count == 2)
            countryCodes.insert(place.countryCode)
            // Coordinates come back as GeoNames wrote them, to 1e-5 degrees.
            let latitude = place.coordinate.latitude
            let longitude = place.coordinate.longitude
            #expect(latitude == (latitude * 100_000).rounded() / 100_000)
            #expect(longitude == (longitude * 100_000).rounded() / 100_000)
            if gazetteer.geonameID(at: index) == 2_977_824 {
                #expect(place.name == "Saint-Ouen")
                #expect(place.coordinate == Coordinate(latitude: 48.90654, longitude: 2.33339))
            }
        }
        #expect(countryCodes.count > 200)
    }

    // MARK: Damaged files

    /// The shipped file's bytes with `edit` applied, written to a temporary file and opened.
    private func open(
        editing edit: (inout Data) -> Void
    ) throws -> (Result<Gazetteer, any Error>, path: String, TemporaryDirectory) {
        var data = try Data(contentsOf: shippedDataURL)
        edit(&data)
        let directory = try TemporaryDirectory()
        let url = try directory.write(data, named: "gazetteer.bin")
        return (Result { try Gazetteer(contentsOf: url) }, url.path, directory)
    }

    private func expectInvalid(
        _ problem: String, editing edit: (inout Data) -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (result, path, directory) = try open(editing: edit)
        defer { withExtendedLifetime(directory) {} }
        guard case .failure(let error) = result else {
            Issue.record("a damaged file opened without an error", sourceLocation: sourceLocation)
            return
        }
        let message = String(describing: error)
        #expect(message.contains(path), "\(message)", sourceLocation: sourceLocation)
        #expect(message.contains(problem), "\(message)", sourceLocation: sourceLocation)
    }

    private static func setUInt32(_ value: UInt32, at offset: Int, in data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.replaceSubrange(offset..<offset + 4, with: $0) }
    }

    @Test("a truncated file is refused, saying how long it should be")
    func truncated() throws {
        try expectInvalid("truncated: the header says") { data in data = data.prefix(data.count / 2) }
        try expectInvalid("truncated: 100 bytes, shorter than the 128-byte header") { data in
            data = data.prefix(100)
        }
        try expectInvalid("the file is empty") { data in data = Data() }
    }

    @Test("a file with bytes after its end is refused")
    func trailingBytes() throws {
        try expectInvalid("has trailing bytes") { data in data.append(contentsOf: [0, 0, 0, 0]) }
    }

    @Test("a file that is not a gazetteer is refused")
    func wrongSignature() throws {
        try expectInvalid("does not start with the gazetteer signature") { data in
            data = Data("geonameid\tname\tlatitude\n".utf8) + data
        }
    }

    @Test("a file of another format version is refused, naming both versions")
    func otherVersion() throws {
        try expectInvalid("format version 3, but this build reads version 2 only") { data in
            Self.setUInt32(3, at: GazetteerFormat.versionOffset, in: &data)
        }
        // Version 1 had no name index.
        try expectInvalid("format version 1, but this build reads version 2 only") { data in
            Self.setUInt32(1, at: GazetteerFormat.versionOffset, in: &data)
        }
    }

    @Test("a section that points past the end is refused")
    func sectionOutside() throws {
        try expectInvalid("section strings") { data in
            let slot = GazetteerFormat.sectionTableOffset + 4 * GazetteerFormat.Section.strings.rawValue
            Self.setUInt32(UInt32(data.count - 8), at: slot, in: &data)
        }
        try expectInvalid("section nodes") { data in
            // A place count too large for the file makes the tree overrun it.
            Self.setUInt32(100_000_000, at: GazetteerFormat.placeCountOffset, in: &data)
        }
    }

    @Test("a corrupt byte inside the data is found by verify()")
    func corruptContent() throws {
        let (result, path, directory) = try open { data in
            data[data.count - 10] ^= 0xFF
        }
        defer { withExtendedLifetime(directory) {} }
        // The header is intact, so opening succeeds: only the full check reads everything.
        let gazetteer = try result.get()
        let error = try #require(throws: GazetteerError.self) { try gazetteer.verify() }
        let message = String(describing: error)
        #expect(message.contains(path))
        #expect(message.contains("corrupt: the checksum of its contents"))
    }

    @Test("a broken reference yields no place instead of a crash, and verify() names it")
    func brokenReference() throws {
        let shipped = try openShipped()
        let target = Coordinate(latitude: 48.9043, longitude: 2.3330)
        let index = try #require(shipped.nearestIndex(to: target))
        let recordsSlot = GazetteerFormat.sectionTableOffset + 4 * GazetteerFormat.Section.records.rawValue
        let recordsStart = Int(
            try Data(contentsOf: shippedDataURL).withUnsafeBytes {
                $0.loadUnaligned(fromByteOffset: recordsSlot, as: UInt32.self)
            })
        let (result, path, directory) = try open { data in
            // The name reference is the first word of the place's 16-byte record.
            Self.setUInt32(0xFFFF_FFFF, at: recordsStart + 16 * index, in: &data)
            // A matching checksum, so that verify() reaches the reference check.
            let checksum = data.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[128...])) }
            Self.setUInt32(checksum, at: GazetteerFormat.checksumOffset, in: &data)
        }
        defer { withExtendedLifetime(directory) {} }
        let gazetteer = try result.get()
        #expect(gazetteer.nearestPlace(to: target) == nil)
        #expect(gazetteer.nearestPlace(to: Coordinate(latitude: 50.8402, longitude: 4.3471))?.name == "Brussels")
        let error = try #require(throws: GazetteerError.self) { try gazetteer.verify() }
        #expect(String(describing: error).contains("place \(index)'s name reference points outside the string table"))
        #expect(String(describing: error).contains(path))
    }

    /// The shipped file with the 32-bit word at `offset(sectionStart)` replaced and the checksum
    /// fixed, so that verify() gets past the checksum to the structural checks.
    private func expectVerifyFailure(
        _ problem: String, section: GazetteerFormat.Section, sourceLocation: SourceLocation = #_sourceLocation,
        edit: (_ sectionStart: Int, inout Data) -> Void
    ) throws {
        let slot = GazetteerFormat.sectionTableOffset + 4 * section.rawValue
        let start = Int(
            try Data(contentsOf: shippedDataURL).withUnsafeBytes {
                $0.loadUnaligned(fromByteOffset: slot, as: UInt32.self)
            })
        let (result, _, directory) = try open { data in
            edit(start, &data)
            let checksum = data.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[128...])) }
            Self.setUInt32(checksum, at: GazetteerFormat.checksumOffset, in: &data)
        }
        defer { withExtendedLifetime(directory) {} }
        let gazetteer = try result.get()
        let error = try #require(throws: GazetteerError.self, sourceLocation: sourceLocation) { try gazetteer.verify() }
        #expect(String(describing: error).contains(problem), "\(error)", sourceLocation: sourceLocation)
    }

    @Test("verify() finds a wrong subtree population, which would hide a city from the naming rule")
    func wrongSubtreePopulation() throws {
        // The root node (the middle one) holds the largest population of all: Shanghai's.
        let root = try openShipped().count / 2
        try expectVerifyFailure("place \(root)'s subtree population is 1000", section: .nodes) { start, data in
            Self.setUInt32(1000 << 2 | 0, at: start + 16 * root + 12, in: &data)
        }
    }

    @Test("verify() finds a name index out of order")
    func nameIndexOrder() throws {
        try expectVerifyFailure("name index entry", section: .names) { start, data in
            // Swap the first entry's folded name with the last one's.
            let first = data.subdata(in: start..<start + 4)
            let lastOffset = start + 8 * (170_391 - 1)
            let last = data.subdata(in: lastOffset..<lastOffset + 4)
            data.replaceSubrange(start..<start + 4, with: last)
            data.replaceSubrange(lastOffset..<lastOffset + 4, with: first)
        }
    }

    @Test("a missing file or a directory is refused, naming it")
    func notAFile() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("absent.bin")
        let missingError = try #require(throws: GazetteerError.self) { try Gazetteer(contentsOf: missing) }
        #expect(missingError == .cannotOpen(path: missing.path, reason: "No such file or directory"))
        #expect(String(describing: missingError).contains(missing.path))

        let folderError = try #require(throws: GazetteerError.self) { try Gazetteer(contentsOf: directory.url) }
        #expect(folderError == .invalidFile(path: directory.url.path, problem: "it is not a regular file"))
    }

    @Test("the checksum is zlib's CRC-32")
    func crc32() {
        // The check value every CRC-32 implementation publishes.
        let checksum = Array("123456789".utf8).withUnsafeBytes { CRC32.checksum($0) }
        #expect(checksum == 0xCBF4_3926)
    }
}
