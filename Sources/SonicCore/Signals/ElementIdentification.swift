import RealModule

/// An element a spectrum holds: named only when its lines (EDS) or an edge (EELS) stand significantly above the
/// modelled background.
public struct IdentifiedElement: Sendable, Equatable {
    public var element: Element
    /// The line or edge it is mapped by, its strongest: "Fe Kα", "O K".
    public var feature: String
    /// "iron K alpha", "oxygen K edge".
    public var spokenFeature: String
    /// Where that line lies or that edge begins, in eV.
    public var energy: Double
    /// The window, in eV, whose counts above the background map it.
    public var window: ClosedRange<Double>
    /// Its net counts above the background in that window.
    public var netCounts: Double
    /// How many standard deviations of counting noise the net counts are.
    public var significance: Double
}

/// What a spectrum holds: the elements identified, its significant peaks (or edges), and the background they
/// stand on.
public struct SpectrumReading: Sendable, Equatable {
    /// Most net counts first.
    public var elements: [IdentifiedElement]
    /// Significant peaks (EDS) or edges (EELS), most net counts first; a peak no identified element explains has
    /// no line.
    public var peaks: [SpectrumPeak]
    /// The modelled background, channel by channel (the counts themselves where none was modelled).
    public var background: [Double]
    /// The channels in no peak and no edge, from the first the background is modelled at.
    public var free: [Bool]
    /// By how much the counting noise is widened at each channel where the background's fit misses (at least 1).
    public var misfit: [Double]

    static let empty = SpectrumReading(elements: [], peaks: [], background: [], free: [], misfit: [])
}

/// Identifies elements in a spectrum of counts.
///
/// EDS: the zero-energy (strobe) peak is left out, and the last thousandth of the counts (past the beam's energy);
/// a quadratic continuum is fitted under the peaks
/// (`SpectrumBackground.continuum`); a peak is significant when its top-hat net counts (a line width's counts less
/// its surroundings' level) pass 5 standard deviations of Poisson noise, widened where the continuum's fit misses
/// the free channels around it by more than that noise, with 1 % of the background under it as the fit's own
/// uncertainty. An element is tested at its principal line
/// (Kα, else Lα, else Mα: the highest within the axis) and named when a significant peak lies there; a peak that is
/// another identified element's Kβ, Lα or Mα names nothing else (unless it holds far more than that line's share);
/// where several elements' principal lines share one peak, the one whose Kβ is found, else the one clearly nearest,
/// is named, else none. A significant peak no named element explains is an unidentified peak.
///
/// EELS: below 30 eV (the zero-loss peak and plasmons) nothing is tested; before each edge of the table a power law
/// is fitted over a tenth of its onset (at least 20 eV) and the counts above it over 5 % of the onset (at least
/// 20 eV) must pass 5 standard deviations (counting noise, widened by the fit's reduced chi-square where it misses,
/// so that another edge inside the fitted window makes none; the fit's own uncertainty; 2 % of the background) and
/// stay above it beyond; of edges whose windows overlap, the most significant is kept.
public enum ElementIdentification {
    /// What `counts` (a spectrum on `axis`) holds; EDS lines as wide as a detector of `resolution` (FWHM at Mn Kα,
    /// eV) makes them.
    public static func read(
        _ counts: [Double], axis: SignalAxis, spectroscopy: Spectroscopy,
        resolution: Double = EnergyWindow.defaultResolution
    ) -> SpectrumReading {
        guard let perUnit = EnergyUnit(axis.units)?.electronvolts, axis.scale > 0, counts.count >= 16,
            counts.allSatisfy(\.isFinite)
        else { return .empty }
        let energies = (0..<counts.count).map { axis.position($0) * perUnit }
        guard energies.allSatisfy(\.isFinite) else { return .empty }
        switch spectroscopy {
        case .eds:
            return eds(
                counts, energies: energies, channelWidth: axis.scale * perUnit, axis: axis,
                resolution: EnergyWindow.usableResolution(resolution))
        case .eels: return eels(counts, energies: energies, channelWidth: axis.scale * perUnit, axis: axis)
        case .cathodoluminescence, .unknown: return .empty
        }
    }

    /// A channel's index from a count of channels that may be anything: within ±10⁹, nan as −1.
    static func index(_ value: Double) -> Int {
        let rounded = value.rounded()
        return rounded.isNaN ? -1 : Int(min(1e9, max(-1e9, rounded)))
    }

