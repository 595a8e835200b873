import ArgumentParser
import Foundation
import SonicCore
import SonicImageFiles
import SonicTIFF

struct Map: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Map an energy window of a spectrum image: the counts in its channels at every pixel.",
        discussion: """
            The window's channels are those HyperSpy's s.isig[A:B].sum(-1) takes: from the channel nearest A up \
            to, not including, the channel nearest B. A and B are in eV or keV when a unit follows them \
            (450:470eV, 4.4:4.6keV), else in the spectra's own units. --element chooses an element's main X-ray \
            line (EDS: K alpha, else L alpha, else M alpha, within the spectrum, one line width either side) or \
            edge (EELS: K, else L2,3, else M4,5, from its onset over 20 eV or 5 percent of the onset); the table \
            holds NIST's X-ray line energies and Gatan's EELS Atlas onsets. --background takes a flat background \
            away: the mean per channel of another window (A:B, or "before": as wide, just below) times the \
            window's channels. The sentence says where the window's signal stands above the spectra's background \
            (in words, the share of pixels and their centre); a window whose counts do not stand significantly \
            above it is warned of in one line on stderr. The map is written as a 32-bit float TIFF with the scan's \
            calibration.
            """)

    @Argument(help: "A file holding spectra: DM3/DM4, EMD, HyperSpy (.hspy) or Bruker (.bcf).")
    var file: String

    // Unconditional: a window may begin with a minus sign (-0.05:0.05keV).
    @Option(parsing: .unconditional, help: "The window, A:B with an optional unit: 450:470eV, 4.4:4.6keV, 313:354.")
    var window: String?

    @Option(help: "An element (Ti, titanium) whose main X-ray line or edge to map.")
    var element: String?

    @Option(
        parsing: .unconditional, help: "A background window to take away: A:B with an optional unit, or \"before\".")
    var background: String?

    @OptionGroup var imageChoice: ImageChoice

    @Flag(help: "Print one JSON object instead of a sentence.")
    var json = false

    @Option(help: "Write the map here, as a 32-bit float TIFF.")
    var out: String?

    func validate() throws {
        guard (window == nil) != (element == nil) else { throw ValidationError("give --window or --element") }
        if let element, Element.named(element) == nil {
            throw ValidationError("--element takes an element's symbol or name, e.g. Ti or titanium; not \(element)")
        }
    }

    func run() throws {
        do {
            let contents = try ImageFiles.contents(of: file)
            let (index, number) = try Self.spectra(imageChoice.number, in: contents)
            let entry = contents.entries[index]
            guard let cube = entry.spectra else {
                throw ImageFileError(
                    "image \(number) is \(entry.kind.map { "a \($0.spoken)" } ?? "skipped"), not spectra")
            }
            let axis = cube.spectralAxis
            let chosen: EnergyWindow
            if let window {
                guard let parsed = try EnergyWindow(parsing: window, on: axis) else {
                    throw ImageFileError("--window takes A:B with an optional unit (450:470eV); not \(window)")
                }
                chosen = parsed
            } else {
                chosen = try EnergyWindow.element(
                    Element.named(element ?? "")!, on: axis, spectroscopy: cube.spectroscopy,
                    resolution: cube.resolution)
            }
            let channels = try chosen.channels(on: axis)
            var backgroundChannels: Range<Int>?
            if let background {
                let window = try background == "before" ? chosen.before : EnergyWindow(parsing: background, on: axis)
                guard let window else {
                    throw ImageFileError("--background takes A:B with an optional unit, or before; not \(background)")
                }
                backgroundChannels = try window.channels(on: axis)
            }
            // The summed spectrum (for where the window's signal is) and the maps come from one pass.
            try cube.overview(
                with: [channels] + (backgroundChannels.map { [$0] } ?? [])
                    + ElementMaps.knownReferences(of: channels, in: cube))
            let map = try cube.map(channels, background: backgroundChannels)
            let signal = try ElementMaps.signal(in: cube, window: channels)
            if let out { try TIFFWriter.writeFloat(map.image, calibration: entry.calibration, to: out) }
            if !signal.significant, !json { warn(Phrases.windowHoldsNothing(element: element.flatMap(Element.named))) }
            print(
                json
                    ? Self.json(map, window: chosen, axis: axis, signal: signal)
                    : Self.sentence(map, window: chosen, axis: axis, file: file, out: out, signal: signal))
        } catch let error as ImageFileError {
            throw fail("cannot map \(file): \(error)", status: ExitStatus.badInput)
        }
    }

    /// The signal `number` names, or by default the largest spectrum image (else line scan, else spectrum).
    static func spectra(_ number: Int?, in contents: ImageFileContents) throws(ImageFileError) -> (Int, Int) {
        if let number { return try ImageFiles.signal(number, in: contents) }
        let signals = contents.entries.indices.filter { contents.entries[$0].isSignal }
        for kind in [SignalKind.spectrumImage, .lineScan, .spectrum] {
            let candidates = signals.filter { contents.entries[$0].kind == kind }
            let size = { (index: Int) in contents.entries[index].width * contents.entries[index].height }
            guard let largest = candidates.map(size).max() else { continue }
            let index = candidates.first { size($0) == largest }!
            return (index, signals.firstIndex(of: index)! + 1)
        }
        throw ImageFileError("the file holds no spectra")
    }

    /// The documented JSON: the window in the axis's units and its channels, the map's size and
    /// statistics, and its values at the first pixel and at the centre (x first).
    static func json(_ map: WindowMap, window: EnergyWindow, axis: SignalAxis, signal: ElementMaps.WindowSignal)
        -> String
    {
        let (centreX, centreY) = (map.width / 2, map.height / 2)
        var fields = [
            "\"window\":[\(JSONLine.number(axis.position(map.channels.lowerBound))),"
                + "\(JSONLine.number(axis.position(map.channels.upperBound)))]",
            "\"units\":\(JSONLine.quoted(axis.units))",
            "\"channels\":[\(map.channels.lowerBound),\(map.channels.upperBound)]"
        ]
        if let background = map.background {
            fields.append("\"background\":[\(background.lowerBound),\(background.upperBound)]")
        }
        if let feature = window.feature { fields.append("\"feature\":\(JSONLine.quoted(feature))") }
        fields += [
            "\"width\":\(map.width)", "\"height\":\(map.height)", "\"min\":\(JSONLine.number(map.minimum))",
            "\"max\":\(JSONLine.number(map.maximum))", "\"mean\":\(JSONLine.number(map.mean))",
            "\"values\":{"
                + Set([[0, 0], [centreX, centreY]]).sorted { $0.lexicographicallyPrecedes($1) }.map { point in
                    "\"\(point[0]),\(point[1])\":\(JSONLine.number(map[point[0], point[1]]))"
                }.joined(separator: ",") + "}",
            "\"significance\":\(signal.significance.map(JSONLine.number) ?? "null")",
            "\"significant\":\(signal.significant)", "\"where\":\(JSONLine.quoted(signal.words))",
            "\"fraction\":\(JSONLine.number(signal.fraction))", "\"x\":\(JSONLine.number(signal.x))",
            "\"y\":\(JSONLine.number(signal.y))"
        ]
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// "Map of sample.hspy, Ti Kα, 4.40 to 4.63 keV (channels 440 to 463), 48 by 40 pixels: minimum 2,
    /// maximum 163, mean 69.8. Its signal is in the left half, 50 percent of the pixels, centred at x 11.5, y 19.5.
    /// Written to ti.tif."
    static func sentence(
        _ map: WindowMap, window: EnergyWindow, axis: SignalAxis, file: String, out: String?,
        signal: ElementMaps.WindowSignal
    ) -> String {
        let name = URL(fileURLWithPath: file).lastPathComponent
        let units = axis.units.isEmpty ? "" : " \(axis.units)"
        let bounds =
            "\(SignalAxis.text(axis.position(map.channels.lowerBound))) to "
            + "\(SignalAxis.text(axis.position(map.channels.upperBound)))\(units)"
        let feature = window.feature.map { "\($0), " } ?? ""
        let background =
            map.background.map { ", less a flat background from channels \($0.lowerBound) to \($0.upperBound)" } ?? ""
        let written = out.map { " Written to \($0)." } ?? ""
        return "Map of \(name), \(feature)\(bounds) (channels \(map.channels.lowerBound) to "
            + "\(map.channels.upperBound))\(background), \(map.width) by \(map.height) pixels: minimum "
            + "\(SignalAxis.text(map.minimum)), maximum \(SignalAxis.text(map.maximum)), mean "
            + "\(SignalAxis.text(map.mean)).\(Self.whereabouts(signal))\(written)"
    }

    /// " Its signal is in a patch at the centre, 15 percent of the pixels, centred at x 30, y 34.", or nothing where
    /// the window holds no significant signal.
    static func whereabouts(_ signal: ElementMaps.WindowSignal) -> String {
        guard signal.significant, signal.significance != nil else { return "" }
        let share = NumberText.significant(100 * signal.fraction, digits: 2)
        let place = signal.words == "everywhere" ? "everywhere" : "in \(signal.words), \(share) percent of the pixels"
        return " Its signal is \(place), centred at x \(NumberText.significant(signal.x, digits: 3)), y "
            + "\(NumberText.significant(signal.y, digits: 3))."
    }
}
