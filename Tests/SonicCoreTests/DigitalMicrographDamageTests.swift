import SampleWriters
import SonicCore
import TestSupport
import Testing

/// Damaged and hostile files: each gives an ImageFileError with a clear message, never a crash,
/// and nothing is allocated from a size the file cannot back.
@Suite struct DigitalMicrographDamageTests {
    static func small(version: Int, littleEndian: Bool = true) -> SampleDM {
        SampleDM(
            version: version, littleEndian: littleEndian,
            images: [
                .init(
                    title: "tiny", dimensions: [2, 2], dataType: .int16, values: [-1, 2, -3, 4],
                    axes: [.init(scale: 0.5, units: "nm"), .init(scale: 0.5, units: "nm")])
            ])
    }

    func message(_ bytes: [UInt8]) -> String? {
        do {
            _ = try DigitalMicrograph.contents(of: bytes)
            return nil
        } catch {
            return error.message
        }
    }

    /// A root holding one data tag `X`, so that its info words and payload sit at known places.
    func oneTag(_ value: SampleDM.Value, version: Int = 4) -> [UInt8] {
        SampleDM.file(version: version, littleEndian: true, root: [.data("X", value)])
    }

    func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }

    /// Where the first "%%%%" delimiter starts.
    func delimiter(in bytes: [UInt8]) throws -> Int {
        try #require((0..<bytes.count - 3).first { bytes[$0..<$0 + 4].elementsEqual("%%%%".utf8) })
    }

    @Test func everyTruncationOfTheTagTreeIsAnError() throws {
        for version in [3, 4] {
            for littleEndian in [true, false] {
                let bytes = Self.small(version: version, littleEndian: littleEndian).bytes
                let treeEnd = bytes.count - 8 // the writer ends the file with 8 zero bytes after the tree
                for length in 0..<treeEnd {
                    let found = message(Array(bytes[0..<length]))
                    let text = try #require(found, "DM\(version) cut at \(length) was accepted")
                    #expect(
                        ["truncated", "past the end", "more than the file can hold", "too short"]
                            .contains { text.contains($0) }, "DM\(version) cut at \(length): \(text)")
                    #expect(!text.contains("\n"))
                }
                for length in treeEnd...bytes.count {
                    #expect(message(Array(bytes[0..<length])) == nil, "DM\(version) cut at \(length)")
                }
            }
        }
    }

    @Test func truncationMessagesSayWhereTheFileEnds() throws {
        let bytes = Self.small(version: 3).bytes
        let label = Array("ImageList".utf8)
        let cut =
            try #require((0...bytes.count - label.count).first { bytes[$0..<$0 + label.count].elementsEqual(label) })
            + 5
        #expect(message(Array(bytes[0..<cut])) == "the tag tree is truncated at byte \(cut)")
        #expect(message([0, 0, 0]) == "the file is too short for a DigitalMicrograph header")
    }

    @Test func otherVersionsAndByteOrdersAreRefused() {
        var bytes = Self.small(version: 4).bytes
        bytes[3] = 5
        #expect(message(bytes) == "the file is DigitalMicrograph version 5, not 3 or 4")
        bytes = Self.small(version: 4).bytes
        bytes[15] = 2
        #expect(message(bytes) == "the byte order flag is 2, not 0 or 1")
        bytes = Self.small(version: 3).bytes
        bytes[8] = 0x80
        #expect(message(bytes) == "the byte order flag is 2147483649, not 0 or 1")
    }

    @Test func groupsClaimingMoreTagsThanTheFileHoldsAreRefused() {
        for (version, claim) in [(3, UInt64(UInt32.max)), (4, UInt64(1) << 40), (4, UInt64.max)] {
            let bytes = SampleDM.file(
                version: version, littleEndian: true,
                root: [.group("ImageList", [.group("", [])], claimedCount: claim)])
            let text = message(bytes) ?? ""
            #expect(
                text.hasPrefix("the tag group at byte ")
                    && text.hasSuffix("claims \(claim) tags, more than the file can hold"),
                "\(text)")
        }
    }

    @Test func nestingIsBoundedAt64Groups() {
        /// A DM3 root holding a chain of `depth` groups named "g", the innermost empty.
        func nested(_ depth: Int) -> [UInt8] {
            var bytes: [UInt8] = [0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1]
            for level in 1...depth { bytes += [20, 0, 1, UInt8(ascii: "g"), 0, 1, 0, 0, 0, level < depth ? 1 : 0] }
            return bytes
        }
        #expect(message(nested(64)) == nil)
        #expect(message(nested(65)) == "the tag tree is nested more than 64 groups deep")
        #expect(message(nested(100_000)) == "the tag tree is nested more than 64 groups deep")
    }

    @Test func theTotalNumberOfTagsIsBounded() {
        // A DM3 root of empty, unnamed groups: kind, label length, flags, count (9 bytes each).
        let count = (1 << 20) + 1
        var bytes: [UInt8] = [0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1]
        bytes += bigEndian(UInt64(count), width: 4)
        bytes.reserveCapacity(bytes.count + 9 * count)
        for _ in 0..<count { bytes += [20, 0, 0, 0, 1, 0, 0, 0, 0] }
        #expect(message(bytes) == "the tag tree has more than 1048576 tags")
    }

    @Test func arraysLongerThanTheFileAreRefusedWithoutOverflow() {
        let hostile: [(Int, [UInt64])] = [
            (4, [20, 7, 1 << 61]), // 8 × 2^61 overflows 64 bits
            (4, [20, 7, UInt64.max]),
            (4, [20, 2, 1 << 40]),
            (3, [20, 7, 0xFFFF_FFFF]),
            (4, [20, 20, 7, 1 << 62, 4]), // array of arrays: the inner size overflows
            (4, [20, 20, 2, 1 << 31, 1 << 33]), // fine alone, overflowing together
            (4, [20, 15, 0, 1, 0, 7, 1 << 62]), // array of structs
            (4, [20, 18, 1 << 32, 1 << 32]), // array of strings
            (4, [18, UInt64.max]) // a string
        ]
        for (version, info) in hostile {
            let text = message(oneTag(.raw(info: info, payload: [1, 2, 3, 4, 5, 6, 7, 8]), version: version))
            #expect(text?.hasSuffix("runs past the end of the file") == true, "\(info): \(text ?? "accepted")")
        }
    }

    @Test func infoWordCountsAreChecked() throws {
        for version in [3, 4] {
            let wordSize = version == 4 ? 8 : 4
            for (count, expected) in [
                (UInt64(0), "has no type description"), (UInt64(UInt32.max), "more than the file can hold")
            ] {
                var bytes = oneTag(.simple(.int32, 7), version: version)
                let at = try delimiter(in: bytes) + 4
                bytes.replaceSubrange(at..<at + wordSize, with: bigEndian(count, width: wordSize))
                let text = message(bytes)
                #expect(
                    text?.hasPrefix("the data tag at byte ") == true && text?.contains(expected) == true,
                    "DM\(version) \(count): \(text ?? "accepted")")
            }
        }
    }

    @Test func malformedTypeDescriptionsAreRefused() {
        let cases: [([UInt64], String)] = [
            ([13], "has unknown data type 13"),
            ([0], "has unknown data type 0"),
            ([20, 16, 3], "has unknown array element type 16"),
            ([15, 0, 1, 0, 20], "has a struct field of unknown type 20"),
            ([15, 0, 5, 0, 3], "has an invalid type description"),
            ([15, 0, UInt64.max], "has an invalid type description"),
            ([3, 3], "has an invalid type description"),
            ([20, 3], "has an invalid type description"),
            ([20, 3, 1, 1], "has an invalid type description"),
            ([20, 20, 13, 1, 1], "has an invalid type description"),
            ([18], "has an invalid type description")
        ]
        for (info, expected) in cases {
            let text = message(oneTag(.raw(info: info, payload: [0, 0, 0, 0])))
            #expect(text?.hasSuffix(expected) == true, "\(info): \(text ?? "accepted")")
        }
    }

    @Test func badDelimitersAndTagKindsAreRefused() throws {
        var bytes = oneTag(.simple(.int32, 7), version: 3)
        let at = try delimiter(in: bytes)
        bytes[at + 3] = UInt8(ascii: "!")
        #expect(message(bytes) == "the data tag at byte 18 lacks its %%%% delimiter")
        bytes = oneTag(.simple(.int32, 7), version: 3)
        bytes[18] = 22 // the first tag's kind: after the 12-byte header, flags and 4-byte count
        #expect(message(bytes) == "the tag at byte 18 is of unknown kind 22")
    }

    @Test func imagesTooLargeOrShortOfDataAreListedButNotRead() throws {
        for version in [3, 4] {
            let file = SampleDM(
                version: version,
                images: [
                    .init(title: "huge", dimensions: [100_000, 1000], dataType: .uint16, values: [1, 2, 3, 4]),
                    .init(title: "wide", dimensions: [8193, 8192], dataType: .uint8, values: [1]),
                    .init(title: "short", dimensions: [4, 4], dataType: .int32, values: Array(repeating: 9, count: 10)),
                    .init(title: "flat", dimensions: [0, 4], dataType: .uint8, values: [1]),
                    .init(title: "odd type", dimensions: [2, 2], dataType: .uint8, values: [1, 2, 3, 4])
                ])
            // The last image's DataType (a little-endian uint32 after the label, DM4's tag size, the
            // delimiter, the info word count and one info word) becomes 99.
            var bytes = file.bytes
            let label = Array("DataType".utf8)
            let labelStart = try #require(
                (0...bytes.count - label.count).last { bytes[$0..<$0 + label.count].elementsEqual(label) })
            let wordSize = version == 4 ? 8 : 4
            bytes[labelStart + label.count + (version == 4 ? 8 : 0) + 4 + 2 * wordSize] = 99
            let entries = try DigitalMicrograph.contents(of: bytes).entries
            #expect(
                entries.map(\.unsupported) == [
                    "the image is 100000 × 1000 pixels, more than the 8192 × 8192 limit",
                    "the image is 8193 × 8192 pixels, more than the 8192 × 8192 limit",
                    "the data holds 10 samples, fewer than its 4 × 4 pixels",
                    "its dimensions are missing or invalid",
                    "data of unknown type 99"
                ])
            for entry in entries {
                #expect(!entry.isImage)
                #expect(throws: ImageFileError(entry.unsupported ?? "")) { try entry.read() }
            }
        }
    }

    @Test func imageEntriesWithoutDataAreListed() throws {
        let root: [SampleDM.Tag] = [
            .group(
                "ImageList",
                [
                    .group("", [.data("Name", .text("empty"))]),
                    .group("", [.group("ImageData", [.data("Data", .array(.uint8, [1, 2]))])]),
                    .data("stray", .simple(.int32, 1))
                ])
        ]
        let entries = try DigitalMicrograph.contents(of: SampleDM.file(version: 3, littleEndian: false, root: root))
            .entries
        #expect(entries.map(\.title) == ["empty", ""])
        #expect(entries.map(\.unsupported) == ["no image data", "its dimensions are missing or invalid"])
    }
}