    /// Kβ's share of Kα's counts, roughly, by atomic number: a few percent for light elements, 13 % for iron.
    static func betaShare(_ atomicNumber: Int) -> Double { min(0.2, max(0.01, 0.0085 * Double(atomicNumber - 11))) }

    /// The first channel above the zero-energy peak: 150 eV or three line widths at zero energy, and on a spectrum
    /// recorded from zero or below, on while the counts still fall (the peak's tail), up to 400 eV.
    static func firstAboveZeroPeak(
        _ counts: [Double], energies: [Double], resolution: Double = EnergyWindow.defaultResolution
    ) -> Int {
        let edge = max(150, 3 * EnergyWindow.lineWidth(at: 0, resolution: resolution))
        var first = energies.firstIndex { $0 >= edge } ?? counts.count
        guard let lowest = energies.first, lowest <= 0 else { return first }
        let smooth = SpectrumPeaks.smoothed(counts)
        while first + 1 < counts.count, energies[first] < 400, smooth[first + 1] < smooth[first] { first += 1 }
        return first
    }

    // MARK: - EDS

    private struct Peak {
        var channel: Int
        var energy: Double
        var net: Double
        var sigma: Double
    }

    private struct Candidate {
        var element: Element
        var line: XRayLine
        var energy: Double
        var peak: Int
        var distance: Double
        var betaFound: Bool
    }

