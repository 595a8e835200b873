import Synchronization

/// A spectrum source made when first used: a Velox stream or a Bruker hypermap is read and indexed
/// only when its spectra or maps are asked for, not when the file is listed.
public final class DeferredSpectra: SpectrumSource, Sendable {
    public let width: Int
    public let height: Int
    public let channels: Int
    private let make: @Sendable () throws(ImageFileError) -> any SpectrumSource
    private let made = Mutex<(any SpectrumSource)?>(nil)

    public init(
        width: Int, height: Int, channels: Int,
        make: @escaping @Sendable () throws(ImageFileError) -> any SpectrumSource
    ) {
        self.width = width
        self.height = height
        self.channels = channels
        self.make = make
    }

    private func source() throws(ImageFileError) -> any SpectrumSource {
        if let source = made.withLock({ $0 }) { return source }
        let source = try make()
        guard source.width == width, source.height == height, source.channels == channels else {
            throw ImageFileError("the spectra read are not the size listed")
        }
        made.withLock { $0 = source }
        return source
    }

    public func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        try source().spectra(columns: columns, rows: rows)
    }

    public func sweep(windows: [Range<Int>], summing: Bool) throws(ImageFileError) -> SpectrumSweep {
        try source().sweep(windows: windows, summing: summing)
    }
}
