/// A peak of a spectrum.
public struct SpectrumPeak: Sendable, Equatable {
    public var channel: Int
    /// Where it lies, in the axis's units.
    public var position: Double
    /// The spectrum's value there.
    public var height: Double
    /// How far it rises above the higher of the lowest points between it and a higher peak on
    /// either side (or the spectrum's end).
    public var prominence: Double
    /// The X-ray line nearest it, within half a line width, on an EDS spectrum: "Ti Kα"; on an EELS spectrum, the
    /// edge whose onset is nearest it: "Ti L2,3".
    public var line: String?
    /// "titanium K alpha", "titanium L edge".
    public var spokenLine: String?
}

public enum SpectrumPeaks {
    /// The `count` most prominent peaks of `spectrum` (lightly smoothed first, so that counting noise
    /// makes no peaks), most prominent first; those less than a tenth as prominent as the first are
    /// left out. On an EDS spectrum each is named by the X-ray line nearest it.
    public static func strongest(
        _ spectrum: [Double], axis: SignalAxis, spectroscopy: Spectroscopy, count: Int = 5
    ) -> [SpectrumPeak] {
        let smooth = smoothed(spectrum)
        guard smooth.count >= 3 else { return [] }
        var peaks: [SpectrumPeak] = []
        var index = 1
        while index < smooth.count - 1 {
            // A plateau counts once, at its first channel.
            var end = index
            while end + 1 < smooth.count, smooth[end + 1] == smooth[index] { end += 1 }
            if smooth[index] > smooth[index - 1], end + 1 < smooth.count, smooth[index] > smooth[end + 1] {
                // Placed on the highest channel of the spectrum itself near the smoothed maximum.
                let near = max(0, index - 2)...min(spectrum.count - 1, end + 2)
                let channel = near.max { spectrum[$0] < spectrum[$1] } ?? index
                peaks.append(
                    SpectrumPeak(
                        channel: channel, position: axis.position(channel), height: spectrum[channel],
                        prominence: prominence(of: index, in: smooth)))
            }
            index = end + 1
        }
        peaks.sort { $0.prominence > $1.prominence }
        guard let top = peaks.first?.prominence, top > 0 else { return [] }
        var kept = Array(peaks.prefix { $0.prominence >= top / 10 }.prefix(count))
        if spectroscopy == .eds || (spectroscopy == .unknown && EnergyUnit(axis.units) != nil),
            let perUnit = EnergyUnit(axis.units)?.electronvolts
        {
            for index in kept.indices {
                let energy = kept[index].position * perUnit
                if let (element, line) = nearestLine(to: energy) {
                    kept[index].line = "\(element.symbol) \(line.rawValue)"
                    kept[index].spokenLine = "\(element.name) \(line.spoken)"
                }
            }
        } else if spectroscopy == .eels, let perUnit = EnergyUnit(axis.units)?.electronvolts {
            for index in kept.indices {
                if let (element, edge) = nearestEdge(to: kept[index].position * perUnit) {
                    kept[index].line = "\(element.symbol) \(edge.rawValue)"
                    kept[index].spokenLine = "\(element.name) \(edge.spoken)"
                }
            }
        }
        return kept
    }

    /// The EELS edge whose onset is nearest `energy` (eV), if one lies within 10 eV or 2 % of it, whichever is
    /// wider.
    public static func nearestEdge(to energy: Double) -> (Element, Edge)? {
        let tolerance = max(10, 0.02 * Swift.abs(energy))
        var best: (element: Element, edge: Edge, distance: Double)?
        for element in Element.table {
            for edge in Edge.allCases {
                guard let onset = element.onset(of: edge) else { continue }
                let distance = Swift.abs(onset - energy)
                if distance <= tolerance, distance < best?.distance ?? .infinity { best = (element, edge, distance) }
            }
        }
        return best.map { ($0.element, $0.edge) }
    }

    /// The X-ray line nearest `energy` (eV), if one lies within half a line width of it.
    public static func nearestLine(to energy: Double) -> (Element, XRayLine)? {
        let tolerance = EnergyWindow.lineWidth(at: energy) / 2
        var best: (element: Element, line: XRayLine, distance: Double)?
        for element in Element.table {
            for line in XRayLine.allCases {
                guard let lineEnergy = element.energy(of: line) else { continue }
                let distance = Swift.abs(lineEnergy * 1000 - energy)
                if distance <= tolerance, distance < best?.distance ?? .infinity { best = (element, line, distance) }
            }
        }
        return best.map { ($0.element, $0.line) }
    }

    /// Smoothed twice with weights 1, 2, 1.
    static func smoothed(_ values: [Double]) -> [Double] {
        var current = values
        for _ in 0..<2 where current.count >= 3 {
            var next = current
            for index in 1..<(current.count - 1) {
                next[index] = (current[index - 1] + 2 * current[index] + current[index + 1]) / 4
            }
            current = next
        }
        return current
    }

    /// The topographic prominence of the maximum at `index`.
    static func prominence(of index: Int, in values: [Double]) -> Double {
        let peak = values[index]
        func base(stepping step: Int) -> Double {
            var lowest = peak
            var at = index + step
            while at >= 0, at < values.count, values[at] <= peak {
                lowest = min(lowest, values[at])
                at += step
            }
            return lowest
        }
        return peak - max(base(stepping: -1), base(stepping: 1))
    }
}
