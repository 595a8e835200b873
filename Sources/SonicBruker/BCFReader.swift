import SonicCore

/// Reads Bruker Esprit's `.bcf` files: the images acquired with a hypermap (BSE, SE …) and each
/// hypermap, an EDS spectrum image, as RosettaSciIO reads them.
///
/// The file is an AidAim SFS container (see `SFSContainer`) holding `EDSDatabase/HeaderData`, an
/// XML header (the scan's size and pixel size, the images, each hypermap's energy calibration), and
/// `EDSDatabase/SpectrumDataN`, the hypermaps (see `BrukerHypermap`).
public enum BCFReader {
    public static func contents(of file: FileBytes) throws(ImageFileError) -> ImageFileContents {
        let container = try SFSContainer(file)
        guard let headerItem = container.item(["EDSDatabase", "HeaderData"]) else {
            throw ImageFileError("a Bruker file without its header")
        }
        let header = try SFSStream(headerItem, in: container)
        guard header.count <= ImageLimits.maxFileBytes else {
            throw ImageFileError("a Bruker file whose header is \(header.count) bytes")
        }
        let xml = try XMLNode.parse(header.bytes(0..<header.count))
        guard let database = xml.child("ClassInstance", type: "TRTSpectrumDatabase") else {
            throw ImageFileError("a Bruker file whose header holds no spectrum database")
        }
        let microscope = database.child("ClassInstance", type: "TRTSEMData")
        // Pixel sizes in micrometres; without them, pixels.
        let calibration: Calibration =
            if let x = microscope?.number("DX"), let y = microscope?.number("DY"), x.isFinite, y.isFinite, x > 0, y > 0
            {
                Calibration(x: AxisCalibration(scale: x, unit: "µm"), y: AxisCalibration(scale: y, unit: "µm"))
            } else {
                .none
            }
        // The image Esprit acquired with the hypermap is the one without a name.
        guard
            let imageData = database.children("ClassInstance", type: "TRTImageData").last(where: {
                $0.attributes["Name"] == nil
            }),
            let width = imageData.number("Width").flatMap(Int.init(exactly:)),
            let height = imageData.number("Height").flatMap(Int.init(exactly:))
        else { throw ImageFileError("a Bruker file whose header gives no scan size") }
        try ImageLimits.check(width: width, height: height)
        var entries = try images(imageData, width: width, height: height, calibration: calibration)
        let acquired = entries.firstIndex { $0.isImage }
        let hypermaps = container.items.indices.compactMap { index -> (Int, SFSContainer.Item)? in
            let path = container.path(of: index)
            guard path.count == 2, path[0] == "EDSDatabase", path[1].hasPrefix("SpectrumData"),
                let number = Int(path[1].dropFirst("SpectrumData".count)), !container.items[index].isFolder
            else { return nil }
            return (number, container.items[index])
        }.sorted { $0.0 < $1.0 }
        for (number, item) in hypermaps {
            entries.append(
                try hypermap(
                    item, number: number, container: container, database: database, width: width, height: height,
                    calibration: calibration, acquired: acquired))
        }
        return ImageFileContents(format: .bcf, entries: entries)
    }

