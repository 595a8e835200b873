import CTIFF
import SonicCore

/// Reads one page's samples, strip by strip or tile by tile, after checking that the layout its
/// tags declare is one a page of its size can have and that its data lies inside the file.
enum TIFFPlaneReader {
    /// How a page's samples are cut up: strips are tiles as wide as the page.
    struct Layout {
        enum Kind { case strip, tile }
        var kind: Kind
        var chunkWidth: Int
        var chunkHeight: Int
        var across: Int
        var down: Int
        var count: Int { across * down }
    }

    static func read(_ handle: TIFFHandle, page: TIFFPage) throws(ImageFileError) -> GrayImage {
        guard let type = page.sampleType, page.unsupported == nil else {
            throw ImageFileError("the page cannot be played: \(page.unsupported ?? "an unknown sample type")")
        }
        try ImageLimits.check(width: page.width, height: page.height)
        let sampleBytes = type.bits / 8
        guard TIFFScanlineSize64(handle.tiff) == UInt64(page.width * sampleBytes) else {
            throw ImageFileError("the page's rows do not hold \(page.width) samples of \(type.bits) bits")
        }
        let layout = try self.layout(handle, page: page, sampleBytes: sampleBytes)
        try checkData(handle, page: page, layout: layout, sampleBytes: sampleBytes)
        let count = page.width * page.height
        var failure: ImageFileError?
        // The strips or tiles cover every pixel, so the array is whole once they are all read.
        let samples = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let target = buffer.baseAddress else { return }
            do throws(ImageFileError) {
                try readChunks(handle, page: page, layout: layout, type: type, into: target)
                initialized = count
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return GrayImage(width: page.width, height: page.height, sampleType: type, samples: samples)
    }

    /// The strips or tiles the tags declare, checked against the page's size and libtiff's sums.
    private static func layout(_ handle: TIFFHandle, page: TIFFPage, sampleBytes: Int) throws(ImageFileError) -> Layout
    {
        let (width, height) = (page.width, page.height)
        if TIFFIsTiled(handle.tiff) == 0 {
            // libtiff defaults an absent RowsPerStrip to 2^32 - 1: one strip.
            let rows = min(Int(handle.uint32(TIFFTAG_ROWSPERSTRIP, default: .max)), height)
            guard rows > 0 else { throw ImageFileError("the page has strips of no rows") }
            let layout = Layout(
                kind: .strip, chunkWidth: width, chunkHeight: rows, across: 1,
                down: (height + rows - 1) / rows)
            let declared = Int(TIFFNumberOfStrips(handle.tiff))
            guard declared == layout.count else {
                throw ImageFileError(
                    "the page has \(declared) strips where \(height) rows in strips of \(rows) need \(layout.count)")
            }
            guard TIFFStripSize64(handle.tiff) == UInt64(rows * width * sampleBytes) else {
                throw ImageFileError("the page's strip size is inconsistent with its rows")
            }
            return layout
        }
        let tileWidth = Int(handle.uint32(TIFFTAG_TILEWIDTH) ?? 0)
        let tileLength = Int(handle.uint32(TIFFTAG_TILELENGTH) ?? 0)
        let (tilePixels, overflow) = tileWidth.multipliedReportingOverflow(by: tileLength)
        guard tileWidth > 0, tileLength > 0, !overflow, tilePixels <= ImageLimits.maxPixels else {
            throw ImageFileError("the page's tiles are \(tileWidth) × \(tileLength) pixels, an impossible size")
        }
        let layout = Layout(
            kind: .tile, chunkWidth: tileWidth, chunkHeight: tileLength,
            across: (width + tileWidth - 1) / tileWidth, down: (height + tileLength - 1) / tileLength)
        let declared = Int(TIFFNumberOfTiles(handle.tiff))
        guard declared == layout.count else {
            throw ImageFileError(
                "the page has \(declared) tiles where \(width) × \(height) pixels in tiles of \(tileWidth) × \(tileLength) need \(layout.count)"
            )
        }
        guard TIFFTileSize64(handle.tiff) == UInt64(tilePixels * sampleBytes) else {
            throw ImageFileError("the page's tile size is inconsistent with its tiles")
        }
        return layout
    }

    /// The bytes of strip or tile `chunk` once decoded: a whole tile, or a strip's rows (the last
    /// strip may have fewer).
    private static func decodedBytes(_ chunk: Int, page: TIFFPage, layout: Layout, sampleBytes: Int) -> Int {
        let rows =
            layout.kind == .tile
            ? layout.chunkHeight
            : min(layout.chunkHeight, page.height - (chunk / layout.across) * layout.chunkHeight)
        return rows * layout.chunkWidth * sampleBytes
    }

    /// libtiff reads uncompressed data wherever an offset points, whatever the byte count says, and
    /// pads a short offsets array with zeros: so every strip or tile is checked against the file.
    private static func checkData(
        _ handle: TIFFHandle, page: TIFFPage, layout: Layout,
        sampleBytes: Int
    ) throws(ImageFileError) {
        let uncompressed = handle.uint16(TIFFTAG_COMPRESSION, default: UInt16(COMPRESSION_NONE)) == COMPRESSION_NONE
        let headerBytes: UInt64 = TIFFIsBigTIFF(handle.tiff) != 0 ? 16 : 8
        for chunk in 0..<layout.count {
            let offset = TIFFGetStrileOffset(handle.tiff, UInt32(chunk))
            let byteCount = TIFFGetStrileByteCount(handle.tiff, UInt32(chunk))
            let decoded = UInt64(decodedBytes(chunk, page: page, layout: layout, sampleBytes: sampleBytes))
            let stored = uncompressed ? decoded : byteCount
            let name = "\(layout.kind) \(chunk) of \(layout.count)"
            guard byteCount > 0, offset >= headerBytes else { throw ImageFileError("\(name) has no data") }
            guard !uncompressed || byteCount >= decoded else {
                throw ImageFileError("\(name) holds \(byteCount) bytes where its pixels need \(decoded)")
            }
            guard offset <= handle.fileBytes, stored <= handle.fileBytes - offset else {
                throw ImageFileError("the data of \(name) lies past the end of the file")
            }
        }
    }

    private static func readChunks(
        _ handle: TIFFHandle, page: TIFFPage, layout: Layout, type: SampleType,
        into target: UnsafeMutablePointer<Float>
    ) throws(ImageFileError) {
        let sampleBytes = type.bits / 8
        let chunkRowBytes = layout.chunkWidth * sampleBytes
        // Aligned for any sample type; every row starts on a whole sample, so typed reads are aligned.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: layout.chunkHeight * chunkRowBytes, alignment: 16)
        defer { buffer.deallocate() }
        for chunk in 0..<layout.count {
            let expected = decodedBytes(chunk, page: page, layout: layout, sampleBytes: sampleBytes)
            _ = try handle.attempt(
                "\(layout.kind) \(chunk) of \(layout.count) cannot be decoded",
                {
                    layout.kind == .tile
                        ? TIFFReadEncodedTile(handle.tiff, UInt32(chunk), buffer, tmsize_t(expected))
                        : TIFFReadEncodedStrip(handle.tiff, UInt32(chunk), buffer, tmsize_t(expected))
                }, succeeded: { $0 == expected })
            // Tiles on the right and bottom edges reach past the image: keep only what lies in it.
            let x = (chunk % layout.across) * layout.chunkWidth
            let y = (chunk / layout.across) * layout.chunkHeight
            let columns = min(layout.chunkWidth, page.width - x)
            for row in 0..<min(layout.chunkHeight, page.height - y) {
                convert(
                    buffer + row * chunkRowBytes, count: columns, type: type, into: target + (y + row) * page.width + x)
            }
        }
    }

    /// Converts `count` samples in the machine's byte order (libtiff has swapped them) to floats.
    /// One plain loop per type, not a generic one: unspecialised, a generic loop is many times slower.
    static func convert(
        _ source: UnsafeRawPointer, count: Int, type: SampleType,
        into target: UnsafeMutablePointer<Float>
    ) {
        switch type {
        case .uint8:
            let samples = source.bindMemory(to: UInt8.self, capacity: count)
            for i in 0..<count { target[i] = Float(samples[i]) }
        case .int8:
            let samples = source.bindMemory(to: Int8.self, capacity: count)
            for i in 0..<count { target[i] = Float(samples[i]) }
        case .uint16:
            let samples = source.bindMemory(to: UInt16.self, capacity: count)
            for i in 0..<count { target[i] = Float(samples[i]) }
        case .int16:
            let samples = source.bindMemory(to: Int16.self, capacity: count)
            for i in 0..<count { target[i] = Float(samples[i]) }
        case .uint32:
            let samples = source.bindMemory(to: UInt32.self, capacity: count)
            for i in 0..<count { target[i] = Float(samples[i]) }
        case .int32:
            let samples = source.bindMemory(to: Int32.self, capacity: count)
            for i in 0..<count { target[i] = Float(samples[i]) }
        case .float32:
            let samples = source.bindMemory(to: Float.self, capacity: count)
            for i in 0..<count { target[i] = samples[i] }
        case .float64:
            let samples = source.bindMemory(to: Double.self, capacity: count)
            for i in 0..<count { target[i] = Float(samples[i]) }
        }
    }
}
