/// A peak of a spectrum.
public struct SpectrumPeak: Sendable, Equatable {
    public var channel: Int
    /// Where it lies, in the axis's units.
    public var position: Double
    /// The spectrum's value there.
    public var height: Double
    /// On an energy axis, its net counts above the background; else how far it rises above the higher of the
    /// lowest points between it and a higher peak on either side (or the spectrum's end).
    public var prominence: Double
    /// The line of an identified element that explains it, "Ti Kα", or the edge, "Ti L2,3"; nil for an
    /// unidentified peak.
    public var line: String?
    /// "titanium K alpha", "titanium L edge".
    public var spokenLine: String?
}

public enum SpectrumPeaks {
    /// The `count` strongest peaks of `spectrum`. On an energy axis of EDS or EELS, the significant peaks (or edges)
    /// above the modelled background, each named by the line or edge of an identified element that explains it, an
    /// unidentified one by nothing (`ElementIdentification`, EDS lines as wide as a detector of `resolution` makes
    /// them, FWHM at Mn Kα in eV, else the default); the zero-energy and zero-loss peaks are left out. On
    /// any other axis the most prominent peaks of the lightly smoothed spectrum, unnamed, those less than a tenth as
    /// prominent as the first left out.
    public static func strongest(
        _ spectrum: [Double], axis: SignalAxis, spectroscopy: Spectroscopy, resolution: Double? = nil, count: Int = 5
    ) -> [SpectrumPeak] {
        if EnergyUnit(axis.units) != nil, spectroscopy == .eds || spectroscopy == .eels || spectroscopy == .unknown {
            let reading = ElementIdentification.read(
                spectrum, axis: axis,
                spectroscopy: spectroscopy == .unknown ? Spectroscopy(signal: nil, units: axis.units) : spectroscopy,
                resolution: EnergyWindow.usableResolution(resolution))
            return Array(reading.peaks.prefix(count))
        }
        return prominent(spectrum, axis: axis, count: count)
    }

    /// The `count` most prominent peaks of the lightly smoothed spectrum (so that counting noise makes no peaks),
    /// most prominent first; those less than a tenth as prominent as the first are left out.
    static func prominent(_ spectrum: [Double], axis: SignalAxis, count: Int) -> [SpectrumPeak] {
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
        return Array(peaks.prefix { $0.prominence >= top / 10 }.prefix(count))
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