    /// The planes of the image acquired with the hypermap, each an image; RosettaSciIO leaves out
    /// those that are all zero (a detector not recording), and so does this.
    private static func images(_ node: XMLNode, width: Int, height: Int, calibration: Calibration)
        throws(ImageFileError) -> [ImageEntry]
    {
        let itemSize = node.number("ItemSize").flatMap(Int.init(exactly:)) ?? 0
        let sampleType: SampleType? = [1: .uint8, 2: .uint16, 4: .uint32][itemSize]
        let planes = node.number("PlaneCount").flatMap(Int.init(exactly:)) ?? 0
        var entries: [ImageEntry] = []
        for index in 0..<max(0, min(planes, 64)) {
            guard let plane = node.child("Plane\(index)"), let text = plane.child("Data")?.text else { continue }
            let title = plane.child("Description").map { String($0.text.trimmingWhitespace) } ?? "Plane \(index)"
            guard let sampleType else {
                entries.append(
                    ImageEntry(
                        title: title, shape: [width, height], sampleType: nil,
                        skipped: "values of \(itemSize) bytes, not 1, 2 or 4"))
                continue
            }
            let bytes = try Base64.decode(text)
            guard bytes.count >= width * height * itemSize else {
                throw ImageFileError("a Bruker file whose image \(title) holds fewer values than its size")
            }
            let samples = (0..<(width * height)).map { Float(bytes.unsigned(at: $0 * itemSize, size: itemSize)!) }
            guard samples.contains(where: { $0 != 0 }) else {
                entries.append(
                    ImageEntry(title: title, shape: [width, height], sampleType: sampleType, skipped: "every value 0"))
                continue
            }
            let image = GrayImage(width: width, height: height, sampleType: sampleType, samples: samples)
            entries.append(
                ImageEntry(
                    title: title, shape: [width, height], sampleType: sampleType, calibration: calibration,
                    read: { image }))
        }
        return entries
    }

    /// The detector's width (FWHM) at Mn Kα in eV, from Esprit's peak-width calibration in the spectrum header:
    /// σ² = `SigmaAbs` + `SigmaLin` · E, σ and E in keV; nil where the header gives none that makes sense.
    static func resolution(of header: XMLNode) -> Double? {
        guard let absolute = header.number("SigmaAbs"), let linear = header.number("SigmaLin") else { return nil }
        let variance = absolute + linear * 5.8987
        guard variance.isFinite, variance > 0 else { return nil }
        return 2.3548 * variance.squareRoot() * 1000
    }

    /// Hypermap `number`: its channels and energy calibration from the header's `SpectrumDataN`,
    /// its spectra decompressed and indexed when first asked for.
    private static func hypermap(
        _ item: SFSContainer.Item, number: Int, container: SFSContainer, database: XMLNode, width: Int,
        height: Int, calibration: Calibration, acquired: Int?
    ) throws(ImageFileError) -> ImageEntry {
        guard let spectrum = database.child("SpectrumData\(number)")?.child("ClassInstance"),
            let header = spectrum.child("ClassInstance", type: "TRTSpectrumHeader"),
            let offset = header.number("CalibAbs"), let scale = header.number("CalibLin"), offset.isFinite,
            scale.isFinite, scale != 0
        else { throw ImageFileError("a Bruker file whose hypermap \(number) has no energy calibration") }
        // As many channels as the summed spectrum has, as RosettaSciIO takes.
        let summed = spectrum.child("Channels")?.text.split(separator: ",").count
        guard let channels = summed ?? header.number("ChannelCount").flatMap(Int.init(exactly:)) else {
            throw ImageFileError("a Bruker file whose hypermap \(number) gives no channel count")
        }
        try ImageLimits.check(channels: channels)
        let source = DeferredSpectra(width: width, height: height, channels: channels) {
            () throws(ImageFileError) -> any SpectrumSource in
            try BrukerHypermap(SFSStream(item, in: container), width: width, height: height, channels: channels)
        }
        let energy = SignalAxis(
            name: "Energy", size: channels, scale: scale, offset: offset, units: "keV", navigation: false)
        let axes = [
            SignalAxis(name: "x", size: width, calibration: calibration.x, navigation: true),
            SignalAxis(name: "y", size: height, calibration: calibration.y, navigation: true), energy
        ]
        let cube = SpectrumCube(
            source: source, spectralAxis: energy, spectroscopy: .eds, resolution: resolution(of: header))
        return ImageEntry(
            title: number == 0 ? "EDX" : "EDX \(number)", spectra: cube, axes: axes, sampleType: .uint32,
            acquiredImage: acquired)
    }
}
