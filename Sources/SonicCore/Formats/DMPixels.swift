/// How a DigitalMicrograph dataset stores its values, from its `ImageData/DataType` code (the codes
/// RosettaSciIO reads), and what each plays as.
enum DMPixelType: Equatable {
    /// Real numbers of one of the sample types.
    case real(SampleType)
    /// A byte per pixel, false (0) or true (anything else): played as 0 and 1.
    case bool
    /// (real, imaginary) pairs of 4- or 8-byte floats: played as their modulus.
    case complex(partBytes: Int)
    /// An FFT's complex half plane, DigitalMicrograph 4's layout (types 27 and 28): each row's
    /// width / 2 + 1 values, the rest of the row being their conjugates.
    case packedComplex(partBytes: Int)
    /// An FFT's half plane in DigitalMicrograph 3's layout (type 5): 4-byte floats, square images.
    case oldPackedComplex
    /// Four bytes per pixel: blue, green, red, alpha; played as the luminance.
    case rgb
    case unsupported(String)

    init(code: Int?) {
        switch code {
        case 1: self = .real(.int16)
        case 2: self = .real(.float32)
        case 6: self = .real(.uint8)
        case 7: self = .real(.int32)
        case 9: self = .real(.int8)
        case 10: self = .real(.uint16)
        case 11: self = .real(.uint32)
        case 12: self = .real(.float64)
        case 14: self = .bool
        case 3: self = .complex(partBytes: 4)
        case 13: self = .complex(partBytes: 8)
        case 27: self = .packedComplex(partBytes: 4)
        case 28: self = .packedComplex(partBytes: 8)
        case 5: self = .oldPackedComplex
        case 8, 23: self = .rgb
        case let code?: self = .unsupported("data of unknown type \(code)")
        case nil: self = .unsupported("data of no known type")
        }
    }

    /// The type of the samples played.
    var sampleType: SampleType? {
        switch self {
        case .real(let type): type
        case .bool: .uint8
        case .complex(let part), .packedComplex(let part): part == 8 ? .float64 : .float32
        case .oldPackedComplex, .rgb: .float32
        case .unsupported: nil
        }
    }

    /// How the file stores values that are not samples of their own type, as `inspect` says it.
    var storedAs: String? {
        switch self {
        case .real, .unsupported: nil
        case .bool: "bool"
        case .complex(let part): "complex\(part * 16)"
        case .packedComplex(let part): "packed complex\(part * 16)"
        case .oldPackedComplex: "packed complex64"
        case .rgb: "RGB"
        }
    }

    /// Whether each value is one real number, as spectra must be.
    var isReal: Bool {
        switch self {
        case .real, .bool: true
        default: false
        }
    }

    /// The bytes a width × height plane takes in the file, or nil for a plane this type cannot hold.
    func planeBytes(width: Int, height: Int) -> Int? {
        let pixels = width * height
        switch self {
        case .real(let type): return pixels * type.bits / 8
        case .bool: return pixels
        case .complex(let part): return pixels * 2 * part
        case .packedComplex(let part):
            guard width % 2 == 0 else { return nil }
            return (width / 2 + 1) * height * 2 * part
        case .oldPackedComplex:
            guard width == height, width % 2 == 0 else { return nil }
            return pixels * 4
        case .rgb: return pixels * 4
        case .unsupported: return nil
        }
    }

    /// The plane of `width` × `height` pixels at `source` (checked to hold `planeBytes`), row by
    /// row, as the values it plays as.
    func plane(at source: UnsafeRawPointer, width: Int, height: Int, littleEndian: Bool) -> [Float] {
        let count = width * height
        return [Float](unsafeUninitializedCapacity: count) { output, initialized in
            switch self {
            case .real(let type):
                type.visit(PlaneReader(source: source, output: output, littleEndian: littleEndian))
            case .bool:
                PlaneReader(source: source, output: output, littleEndian: littleEndian).visit(StoredBool.self)
            case .complex(let part):
                for pixel in 0..<count {
                    output[pixel] = modulus(source + pixel * 2 * part, part: part, littleEndian: littleEndian)
                }
            case .packedComplex(let part):
                // Row r holds values 0 … w/2 of the row's transform; RosettaSciIO lays them out
                // reversed, then 1 … w/2 − 1 again (as conjugates, of the same modulus).
                let kept = width / 2 + 1
                for row in 0..<height {
                    let rowStart = source + row * kept * 2 * part
                    func stored(_ index: Int) -> Float {
                        modulus(rowStart + index * 2 * part, part: part, littleEndian: littleEndian)
                    }
                    for column in 0..<kept { output[row * width + column] = stored(kept - 1 - column) }
                    for column in kept..<width { output[row * width + column] = stored(column - kept + 1) }
                }
            case .oldPackedComplex:
                DMOldPackedComplex(source: source, size: width, littleEndian: littleEndian).moduli(into: output)
            case .rgb:
                for pixel in 0..<count {
                    let bytes = source + pixel * 4
                    let (blue, green, red) = (
                        bytes.load(as: UInt8.self), (bytes + 1).load(as: UInt8.self),
                        (bytes + 2).load(as: UInt8.self)
                    )
                    output[pixel] = Float(Self.luminance(red: red, green: green, blue: blue))
                }
            case .unsupported:
                output.initialize(repeating: 0)
            }
            initialized = count
        }
    }

