import Foundation

/// What a reader read from one signal, in plain terms, to hold against what RosettaSciIO read from
/// the same file (its `FILE.facts.json`).
public struct ReadSignal {
    public typealias Axis = (name: String, size: Int, scale: Double, offset: Double, units: String, navigation: Bool)

    /// "image", "stack", "spectrum-image", "line-scan" or "spectrum".
    public var kind: String
    /// Navigation axes (x, then y; a stack's frames), then signal axes (x, then y; the channels).
    public var axes: [Axis]
    /// Frame `i` (an image is frame 0), row by row.
    public var frame: ((Int) throws -> [Float])?
    /// The spectrum at pixel (x, y).
    public var spectrum: ((Int, Int) throws -> [Double])?
    /// The sum of channels `range` at every pixel, row by row.
    public var map: ((Range<Int>) throws -> [Double])?
    /// The channels that a window from `start` to `end` (in the axis's units) takes.
    public var channels: ((Double, Double) throws -> Range<Int>)?

    public init(
        kind: String, axes: [Axis], frame: ((Int) throws -> [Float])? = nil,
        spectrum: ((Int, Int) throws -> [Double])? = nil, map: ((Range<Int>) throws -> [Double])? = nil,
        channels: ((Double, Double) throws -> Range<Int>)? = nil
    ) {
        self.kind = kind
        self.axes = axes
        self.frame = frame
        self.spectrum = spectrum
        self.map = map
        self.channels = channels
    }
}

/// Compares a signal read with its facts: kind, axes and calibration, values, statistics, frames,
/// the summed spectrum and every energy-window map.
public enum SpectraFacts {
    /// Picometres in one of the length units the facts use; others compare as they are.
    static let lengths: [String: Double] = ["pm": 1, "nm": 1e3, "µm": 1e6, "Å": 100, "m": 1e12]

    /// Equal to float precision: sums of many 32-bit values agree to a few parts in ten million.
    public static func close(_ a: Double, _ b: Double) -> Bool {
        abs(a - b) <= 2e-6 * max(1, abs(b))
    }

    /// The kind a facts signal describes.
    public static func kind(_ facts: [String: Any]) -> String {
        let navigation = (facts["navigation_shape"] as? [Int])?.count ?? 0
        if facts["spectrum"] != nil { return ["spectrum", "line-scan", "spectrum-image"][min(navigation, 2)] }
        return navigation == 0 ? "image" : "stack"
    }

    /// Every difference found, one line each; none when the signal reads as RosettaSciIO read it.
    public static func problems(_ read: ReadSignal, _ facts: [String: Any]) -> [String] {
        var problems: [String] = []
        func check(_ condition: Bool, _ what: @autoclosure () -> String) { if !condition { problems.append(what()) } }
        do {
            check(read.kind == kind(facts), "kind \(read.kind), not \(kind(facts))")
            let axes = facts["axes"] as? [[String: Any]] ?? []
            // Velox's stacks give no frame axis in their facts.
            let compared = read.axes.count == axes.count ? read.axes : Array(read.axes.suffix(axes.count))
            check(compared.count == axes.count, "\(read.axes.count) axes, not \(axes.count)")
            for (axis, said) in zip(compared, axes) {
                let units = said["units"] as? String ?? ""
                let (scale, offset) = (said["scale"] as? Double ?? 1, said["offset"] as? Double ?? 0)
                let (ours, theirs) = (lengths[axis.units], lengths[units])
                let factor = ours.flatMap { ours in theirs.map { $0 / ours } } ?? 1
                check(
                    axis.size == said["size"] as? Int && axis.navigation == said["navigate"] as? Bool
                        && (axis.units == units || (ours != nil && theirs != nil))
                        && close(axis.scale, scale * factor)
                        && abs(axis.offset - offset * factor) <= 1e-9 * max(1, abs(offset * factor)),
                    "axis \(axis) is not \(said)")
                // A spectrum's axis keeps its own name (RosettaSciIO names some "x").
                if let name = said["name"] as? String, ["x", "y"].contains(name),
                    axis.navigation || !read.kind.contains("spectr")
                {
                    check(axis.name == name, "axis \(axis.name), not \(name)")
                }
            }
            if read.kind == "image" || read.kind == "stack" {
                try checkPictures(read, facts, &problems)
            } else {
                try checkSpectra(read, facts, &problems)
            }
        } catch {
            problems.append("reading failed: \(error)")
        }
        return problems
    }

    /// The facts' data as the program plays it, flattened: complex values (innermost [re, im]) as
    /// their modulus, RGBA ([R, G, B, A]) as the luminance, true as 1.
    static func played(_ value: Any, dtype: String) -> [Double] {
        guard let list = value as? [Any] else { return [(value as? NSNumber)?.doubleValue ?? .nan] }
        let innermost = !(list.first is [Any])
        if innermost, dtype.hasPrefix("complex"), list.count == 2 {
            let (re, im) = ((list[0] as! NSNumber).doubleValue, (list[1] as! NSNumber).doubleValue)
            return [(re * re + im * im).squareRoot()]
        }
        if innermost, dtype.contains("'R'"), list.count == 4 {
            let (r, g, b) = (
                (list[0] as! NSNumber).doubleValue, (list[1] as! NSNumber).doubleValue,
                (list[2] as! NSNumber).doubleValue
            )
            return [(299 * r + 587 * g + 114 * b) / 1000]
        }
        return list.flatMap { played($0, dtype: dtype) }
    }

