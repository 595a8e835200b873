import RealModule

/// Spectra of a spectrum image held in memory: channel fastest, then x, then y.
public struct MemorySpectra: SpectrumSource {
    public let width: Int
    public let height: Int
    public let channels: Int
    public let values: [Float]

    public init(width: Int, height: Int, channels: Int, values: [Float]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.values = values
    }

    public func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(columns.count * rows.count * channels)
        for y in rows {
            let start = (y * width + columns.lowerBound) * channels
            out += values[start..<(start + columns.count * channels)]
        }
        return out
    }
}

/// The spectra of a smaller spectrum image, each pixel repeated `factor` × `factor` times.
public struct EnlargedSpectra: SpectrumSource {
    public let source: MemorySpectra
    public let factor: Int

    public var width: Int { source.width * factor }
    public var height: Int { source.height * factor }
    public var channels: Int { source.channels }

    public func spectra(columns: Range<Int>, rows: Range<Int>) throws(ImageFileError) -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(columns.count * rows.count * channels)
        for y in rows {
            for x in columns {
                let start = ((y / factor) * source.width + x / factor) * channels
                out += source.values[start..<(start + channels)]
            }
        }
        return out
    }
}

/// Generated EDS and EELS spectrum images of known elements in known regions, with Poisson counting noise: what
/// element identification and the elements' places are tested against.
public struct SpectrumSample: Sendable {
    /// An element the image holds and the pixels it is in, row by row.
    public struct Truth: Sendable {
        public var symbol: String
        public var present: [Bool]

        /// The share of pixels it is in.
        public var fraction: Double { Double(present.filter { $0 }.count) / Double(present.count) }

        /// The centre of its pixels.
        public func centroid(width: Int) -> (x: Double, y: Double) {
            let inside = present.indices.filter { present[$0] }
            let count = Double(max(inside.count, 1))
            return (
                inside.reduce(0.0) { $0 + Double($1 % width) } / count,
                inside.reduce(0.0) { $0 + Double($1 / width) } / count
            )
        }
    }

    /// How many counts: a short acquisition, or a long one (twenty times as many).
    public enum Counts: Sendable, CaseIterable {
        case low, high

        var factor: Double { self == .low ? 1 : 20 }
    }

    public let cube: SpectrumCube
    public let truth: [Truth]
    /// Energies (eV) of peaks no element of the table accounts for.
    public let strayPeaks: [Double]

    public var width: Int { cube.width }
    public var height: Int { cube.height }

    static let side = 64

    /// Pixels of a disc of `radius` about (cx, cy).
    static func disc(_ cx: Double, _ cy: Double, radius: Double) -> [Bool] {
        (0..<(side * side)).map { pixel in
            let dx = Double(pixel % side) - cx, dy = Double(pixel / side) - cy
            return dx * dx + dy * dy <= radius * radius
        }
    }

    /// An EDS line: its energy in eV and its counts per pixel where the element is.
    struct Line {
        var energy: Double
        var counts: Double
        var present: [Bool]
    }

    /// The EDS axis: 1024 channels of 20 eV from −0.2 keV, with a zero-energy (strobe) peak.
    static let edsAxis = SignalAxis(
        name: "Energy", size: 1024, scale: 0.02, offset: -0.2, units: "keV", navigation: false)

    /// An EDS spectrum image over a Kramers-like continuum (falling as (E0 − E)/E, absorbed below 0.5 keV, times
    /// `continuum`) with a zero-energy peak, a hump of `hump` counts a pixel at 0.75 keV half a keV wide, and `lines`.
    static func eds(lines: [Line], hump: Double = 0, continuum level: Double = 1, counts: Counts, seed: UInt64)
        -> MemorySpectra
    {
        let axis = edsAxis
        let channels = axis.size
        var random = SeededRandom(seed: seed)
        let energies = (0..<channels).map { axis.position($0) * 1000 }
        let continuum = energies.map { energy -> Double in
            guard energy > 0 else { return 0 }
            let absorbed = Double.exp(-Double.pow(500 / energy, 3))
            let humped = hump * Double.exp(-Double.pow((energy - 750) / 212, 2) / 2) * 20 / (212 * 2.5066)
            return level * 0.012 * (200_000 - energy) / energy * absorbed + humped
        }
        // The strobe peak at zero energy, 100 counts a pixel, 30 eV wide.
        let strobe = energies.map { 100 * Double.exp(-$0 * $0 / (2 * 30 * 30)) * 20 / (30 * 2.5066) }
        var values = [Float](repeating: 0, count: side * side * channels)
        for pixel in 0..<(side * side) {
            var expected = zip(continuum, strobe).map { $0 + $1 }
            for line in lines where line.present[pixel] {
                let sigma = EnergyWindow.lineWidth(at: line.energy) / 2.3548
                let reach = Int(5 * sigma / 20) + 1
                let centre = Int(((line.energy - energies[0]) / 20).rounded())
                for channel in max(0, centre - reach)...min(channels - 1, centre + reach) {
                    let d = energies[channel] - line.energy
                    expected[channel] += line.counts * 20 / (sigma * 2.5066) * Double.exp(-d * d / (2 * sigma * sigma))
                }
            }
            for channel in 0..<channels {
                values[pixel * channels + channel] = Float(random.poisson(expected[channel] * counts.factor))
            }
        }
        return MemorySpectra(width: side, height: side, channels: channels, values: values)
    }

