// Regenerates the sample images in images/. Deterministic: the same PNG bytes on every run.
// Usage: swift run make-images [OUTPUT-FOLDER]   (default: images)
import RealModule
import SonicCore
import SonicPNG
import Glibc

let folder = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "images"

/// The default image: a 16-bit atomic-resolution STEM-like lattice — square cell of 24 px turned
/// by 7°, Gaussian columns (σ 3.2 px) over a gentle background ramp, with shot and read noise.
let angle = 7.0 * Double.pi / 180
let spacing = 24.0
let lattice = LatticeImage(
    width: 384, height: 384,
    a: (spacing * Double.cos(angle), spacing * Double.sin(angle)),
    b: (-spacing * Double.sin(angle), spacing * Double.cos(angle)),
    origin: (11.3, 9.7),
    sites: [.init(u: 0, v: 0, height: 30_000)],
    sigma: 3.2, background: 6_000, backgroundSlope: (4, -2.5),
    doseScale: 0.25, readNoise: 120, seed: 20_260_101)

do {
    try PNGEncoder.write(lattice.render(), to: folder + "/atomic-lattice.png")
    print("wrote \(folder)/atomic-lattice.png")
} catch {
    print("make-images: \(error)")
    exit(1)
}