    private static func eds(
        _ counts: [Double], energies: [Double], channelWidth: Double, axis: SignalAxis, resolution: Double
    ) -> SpectrumReading {
        let n = counts.count
        let perUnit = channelWidth / axis.scale
        let first = firstAboveZeroPeak(counts, energies: energies, resolution: resolution)
        guard first < n - 16 else { return .empty }
        // Line widths in channels, from half a channel to the whole spectrum.
        let widths = energies.map {
            min(Double(n), max(0.5, EnergyWindow.lineWidth(at: max($0, 0), resolution: resolution) / channelWidth))
        }
        // Where the counts end (the beam's energy, on a spectrum recorded beyond it): past the last thousandth of
        // them no line is sought, nor within two line widths of it, where the continuum falls off a cliff. The
        // towering peaks are left out of the count, lest one of them hold nearly all and end the spectrum at itself
        // (unless they hold all there is).
        let tall = SpectrumBackground.tallPeaks(counts, first: first, widths: widths)
        let outsideTall = zip(counts, tall).map { $1 ? 0 : $0 }
        let continuumCounts = outsideTall[first...].reduce(0, +) > 0 ? outsideTall : counts
        let total = continuumCounts[first...].reduce(0, +)
        var last = n - 1, beyond = 0.0
        while last > first, beyond + continuumCounts[last] < 0.001 * total {
            beyond += continuumCounts[last]
            last -= 1
        }
        let (background, misfit, masked) = SpectrumBackground.continuum(counts, first: first, widths: widths)
        let net = zip(counts, background).map { $0 - $1 }
        var hats = [(net: Double, sigma: Double)](repeating: (0, 1), count: n)
        for channel in first..<n {
            let hat = SpectrumBackground.topHat(
                net, background: background, counts: counts, at: channel, width: widths[channel])
            hats[channel] = (hat.net, hat.sigma * misfit[channel].squareRoot())
        }
        func z(_ channel: Int) -> Double { hats[channel].net / hats[channel].sigma }
        // Significant peaks: the most significant channel within half a line width either side.
        var peaks: [Peak] = []
        for channel in first..<n
        where z(channel) >= SpectrumBackground.significance && Double(last - channel) >= 2 * widths[channel] {
            let half = max(1, Int((0.5 * widths[channel]).rounded()))
            let around = max(first, channel - half)...min(n - 1, channel + half)
            guard around.allSatisfy({ z($0) <= z(channel) }), !peaks.contains(where: { $0.channel >= channel - half })
            else { continue }
            // Placed at the centroid of its net counts within 0.6 line widths of it, the window centred on the
            // centroid found before, five times.
            let reach = 0.6 * widths[channel] * channelWidth
            var centre = energies[channel]
            for _ in 0..<5 {
                var weight = 0.0, moment = 0.0
                let span = Int((widths[channel]).rounded(.up)) + 1
                for other in max(first, channel - span)...min(n - 1, channel + span)
                where net[other] > 0 && Swift.abs(energies[other] - centre) <= reach {
                    weight += net[other]
                    moment += net[other] * energies[other]
                }
                if weight > 0 { centre = moment / weight }
            }
            peaks.append(
                Peak(
                    channel: channel, energy: centre,
                    net: hats[channel].net, sigma: hats[channel].sigma))
        }
        let low = energies[first], high = energies[last]
        func width(at energy: Double) -> Double { EnergyWindow.lineWidth(at: energy, resolution: resolution) }
        func tolerance(_ energy: Double) -> Double { max(0.4 * width(at: energy), 1.5 * channelWidth) }
        func peak(near energy: Double) -> Int? {
            let index = peaks.indices.min {
                Swift.abs(peaks[$0].energy - energy) < Swift.abs(peaks[$1].energy - energy)
            }
            return index.flatMap { Swift.abs(peaks[$0].energy - energy) <= tolerance(energy) ? $0 : nil }
        }
        func channel(of energy: Double) -> Int {
            min(n - 1, max(first, index((energy - energies[0]) / channelWidth)))
        }
        func lines(of element: Element) -> [(XRayLine, Double)] {
            XRayLine.allCases.compactMap { line in
                element.energy(of: line).map { (line, $0 * 1000) }.flatMap { $0.1 > low && $0.1 < high ? $0 : nil }
            }
        }
        // Each element tested at its principal line: the highest family whose main line lies well within the axis.
        // Below `LowEnergyLines.limit` a line is also fitted jointly with the continuum under it, away from the
        // peaks found about it (their tails would pass for the line); of such lines the one with the most net counts
        // is kept first, and a line within its reach is taken for its flank.
        let peakReaches = peaks.map { found in
            (
                energy: found.energy,
                reach:
                    (found.energy - LowEnergyLines.reach * width(at: found.energy))...(found.energy
                    + LowEnergyLines.reach * width(at: found.energy))
            )
        }
        func othersReaches(_ energy: Double) -> [ClosedRange<Double>] {
            peakReaches.filter { Swift.abs($0.energy - energy) > tolerance(energy) }.map(\.reach)
        }
        var lowLines: [(element: Element, line: XRayLine, energy: Double, fit: LowEnergyLines.Fit)] = []
        for element in Element.table {
            guard
                let principal = [XRayLine.kAlpha, .lAlpha, .mAlpha].lazy.compactMap({ line in
                    element.energy(of: line).map { (line: line, energy: $0 * 1000) }
                }).first(where: {
                    $0.energy >= low + width(at: $0.energy) && $0.energy <= high - 2 * width(at: $0.energy)
                }), principal.energy < LowEnergyLines.limit,
                !othersReaches(principal.energy).contains(where: { $0.contains(principal.energy) }),
                let fit = LowEnergyLines.fit(
                    counts, energies: energies, first: first, energy: principal.energy,
                    width: width(at: principal.energy), channelWidth: channelWidth,
                    excluded: othersReaches(principal.energy)),
                fit.significance >= SpectrumBackground.significance
            else { continue }
            lowLines.append((element, principal.line, principal.energy, fit))
        }
        var keptLow: [(element: Element, energy: Double, fit: LowEnergyLines.Fit)] = []
        for lowLine in lowLines.sorted(by: { $0.fit.net > $1.fit.net }) {
            let reaches = keptLow.map {
                ($0.energy - LowEnergyLines.reach * $0.fit.width)...($0.energy + LowEnergyLines.reach * $0.fit.width)
            }
            guard !reaches.contains(where: { $0.contains(lowLine.energy) }),
                let fit = LowEnergyLines.fit(
                    counts, energies: energies, first: first, energy: lowLine.energy,
                    width: width(at: lowLine.energy), channelWidth: channelWidth,
                    excluded: reaches + othersReaches(lowLine.energy)),
                fit.significance >= SpectrumBackground.significance
            else { continue }
            keptLow.append((lowLine.element, lowLine.energy, fit))
            // A line the top-hat search missed becomes a peak of its own, at the line's energy.
            if peak(near: lowLine.energy) == nil {
                peaks.append(
                    Peak(channel: channel(of: lowLine.energy), energy: lowLine.energy, net: fit.net, sigma: fit.sigma))
            }
        }
        var candidates: [Candidate] = []
        for element in Element.table {
            let principal = [XRayLine.kAlpha, .lAlpha, .mAlpha].lazy.compactMap { line in
                element.energy(of: line).map { (line: line, energy: $0 * 1000) }
            }.first { $0.energy >= low + width(at: $0.energy) && $0.energy <= high - 2 * width(at: $0.energy) }
            guard let principal else { continue }
            // A low line is named when the joint fit finds it, or when its top-hat peak does and the joint fit did
            // not take it for a stronger line's flank.
            let fitted = keptLow.contains { $0.element == element }
            guard let found = peak(near: principal.energy),
                fitted || principal.energy >= LowEnergyLines.limit
                    || lowLines.allSatisfy({ $0.element != element })
            else { continue }
            let (line, energy) = (principal.line, principal.energy)
            var betaFound = false
            if line == .kAlpha, let beta = element.energy(of: .kBeta).map({ $0 * 1000 }), beta < high,
                beta - energy > width(at: energy)
            {
                betaFound = peak(near: beta) != nil || z(channel(of: beta)) >= 3
            }
            candidates.append(
                Candidate(
                    element: element, line: line, energy: energy, peak: found,
                    distance: Swift.abs(peaks[found].energy - energy), betaFound: betaFound))
        }
        // A principal peak another candidate's lesser line accounts for names nothing.
        func explains(_ other: Candidate, _ candidate: Candidate) -> Bool {
            guard other.element != candidate.element, other.peak != candidate.peak else { return false }
            for (line, energy) in lines(of: other.element) where line != other.line {
                guard Swift.abs(peaks[candidate.peak].energy - energy) <= tolerance(energy) else { continue }
                if line == .kBeta {
                    let expected = betaShare(other.element.atomicNumber) * peaks[other.peak].net
                    if peaks[candidate.peak].net > 2 * expected + 5 * peaks[candidate.peak].sigma { continue }
                }
                return true
            }
            return false
        }
        var kept = candidates.filter { candidate in
            !candidates.contains { other in explains(other, candidate) && !explains(candidate, other) }
        }
        // Several principal lines on one peak: the one with its Kβ, else the one clearly nearest, else none.
        var chosen: [Candidate] = []
        for index in Set(kept.map(\.peak)).sorted() {
            var sharing = kept.filter { $0.peak == index }
            if sharing.count > 1, sharing.contains(where: \.betaFound) { sharing = sharing.filter(\.betaFound) }
            sharing.sort { $0.distance < $1.distance }
            if sharing.count == 1
                || (sharing[0].distance < 0.5 * sharing[1].distance
                    && sharing[1].distance > 0.15 * width(at: sharing[1].energy))
            {
                chosen.append(sharing[0])
            }
        }
        kept = chosen
        var elements: [IdentifiedElement] = kept.map { candidate in
            let found = peaks[candidate.peak]
            let half = 0.6 * width(at: candidate.energy)
            return IdentifiedElement(
                element: candidate.element, feature: "\(candidate.element.symbol) \(candidate.line.rawValue)",
                spokenFeature: "\(candidate.element.name) \(candidate.line.spoken)", energy: candidate.energy,
                window: (candidate.energy - half)...(candidate.energy + half), netCounts: found.net,
                significance: found.net / found.sigma)
        }
        elements.sort { $0.netCounts > $1.netCounts }
        let named = kept.map(\.element)
        let spectrumPeaks = peaks.sorted { $0.net > $1.net }.map { found -> SpectrumPeak in
            var best: (element: Element, line: XRayLine, distance: Double)?
            for element in named {
                for (line, energy) in lines(of: element) {
                    let distance = Swift.abs(found.energy - energy)
                    if distance <= tolerance(energy), distance < best?.distance ?? .infinity {
                        best = (element, line, distance)
                    }
                }
            }
            return SpectrumPeak(
                channel: found.channel, position: found.energy / perUnit, height: counts[found.channel],
                prominence: found.net, line: best.map { "\($0.element.symbol) \($0.line.rawValue)" },
                spokenLine: best.map { "\($0.element.name) \($0.line.spoken)" })
        }
        return SpectrumReading(
            elements: elements, peaks: spectrumPeaks, background: background,
            free: (0..<n).map { $0 >= first && !masked[$0] }, misfit: misfit)
    }