    /// The lines of `symbol` (Kα, Kβ at its share, Lα at a third) with `counts` in Kα, where `present`.
    static func family(_ symbol: String, counts: Double, present: [Bool]) -> [Line] {
        let element = Element.named(symbol)!
        let kAlpha = element.energy(of: .kAlpha)! * 1000
        var lines = [Line(energy: kAlpha, counts: counts, present: present)]
        if let beta = element.energy(of: .kBeta) {
            lines.append(
                Line(
                    energy: beta * 1000, counts: counts * ElementIdentification.betaShare(element.atomicNumber),
                    present: present))
        }
        if let alpha = element.energy(of: .lAlpha) {
            lines.append(Line(energy: alpha * 1000, counts: counts / 3, present: present))
        }
        return lines
    }

    /// Iron in a disc off the middle (15 % of the area), nickel all around it, silicon everywhere, weak.
    public static func ironNickelSilicon(_ counts: Counts, seed: UInt64 = 1) -> SpectrumSample {
        let truth = ironNickelSiliconTruth()
        return SpectrumSample(
            cube: SpectrumCube(
                source: eds(lines: ironNickelSiliconLines(truth), counts: counts, seed: seed), spectralAxis: edsAxis,
                spectroscopy: .eds),
            truth: truth, strayPeaks: [])
    }

    /// Where `ironNickelSilicon` holds iron, nickel and silicon.
    private static func ironNickelSiliconTruth() -> [Truth] {
        let iron = disc(30, 34, radius: 14)
        return [
            Truth(symbol: "Fe", present: iron), Truth(symbol: "Ni", present: iron.map { !$0 }),
            Truth(symbol: "Si", present: [Bool](repeating: true, count: side * side))
        ]
    }

    /// Iron's, nickel's and silicon's lines where `truth` places them (in that order), of 30, 20 and 3 counts in Kα.
    private static func ironNickelSiliconLines(_ truth: [Truth]) -> [Line] {
        zip(truth, [30.0, 20, 3]).flatMap { family($0.symbol, counts: $1, present: $0.present) }
    }

    /// `ironNickelSilicon`, each pixel made `factor` × `factor` pixels of the same spectrum: as large as the images it
    /// plays beside, holding no more spectra.
    public static func ironNickelSilicon(_ counts: Counts, enlargedBy factor: Int, seed: UInt64 = 1) -> SpectrumSample {
        let truth = ironNickelSiliconTruth()
        let spectra = EnlargedSpectra(
            source: eds(lines: ironNickelSiliconLines(truth), counts: counts, seed: seed), factor: factor)
        let width = spectra.width
        return SpectrumSample(
            cube: SpectrumCube(source: spectra, spectralAxis: edsAxis, spectroscopy: .eds),
            truth: truth.map { truth in
                Truth(
                    symbol: truth.symbol,
                    present: (0..<(width * width)).map {
                        truth.present[($0 / width / factor) * side + $0 % width / factor]
                    }
                )
            }, strayPeaks: [])
    }

    /// The continuum and the zero-energy peak alone; with `hump`, a broad hump of the background at 0.75 keV too.
    public static func backgroundOnly(_ counts: Counts, hump: Bool = false, seed: UInt64 = 2) -> SpectrumSample {
        SpectrumSample(
            cube: SpectrumCube(
                source: eds(lines: [], hump: hump ? 40 : 0, counts: counts, seed: seed), spectralAxis: edsAxis,
                spectroscopy: .eds),
            truth: [], strayPeaks: [])
    }

    /// Silicon everywhere; titanium, weak, in the left third, known by its lines alone; and a lone peak at 7.06 keV,
    /// where iron's Kβ lies, without iron's Kα: a peak no element accounts for.
    public static func weakLine(_ counts: Counts, seed: UInt64 = 3) -> SpectrumSample {
        let everywhere = [Bool](repeating: true, count: side * side)
        let left = (0..<(side * side)).map { $0 % side < side / 3 }
        let stray = 7058.0
        let lines =
            family("Si", counts: 12, present: everywhere) + family("Ti", counts: 3, present: left)
            + [Line(energy: stray, counts: 3, present: everywhere)]
        return SpectrumSample(
            cube: SpectrumCube(
                source: eds(lines: lines, counts: counts, seed: seed), spectralAxis: edsAxis, spectroscopy: .eds),
            truth: [Truth(symbol: "Si", present: everywhere), Truth(symbol: "Ti", present: left)],
            strayPeaks: [stray])
    }

