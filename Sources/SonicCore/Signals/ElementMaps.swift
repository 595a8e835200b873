/// Where an element of a spectrum image is: the pixels whose counts in its line's (or edge's) window stand above
/// the background.
public struct ElementPlace: Sendable, Equatable {
    public var element: IdentifiedElement
    /// The share of pixels where it is present.
    public var fraction: Double
    /// The centre of those pixels, in pixels.
    public var x: Double
    public var y: Double
    /// "everywhere", "a patch at the centre", "the left half".
    public var words: String
    /// Far fewer counts than the strongest element's: under a fifth.
    public var weak: Bool
    /// Whether it is present, pixel by pixel, row by row.
    public var present: [Bool]
}

/// The elements of a spectrum image and where each is.
///
/// Each identified element's map is its window's counts at each pixel less the background there: the pixel's
/// counts in background channels near the line (EDS: the channels in no peak within six line widths; EELS: the
/// window before the edge) times the ratio the summed spectrum's background gives. The map is smoothed over the
/// fewest pixels (none, or squares of 3 to 9 pixels) at which its high and low parts differ by 4 standard
/// deviations of counting noise, then split between them; where no smoothing parts it, or its low part holds a
/// tenth or more of its high part's counts (or is significant), the element is everywhere.
public enum ElementMaps {
    /// The summed spectrum's reading and where each element it names is.
    public static func places(in cube: SpectrumCube) throws(ImageFileError) -> (
        reading: SpectrumReading, places: [ElementPlace]
    ) {
        let summed = try cube.overview().summed
        let axis = cube.spectralAxis
        let reading = ElementIdentification.read(
            summed, axis: axis, spectroscopy: cube.spectroscopy,
            resolution: EnergyWindow.usableResolution(cube.resolution))
        guard !reading.elements.isEmpty, let perUnit = EnergyUnit(axis.units)?.electronvolts else {
            return (reading, [])
        }
        var windows: [Range<Int>] = []
        var layouts: [(window: Int, references: Range<Int>, ratio: Double)] = []
        for identified in reading.elements {
            let window = channels(identified.window, axis: axis, perUnit: perUnit)
            let reference = referenceChannels(of: identified, reading: reading, axis: axis, perUnit: perUnit)
            let counted = reference.reduce(0.0) { sum, range in sum + range.reduce(0.0) { $0 + summed[$1] } }
            let under = window.reduce(0.0) { $0 + reading.background[$1] }
            let ratio = counted > 0 ? under / counted : 0
            layouts.append((windows.count, (windows.count + 1)..<(windows.count + 1 + reference.count), ratio))
            windows.append(window)
            windows += reference
        }
        let sweep = try cube.source.sweep(windows: windows, summing: false)
        let strongest = reading.elements.map(\.netCounts).max() ?? 0
        // The elements in one part of the image first, the weak last: "Fe in a patch …; Ni in all but …; Si
        // everywhere, weak."
        let places = zip(reading.elements, layouts).map { identified, layout in
            let found = whereabouts(
                sweep, window: layout.window, references: layout.references, ratio: layout.ratio,
                width: cube.width, height: cube.height)
            return ElementPlace(
                element: identified, fraction: found.fraction, x: found.x, y: found.y, words: found.words,
                weak: identified.netCounts < 0.2 * strongest, present: found.present)
        }
        return (reading, places.sorted { ($0.weak ? 1 : 0, $0.fraction) < ($1.weak ? 1 : 0, $1.fraction) })
    }

    /// Where a window's counts stand above the background, and whether they do at all in the summed spectrum.
    public struct WindowSignal: Sendable, Equatable {
        /// The summed spectrum's net counts in the window, in standard deviations of counting noise; nil where the
        /// background there cannot be modelled (an EELS window without room before it, an axis not of energy).
        public var significance: Double?
        public var fraction: Double
        public var x: Double
        public var y: Double
        public var words: String

        /// Whether the window holds significant signal above the background, or it cannot be told.
        public var significant: Bool { significance.map { $0 >= SpectrumBackground.significance } ?? true }
    }

