import Foundation
import SampleWriters
import TestSupport
import Testing

extension EndToEnd {
    /// A microscope's own file played as it comes off the instrument: the voice says which of its images
    /// is open and the calibration, the pen reads the file's own values, and the user chooses another
    /// image or pixel size from the command line.
    @Suite struct MicroscopeFileTests {
        /// A DM4 as DigitalMicrograph saves one: thumbnail, a 40 × 30 16-bit HAADF image at 0.0178 nm a
        /// pixel, a 20 × 15 float BF image at twice that, and a spectrum. Values known pixel by pixel.
        static func scan(in folder: String) throws -> (path: String, haadf: [Double], bf: [Double]) {
            let haadf = (0..<1200).map { (k: Int) -> Double in Double(1000 + 37 * (k % 40) + 1100 * (k / 40)) }
            let bf = (0..<300).map { (k: Int) -> Double in -2.5 + 0.0625 * Double(k) }
            let path = folder + "/scan.dm4"
            func axes(_ nanometres: Double) -> [SampleDM.Axis] {
                Array(repeating: SampleDM.Axis(scale: nanometres, units: "nm"), count: 2)
            }
            try Data(
                SampleDM(images: [
                    .init(
                        title: "Image Of HAADF", dimensions: [8, 6], dataType: .rgba,
                        values: Array(repeating: 0xFF80_8080, count: 48)),
                    .init(title: "HAADF", dimensions: [40, 30], dataType: .uint16, values: haadf, axes: axes(0.0178)),
                    .init(title: "BF", dimensions: [20, 15], dataType: .float32, values: bf, axes: axes(0.0356)),
                    .init(title: "EELS", dimensions: [64], dataType: .float32, values: (0..<64).map(Double.init))
                ]).bytes
            ).write(to: URL(fileURLWithPath: path))
            return (path, haadf, bf)
        }

        @Test func theGreetingNamesTheImageAndItsCalibrationAndThePenReadsTheFilesValues() throws {
            try withServers("dm4") { display, sound, folder in
                let scan = try Self.scan(in: folder)
                let noTablet =
                    display.hasRealPen ? "" : " No pen tablet found: the mouse plays, as a pen pressed fully."
                func greeting(_ arguments: [String], in name: String) throws -> (session: RunningPlay, text: String) {
                    let session = try RunningPlay(
                        image: scan.path, display: display, sound: sound, folder: folder + "/" + name,
                        arguments: arguments)
                    try session.waitUntilShown()
                    try session.waitForGreeting()
                    return (session, try session.records(ofType: "speech").first?["text"] as? String ?? "")
                }

                // By default the larger image, and the pixel size from the file.
                let (first, text) = try greeting([], in: "default")
                #expect(
                    text
                        == "SonicAtomic. scan.dm4, HAADF, image 1 of 2, 40 by 30 pixels, 16 bit, 17.8 picometres per pixel. "
                        + "Mode 1, intensity pitch." + noTablet)
                let start = try #require(try first.records(ofType: "start").first)
                #expect(start["imageNumber"] as? Int == 1 && start["sampleType"] as? String == "uint16")
                /// Touches the centre of pixel (x, y) and returns the pen record the touch logged.
                func touch(_ session: RunningPlay, _ x: Int, _ y: Int) throws -> [String: Any] {
                    let viewport = try #require(try session.records(ofType: "viewport").last)
                    let scale = viewport["scale"] as! Double
                    try display.tap(
                        viewport["originX"] as! Double + (Double(x) + 0.5) * scale,
                        viewport["originY"] as! Double + (Double(y) + 0.5) * scale, ms: 200)
                    func touching() -> [String: Any]? {
                        (try? session.records(ofType: "pen"))?.first { ($0["buttons"] as? [Int])?.contains(1) == true }
                    }
                    try waitFor("a touch on pixel (\(x), \(y))", timeout: 10) { touching() != nil }
                    return try #require(touching())
                }
                // A touch reads the pixel under it: its value as the file holds it.
                let record = try touch(first, 12, 7)
                #expect(record["sample"] as? Double == scan.haadf[7 * 40 + 12], "\(record)")
                #expect(try first.quitWithKey() == 0)

                // The second image: float samples, fractional and negative, as they are in the file.
                let (second, secondText) = try greeting(["--image", "2"], in: "second")
                #expect(
                    secondText.hasPrefix(
                        "SonicAtomic. scan.dm4, BF, image 2 of 2, 20 by 15 pixels, 32 bit float, "
                            + "35.6 picometres per pixel."), "\(secondText)")
                let secondRecord = try touch(second, 3, 2)
                #expect(secondRecord["sample"] as? Double == scan.bf[2 * 20 + 3], "\(secondRecord)")
                #expect(try second.quitWithKey() == 0)

                // The user's pixel size overrides the file's.
                let (third, thirdText) = try greeting(["--pixel-size", "20pm"], in: "override")
                #expect(thirdText.contains(", 16 bit, 20 picometres per pixel."), "\(thirdText)")
                #expect(try third.quitWithKey() == 0)
            }
        }
    }
}
