// Regenerates the sample images in images/. Deterministic: the same PNG bytes on every run.
//   swift run make-images [OUTPUT-FOLDER]          (default: images)
//   swift run make-images --lattice SIZE PATH      a SIZE × SIZE lattice for benchmarks
import Glibc
import RealModule
import SonicCore
import SonicPNG

/// A 16-bit STEM-like lattice — square cell of 24 px turned by 7°, Gaussian columns (σ 3.2 px) over a
/// gentle background ramp, with shot and read noise.
func lattice(size: Int) -> LatticeImage {
    let angle = 7.0 * Double.pi / 180
    let spacing = 24.0
    return LatticeImage(
        width: size, height: size,
        a: (spacing * Double.cos(angle), spacing * Double.sin(angle)),
        b: (-spacing * Double.sin(angle), spacing * Double.cos(angle)),
        origin: (11.3, 9.7),
        sites: [.init(u: 0, v: 0, height: 30_000)],
        sigma: 3.2, background: 6_000, backgroundSlope: (4 * 384 / Double(size), -2.5 * 384 / Double(size)),
        doseScale: 0.25, readNoise: 120, seed: 20_260_101)
}

func write(_ image: GrayImage, _ path: String) {
    do {
        try PNGEncoder.write(image, to: path)
        print("wrote \(path)")
    } catch {
        print("make-images: \(error)")
        exit(1)
    }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "--lattice", let size = Int(arguments[2]), size > 0 {
    write(lattice(size: size).render(), arguments[3])
} else {
    let folder = arguments.count > 1 ? arguments[1] : "images"
    // The default image.
    write(lattice(size: 384).render(), folder + "/atomic-lattice.png")
}
