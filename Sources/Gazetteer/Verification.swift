extension Gazetteer {
    /// Reads the whole file and checks its checksum and every reference between its sections.
    ///
    /// Opening checks only the header, so that it stays cheap; call this where a full check is
    /// worth reading about 10 MB (a diagnostics command, a test, after installing). Throws
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
            let key = regionKey(index)
            guard isValid(key.admin1), isValid(key.country) else {
                throw invalid("region \(index)'s folded names refer outside the string table")
            }
        }
        for index in 0..<count {
            let axis = split(index).axis
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
        try verifyLargestPopulations(invalid)
        try verifyNameIndex(invalid)
    }

    /// Checks that each node holds the largest population of its subtree, which the search for
    /// covering cities relies on to skip subtrees: a wrong figure would hide a city silently.
    private func verifyLargestPopulations(_ invalid: (String) -> GazetteerError) throws(GazetteerError) {
        // Every range of the implicit tree once; each node's figure must equal the largest of its
        // own population and its children's figures.
        var ranges: [(lo: Int, hi: Int)] = [(0, count)]
        while let (lo, hi) = ranges.popLast() {
            let mid = lo + (hi - lo) >> 1
            var expected = record(mid).population
            if lo < mid {
                expected = max(expected, split(lo + (mid - lo) >> 1).largestPopulation)
                ranges.append((lo, mid))
            }
            if mid + 1 < hi {
                expected = max(expected, split(mid + 1 + (hi - mid - 1) >> 1).largestPopulation)
                ranges.append((mid + 1, hi))
            }
            let stored = split(mid).largestPopulation
            guard stored == expected else {
                throw invalid("place \(mid)'s subtree population is \(stored); its subtree's largest is \(expected)")
            }
        }
    }

    /// Checks that the name index lists every place once, in folded-name order.
    private func verifyNameIndex(_ invalid: (String) -> GazetteerError) throws(GazetteerError) {
        var seen = [Bool](repeating: false, count: count)
        var previous: UnsafeRawBufferPointer?
        for position in 0..<count {
            let entry = nameEntry(position)
            guard let folded = bytes(entry.folded) else {
                throw invalid("name index entry \(position) refers outside the string table")
            }
            guard entry.place < count, !seen[entry.place] else {
                throw invalid("name index entry \(position) names place \(entry.place), outside or listed twice")
            }
            seen[entry.place] = true
            if let previous, NameKey.compare(previous, folded) > 0 {
                throw invalid("name index entry \(position) is out of order")
            }
            previous = folded
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
