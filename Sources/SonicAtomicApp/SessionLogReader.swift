import Foundation
import SonicCore

/// Reads a session log (JSON Lines, see README) back into records. Record types this version does
/// not replay are skipped, so newer logs still render.
enum SessionLogReader {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func read(path: String) throws -> (start: StartRecord, records: [SessionRecord]) {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw Failure(description: "cannot read the session log \(path)")
        }
        var start: StartRecord?
        var records: [SessionRecord] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let place = "\(path):\(index + 1)"
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw Failure(description: "\(place): not a JSON object")
            }
            let fields = Fields(object: object, place: place)
            switch try fields.string("type") {
            case "start":
                let record = StartRecord(
                    t: try fields.number("t"), image: try fields.string("image"),
                    imageNumber: object["imageNumber"] == nil ? 1 : try fields.integer("imageNumber"),
                    width: try fields.integer("width"), height: try fields.integer("height"),
                    bitDepth: try fields.integer("bitDepth"),
                    sampleType: object["sampleType"] == nil ? "uint\(try fields.integer("bitDepth"))" : try fields.string("sampleType"),
                    profile: try fields.string("profile"), sampleRate: try fields.integer("sampleRate"),
                    voice: object["voice"] as? String, rate: (object["rate"] as? NSNumber)?.intValue)
                start = record
                records.append(.start(record))
            case "viewport":
                let scale = try fields.number("scale")
                guard scale > 0 else { throw Failure(description: "\(place): scale must be positive") }
                records.append(.viewport(t: try fields.number("t"), Viewport(
                    originX: try fields.number("originX"), originY: try fields.number("originY"), scale: scale)))
            case "pen":
                var buttons = PenButtons()
                for button in try fields.integers("buttons") { buttons.insert(button) }
                records.append(.pen(PenRecord(
                    t: try fields.number("t"), rootX: try fields.number("x"), rootY: try fields.number("y"),
                    imageX: try fields.number("ix"), imageY: try fields.number("iy"), inImage: try fields.bool("inImage"),
                    sample: try fields.number("sample"), level: try fields.number("level"),
                    pressure: try fields.number("pressure"), tiltX: try fields.number("tiltX"),
                    tiltY: try fields.number("tiltY"), buttons: buttons, mode: try fields.string("mode"),
                    frequency: try fields.number("frequency"), amplitude: try fields.number("amplitude"))))
            case "mode":
                guard let mode = Mode(rawValue: try fields.string("mode")) else {
                    throw Failure(description: "\(place): unknown mode")
                }
                records.append(.mode(t: try fields.number("t"), mode))
            case "speech":
                records.append(.speech(t: try fields.number("t"), text: try fields.string("text")))
            case "tag":
                records.append(.tag(t: try fields.number("t"), Tag(id: try fields.integer("id"), x: try fields.number("ix"),
                                                                   y: try fields.number("iy"),
                                                                   snapped: object["snapped"] as? Bool ?? false)))
            case "untag":
                records.append(.untag(t: try fields.number("t"), id: try fields.integer("id")))
            case "cursor":
                let point = object["ix"] == nil ? nil : ImagePoint(x: try fields.number("ix"), y: try fields.number("iy"))
                records.append(.cursor(t: try fields.number("t"), point))
            case "cell":
                var cell: UnitCell?
                if object["ox"] != nil {
                    cell = UnitCell(origin: ImagePoint(x: try fields.number("ox"), y: try fields.number("oy")),
                                    vectorA: ImagePoint(x: try fields.number("ax"), y: try fields.number("ay")),
                                    vectorB: ImagePoint(x: try fields.number("bx"), y: try fields.number("by")))
                    guard cell != nil else { throw Failure(description: "\(place): the cell's vectors do not span a cell") }
                }
                records.append(.cell(t: try fields.number("t"), cell, ticks: try fields.bool("ticks")))
            default:
                continue
            }
        }
        guard let start else { throw Failure(description: "\(path): no start record") }
        return (start, records)
    }

    /// Typed access to one record's fields, failing with the line and field name.
    private struct Fields {
        let object: [String: Any]
        let place: String

        func value<T>(_ key: String, as type: T.Type, _ kind: String) throws -> T {
            guard let value = object[key] as? T else { throw Failure(description: "\(place): \"\(key)\" must be \(kind)") }
            return value
        }
        func string(_ key: String) throws -> String { try value(key, as: String.self, "text") }
        func bool(_ key: String) throws -> Bool { try value(key, as: Bool.self, "true or false") }
        func number(_ key: String) throws -> Double {
            let n = try value(key, as: NSNumber.self, "a number").doubleValue
            guard n.isFinite else { throw Failure(description: "\(place): \"\(key)\" must be finite") }
            return n
        }
        func integer(_ key: String) throws -> Int { Int(try number(key)) }
        func integers(_ key: String) throws -> [Int] {
            try value(key, as: [NSNumber].self, "a list of numbers").map(\.intValue)
        }
    }
}
