import Foundation
import Testing

extension EndToEnd {
    /// The audio thread must never allocate: allocation takes the allocator's locks and can stall
    /// for as long as the system likes. The engine is rendered by the benchmark program with an
    /// allocation counter interposed on malloc and free, through each shipped chain.
    @Suite struct RealTimeSafetyTests {
        @Test(arguments: ["default", "classic"])
        func renderingAllocatesNothing(profile: String) throws {
            let folder = URL(fileURLWithPath: Fixtures.binary).deletingLastPathComponent().path
            let result = try Subprocess.run(folder + "/engine-benchmark", [
                "--seconds", "20", "--count-allocations", "--profile", Fixtures.repository + "/profiles/\(profile).toml",
            ], environment: ["LD_PRELOAD": folder + "/libMallocInterposerSwift.so"], timeout: 300)
            #expect(result.output.contains("allocations while rendering: 0 (0 bytes), frees: 0"), "\(result.output)")
            #expect(result.status == 0)
        }
    }
}
