// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SonicAtomic",
    products: [
        .executable(name: "sonic-atomic", targets: ["SonicAtomicApp"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-numerics", from: "1.0.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.0")
    ],
    targets: [
        // C libraries from Debian, used directly.
        .systemLibrary(name: "CX11", pkgConfig: "x11", providers: [.apt(["libx11-dev"])]),
        .systemLibrary(name: "CXInput2", pkgConfig: "xi", providers: [.apt(["libxi-dev"])]),
        .systemLibrary(name: "CXft", pkgConfig: "xft", providers: [.apt(["libxft-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // No pkgConfig: libpulse's .pc adds flags SwiftPM refuses; the modulemap links it.
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        // No pkgConfig either, for the same reason: SonicPipeWire gives the include folders.
        .systemLibrary(name: "CPipeWire", providers: [.apt(["libpipewire-0.3-dev"])]),
        .systemLibrary(name: "CEspeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        // No pkgConfig: its .pc asks for GLib's headers, which libspeechd's own do not need.
        .systemLibrary(name: "CSpeechd", providers: [.apt(["libspeechd-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        // Debian's serial HDF5: headers under hdf5/serial, library libhdf5_serial.
        .systemLibrary(name: "CHDF5", pkgConfig: "hdf5-serial", providers: [.apt(["libhdf5-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // ATK's pkg-config file gives GLib's include folders, which the bridge's header needs too.
        .systemLibrary(name: "CATK", pkgConfig: "atk", providers: [.apt(["libatk-bridge2.0-dev"])]),
        // No pkg-config file: the modulemap links libbrlapi.
        .systemLibrary(name: "CBrlAPI", providers: [.apt(["libbrlapi-dev"])]),

        // The core: image model, mappings, profiles, controller, DSP. Knows nothing of the C libraries.
        .target(
            name: "SonicCore",
            dependencies: [.product(name: "RealModule", package: "swift-numerics")]
        ),

        // Thin adapters, one per C library.
        .target(name: "SonicPNG", dependencies: ["SonicCore", "CPNG"]),
        .target(name: "SonicX11", dependencies: ["SonicCore", "CX11", "CXInput2", "CXft"]),
        .target(name: "SonicPulse", dependencies: ["SonicCore", "CPulse"]),
        // Debian's include folders for libpipewire and SPA, which its pkg-config file would give.
        .target(
            name: "SonicPipeWire", dependencies: ["SonicCore", "CPipeWire"],
            swiftSettings: [
                .unsafeFlags(["-Xcc", "-I/usr/include/pipewire-0.3", "-Xcc", "-I/usr/include/spa-0.2"])
            ]),
        .target(name: "SonicSpeech", dependencies: ["SonicCore", "CEspeakNG"]),
        .target(name: "SonicSpeechDispatcher", dependencies: ["SonicCore", "CSpeechd"]),
        .target(name: "SonicTIFF", dependencies: ["SonicCore", "CTIFF"]),
        .target(name: "SonicHDF5", dependencies: ["SonicCore", "CHDF5", "CZlib"]),
        .target(name: "SonicBruker", dependencies: ["SonicCore", "CZlib"]),
        .target(name: "SonicAccessibility", dependencies: ["CATK"]),
        .target(name: "SonicBraille", dependencies: ["SonicCore", "CBrlAPI"]),

        // Every image format the program reads, recognised by content: one place opens files.
        .target(
            name: "SonicImageFiles", dependencies: ["SonicCore", "SonicPNG", "SonicTIFF", "SonicHDF5", "SonicBruker"]),

        // The live sound output: native PipeWire or PulseAudio, one falling back to the other.
        .target(name: "SonicAudio", dependencies: ["SonicCore", "SonicPulse", "SonicPipeWire"]),

        .executableTarget(
            name: "SonicAtomicApp",
            dependencies: [
                "SonicCore", "SonicImageFiles", "SonicTIFF", "SonicX11", "SonicAudio", "SonicSpeech",
                "SonicSpeechDispatcher", "SonicAccessibility", "SonicBraille",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
        // Runs libhdf5 for the EMD reader, one process per file listed or plane read, installed beside the program.
        .executableTarget(name: "sonic-atomic-hdf5", dependencies: ["SonicHDF5"]),
        // Renders the sound engine offline and reports speed, block times, memory and allocations.
        .executableTarget(
            name: "engine-benchmark",
            dependencies: ["SonicCore", .product(name: "MallocInterposerSwift", package: "malloc-interposer")]
        ),
        // Plays the engine live through native PipeWire and counts the allocations on its data thread.
        .executableTarget(
            name: "pipewire-allocations",
            dependencies: [
                "SonicCore", "SonicPipeWire", .product(name: "MallocInterposerSwift", package: "malloc-interposer")
            ]
        ),
        // Reports each time the machine itself stopped running programs (the end-to-end tests and the
        // dropout benchmark tell those dropouts from the program's own).
        .executableTarget(name: "machine-pauses"),
        // Feeds damaged image files, HDF5 surveys, Velox streams, session logs and BrlAPI's keys and sizes to their
        // readers (see scripts/fuzz).
        .executableTarget(name: "fuzz", dependencies: ["SonicCore", "SonicImageFiles", "SonicHDF5", "SonicBraille"]),
        // Regenerates the sample images in images/ (deterministic).
        .executableTarget(name: "make-images", dependencies: ["SonicCore", "SonicPNG", "SampleWriters"]),
        // DigitalMicrograph and TIFF writers written from the formats' descriptions, independent of the
        // readers: make-images writes the samples with them, and the readers' tests check against them.
        .target(name: "SampleWriters"),

        // Test helpers: an independent PNG writer, the shared data's facts, and signal analysis for recordings.
        .target(name: "TestSupport", path: "Tests/Support"),
        .testTarget(name: "SonicCoreTests", dependencies: ["SonicCore", "SampleWriters", "TestSupport"]),
        .testTarget(name: "SonicPNGTests", dependencies: ["SonicPNG", "SonicCore", "TestSupport"]),
        .testTarget(name: "SonicTIFFTests", dependencies: ["SonicTIFF", "SonicCore", "SampleWriters", "TestSupport"]),
        .testTarget(name: "SonicAudioTests", dependencies: ["SonicAudio", "SonicPipeWire", "SonicCore"]),
        .testTarget(
            name: "SonicHDF5Tests",
            dependencies: ["SonicHDF5", "sonic-atomic-hdf5", "SonicBruker", "SonicCore", "TestSupport", "CHDF5"]),
        .testTarget(name: "SonicBrukerTests", dependencies: ["SonicBruker", "SonicCore", "SampleWriters"]),
        .testTarget(name: "SonicX11Tests", dependencies: ["SonicX11", "SonicCore", "CX11"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "SonicAtomicApp", "sonic-atomic-hdf5", "engine-benchmark", "pipewire-allocations", "fuzz", "SonicCore",
                "SampleWriters", "TestSupport",
                // Times what the lesson says, in the program's own voice.
                "SonicSpeech",
                // Reads back the maps `strain --out` writes.
                "SonicImageFiles",
                // Text rendered on the test's X server, to hold the program's screen to.
                "CX11", "CXft",
                // HDF5 files written at test time, in the layouts the program reads.
                "CHDF5"
            ],
            // Optimising the harness costs the build three quarters of a minute and saves the tests nothing:
            // their time goes into the program and the signal analysis, both optimised.
            swiftSettings: [.unsafeFlags(["-Onone"], .when(configuration: .release))])
    ]
)