    /// How significant the counts in `window` are above the background, and where they are.
    public static func signal(in cube: SpectrumCube, window: Range<Int>) throws(ImageFileError) -> WindowSignal {
        let summed = try cube.overview().summed
        let axis = cube.spectralAxis
        let nowhere = WindowSignal(
            significance: nil, fraction: 1, x: Double(cube.width - 1) / 2,
            y: Double(cube.height - 1) / 2, words: everywhere)
        guard !window.isEmpty else { return nowhere }
        let reading = ElementIdentification.read(
            summed, axis: axis, spectroscopy: cube.spectroscopy,
            resolution: EnergyWindow.usableResolution(cube.resolution))
        let (significance, references, under) = Self.significance(
            of: window, summed: summed, reading: reading, axis: axis, spectroscopy: cube.spectroscopy)
        guard significance != nil else { return nowhere }
        let counted = references.reduce(0.0) { sum, range in sum + range.reduce(0.0) { $0 + summed[$1] } }
        // Maps kept from the overview's pass are not read again.
        let sweep = SpectrumSweep(maps: try cube.maps([window] + references), summed: nil)
        let found = whereabouts(
            sweep, window: 0, references: 1..<(1 + references.count),
            ratio: counted > 0 ? under / counted : 0, width: cube.width, height: cube.height)
        return WindowSignal(
            significance: significance, fraction: found.fraction, x: found.x, y: found.y, words: found.words)
    }

    /// The summed spectrum's net counts in `window` in standard deviations (nil where the background there cannot
    /// be modelled), the background channels a pixel's background is measured in, and the background's counts in
    /// the window: EDS against the continuum, EELS against a power law fitted before the window.
    static func significance(
        of window: Range<Int>, summed: [Double], reading: SpectrumReading, axis: SignalAxis, spectroscopy: Spectroscopy
    ) -> (value: Double?, references: [Range<Int>], under: Double) {
        guard let perUnit = EnergyUnit(axis.units)?.electronvolts, axis.scale > 0, !window.isEmpty,
            window.upperBound <= summed.count
        else { return (nil, [], 0) }
        let start = axis.position(window.lowerBound) * perUnit, end = axis.position(window.upperBound - 1) * perUnit
        let counts = window.reduce(0.0) { $0 + summed[$1] }
        if spectroscopy == .eels {
            let energies = (0..<summed.count).map { axis.position($0) * perUnit }
            guard let pre = preEdge(of: window, axis: axis),
                let fit = SpectrumBackground.powerLaw(summed, energies: energies, window: pre, over: window)
            else { return (nil, [], 0) }
            let systematic = SpectrumBackground.powerLawShare * fit.sum
            let variance = max(counts, 1) * fit.misfit + fit.variance + systematic * systematic
            return ((counts - fit.sum) / variance.squareRoot(), [pre], fit.sum)
        }
        guard spectroscopy == .eds, reading.background.count == summed.count, reading.free.contains(true) else {
            return (nil, [], 0)
        }
        let under = window.reduce(0.0) { $0 + reading.background[$1] }
        let systematic = SpectrumBackground.continuumShare * under
        let misfit = window.map { reading.misfit.indices.contains($0) ? reading.misfit[$0] : 1 }.max() ?? 1
        let variance = misfit * window.reduce(0.0) { $0 + max(summed[$1], reading.background[$1], 0) }
        let width = EnergyWindow.lineWidth(at: (start + end) / 2)
        let references = runs(
            of: reading, axis: axis, perUnit: perUnit, near: (start - 6 * width)...(end + 6 * width),
            excluded: (start - 1.5 * width)...(end + 1.5 * width))
        return ((counts - under) / max(variance + systematic * systematic, 1).squareRoot(), references, under)
    }

    /// Where a window's counts less the background (the reference windows' counts times `ratio`) are present.
    static func whereabouts(
        _ sweep: SpectrumSweep, window: Int, references: Range<Int>, ratio: Double, width: Int, height: Int
    ) -> (present: [Bool], fraction: Double, x: Double, y: Double, words: String) {
        let pixels = width * height
        var net = [Double](repeating: 0, count: pixels), variance = net
        for pixel in 0..<pixels {
            let counts = sweep.maps[window][pixel]
            let reference = references.reduce(0.0) { $0 + sweep.maps[$1][pixel] }
            net[pixel] = counts - ratio * reference
            variance[pixel] = max(counts, 0) + ratio * ratio * max(reference, 0)
        }
        let present = presence(net: net, variance: variance, width: width, height: height)
        let inside = present.indices.filter { present[$0] }
        let fraction = Double(inside.count) / Double(max(pixels, 1))
        let x = inside.isEmpty ? 0 : inside.reduce(0.0) { $0 + Double($1 % width) } / Double(inside.count)
        let y = inside.isEmpty ? 0 : inside.reduce(0.0) { $0 + Double($1 / width) } / Double(inside.count)
        return (present, fraction, x, y, words(present, fraction: fraction, width: width, height: height))
    }

