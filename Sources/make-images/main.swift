import Foundation
import Glibc
import RealModule
// Regenerates the sample images in images/. Deterministic: the same bytes on every run.
//   swift run make-images [OUTPUT-FOLDER]          (default: images)
//   swift run make-images --lattice SIZE PATH      a SIZE × SIZE lattice for benchmarks (PATH.png, .dm4 or .tif)
//   swift run make-images --overlapping-lattice SIZE PATH   the same with strongly overlapping columns
//   swift run make-images --bcf FOLDER              small Bruker files, stored and compressed (the fuzzer's seeds)
import SampleWriters
import SonicCore
import SonicPNG

/// A 16-bit STEM-like lattice — square cell of 24 px turned by 7°, Gaussian columns (σ 3.2 px) over a
/// gentle background ramp, with shot and read noise. Overlapping: a 16 px cell and σ 5 px.
func lattice(size: Int, overlapping: Bool = false) -> LatticeImage {
    let angle = 7.0 * Double.pi / 180
    let spacing = overlapping ? 16.0 : 24.0
    return LatticeImage(
        width: size, height: size,
        a: (spacing * Double.cos(angle), spacing * Double.sin(angle)),
        b: (-spacing * Double.sin(angle), spacing * Double.cos(angle)),
        origin: (11.3, 9.7),
        sites: [.init(u: 0, v: 0, height: 30_000)],
        sigma: overlapping ? 5 : 3.2, background: 6_000,
        backgroundSlope: (4 * 384 / Double(size), -2.5 * 384 / Double(size)),
        doseScale: 0.25, readNoise: 120, seed: 20_260_101)
}

func write(_ image: GrayImage, _ path: String) {
    if path.hasSuffix(".dm4") { return write(microscopeFile([(image, "HAADF", 1)]), path) }
    if path.hasSuffix(".tif") {
        let page = SampleTIFF.Page(
            width: image.width, height: image.height, kind: .unsigned(bits: image.bitDepth),
            values: image.samples.map(Double.init))
        return write(SampleTIFF(pages: [page]).bytes, path)
    }
    do {
        try PNGEncoder.write(image, to: path)
        print("wrote \(path)")
    } catch {
        print("make-images: \(error)")
        exit(1)
    }
}

func write(_ bytes: [UInt8], _ path: String) {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        print("make-images: cannot write \(path)")
        exit(1)
    }
    print("wrote \(path)")
}

/// The lattice's pixel size: its 24-pixel cell is SrTiO₃'s 390.5 pm.
let latticePixelNanometres = 0.3905 / 24

/// A DigitalMicrograph 4 file as the microscope writes one: a small RGB thumbnail first, then each
/// image (16-bit, calibrated in nm: the lattice's pixel size times the image's binning), then a line
/// profile across the first (a 1-D signal).
func microscopeFile(_ images: [(image: GrayImage, title: String, binning: Double)]) -> [UInt8] {
    let first = images[0].image
    let thumbnailSide = 64
    let thumbnail = (0..<(thumbnailSide * thumbnailSide)).map { k -> Double in
        let x = k % thumbnailSide * first.width / thumbnailSide, y = k / thumbnailSide * first.height / thumbnailSide
        let gray = Double(UInt32(first[x, y]) >> 8)
        return 0xFF00_0000 + gray * 0x10101
    }
    let axis = SampleDM.Axis(scale: latticePixelNanometres, units: "nm")
    func axes(_ binning: Double) -> [SampleDM.Axis] {
        [SampleDM.Axis(scale: latticePixelNanometres * binning, units: "nm")]
    }
    let profile = (0..<first.width).map { Double(first[$0, first.height / 2]) }
    return SampleDM(
        version: 4,
        images: [
            .init(
                title: "Image Of \(images[0].title)", dimensions: [thumbnailSide, thumbnailSide],
                dataType: .rgba, values: thumbnail)
        ]
            + images.map {
                .init(
                    title: $0.title, dimensions: [$0.image.width, $0.image.height], dataType: .uint16,
                    values: $0.image.samples.map(Double.init), axes: axes($0.binning) + axes($0.binning))
            }
            + [
                .init(
                    title: "Profile across \(images[0].title)", dimensions: [first.width], dataType: .float32,
                    values: profile, axes: [axis])
            ]
    ).bytes
}

/// A bright-field view of the same lattice: half the size (2 × 2 binned), columns dark on a bright field.
func brightField(_ image: GrayImage) -> GrayImage {
    let width = image.width / 2, height = image.height / 2
    let samples = (0..<(width * height)).map { k -> UInt16 in
        let x = 2 * (k % width), y = 2 * (k / width)
        let mean = (image[x, y] + image[x + 1, y] + image[x, y + 1] + image[x + 1, y + 1]) / 4
        return UInt16(max(0, 40_000 - mean / 2).rounded())
    }
    return GrayImage(width: width, height: height, bitDepth: 16, samples: samples)
}

/// A perovskite-like projection (SrTiO3 along [001]): heavy columns at the corners of a 28 px square
/// cell turned by 3°, light ones (0.4× as high) at the centres, σ 3 px, with noise.
func twoSublattice() -> GrayImage {
    let angle = 3.0 * Double.pi / 180, cell = 28.0
    return LatticeImage(
        width: 384, height: 384,
        a: (cell * Double.cos(angle), cell * Double.sin(angle)),
        b: (-cell * Double.sin(angle), cell * Double.cos(angle)),
        origin: (7.6, 12.2), sites: [.init(u: 0, v: 0, height: 30_000), .init(u: 0.5, v: 0.5, height: 12_000)],
        sigma: 3, background: 5_000, backgroundSlope: (0, 0), doseScale: 0.25, readNoise: 120, seed: 20_260_202
    ).render()
}

