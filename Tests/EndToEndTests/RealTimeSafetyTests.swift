import Foundation
import Testing

extension EndToEnd {
    /// The audio thread must never allocate: allocation takes the allocator's locks and can stall
    /// for as long as the system likes. The engine is rendered by the benchmark program with an
    /// allocation counter interposed on malloc and free, through each shipped chain, sweeping the image,
    /// beeping the guide and playing spectra through the spectrum bank; and played live through native PipeWire,
    /// whose thread the program does not own. (Another image's sweep tables reach the audio thread through
    /// `SweepTableExchange`, by atomic exchanges alone, and are freed on the thread that offers the next.)
    @Suite struct RealTimeSafetyTests {
        @Test(arguments: ["default", "classic"])
        func renderingAllocatesNothing(profile: String) throws {
            let folder = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path
            let result = try Subprocess.run(
                folder + "/engine-benchmark",
                [
                    "--seconds", "20", "--count-allocations", "--sweeps", "--spectra", "--profile",
                    Fixtures.repository + "/profiles/\(profile).toml"
                ], environment: ["LD_PRELOAD": folder + "/libMallocInterposerSwift.so"], timeout: 300)
            #expect(result.output.contains("allocations while rendering: 0 (0 bytes), frees: 0"), "\(result.output)")
            #expect(result.status == 0)
        }

        /// Native PipeWire renders on its own data thread, in the graph's cycle: playing live for ten
        /// seconds, driven as the pen drives it, that thread allocates nothing — the stream's cycle,
        /// the dropout check and the renderer together.
        @Test func playingThroughPipeWireAllocatesNothingOnItsDataThread() throws {
            let folder = try Fixtures.scratch("rt-pipewire")
            let sound = try SoundServer(folder: folder, kind: .pipewireNative)
            defer { sound.stop() }
            let build = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path
            let result = try Subprocess.run(
                build + "/pipewire-allocations",
                [
                    "--seconds", "10", "--profile", Fixtures.repository + "/profiles/classic.toml"
                ],
                environment: sound.clientEnvironment.merging(["LD_PRELOAD": build + "/libMallocInterposerSwift.so"]) {
                    $1
                },
                timeout: 60)
            #expect(
                result.output.contains("allocations on PipeWire's data thread while playing: 0 in "), "\(result.output)"
            )
            #expect(result.status == 0)
            try? FileManager.default.removeItem(atPath: folder)
        }
    }
}
