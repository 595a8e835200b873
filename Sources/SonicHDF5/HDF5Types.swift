import CHDF5
import Glibc
import SonicCore

/// Which HDF5 element types are samples this program plays.
enum HDF5Types {
    static func describe(_ type: hid_t) -> (SampleType?, unsupported: String?) {
        let size = H5Tget_size(type)
        switch H5Tget_class(type) {
        case H5T_INTEGER:
            let signed = H5Tget_sign(type) == H5T_SGN_2
            switch size {
            case 1: return (signed ? .int8 : .uint8, nil)
            case 2: return (signed ? .int16 : .uint16, nil)
            case 4: return (signed ? .int32 : .uint32, nil)
            default: return (nil, "\(size * 8)-bit integer data")
            }
        case H5T_FLOAT:
            switch size {
            case 4: return (.float32, nil)
            case 8: return (.float64, nil)
            default: return (nil, "\(size * 8)-bit float data")
            }
        case H5T_COMPOUND:
            // Velox keeps FFTs and DPC images as (real, imaginary) float pairs.
            let members = H5Tget_nmembers(type)
            let pairOfFloats = members == 2 && (0..<2).allSatisfy { H5Tget_member_class(type, UInt32($0)) == H5T_FLOAT }
            return (nil, pairOfFloats ? "complex data" : "compound data")
        default:
            return (nil, "not numeric data")
        }
    }
}

/// Reads a dataset or attribute holding one string, fixed-length or variable-length.
enum HDF5Text {
    static func read(
        type: HDF5Object, space: HDF5Object, maxBytes: Int,
        reading: (_ memoryType: hid_t, _ buffer: UnsafeMutableRawPointer) -> herr_t
    ) -> String? {
        guard H5Tget_class(type.id) == H5T_STRING, H5Sget_simple_extent_npoints(space.id) == 1,
            let memoryType = HDF5Object(H5Tcopy(sonic_h5_c_string()), close: H5Tclose),
            H5Tset_cset(memoryType.id, H5Tget_cset(type.id)) >= 0
        else { return nil }
        if H5Tis_variable_str(type.id) > 0 {
            guard H5Tset_size(memoryType.id, sonic_h5_variable_size()) >= 0 else { return nil }
            var pointer: UnsafeMutablePointer<CChar>?
            guard withUnsafeMutableBytes(of: &pointer, { reading(memoryType.id, $0.baseAddress!) }) >= 0 else {
                return nil
            }
            defer {
                _ = withUnsafeMutableBytes(of: &pointer) {
                    H5Dvlen_reclaim(memoryType.id, space.id, sonic_h5_default(), $0.baseAddress)
                }
            }
            guard let pointer else { return nil }
            return String(
                decoding: UnsafeRawBufferPointer(start: pointer, count: strnlen(pointer, maxBytes)), as: UTF8.self)
        }
        let size = H5Tget_size(type.id)
        guard size > 0, size <= maxBytes, H5Tset_size(memoryType.id, size) >= 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard bytes.withUnsafeMutableBytes({ reading(memoryType.id, $0.baseAddress!) }) >= 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// Failures inside libhdf5, told in one line from its error stack.
enum HDF5Failure {
    /// The file is damaged where `context` says, with what the library says went wrong at the
    /// innermost entry of its error stack.
    static func current(_ context: String) -> ImageFileError {
        ImageFileError("the HDF5 file is damaged (\(described(context)))")
    }

    static func openingFile(path: String) -> ImageFileError {
        let message = described("cannot open it").replacing(path, with: "the file")
        if message.contains("file signature not found") { return ImageFileError("not an HDF5 file") }
        if message.contains("truncated file") { return ImageFileError("the file is truncated (\(message))") }
        return ImageFileError("the HDF5 file is damaged (\(message))")
    }

    private static func described(_ context: String) -> String {
        var innermost = ""
        _ = withUnsafeMutablePointer(to: &innermost) {
            H5Ewalk2(sonic_h5_error_stack(), H5E_WALK_DOWNWARD, keepDescription, $0)
        }
        H5Eclear2(sonic_h5_error_stack())
        return innermost.isEmpty ? context : "\(context): \(innermost)"
    }
}

/// A C callback, so a global function (see the platform notes).
private func keepDescription(_ n: UInt32, _ error: UnsafePointer<H5E_error2_t>?, _ context: UnsafeMutableRawPointer?)
    -> herr_t
{
    guard let error, let context, let description = error.pointee.desc else { return 0 }
    let text = String(
        decoding: UnsafeRawBufferPointer(start: description, count: strnlen(description, 300)), as: UTF8.self)
    context.assumingMemoryBound(to: String.self).pointee = text.split(whereSeparator: \.isNewline).joined(
        separator: " ")
    return 0
}
