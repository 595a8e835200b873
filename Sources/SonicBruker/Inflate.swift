import CZlib
import SonicCore

/// zlib's decompression, for the blocks Bruker's files are compressed in.
enum Inflate {
    /// Appends to `output` what the zlib stream `input` holds, which must be exactly `count` bytes.
    static func zlib(_ input: ArraySlice<UInt8>, count: Int, into output: inout [UInt8]) throws(ImageFileError) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: count))
        var produced = uLongf(count)
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                uncompress(
                    target.baseAddress! + start, &produced, source.baseAddress, uLong(source.count))
            }
        }
        guard status == Z_OK, Int(produced) == count else {
            output.removeLast(count)
            throw ImageFileError("a compressed block is damaged")
        }
    }
}