    // MARK: - EELS

    /// Below this energy loss lie the zero-loss peak and the plasmons, where no edge is sought.
    static let lowestEdgeWindow = 30.0

    private struct EELSEdge {
        var element: Element
        var edge: Edge
        var onset: Double
        /// The channels over which its counts above the background were summed.
        var window: Range<Int>
        var net: Double
        var z: Double
        /// The power law's values over `window`.
        var fitted: [Double]
    }

    private static func eels(_ counts: [Double], energies: [Double], channelWidth: Double, axis: SignalAxis)
        -> SpectrumReading
    {
        let n = counts.count
        func channel(of energy: Double) -> Int { index((energy - energies[0]) / channelWidth) }
        let usable = max(energies[0], lowestEdgeWindow)
        var found: [EELSEdge] = []
        var free = [Bool](repeating: true, count: n)
        let edges = Element.table.flatMap { element in
            Edge.allCases.compactMap { edge in element.onset(of: edge).map { (element, edge, $0) } }
        }.sorted { $0.2 < $1.2 }
        for (element, edge, onset) in edges {
            let span = max(20, 0.05 * onset), before = max(20, 0.1 * onset), gap = max(3, 0.01 * onset)
            let (preStart, preEnd) = (channel(of: max(onset - before, usable)), channel(of: onset - gap))
            guard preStart >= 0, preEnd - preStart >= 4 else { continue }
            let pre = preStart..<preEnd
            let post = channel(of: onset)..<channel(of: onset + span)
            let beyond = channel(of: onset + span)..<channel(of: onset + 2 * span)
            guard onset - before >= usable - before / 2,
                Double(pre.count) * channelWidth >= before / 3,
                post.count >= 2, post.upperBound <= n,
                let fit = SpectrumBackground.powerLaw(
                    counts, energies: energies, window: pre,
                    over: post.lowerBound..<min(n, beyond.upperBound))
            else { continue }
            let postSum = post.reduce(0.0) { $0 + counts[$1] }
            let backgroundSum = fit.background.prefix(post.count).reduce(0, +)
            let systematic = SpectrumBackground.powerLawShare * backgroundSum
            let variance = max(postSum, 1) * fit.misfit + fit.variance + systematic * systematic
            let net = postSum - backgroundSum
            let z = net / variance.squareRoot()
            guard z >= SpectrumBackground.significance else { continue }
            // An edge stays above the background beyond its onset; a lone peak falls back to it.
            let after = beyond.clamped(to: 0..<n)
            if after.count >= 2 {
                let afterSum = after.reduce(0.0) { $0 + counts[$1] }
                let afterBackground = fit.background.dropFirst(post.count).prefix(after.count).reduce(0, +)
                guard afterSum - afterBackground > -3 * max(afterSum, 1).squareRoot() else { continue }
            }
            found.append(
                EELSEdge(
                    element: element, edge: edge, onset: onset, window: post, net: net, z: z,
                    fitted: Array(fit.background.prefix(post.count))))
        }
        // Of edges whose windows overlap, the most significant stands.
        var kept: [EELSEdge] = []
        for candidate in found.sorted(by: { $0.z > $1.z })
        where !kept.contains(where: { $0.window.overlaps(candidate.window) }) {
            kept.append(candidate)
        }
        var background = counts
        for edge in kept {
            for (channel, value) in zip(edge.window, edge.fitted) where channel < n {
                free[channel] = false
                background[channel] = value
            }
        }
        // The zero-loss peak and the plasmons are modelled by nothing: left out.
        for channel in 0..<n where energies[channel] < usable { free[channel] = false }
        var elements: [IdentifiedElement] = []
        var peaks: [SpectrumPeak] = []
        for edge in kept.sorted(by: { $0.net > $1.net }) {
            let span = max(20, 0.05 * edge.onset)
            if !elements.contains(where: { $0.element == edge.element }) {
                elements.append(
                    IdentifiedElement(
                        element: edge.element, feature: "\(edge.element.symbol) \(edge.edge.rawValue)",
                        spokenFeature: "\(edge.element.name) \(edge.edge.spoken)", energy: edge.onset,
                        window: edge.onset...(edge.onset + span), netCounts: edge.net, significance: edge.z))
            }
            let at = min(n - 1, max(0, edge.window.lowerBound))
            peaks.append(
                SpectrumPeak(
                    channel: at, position: axis.position(at), height: counts[at], prominence: edge.net,
                    line: "\(edge.element.symbol) \(edge.edge.rawValue)",
                    spokenLine: "\(edge.element.name) \(edge.edge.spoken)"))
        }
        return SpectrumReading(
            elements: elements, peaks: peaks, background: background, free: free,
            misfit: [Double](repeating: 1, count: n))
    }
}