    private static func checkPictures(_ read: ReadSignal, _ facts: [String: Any], _ problems: inout [String]) throws {
        guard let frame = read.frame else { return problems.append("no frames to read") }
        let shape = facts["shape"] as? [Int] ?? []
        let frames = read.kind == "stack" ? shape[0] : 1
        let all = try (0..<frames).map { try frame($0).map(Double.init) }
        if let data = facts["data"] {
            let wanted = played(data, dtype: facts["dtype"] as? String ?? "")
            if all.flatMap({ $0 }) != wanted { problems.append("values \(all.flatMap { $0 }), not \(wanted)") }
        }
        let values = all.flatMap { $0 }
        if let min = facts["min"] as? Double, let max = facts["max"] as? Double,
            !close(values.min()!, min) || !close(values.max()!, max)
        {
            problems.append("range \(values.min()!)...\(values.max()!), not \(min)...\(max)")
        }
        if let sum = facts["sum"] as? Double, !close(values.reduce(0, +), sum) {
            problems.append("sum \(values.reduce(0, +)), not \(sum)")
        }
        guard let stack = facts["frames"] as? [String: Any] else { return }
        if stack["count"] as? Int != frames { problems.append("\(frames) frames, not \(stack["count"] ?? "?")") }
        if let means = stack["frame_means"] as? [Any] {
            for (index, mean) in means.enumerated() {
                let wanted = played(mean, dtype: facts["dtype"] as? String ?? "")[0]
                let found = all[index].reduce(0, +) / Double(all[index].count)
                if !close(found, wanted) { problems.append("frame \(index) mean \(found), not \(wanted)") }
            }
        }
        let width = read.axes.filter { !$0.navigation }.first?.size ?? 1
        for (index, xy) in ((stack["frame_argmax_xy"] as? [[Int]]) ?? []).enumerated() {
            let brightest = all[index].indices.max { all[index][$0] < all[index][$1] }!
            if [brightest % width, brightest / width] != xy {
                problems.append(
                    "frame \(index)'s brightest pixel at \(brightest % width), \(brightest / width), not \(xy)")
            }
        }
    }

    private static func checkSpectra(_ read: ReadSignal, _ facts: [String: Any], _ problems: inout [String]) throws {
        guard let spectrumAt = read.spectrum, let map = read.map, let channels = read.channels else {
            return problems.append("no spectra to read")
        }
        let scan = read.axes.filter(\.navigation)
        let (width, height) = (scan.first?.size ?? 1, scan.count > 1 ? scan[1].size : 1)
        var spectra: [[Double]] = []
        for y in 0..<height { for x in 0..<width { spectra.append(try spectrumAt(x, y)) } }
        let values = spectra.flatMap { $0 }
        if let data = facts["data"], values != played(data, dtype: "") {
            problems.append("values differ from the facts' data")
        }
        if let min = facts["min"] as? Double, let max = facts["max"] as? Double,
            !close(values.min()!, min) || !close(values.max()!, max)
        {
            problems.append("range \(values.min()!)...\(values.max()!), not \(min)...\(max)")
        }
        if let sum = facts["sum"] as? Double, !close(values.reduce(0, +), sum) {
            problems.append("sum \(values.reduce(0, +)), not \(sum)")
        }
        guard let spectrum = facts["spectrum"] as? [String: Any] else { return }
        if let summed = spectrum["summed_spectrum"] as? [String: Any] {
            let total = (0..<(spectra.first?.count ?? 0)).map { channel in spectra.reduce(0) { $0 + $1[channel] } }
            let first8 = (summed["first8"] as? [Any] ?? []).map { ($0 as! NSNumber).doubleValue }
            let argmax = total.indices.max { total[$0] < total[$1] }
            if argmax != summed["argmax_index"] as? Int
                || !close(total.max() ?? 0, (summed["max"] as! NSNumber).doubleValue)
                || !zip(total.prefix(8), first8).allSatisfy({ close($0, $1) })
            {
                problems.append("the summed spectrum's maximum is channel \(argmax ?? -1), \(total.max() ?? 0)")
            }
        }
        for window in spectrum["windows"] as? [[String: Any]] ?? [] {
            try checkWindow(window, channels: channels, map: map, width: width, &problems)
        }
    }

    /// One window: its channels, and its map's statistics and values (or, for a single spectrum, its sum).
    public static func checkWindow(
        _ window: [String: Any], channels: (Double, Double) throws -> Range<Int>,
        map: (Range<Int>) throws -> [Double], width: Int, _ problems: inout [String]
    ) throws {
        let label = window["label"] as? String ?? "a window"
        let (first, last) = (window["start_index"] as! Int, window["end_index"] as! Int)
        if let start = window["start"] as? Double, let end = window["end"] as? Double {
            let found = try channels(start, end)
            if found != first..<last { problems.append("\(label): channels \(found), not \(first)..<\(last)") }
        }
        let values = try map(first..<last)
        if let sum = window["sum"] as? NSNumber, !close(values.reduce(0, +), sum.doubleValue) {
            problems.append("\(label): sum \(values.reduce(0, +)), not \(sum)")
        }
        guard let facts = window["map"] as? [String: Any] else { return }
        let mean = values.reduce(0, +) / Double(values.count)
        let centre = facts["centre_index"] as? [Int] ?? []
        let centreIndex = centre.count == 2 ? centre[0] * width + centre[1] : centre.first ?? 0
        let checks: [(String, Double, Any?)] = [
            ("min", values.min() ?? .nan, facts["min"]), ("max", values.max() ?? .nan, facts["max"]),
            ("mean", mean, facts["mean"]),
            ("first value", values[0], facts["value_at_0_0"] ?? facts["value_at_0"]),
            ("centre value", values[min(centreIndex, values.count - 1)], facts["value_at_centre"])
        ]
        for (what, found, wanted) in checks {
            guard let wanted = (wanted as? NSNumber)?.doubleValue else { continue }
            if !close(found, wanted) { problems.append("\(label): map \(what) \(found), not \(wanted)") }
        }
    }
}
