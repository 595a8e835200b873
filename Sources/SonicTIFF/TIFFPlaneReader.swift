import CTIFF
import SonicCore

/// Reads one page's samples, strip by strip or tile by tile, after checking that the layout its
/// tags declare is one a page of its size can have.
enum TIFFPlaneReader {
    static func read(_ handle: TIFFHandle, page: TIFFPage) throws(ImageFileError) -> ImagePlane {
        guard let type = page.sampleType, page.unsupported == nil else {
            throw ImageFileError("the page cannot be played: \(page.unsupported ?? "an unknown sample type")")
        }
        try ImageLimits.check(width: page.width, height: page.height)
        let rowBytes = page.width * type.bits / 8
        guard TIFFScanlineSize64(handle.tiff) == UInt64(rowBytes) else {
            throw ImageFileError("the page's rows do not hold \(page.width) samples of \(type.bits) bits")
        }
        let count = page.width * page.height
        var failure: ImageFileError?
        let samples = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: 0)
            initialized = count
            guard let target = buffer.baseAddress else { return }
            do throws(ImageFileError) {
                if TIFFIsTiled(handle.tiff) != 0 {
                    try readTiles(handle, page: page, type: type, into: target)
                } else {
                    try readStrips(handle, page: page, type: type, into: target)
                }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return ImagePlane(width: page.width, height: page.height, sampleType: type, samples: samples)
    }

    private static func readStrips(_ handle: TIFFHandle, page: TIFFPage, type: SampleType,
                                   into target: UnsafeMutablePointer<Float>) throws(ImageFileError) {
        let (width, height) = (page.width, page.height)
        let rowBytes = width * type.bits / 8
        // libtiff defaults an absent RowsPerStrip to 2^32 - 1: one strip.
        let rowsPerStrip = min(Int(handle.uint32(TIFFTAG_ROWSPERSTRIP, default: .max)), height)
        guard rowsPerStrip > 0 else { throw ImageFileError("the page has strips of no rows") }
        let stripCount = (height + rowsPerStrip - 1) / rowsPerStrip
        let declared = Int(TIFFNumberOfStrips(handle.tiff))
        guard declared == stripCount else {
            throw ImageFileError("the page has \(declared) strips where \(height) rows in strips of \(rowsPerStrip) need \(stripCount)")
        }
        let stripBytes = rowsPerStrip * rowBytes
        guard TIFFStripSize64(handle.tiff) == UInt64(stripBytes) else {
            throw ImageFileError("the page's strip size is inconsistent with its rows")
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: stripBytes, alignment: 16)
        defer { buffer.deallocate() }
        for strip in 0..<stripCount {
            let firstRow = strip * rowsPerStrip
            let rows = min(rowsPerStrip, height - firstRow)
            let expected = rows * rowBytes
            _ = try handle.attempt("strip \(strip) of \(stripCount) cannot be decoded",
                                   { TIFFReadEncodedStrip(handle.tiff, UInt32(strip), buffer, tmsize_t(expected)) },
                                   succeeded: { $0 == expected })
            convert(buffer, count: rows * width, type: type, into: target + firstRow * width)
        }
    }

    private static func readTiles(_ handle: TIFFHandle, page: TIFFPage, type: SampleType,
                                  into target: UnsafeMutablePointer<Float>) throws(ImageFileError) {
        let (width, height) = (page.width, page.height)
        let tileWidth = Int(handle.uint32(TIFFTAG_TILEWIDTH) ?? 0)
        let tileLength = Int(handle.uint32(TIFFTAG_TILELENGTH) ?? 0)
        let (tilePixels, overflow) = tileWidth.multipliedReportingOverflow(by: tileLength)
        guard tileWidth > 0, tileLength > 0, !overflow, tilePixels <= ImageLimits.maxPixels else {
            throw ImageFileError("the page's tiles are \(tileWidth) × \(tileLength) pixels, an impossible size")
        }
        let across = (width + tileWidth - 1) / tileWidth
        let down = (height + tileLength - 1) / tileLength
        let declared = Int(TIFFNumberOfTiles(handle.tiff))
        guard declared == across * down else {
            throw ImageFileError("the page has \(declared) tiles where \(width) × \(height) pixels in tiles of \(tileWidth) × \(tileLength) need \(across * down)")
        }
        let sampleBytes = type.bits / 8
        let tileBytes = tilePixels * sampleBytes
        guard TIFFTileSize64(handle.tiff) == UInt64(tileBytes) else {
            throw ImageFileError("the page's tile size is inconsistent with its tiles")
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: tileBytes, alignment: 16)
        defer { buffer.deallocate() }
        for tileRow in 0..<down {
            for tileColumn in 0..<across {
                let (x, y) = (tileColumn * tileWidth, tileRow * tileLength)
                let tile = TIFFComputeTile(handle.tiff, UInt32(x), UInt32(y), 0, 0)
                _ = try handle.attempt("tile \(tile) of \(declared) cannot be decoded",
                                       { TIFFReadEncodedTile(handle.tiff, tile, buffer, tmsize_t(tileBytes)) },
                                       succeeded: { $0 == tileBytes })
                // Tiles on the right and bottom edges reach past the image: keep only what lies in it.
                let columns = min(tileWidth, width - x)
                for row in 0..<min(tileLength, height - y) {
                    convert(buffer + row * tileWidth * sampleBytes, count: columns, type: type,
                            into: target + (y + row) * width + x)
                }
            }
        }
    }

    /// Converts `count` samples in the machine's byte order (libtiff has swapped them) to floats.
    static func convert(_ source: UnsafeRawPointer, count: Int, type: SampleType,
                        into target: UnsafeMutablePointer<Float>) {
        switch type {
        case .uint8: convert(source, count: count, as: UInt8.self, into: target)
        case .int8: convert(source, count: count, as: Int8.self, into: target)
        case .uint16: convert(source, count: count, as: UInt16.self, into: target)
        case .int16: convert(source, count: count, as: Int16.self, into: target)
        case .uint32: convert(source, count: count, as: UInt32.self, into: target)
        case .int32: convert(source, count: count, as: Int32.self, into: target)
        case .float32:
            for i in 0..<count { target[i] = source.loadUnaligned(fromByteOffset: i * 4, as: Float.self) }
        case .float64:
            for i in 0..<count { target[i] = Float(source.loadUnaligned(fromByteOffset: i * 8, as: Double.self)) }
        }
    }

    private static func convert<Sample: BinaryInteger>(_ source: UnsafeRawPointer, count: Int, as _: Sample.Type,
                                                       into target: UnsafeMutablePointer<Float>) {
        let size = MemoryLayout<Sample>.size
        for i in 0..<count { target[i] = Float(source.loadUnaligned(fromByteOffset: i * size, as: Sample.self)) }
    }
}