    /// ITU-R BT.601 luma, in thousandths so that a gray pixel (equal components) keeps its value exactly.
    static func luminance(red: UInt8, green: UInt8, blue: UInt8) -> Double {
        Double(299 * Int(red) + 587 * Int(green) + 114 * Int(blue)) / 1000
    }

    private func modulus(_ source: UnsafeRawPointer, part: Int, littleEndian: Bool) -> Float {
        let (real, imaginary): (Double, Double) =
            part == 8
            ? (
                Double(Double.value(at: source, littleEndian: littleEndian)),
                Double(Double.value(at: source + 8, littleEndian: littleEndian))
            )
            : (
                Double(Float.value(at: source, littleEndian: littleEndian)),
                Double(Float.value(at: source + 4, littleEndian: littleEndian))
            )
        return Float((real * real + imaginary * imaginary).squareRoot())
    }
}

/// Converts a plane of real samples, compiled for each stored type.
private struct PlaneReader: StoredNumberVisitor {
    let source: UnsafeRawPointer
    let output: UnsafeMutableBufferPointer<Float>
    let littleEndian: Bool

    func visit<Number: StoredNumber>(_: Number.Type) {
        let size = Number.byteCount
        if littleEndian {
            for index in 0..<output.count {
                output[index] = Number.value(at: source + index * size, littleEndian: true)
            }
        } else {
            for index in 0..<output.count {
                output[index] = Number.value(at: source + index * size, littleEndian: false)
            }
        }
    }
}

/// DigitalMicrograph 3's packed FFT of a 2N × 2N image: N² complex values in 2N² floats, the other
/// half of the plane being their conjugates (the layout RosettaSciIO unpacks).
private struct DMOldPackedComplex {
    let source: UnsafeRawPointer
    /// 2N.
    let size: Int
    let littleEndian: Bool

    private func float(_ index: Int) -> Double {
        Double(Float.value(at: source + 4 * index, littleEndian: littleEndian))
    }

    private func modulus(_ real: Double, _ imaginary: Double) -> Float {
        Float((real * real + imaginary * imaginary).squareRoot())
    }

    func moduli(into output: UnsafeMutableBufferPointer<Float>) {
        let n = size / 2
        func set(_ row: Int, _ column: Int, _ value: Float) { output[row * size + column] = value }
        func at(_ row: Int, _ column: Int) -> Float { output[row * size + column] }
        output.initialize(repeating: 0)
        // The real values: the centre and the Nyquist frequencies.
        set(n, 0, Float(Swift.abs(float(0))))
        set(0, 0, Float(Swift.abs(float(1))))
        set(n, n, Float(Swift.abs(float(2 * n * n))))
        set(0, n, Float(Swift.abs(float(2 * n * n + 1))))
        // The top right quarter, less its first column.
        for row in 0..<n {
            let start = 2 * row * n + 2
            for k in 0..<(n - 1) { set(row, n + 1 + k, modulus(float(start + 2 * k), float(start + 2 * k + 1))) }
        }
        // The first column of the bottom left quarter.
        for k in 0..<(n - 1) {
            let start = 2 * n + 2 * n * k
            set(n + 1 + k, 0, modulus(float(start), float(start + 1)))
        }
        // The first row of the bottom right quarter, less its first element.
        let rowStart = 2 * n * n + 2
        for k in 0..<(n - 1) { set(n, n + 1 + k, modulus(float(rowStart + 2 * k), float(rowStart + 2 * k + 1))) }
        // The bottom right quarter, less its first row: (n − 1) rows of n values.
        let quarterStart = rowStart + 2 * (n - 1)
        for k in 0..<((n - 1) * n) {
            set(n + 1 + k / n, n + k % n, modulus(float(quarterStart + 2 * k), float(quarterStart + 2 * k + 1)))
        }
        // The rest mirrors what is there: A(i, j) is the conjugate of A(2N − i, 2N − j).
        for column in 1..<n { set(0, column, at(0, size - column)) }
        for column in 1..<n { set(n, column, at(n, size - column)) }
        for row in 1..<n { set(row, 0, at(size - row, 0)) }
        for row in 1..<n { set(row, n, at(size - row, n)) }
        for row in 1..<n {
            for column in 1..<n { set(row, column, at(size - row, size - column)) }
        }
        for row in (n + 1)..<size {
            for column in 1..<n { set(row, column, at(size - row, size - column)) }
        }
    }
}
