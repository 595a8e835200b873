import Foundation
import SonicCore
import Testing

@Suite struct ElementTests {
    @Test func theTableHoldsEveryElementOnceInOrder() throws {
        let table = Element.table
        #expect(table.map(\.atomicNumber) == Array(1...95))
        #expect(Set(table.map(\.symbol)).count == table.count)
        // Values checked against their sources: NIST SRD 128 (Kα1 of Ti 4.5108 keV, Cu 8.0478 keV) and
        // the EELS Atlas (O K 532 eV, Ti L3 456 eV, Fe L3 708 eV).
        let titanium = try #require(Element.named("Ti"))
        #expect(titanium.name == "titanium" && Element.named("titanium") == titanium && Element.named("ti") == titanium)
        #expect(abs(titanium.energy(of: .kAlpha)! - 4.5108) < 0.001)
        #expect(abs(Element.named("Cu")!.energy(of: .kAlpha)! - 8.0478) < 0.001)
        #expect(Element.named("O")!.onset(of: .k) == 532 && titanium.onset(of: .l23) == 456)
        #expect(Element.named("Fe")!.onset(of: .l23) == 708)
        #expect(Element.named("Xx") == nil)
        for element in table {
            for line in XRayLine.allCases {
                if let energy = element.energy(of: line) { #expect(energy > 0 && energy < 150, "\(element.symbol)") }
            }
        }
    }

    @Test func anElementMapsItsMainLineInsideTheSpectrum() throws {
        let eds = SignalAxis(name: "Energy", size: 1024, scale: 0.01, units: "keV", navigation: false)
        // Ti Kα ± its width: √(2.5 (4510.9 − 5898.7) + 130²) = 115.9 eV.
        let titanium = try EnergyWindow.element(Element.named("Ti")!, on: eds, spectroscopy: .eds)
        #expect(titanium.feature == "Ti Kα" && titanium.spokenFeature == "titanium K alpha")
        #expect(abs(titanium.start - 4.3950) < 1e-3 && abs(titanium.end - 4.6268) < 1e-3)
        #expect(try titanium.channels(on: eds) == 440..<463)
        // Sr's Kα lies beyond 10.23 keV: its Lα.
        #expect(try EnergyWindow.element(Element.named("Sr")!, on: eds, spectroscopy: .eds).feature == "Sr Lα")
        let wide = SignalAxis(name: "Energy", size: 2048, scale: 0.01, units: "keV", navigation: false)
        #expect(try EnergyWindow.element(Element.named("Au")!, on: wide, spectroscopy: .eds).feature == "Au Lα")
        // In eV, the same window in eV.
        let inEV = SignalAxis(name: "Energy", size: 2048, scale: 10, units: "eV", navigation: false)
        let copper = try EnergyWindow.element(Element.named("Cu")!, on: inEV, spectroscopy: .eds)
        #expect(copper.feature == "Cu Kα" && abs((copper.start + copper.end) / 2 - 8047.8) < 0.1)
        #expect(throws: ImageFileError.self) {
            try EnergyWindow.element(Element.named("Li")!, on: eds, spectroscopy: .eds)
        }
    }

    @Test func anElementMapsItsMainEdgeFromItsOnset() throws {
        let eels = SignalAxis(name: "Energy loss", size: 2048, scale: 0.25, offset: 400, units: "eV", navigation: false)
        let titanium = try EnergyWindow.element(Element.named("Ti")!, on: eels, spectroscopy: .eels)
        #expect(titanium == EnergyWindow(start: 456, end: 478.8, feature: "Ti L2,3", spokenFeature: "titanium L edge"))
        let oxygen = try EnergyWindow.element(Element.named("O")!, on: eels, spectroscopy: .eels)
        #expect(oxygen.feature == "O K" && oxygen.start == 532 && abs(oxygen.end - 558.6) < 1e-9)
        #expect(oxygen.before == EnergyWindow(start: 505.4, end: 532))
        #expect(throws: ImageFileError.self) {
            try EnergyWindow.element(Element.named("C")!, on: eels, spectroscopy: .eels)
        }
        let light = SignalAxis(name: "Wavelength", size: 670, scale: 0.15, offset: 316, units: "nm", navigation: false)
        #expect(throws: ImageFileError.self) {
            try EnergyWindow.element(Element.named("O")!, on: light, spectroscopy: .cathodoluminescence)
        }
    }

    /// Gaussian peaks at Ti Kα and Cu Kα and a weak one at O Kα over a falling background: found,
    /// placed within two channels (a seventh of a line's width), named, strongest first.
    @Test func peaksAreFoundAndNamedByTheirLines() {
        let axis = SignalAxis(name: "Energy", size: 1024, scale: 0.01, units: "keV", navigation: false)
        var random = SeededRandom(seed: 3)
        let spectrum = (0..<1024).map { channel -> Double in
            let energy = axis.position(channel)
            func peak(_ centre: Double, _ area: Double) -> Double {
                let height: Double = area * 0.01 / (0.06 * (2 * Double.pi).squareRoot())
                let distance: Double = energy - centre
                return height * exp(-distance * distance / 0.0072)
            }
            let expected: Double =
                2000 / (1 + energy) + peak(4.5109, 60_000) + peak(8.0478, 20_000) + peak(0.5249, 12_000)
            return random.poisson(expected)
        }
        let peaks = SpectrumPeaks.strongest(spectrum, axis: axis, spectroscopy: .eds)
        #expect(peaks.map(\.line) == ["Ti Kα", "Cu Kα", "O Kα"], "\(peaks)")
        for (peak, energy) in zip(peaks, [4.5109, 8.0478, 0.5249]) {
            #expect(abs(peak.position - energy) <= 0.02, "\(peak)")
        }
        #expect(peaks.first?.spokenLine == "titanium K alpha")
        #expect(SpectrumPeaks.strongest([1, 1, 1, 1], axis: axis, spectroscopy: .eds).isEmpty)
    }
}
