import Foundation
import Testing

@testable import SonicCore

/// Element identification and the elements' places on generated spectrum images of known truth, at low and high
/// counts: exactly the elements they hold, each one's share of the image within 6 percent and its centre within 3
/// pixels, no peak at zero energy, and an unexplained peak left unnamed.
@Suite struct ElementIdentificationTests {
    /// Checks what `ElementMaps` finds in `sample` against its truth.
    func expectTruth(_ sample: SpectrumSample, _ label: String) throws {
        let (reading, places) = try ElementMaps.places(in: sample.cube)
        let named = Set(places.map(\.element.element.symbol))
        #expect(named == Set(sample.truth.map(\.symbol)), "\(label): \(reading.elements.map(\.feature))")
        for truth in sample.truth {
            guard let place = places.first(where: { $0.element.element.symbol == truth.symbol }) else { continue }
            #expect(abs(place.fraction - truth.fraction) <= 0.06, "\(label) \(truth.symbol): \(place.fraction)")
            let (x, y) = truth.centroid(width: sample.width)
            #expect(
                ((place.x - x) * (place.x - x) + (place.y - y) * (place.y - y)).squareRoot() <= 3,
                "\(label) \(truth.symbol): (\(place.x), \(place.y)) against (\(x), \(y))")
        }
        let perUnit = EnergyUnit(sample.cube.spectralAxis.units)!.electronvolts
        for peak in reading.peaks {
            #expect(peak.position * perUnit > 100, "\(label): a peak at \(peak.position)")
        }
    }

    @Test(arguments: SpectrumSample.Counts.allCases)
    func ironDiscNickelAroundSiliconEverywhere(_ counts: SpectrumSample.Counts) throws {
        let sample = SpectrumSample.ironNickelSilicon(counts)
        try expectTruth(sample, "Fe, Ni, Si \(counts)")
        let (_, places) = try ElementMaps.places(in: sample.cube)
        let words = Dictionary(uniqueKeysWithValues: places.map { ($0.element.element.symbol, $0) })
        #expect(words["Fe"]?.words == "a patch at the centre")
        #expect(words["Ni"]?.words == "all but a patch at the centre")
        #expect(words["Si"]?.words == "everywhere")
        #expect(words["Si"]?.weak == true)
        #expect(words["Fe"]?.weak == false)
        #expect(ElementMaps.sentence(places).hasPrefix("Fe in a patch at the centre, 15 percent of the area"))
    }

    @Test(arguments: SpectrumSample.Counts.allCases, [false, true])
    func backgroundAloneNamesNothing(_ counts: SpectrumSample.Counts, hump: Bool) throws {
        let sample = SpectrumSample.backgroundOnly(counts, hump: hump)
        let (reading, places) = try ElementMaps.places(in: sample.cube)
        #expect(places.isEmpty, "\(reading.elements.map(\.feature))")
        #expect(reading.peaks.isEmpty, "\(reading.peaks)")
        #expect(ElementMaps.sentence(places) == "No element stands out from the background.")
    }

    @Test(arguments: SpectrumSample.Counts.allCases)
    func weakLineIsNamedAndALonePeakIsNot(_ counts: SpectrumSample.Counts) throws {
        let sample = SpectrumSample.weakLine(counts)
        try expectTruth(sample, "weak Ti \(counts)")
        let reading = ElementIdentification.read(
            try sample.cube.overview().summed, axis: sample.cube.spectralAxis, spectroscopy: .eds)
        let stray = try #require(reading.peaks.first { abs($0.position * 1000 - sample.strayPeaks[0]) < 60 })
        #expect(stray.line == nil, "\(stray)")
        #expect(!reading.elements.contains { $0.element.symbol == "Fe" || $0.element.symbol == "Co" })
    }

    @Test(arguments: SpectrumSample.Counts.allCases, [false, true])
    func eelsEdgesAndWhereTheyAre(_ counts: SpectrumSample.Counts, lowLoss: Bool) throws {
        let sample = SpectrumSample.eelsOxides(counts, lowLoss: lowLoss)
        try expectTruth(sample, "EELS \(counts) low loss \(lowLoss)")
        let (reading, _) = try ElementMaps.places(in: sample.cube)
        #expect(Set(reading.peaks.compactMap(\.line)) == ["O K", "Fe L2,3", "Ni L2,3"])
        for peak in reading.peaks { #expect(peak.position > 100) }
    }

    @Test(arguments: SpectrumSample.Counts.allCases)
    func eelsBackgroundAloneNamesNothing(_ counts: SpectrumSample.Counts) throws {
        let (reading, places) = try ElementMaps.places(in: SpectrumSample.eelsBackground(counts).cube)
        #expect(places.isEmpty, "\(reading.elements.map(\.feature))")
    }

    /// Carbon's and oxygen's lines, where the detector's absorption makes the continuum rise and bend over, named and
    /// placed; the background alone (above) names neither.
    @Test(arguments: SpectrumSample.Counts.allCases)
    func lightElementsOnTheAbsorbedContinuum(_ counts: SpectrumSample.Counts) throws {
        try expectTruth(SpectrumSample.lightElements(counts), "C, O, Si \(counts)")
    }

    /// A line a thousand times as tall as the continuum under it is found, and nothing beside it.
    @Test(arguments: SpectrumSample.Counts.allCases)
    func aTowerOnATinyContinuum(_ counts: SpectrumSample.Counts) throws {
        let sample = SpectrumSample.tallLine(counts)
        try expectTruth(sample, "tall Fe \(counts)")
        let reading = ElementIdentification.read(
            try sample.cube.overview().summed, axis: sample.cube.spectralAxis, spectroscopy: .eds)
        #expect(reading.peaks.allSatisfy { $0.line?.hasPrefix("Fe") == true }, "\(reading.peaks)")
    }

    /// A spectrum whose counts are all near zero energy (the strobe peak and a little of its tail, as RosettaSciIO's
    /// `test-EDS_spectrum.dm3` holds) has no peak: the counts end there, and past them nothing is sought.
    @Test func countsOnlyNearZeroMakeNoPeak() {
        let axis = SignalAxis(name: "Energy", size: 4096, scale: 0.005, offset: -0.478, units: "keV", navigation: false)
        var spectrum = [Double](repeating: 0, count: 4096)
        for channel in 0..<4096 {
            let energy = axis.position(channel) * 1000
            spectrum[channel] = (3500 * Double.exp(-energy * energy / (2 * 15 * 15))).rounded()
            if energy > 160 && energy < 250 { spectrum[channel] += 3 }
            if energy > 170 && energy < 185 { spectrum[channel] += 7 }
        }
        let reading = ElementIdentification.read(spectrum, axis: axis, spectroscopy: .eds)
        #expect(reading.peaks.isEmpty && reading.elements.isEmpty, "\(reading.peaks)")
    }

    /// The detector's resolution sets the lines' widths: its own at Mn Kα, narrower below; a resolution no detector
    /// has falls back to 130 eV.
    @Test func lineWidthsFollowTheDetectorsResolution() {
        #expect(abs(EnergyWindow.lineWidth(at: 5898.7, resolution: 150) - 150) < 1e-9)
        #expect(abs(EnergyWindow.lineWidth(at: 5898.7) - 130) < 1e-9)
        let carbon = EnergyWindow.lineWidth(at: 277.4, resolution: 130)
        #expect(abs(carbon - (130.0 * 130 + 2.5 * (277.4 - 5898.7)).squareRoot()) < 1e-9 && carbon < 60)
        #expect(EnergyWindow.lineWidth(at: 277.4, resolution: 150) > carbon)
        #expect(EnergyWindow.usableResolution(nil) == 130 && EnergyWindow.usableResolution(3) == 130)
        #expect(EnergyWindow.usableResolution(.nan) == 130 && EnergyWindow.usableResolution(125) == 125)
    }

    /// Counting noise over a flat background: no element, no peak.
    @Test func flatNoiseNamesNothing() {
        let axis = SignalAxis(name: "Energy", size: 1024, scale: 0.01, units: "keV", navigation: false)
        for level in [3.0, 300, 30000] {
            var random = SeededRandom(seed: UInt64(level))
            let spectrum = (0..<1024).map { _ in random.poisson(level) }
            let reading = ElementIdentification.read(spectrum, axis: axis, spectroscopy: .eds)
            #expect(reading.elements.isEmpty && reading.peaks.isEmpty, "\(level): \(reading.peaks)")
            let eels = SignalAxis(
                name: "Energy loss", size: 1024, scale: 0.5, offset: 300, units: "eV", navigation: false)
            #expect(ElementIdentification.read(spectrum, axis: eels, spectroscopy: .eels).elements.isEmpty)
        }
    }
}
