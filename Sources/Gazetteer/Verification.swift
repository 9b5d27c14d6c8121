extension Gazetteer {
    /// Reads the whole file and checks its checksum and every reference between its sections.
    ///
    /// Opening checks only the header, so that it stays cheap; call this where a full check is
    /// worth reading about 7 MB (a diagnostics command, a test, after installing). Throws
    /// `GazetteerError.invalidFile` naming the first problem.
    public func verify() throws {
        try tables.verify(path: url.path)
    }
}

extension GazetteerTables {
    func verify(path: String) throws(GazetteerError) {
        func invalid(_ problem: String) -> GazetteerError {
            .invalidFile(path: path, problem: problem)
        }
        let actual = CRC32.checksum(body)
        guard actual == checksum else {
            throw invalid(
                "corrupt: the checksum of its contents is \(hex(actual)), the header says \(hex(checksum))")
        }
        // References are checked without decoding, so that the check allocates nothing per place.
        guard isValid(attributionReference) else {
            throw invalid("the attribution's string reference points outside the string table")
        }
        for index in 0..<regionCount {
            guard let region = region(index), isValid(region.admin1), isValid(region.timezone),
                isValid(region.countryName)
            else {
                throw invalid("region \(index) refers outside the string table")
            }
        }
        for index in 0..<count {
            let axis = nodes[GazetteerFormat.wordsPerEntry * index + 3]
            guard (0...2).contains(axis) else {
                throw invalid("place \(index) has split axis \(axis); expected 0, 1 or 2")
            }
            let record = record(index)
            guard isValid(record.name) else {
                throw invalid("place \(index)'s name reference points outside the string table")
            }
            guard record.region < regionCount else {
                throw invalid("place \(index) refers to region \(record.region) of \(regionCount)")
            }
        }
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "0x" + String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// CRC-32 as zlib computes it (polynomial 0xEDB88320, reflected), which the build script writes.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { byte in
        var value = UInt32(byte)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
