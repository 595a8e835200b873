import Foundation
import SonicCore

/// The committed fixtures (Tests/Fixtures/tiff, made by its make_fixtures.py) and what each holds.
enum TIFFFixtures {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/tiff").path

    static func path(_ name: String) -> String { folder + "/" + name }

    static func bytes(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    /// Every .tif file of the folder, sorted.
    static func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tif") }.sorted()
    }

    /// What a page of a fixture holds, from expected.json (numpy's arrays as written).
    struct Page {
        var width: Int
        var height: Int
        var title: String
        var dtype: String?
        var values: [Double]?
        /// A word the reason must contain, for pages that cannot be played.
        var unsupported: String?
        var x: AxisCalibration?
        var y: AxisCalibration?
    }

    static func expected() throws -> [String: [Page]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path("expected.json")))
        guard let all = try JSONSerialization.jsonObject(with: data) as? [String: [[String: Any]]] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return all.mapValues { pages in pages.map(page) }
    }

    private static func page(_ json: [String: Any]) -> Page {
        let shape = json["shape"] as? [Int] ?? []
        let calibration = json["calibration"] as? [String: [String: Any]] ?? [:]
        func axis(_ name: String) -> AxisCalibration? {
            guard let axis = calibration[name], let scale = axis["scale"] as? Double,
                let offset = axis["offset"] as? Double, let unit = axis["unit"] as? String
            else { return nil }
            return AxisCalibration(scale: scale, offset: offset, unit: unit)
        }
        return Page(
            width: shape.first ?? -1, height: shape.last ?? -1, title: json["title"] as? String ?? "",
            dtype: json["dtype"] as? String, values: json["values"] as? [Double],
            unsupported: json["unsupported"] as? String, x: axis("x"), y: axis("y"))
    }
}

/// A scratch folder for damaged copies of the fixtures, removed by `remove()`. In memory where
/// Linux offers it: rewriting a file thousands of times on a disk that discards freed blocks
/// takes milliseconds each.
struct ScratchFolder {
    let path: String

    init(_ name: String) throws {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : FileManager.default.temporaryDirectory.path
        path = base + "/sonic-tiff-\(name)-\(getpid())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func write(_ bytes: [UInt8], as name: String) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