    /// "Fe in a patch at the centre, 15 percent of the area; Ni in all but a patch at the centre, 85 percent; Si
    /// everywhere, weak.", or that no element stands out.
    public static func sentence(_ places: [ElementPlace]) -> String {
        guard !places.isEmpty else { return "No element stands out from the background." }
        let parts = places.enumerated().map { index, place in
            let symbol = place.element.element.symbol
            let share = NumberText.significant(100 * place.fraction, digits: 2)
            let weak = place.weak ? ", weak" : ""
            if place.words == everywhere { return "\(symbol) everywhere\(weak)" }
            return "\(symbol) in \(place.words), \(share) percent\(index == 0 ? " of the area" : "")\(weak)"
        }
        return parts.joined(separator: "; ") + "."
    }

    static let everywhere = "everywhere"

    /// The channels of a window in eV.
    /// The channels an EELS window's background is fitted in, before its edge; nil where there is no room.
    static func preEdge(of window: Range<Int>, axis: SignalAxis) -> Range<Int>? {
        guard let perUnit = EnergyUnit(axis.units)?.electronvolts, axis.scale > 0, !window.isEmpty else { return nil }
        let start = axis.position(window.lowerBound) * perUnit
        let before = max(20, 0.1 * start), gap = max(3, 0.01 * start)
        guard start - gap > ElementIdentification.lowestEdgeWindow else { return nil }
        let pre = channels(
            max(start - before, ElementIdentification.lowestEdgeWindow)...(start - gap), axis: axis, perUnit: perUnit)
        return pre.count >= 4 && pre.upperBound <= window.lowerBound ? pre : nil
    }

    /// The windows `signal(in:window:)` may read besides `window` that can be known before the summed spectrum
    /// is: an EELS window's pre-edge; for finding with the summed spectrum in one pass.
    public static func knownReferences(of window: Range<Int>, in cube: SpectrumCube) -> [Range<Int>] {
        cube.spectroscopy == .eels ? preEdge(of: window, axis: cube.spectralAxis).map { [$0] } ?? [] : []
    }

    static func channels(_ window: ClosedRange<Double>, axis: SignalAxis, perUnit: Double) -> Range<Int> {
        let start = ElementIdentification.index((window.lowerBound / perUnit - axis.offset) / axis.scale)
        let end = ElementIdentification.index((window.upperBound / perUnit - axis.offset) / axis.scale) + 1
        let first = min(axis.size, max(0, start))
        return first..<min(axis.size, max(first, end))
    }

    /// The background channels an element's map is measured against, as runs.
    static func referenceChannels(
        of identified: IdentifiedElement, reading: SpectrumReading, axis: SignalAxis, perUnit: Double
    ) -> [Range<Int>] {
        let energy = identified.energy
        if identified.window.lowerBound == energy {
            // An edge: the window before it.
            return runs(
                of: reading, axis: axis, perUnit: perUnit,
                near: max(ElementIdentification.lowestEdgeWindow, energy - max(20, 0.1 * energy))...energy,
                excluded: (energy - max(3, 0.01 * energy))...(energy + max(20, 0.05 * energy)))
        }
        // A line: the free channels within six line widths, or further where peaks about it leave too few.
        let width = EnergyWindow.lineWidth(at: energy)
        let wanted = 2 * channels(identified.window, axis: axis, perUnit: perUnit).count
        var found: [Range<Int>] = []
        for reach in [6.0, 12, 24, 48] {
            found = runs(
                of: reading, axis: axis, perUnit: perUnit, near: (energy - reach * width)...(energy + reach * width),
                excluded: (energy - 1.5 * width)...(energy + 1.5 * width))
            if found.reduce(0, { $0 + $1.count }) >= wanted { break }
        }
        return found
    }