/// A number to a thousandth, for the truth files.
func rounded(_ value: Double) -> String { JSONLine.number((value * 1000).rounded() / 1000) }

func write(text: String, _ path: String) { write(Array(text.utf8), path) }

/// The doped lattice, and its truth: where the dopants and the vacancy are.
func dopedLattice(_ folder: String) {
    let truth = PhysicsSamples.dopedLattice()
    write(truth.render(), folder + "/doped-lattice.png")
    let positions = truth.sitePositions(margin: 0)
    func points(_ sites: [LatticeImage.SitePosition]) -> String {
        "[" + sites.map { "{\"x\":\(rounded($0.x)),\"y\":\(rounded($0.y))}" }.joined(separator: ",") + "]"
    }
    write(
        text: "{\"image\":\"doped-lattice.png\",\"dopant_factor\":\(JSONLine.number(PhysicsSamples.dopantFactor)),"
            + "\"dopants\":\(points(positions.filter { PhysicsSamples.dopants.contains($0.index) })),"
            + "\"vacancies\":\(points(positions.filter(\.isVacant)))}\n",
        folder + "/doped-lattice.truth.json")
}

/// The two polar domains as a DigitalMicrograph 4 file calibrated at their pixel size, and their truth: every
/// column's true centre, sublattice (1 heavy, 2 light) and displacement from its ideal site in pixels.
func polarDomains(_ folder: String) {
    let truth = PhysicsSamples.polarDomains()
    let image = truth.render()
    let axis = SampleDM.Axis(scale: PhysicsSamples.polarPixelPicometres / 1000, units: "nm")
    let file = SampleDM(
        version: 4,
        images: [
            .init(
                title: "HAADF", dimensions: [image.width, image.height], dataType: .uint16,
                values: image.samples.map(Double.init), axes: [axis, axis])
        ])
    write(file.bytes, folder + "/polar-domains.dm4")
    let columns = truth.sitePositions(margin: 0).map { site in
        let shift = truth.shifts[site.index] ?? (0, 0)
        return "[\(rounded(site.x)),\(rounded(site.y)),\(site.index.site + 1),\(rounded(shift.x)),\(rounded(shift.y))]"
    }
    write(
        text: "{\"image\":\"polar-domains.dm4\","
            + "\"pixel_size\":\(JSONLine.number(PhysicsSamples.polarPixelPicometres)),"
            + "\"shift\":\(JSONLine.number(PhysicsSamples.polarShiftPicometres)),"
            + "\"fields\":[\"x\",\"y\",\"sublattice\",\"dx\",\"dy\"],"
            + "\"columns\":[\(columns.joined(separator: ","))]}\n",
        folder + "/polar-domains.truth.json")
}

/// For checking the pen by ear and eye, 512 × 384, 16-bit, three strips of 128 rows:
/// eight steps (value 65535·k/7 in columns 64k … 64k+63), a smooth gradient (value 128·x), and a grid
/// (bright 2-pixel lines every 64 pixels, from x, y = 0, on black).
func calibration() -> GrayImage {
    let width = 512, height = 384
    var samples = [UInt16](repeating: 0, count: width * height)
    for y in 0..<height {
        for x in 0..<width {
            let value: Int
            switch y {
            case 0..<128: value = 65535 * (x / 64) / 7
            case 128..<256: value = 128 * x
            default: value = (x % 64 < 2 || (y - 256) % 64 < 2) ? 65535 : 0
            }
            samples[y * width + x] = UInt16(min(value, 65535))
        }
    }
    return GrayImage(width: width, height: height, bitDepth: 16, samples: samples)
}

/// For first steps, 320 × 240, 8-bit, on black: a white disc (radius 40, centre (70, 120)), a gray
/// square (side 80, centre (160, 120), value 128) and a light triangle (value 200, apex (250, 80),
/// base from (210, 160) to (290, 160)).
func shapes() -> GrayImage {
    let width = 320, height = 240
    var samples = [UInt16](repeating: 0, count: width * height)
    for y in 0..<height {
        for x in 0..<width {
            let (fx, fy) = (Double(x), Double(y))
            if (fx - 70) * (fx - 70) + (fy - 120) * (fy - 120) <= 40 * 40 {
                samples[y * width + x] = 255
            } else if abs(fx - 160) <= 40 && abs(fy - 120) <= 40 {
                samples[y * width + x] = 128
            } else if fy <= 160 && fy >= 80 && abs(fx - 250) <= (fy - 80) / 2 {
                samples[y * width + x] = 200
            }
        }
    }
    return GrayImage(width: width, height: height, bitDepth: 8, samples: samples)
}

let arguments = CommandLine.arguments
if arguments.count == 4, ["--lattice", "--overlapping-lattice"].contains(arguments[1]),
    let size = Int(arguments[2]), size > 0
{
    write(lattice(size: size, overlapping: arguments[1] == "--overlapping-lattice").render(), arguments[3])
} else if arguments.count == 3, arguments[1] == "--bcf" {
    write(SampleBCF.example(compressed: false).bytes(), arguments[2] + "/stored.bcf")
    write(SampleBCF.example(compressed: true).bytes(), arguments[2] + "/compressed.bcf")
} else {
    let folder = arguments.count > 1 ? arguments[1] : "images"
    let atomicLattice = lattice(size: 384).render()
    write(atomicLattice, folder + "/atomic-lattice.png")
    write(
        microscopeFile([(atomicLattice, "HAADF", 1), (brightField(atomicLattice), "BF", 2)]),
        folder + "/atomic-lattice.dm4")
    write(twoSublattice(), folder + "/two-sublattice.png")
    dopedLattice(folder)
    polarDomains(folder)
    write(calibration(), folder + "/calibration.png")
    write(shapes(), folder + "/shapes.png")
}
