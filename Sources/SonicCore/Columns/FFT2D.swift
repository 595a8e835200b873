import Dispatch
import RealModule

/// Radix-2 complex FFT of one power-of-two length, on split real and imaginary arrays.
struct FFT: Sendable {
    let count: Int
    private let cosines: [Double] // cos(2πk/count), k < count/2
    private let sines: [Double] // sin(2πk/count)
    private let reversed: [Int] // bit-reversed index

    init(count: Int) {
        precondition(count > 0 && count & (count - 1) == 0, "FFT length must be a power of two")
        self.count = count
        let half = max(1, count / 2)
        cosines = (0..<half).map { Double.cos(2 * Double.pi * Double($0) / Double(count)) }
        sines = (0..<half).map { Double.sin(2 * Double.pi * Double($0) / Double(count)) }
        var bits = 0
        while 1 << bits < count { bits += 1 }
        reversed = (0..<count).map { index in
            var r = 0, v = index
            for _ in 0..<bits { r = (r << 1) | (v & 1); v >>= 1 }
            return r
        }
    }

    /// Transforms in place: X[k] = Σ x[n]·exp(∓2πi·kn/N) (minus sign forward, plus inverse; no scaling).
    func transform(real: UnsafeMutablePointer<Double>, imag: UnsafeMutablePointer<Double>, inverse: Bool) {
        let n = count
        guard n > 1 else { return }
        reversed.withUnsafeBufferPointer { rev in
            for i in 0..<n {
                let j = rev[i]
                if j > i {
                    swap(&real[i], &real[j])
                    swap(&imag[i], &imag[j])
                }
            }
        }
        let sign = inverse ? 1.0 : -1.0
        cosines.withUnsafeBufferPointer { cosTable in
            sines.withUnsafeBufferPointer { sinTable in
                var size = 2
                while size <= n {
                    let half = size / 2, step = n / size
                    var start = 0
                    while start < n {
                        for k in 0..<half {
                            let wr = cosTable[k * step], wi = sign * sinTable[k * step]
                            let a = start + k, b = a + half
                            let tr = wr * real[b] - wi * imag[b]
                            let ti = wr * imag[b] + wi * real[b]
                            real[b] = real[a] - tr; imag[b] = imag[a] - ti
                            real[a] += tr; imag[a] += ti
                        }
                        start += size
                    }
                    size *= 2
                }
            }
        }
    }
}

/// Two-dimensional FFT of a power-of-two-sized, row-major complex array.
struct FFT2D: Sendable {
    let width: Int
    let height: Int
    private let rows: FFT
    private let columns: FFT

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        rows = FFT(count: width)
        columns = FFT(count: height)
    }

    /// Transforms in place. Rows from `zeroRowsFrom` on are known to be zero and are skipped in the row pass.
    func transform(real: inout [Double], imag: inout [Double], inverse: Bool, zeroRowsFrom: Int? = nil) {
        precondition(real.count == width * height && imag.count == width * height)
        let w = width, h = height
        let lastRow = zeroRowsFrom ?? h
        real.withUnsafeMutableBufferPointer { re in
            imag.withUnsafeMutableBufferPointer { im in
                for y in 0..<lastRow {
                    rows.transform(real: re.baseAddress! + y * w, imag: im.baseAddress! + y * w, inverse: inverse)
                }
                let colRe = UnsafeMutablePointer<Double>.allocate(capacity: h)
                let colIm = UnsafeMutablePointer<Double>.allocate(capacity: h)
                defer { colRe.deallocate(); colIm.deallocate() }
                for x in 0..<w {
                    for y in 0..<h { colRe[y] = re[y * w + x]; colIm[y] = im[y * w + x] }
                    columns.transform(real: colRe, imag: colIm, inverse: inverse)
                    for y in 0..<h { re[y * w + x] = colRe[y]; im[y * w + x] = colIm[y] }
                }
            }
        }
    }

    /// Transforms in place as `transform` does, for large arrays: the rows, then the columns a block at a time (so
    /// each pass reads memory in order rather than one value per cache line), shared among the cores.
    func transformConcurrently(real: inout [Double], imag: inout [Double], inverse: Bool) {
        precondition(real.count == width * height && imag.count == width * height)
        let w = width, h = height, block = Self.columnBlock
        real.withUnsafeMutableBufferPointer { re in
            imag.withUnsafeMutableBufferPointer { im in
                nonisolated(unsafe) let re = re.baseAddress!, im = im.baseAddress!
                let bands = min(h, Self.parts)
                DispatchQueue.concurrentPerform(iterations: bands) { band in
                    for y in (band * h / bands)..<((band + 1) * h / bands) {
                        rows.transform(real: re + y * w, imag: im + y * w, inverse: inverse)
                    }
                }
                let blocks = (w + block - 1) / block, parts = min(blocks, Self.parts)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let colRe = UnsafeMutablePointer<Double>.allocate(capacity: h * block)
                    let colIm = UnsafeMutablePointer<Double>.allocate(capacity: h * block)
                    defer { colRe.deallocate(); colIm.deallocate() }
                    for b in (part * blocks / parts)..<((part + 1) * blocks / parts) {
                        let x0 = b * block, count = min(block, w - x0)
                        for y in 0..<h {
                            for c in 0..<count {
                                colRe[c * h + y] = re[y * w + x0 + c]; colIm[c * h + y] = im[y * w + x0 + c]
                            }
                        }
                        for c in 0..<count {
                            columns.transform(real: colRe + c * h, imag: colIm + c * h, inverse: inverse)
                        }
                        for y in 0..<h {
                            for c in 0..<count {
                                re[y * w + x0 + c] = colRe[c * h + y]; im[y * w + x0 + c] = colIm[c * h + y]
                            }
                        }
                    }
                }
            }
        }
    }

    /// Columns gathered at a time in the concurrent column pass: 16 doubles fill two cache lines of each row.
    private static let columnBlock = 16
    /// The passes are cut into this many parts, handed to the cores as they come free.
    private static let parts = 16

    /// The linear (not circular) autocorrelation of a real `dataWidth`×`dataHeight` array:
    /// result[(τy mod height)·width + (τx mod width)] = Σ data(x, y)·data(x + τx, y + τy).
    /// The transform must be at least twice the data in each direction so the lags do not wrap.
    func autocorrelation(of data: [Double], dataWidth: Int, dataHeight: Int) -> [Double] {
        precondition(2 * dataWidth <= width && 2 * dataHeight <= height && data.count == dataWidth * dataHeight)
        var re = [Double](repeating: 0, count: width * height)
        var im = [Double](repeating: 0, count: width * height)
        for y in 0..<dataHeight {
            for x in 0..<dataWidth { re[y * width + x] = data[y * dataWidth + x] }
        }
        transform(real: &re, imag: &im, inverse: false, zeroRowsFrom: dataHeight)
        for i in 0..<re.count {
            re[i] = re[i] * re[i] + im[i] * im[i]
            im[i] = 0
        }
        transform(real: &re, imag: &im, inverse: true)
        let scale = 1 / Double(width * height)
        for i in 0..<re.count { re[i] *= scale }
        return re
    }
}