    /// The free channels within `near` and outside `excluded` (in eV), as runs.
    static func runs(
        of reading: SpectrumReading, axis: SignalAxis, perUnit: Double, near: ClosedRange<Double>,
        excluded: ClosedRange<Double>
    ) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start: Int?
        for channel in 0...reading.free.count {
            let energy = channel < reading.free.count ? axis.position(channel) * perUnit : .infinity
            let taken =
                channel < reading.free.count && reading.free[channel] && near.contains(energy)
                && !excluded.contains(energy)
            if taken, start == nil { start = channel }
            if !taken, let begun = start {
                runs.append(begun..<channel)
                start = nil
            }
        }
        return runs
    }

    /// Where the map stands above its low part: smoothed over the fewest pixels that part its high and low values by
    /// 4 standard deviations, split midway between them.
    static func presence(net: [Double], variance: [Double], width: Int, height: Int) -> [Bool] {
        let all = [Bool](repeating: true, count: net.count)
        guard width > 0, height > 0, net.count == width * height else { return all }
        for radius in 0...4 {
            let (smooth, noise) = smoothed(net, variance: variance, width: width, height: height, radius: radius)
            var threshold = smooth.reduce(0, +) / Double(smooth.count)
            var (low, high, lowCount) = (0.0, 0.0, 0)
            for _ in 0..<30 {
                var (belowSum, aboveSum, belowCount) = (0.0, 0.0, 0)
                for value in smooth {
                    if value <= threshold {
                        belowSum += value
                        belowCount += 1
                    } else {
                        aboveSum += value
                    }
                }
                guard belowCount > 0, belowCount < smooth.count else { break }
                low = belowSum / Double(belowCount)
                high = aboveSum / Double(smooth.count - belowCount)
                lowCount = belowCount
                let next = (low + high) / 2
                if next == threshold { break }
                threshold = next
            }
            guard high - low >= 4 * noise, lowCount > 0, lowCount < smooth.count else { continue }
            let side = Double(2 * radius + 1)
            let standardError = noise * side / Double(lowCount).squareRoot()
            // Present in the low part too: everywhere.
            if low >= max(3 * standardError, 0.1 * high) { return all }
            return smooth.map { $0 > threshold }
        }
        return all
    }

    /// The map's mean over squares of 2·radius + 1 pixels (cut at the edges), and the typical (median) standard
    /// deviation of that mean.
    static func smoothed(_ values: [Double], variance: [Double], width: Int, height: Int, radius: Int)
        -> ([Double], Double)
    {
        // A square's sums are sums along its rows, then down its column: 2·(2·radius + 1) additions a pixel.
        let (rowSums, rowVariances) = (
            boxRows(values, width: width, radius: radius), boxRows(variance, width: width, radius: radius)
        )
        var smooth = values, spread = variance
        for y in 0..<height {
            let rows = max(0, y - radius)...min(height - 1, y + radius)
            for x in 0..<width {
                var sum = 0.0, sumVariance = 0.0
                for j in rows {
                    sum += rowSums[j * width + x]
                    sumVariance += rowVariances[j * width + x]
                }
                let count = Double(rows.count * (min(width - 1, x + radius) - max(0, x - radius) + 1))
                smooth[y * width + x] = sum / count
                spread[y * width + x] = sumVariance / (count * count)
            }
        }
        let median = NoiseLevel.select(&spread, rank: spread.count / 2)
        return (smooth, max(median, 1e-12).squareRoot())
    }

    /// Each value's row summed over the 2·radius + 1 columns around it (cut at the edges).
    private static func boxRows(_ values: [Double], width: Int, radius: Int) -> [Double] {
        var sums = values
        for start in stride(from: 0, to: values.count, by: width) {
            for x in 0..<width {
                var sum = 0.0
                for i in max(0, x - radius)...min(width - 1, x + radius) { sum += values[start + i] }
                sums[start + x] = sum
            }
        }
        return sums
    }

    /// Where the present pixels lie, in words.
    static func words(_ present: [Bool], fraction: Double, width: Int, height: Int) -> String {
        guard fraction < 0.95 else { return everywhere }
        func contains(_ point: ImagePoint) -> Bool {
            let x = min(width - 1, max(0, Int(point.x.rounded()))), y = min(height - 1, max(0, Int(point.y.rounded())))
            return present[y * width + x]
        }
        let touchesSide =
            (0..<width).contains { present[$0] || present[(height - 1) * width + $0] }
            || (0..<height).contains { present[$0 * width] || present[$0 * width + width - 1] }
        if !touchesSide {
            let inside = present.indices.filter { present[$0] }
            let x = inside.reduce(0.0) { $0 + Double($1 % width) } / Double(max(inside.count, 1))
            let y = inside.reduce(0.0) { $0 + Double($1 / width) } / Double(max(inside.count, 1))
            return "a patch at the \(Places.region(of: ImagePoint(x: x, y: y), width: width, height: height))"
        }
        return Places.extent(fraction: fraction, width: width, height: height, contains: contains)
    }
}