    /// Light elements, whose lines lie where the detector's absorption makes the continuum rise and bend over: carbon
    /// everywhere (a support film; its Kα at 0.28 keV, where the continuum has hardly begun), a silica particle in a
    /// disc (18 % of the area: oxygen's Kα at 0.52 keV on the continuum's steep rise, and silicon's Kα).
    public static func lightElements(_ counts: Counts, seed: UInt64 = 6) -> SpectrumSample {
        let everywhere = [Bool](repeating: true, count: side * side)
        let particle = disc(40, 26, radius: 15.5)
        let lines =
            family("C", counts: 3, present: everywhere) + family("O", counts: 6, present: particle)
            + family("Si", counts: 6, present: particle)
        return SpectrumSample(
            cube: SpectrumCube(
                source: eds(lines: lines, counts: counts, seed: seed), spectralAxis: edsAxis, spectroscopy: .eds),
            truth: [
                Truth(symbol: "C", present: everywhere), Truth(symbol: "O", present: particle),
                Truth(symbol: "Si", present: particle)
            ], strayPeaks: [])
    }

    /// Iron everywhere, its lines a thousand times as tall as the continuum under them (a hundredth of the usual).
    public static func tallLine(_ counts: Counts, seed: UInt64 = 7) -> SpectrumSample {
        let everywhere = [Bool](repeating: true, count: side * side)
        return SpectrumSample(
            cube: SpectrumCube(
                source: eds(
                    lines: family("Fe", counts: 500, present: everywhere), continuum: 0.01, counts: counts, seed: seed),
                spectralAxis: edsAxis, spectroscopy: .eds),
            truth: [Truth(symbol: "Fe", present: everywhere)], strayPeaks: [])
    }

    /// An EELS edge: its onset (eV), its jump in counts a channel a pixel over the background at the onset, where.
    struct EdgeShape {
        var onset: Double
        var jump: Double
        var present: [Bool]
    }

    /// An EELS spectrum image over a power-law background (E^−3); with `lowLoss`, from −50 eV with the zero-loss
    /// peak and a plasmon, else from 400 eV. Each edge rises over 2 eV at its onset and falls as E^−2 after it.
    static func eels(edges: [EdgeShape], lowLoss: Bool, counts: Counts, seed: UInt64) -> (MemorySpectra, SignalAxis) {
        let axis = SignalAxis(
            name: "Energy loss", size: 1024, scale: lowLoss ? 1 : 0.8, offset: lowLoss ? -50 : 400, units: "eV",
            navigation: false)
        var random = SeededRandom(seed: seed)
        let channels = axis.size
        let energies = (0..<channels).map { axis.position($0) }
        let background = energies.map { energy -> Double in
            var value = 60 * Double.pow(max(energy, 20) / 500, -3)
            if lowLoss {
                value += 2e5 * Double.exp(-energy * energy / 2) + 4000 * Double.exp(-Double.pow((energy - 22) / 6, 2))
            }
            return value
        }
        var values = [Float](repeating: 0, count: side * side * channels)
        for pixel in 0..<(side * side) {
            var expected = background
            for edge in edges where edge.present[pixel] {
                for channel in 0..<channels where energies[channel] > edge.onset - 4 {
                    let rise = 1 / (1 + Double.exp(-(energies[channel] - edge.onset) / 0.5))
                    let atOnset = 60 * Double.pow(edge.onset / 500, -3)
                    expected[channel] += edge.jump * atOnset * rise * Double.pow(energies[channel] / edge.onset, -2)
                }
            }
            for channel in 0..<channels {
                values[pixel * channels + channel] = Float(random.poisson(expected[channel] * counts.factor))
            }
        }
        return (MemorySpectra(width: side, height: side, channels: channels, values: values), axis)
    }

    /// EELS: iron's L edge in a disc (15 % of the area), nickel's L edge all around it, oxygen's K edge everywhere;
    /// with `lowLoss`, the zero-loss peak and a plasmon at the start of the axis.
    public static func eelsOxides(_ counts: Counts, lowLoss: Bool = false, seed: UInt64 = 4) -> SpectrumSample {
        let iron = disc(34, 28, radius: 14)
        let nickel = iron.map { !$0 }
        let oxygen = [Bool](repeating: true, count: side * side)
        let (source, axis) = eels(
            edges: [
                EdgeShape(onset: 532, jump: 0.5, present: oxygen), EdgeShape(onset: 708, jump: 2, present: iron),
                EdgeShape(onset: 855, jump: 2, present: nickel)
            ], lowLoss: lowLoss, counts: counts, seed: seed)
        return SpectrumSample(
            cube: SpectrumCube(source: source, spectralAxis: axis, spectroscopy: .eels),
            truth: [
                Truth(symbol: "O", present: oxygen), Truth(symbol: "Fe", present: iron),
                Truth(symbol: "Ni", present: nickel)
            ], strayPeaks: [])
    }

    /// EELS over its power-law background alone.
    public static func eelsBackground(_ counts: Counts, seed: UInt64 = 5) -> SpectrumSample {
        let (source, axis) = eels(edges: [], lowLoss: false, counts: counts, seed: seed)
        return SpectrumSample(
            cube: SpectrumCube(source: source, spectralAxis: axis, spectroscopy: .eels), truth: [], strayPeaks: [])
    }
}
