import SonicCore
import SonicHDF5
import SonicImageFiles

/// The chunk index of a seed's chunked dataset, walked over the file's bytes damaged where the walk
/// reads them (the object header, the B-tree's nodes) or with the dataset's extent damaged: the walk
/// must give every chunk of the extent exactly once, or nothing, in bounded time.
struct ChunkIndexTrial: FuzzTrial {
    /// A dataset's object header and extent, the places the walk read, and the file.
    struct Input {
        var header: Int
        var dims: [Int]
        var chunks: [Int]
        var reads: [Int]
        var bytes: [UInt8]

        func encoded() -> [UInt8] {
            var out: [UInt8] = []
            func int(_ value: Int) { withUnsafeBytes(of: Int64(value).littleEndian) { out += $0 } }
            int(header)
            for list in [dims, chunks, reads] {
                int(list.count)
                list.forEach(int)
            }
            return out + bytes
        }

        init(header: Int, dims: [Int], chunks: [Int], reads: [Int], bytes: [UInt8]) {
            self.header = header
            self.dims = dims
            self.chunks = chunks
            self.reads = reads
            self.bytes = bytes
        }

        init(decoding input: [UInt8]) throws {
            var at = 0
            func int() throws -> Int {
                guard input.count - at >= 8 else { throw FuzzFinding(message: "an index input cut short") }
                defer { at += 8 }
                return input[at..<(at + 8)].reversed().reduce(0) { $0 << 8 | Int($1) }
            }
            header = try int()
            var lists: [[Int]] = []
            for _ in 0..<3 {
                let count = try int()
                guard count >= 0, count <= (input.count - at) / 8 else {
                    throw FuzzFinding(message: "an index input cut short")
                }
                lists.append(try (0..<count).map { _ in try int() })
            }
            (dims, chunks, reads) = (lists[0], lists[1], lists[2])
            bytes = Array(input[at...])
        }
    }

    /// The walk over `bytes`, noting where it reads.
    static func index(_ bytes: [UInt8], noting reads: UnsafeMutablePointer<[Int]>? = nil) -> ChunkIndex {
        ChunkIndex(addressSize: 8, lengthSize: 8, base: 0) { offset, count in
            guard offset >= 0, count >= 0, offset <= bytes.count - count else { return nil }
            reads?.pointee.append(offset)
            return Array(bytes[offset..<(offset + count)])
        }
    }

    /// The seed's first dataset whose chunks the helper listed, its object header found where a
    /// walk from it lists those chunks.
    func seedInput(_ path: String) throws -> [UInt8] {
        let survey = try EMDReader.survey(path: path)
        let layouts = survey.hyperspy.map(\.layout) + survey.velox.map(\.layout) + survey.berkeley.map(\.layout)
        let bytes = try ImageFiles.readBytes(path)
        for layout in layouts {
            guard let table = layout.chunkTable, let chunks = layout.chunks, let sampleType = layout.sampleType
            else { continue }
            let index = Self.index(bytes)
            // Version 1 object headers begin with their version, 1, and a zero byte.
            for header in 0..<(bytes.count - 16) where bytes[header] == 1 && bytes[header + 1] == 0 {
                guard
                    let walked = index.chunks(
                        header: header, dims: layout.dims, chunks: chunks, elementSize: sampleType.bits / 8),
                    walked.map(\.offset) == table.offsets
                else { continue }
                var reads: [Int] = []
                _ = Self.index(bytes, noting: &reads).chunks(
                    header: header, dims: layout.dims, chunks: chunks, elementSize: sampleType.bits / 8)
                return Input(header: header, dims: layout.dims, chunks: chunks, reads: reads, bytes: bytes).encoded()
            }
        }
        throw ImageFileError("no chunked dataset whose chunk index is walked")
    }

    func damaged(_ input: [UInt8], by mutator: inout Mutator) -> [UInt8] {
        guard var input = try? Input(decoding: input), !input.reads.isEmpty else { return mutator.mutate(input) }
        for _ in 0..<(1 + mutator.below(3)) {
            switch mutator.below(8) {
            case 0:
                let dimension = mutator.below(input.dims.count)
                input.dims[dimension] = Mutator.hostileSizes[mutator.below(Mutator.hostileSizes.count)]
            case 1:
                let dimension = mutator.below(input.chunks.count)
                input.chunks[dimension] = Mutator.hostileSizes[mutator.below(Mutator.hostileSizes.count)]
            default:
                // A stretch where the walk reads, damaged in place (its length may change).
                let start = min(input.reads[mutator.below(input.reads.count)], input.bytes.count)
                let end = min(input.bytes.count, start + 16 + mutator.below(240))
                input.bytes.replaceSubrange(start..<end, with: mutator.mutate(Array(input.bytes[start..<end])))
            }
        }
        return input.encoded()
    }

    func run(_ path: String, seed: String) throws {
        let input = try Input(decoding: try ImageFiles.readBytes(path))
        let index = Self.index(input.bytes)
        let elementSize = index.layout(header: input.header)?.extent.last ?? 2
        guard
            let walked = index.chunks(
                header: input.header, dims: input.dims, chunks: input.chunks, elementSize: elementSize)
        else { throw ImageFileError("no chunks walked") }
        let count = zip(input.dims, input.chunks).reduce(1) { $0 * (($1.0 - 1) / $1.1 + 1) }
        guard walked.count == count, walked.allSatisfy({ $0.size > 0 && $0.offset >= 0 }) else {
            throw FuzzFinding(message: "a walk gave \(walked.count) chunks of a grid of \(count)")
        }
    }
}
