/// The image as the sweeps play it, built once for an image and a profile, before the audio thread runs (`play` and
/// `render` build the same): the whole image boxed into the image sweep's bands and steps, as levels through the
/// profile's stretch, and every row and every column at a fixed number of steps, as the pitches the pen would sound.
public struct SweepTables: Sendable {
    public let image: ImageSweep.Table
    public let lines: LineSweep.Table
}

extension Instrument {
    /// This instrument's image, boxed for the sweeps.
    public var sweepTables: SweepTables { SweepTables(image: image, profile: profile, stretch: stretch) }
}

extension Instrument {
    /// The rows and columns as the lattice-strain mode sweeps them: each step the pitch the pen sounds on the column
    /// nearest the step's middle, within a column spacing, so an interface across the line is heard as a step; the
    /// middle note where no column's strain is read.
    func strainLines(_ lattice: LatticeColumns) -> LineSweep.Table {
        let width = image.width, height = image.height
        let rowSteps = min(width, LineSweep.Table.mostSteps), columnSteps = min(height, LineSweep.Table.mostSteps)
        func middle(_ box: Range<Int>) -> Double { Double(box.lowerBound + box.upperBound - 1) / 2 }
        func pitch(_ x: Double, _ y: Double) -> Float {
            let column = lattice.nearest(to: ImagePoint(x: x, y: y), within: lattice.spacing)?.column
            return Float(column.flatMap(strainTone)?.frequency ?? profile.lattice.strainFrequency)
        }
        let rowMiddles = SweepTables.boxes(rowSteps, over: width).map(middle)
        let columnMiddles = SweepTables.boxes(columnSteps, over: height).map(middle)
        var rows: [Float] = []
        rows.reserveCapacity(height * rowSteps)
        for y in 0..<height { for x in rowMiddles { rows.append(pitch(x, Double(y))) } }
        var columns: [Float] = []
        columns.reserveCapacity(width * columnSteps)
        for x in 0..<width { for y in columnMiddles { columns.append(pitch(Double(x), y)) } }
        return LineSweep.Table(
            width: width, height: height, rowSteps: rowSteps, columnSteps: columnSteps, amplitude: profile.amplitude,
            rows: rows, columns: columns)
    }
}

extension SweepTables {
    /// `image`, boxed for the sweeps: each box's mean sample, through `stretch` (and, for a line, the pitch map), as
    /// the pen would hear that sample.
    init(image: GrayImage, profile: Profile, stretch: LevelStretch) {
        let width = image.width, height = image.height
        let chain = profile.chain
        /// The pitch of a box whose mean sample is `mean`.
        func tone(mean: Double) -> Double {
            Instrument.frequency(level: stretch.level(value: mean), sample: mean, profile: profile)
        }
        let imageSteps = max(1, min(width, Int((chain.sweepLength * ImageSweep.stepsPerSecond).rounded())))
        let rowSteps = min(width, LineSweep.Table.mostSteps)
        let columnSteps = min(height, LineSweep.Table.mostSteps)
        let imageColumns = Self.boxes(imageSteps, over: width)
        let bands = Self.boxes(ImageSweep.bands, over: height)
        let rowBoxes = Self.boxes(rowSteps, over: width)
        let columnBoxes = Self.boxes(columnSteps, over: height)
        let imageStepOf = Self.owners(of: imageColumns, size: width)
        let rowStepOf = Self.owners(of: rowBoxes, size: width)
        let columnStepOf = Self.owners(of: columnBoxes, size: height)
        // The bands a row of the image falls in: one, or several where the image is lower than the bands are many.
        var bandsOfRow = [[Int]](repeating: [], count: height)
        for (b, rows) in bands.enumerated() { for y in rows { bandsOfRow[y].append(b) } }

        var bandSums = [Double](repeating: 0, count: imageSteps * ImageSweep.bands)
        var rows = [Float](repeating: 0, count: height * rowSteps)
        var columnSums = [Double](repeating: 0, count: width * columnSteps)
        var rowImageSums = [Double](repeating: 0, count: imageSteps)
        var rowLineSums = [Double](repeating: 0, count: rowSteps)
        image.samples.withUnsafeBufferPointer { samples in
            for y in 0..<height {
                for s in 0..<imageSteps { rowImageSums[s] = 0 }
                for k in 0..<rowSteps { rowLineSums[k] = 0 }
                let columnStep = columnStepOf[y]
                for x in 0..<width {
                    let value = Double(samples[y * width + x])
                    rowImageSums[imageStepOf[x]] += value
                    rowLineSums[rowStepOf[x]] += value
                    columnSums[x * columnSteps + columnStep] += value
                }
                for b in bandsOfRow[y] {
                    for s in 0..<imageSteps { bandSums[s * ImageSweep.bands + b] += rowImageSums[s] }
                }
                for k in 0..<rowSteps {
                    rows[y * rowSteps + k] = Float(tone(mean: rowLineSums[k] / Double(rowBoxes[k].count)))
                }
            }
        }
        var levels = [Float](repeating: 0, count: bandSums.count)
        for s in 0..<imageSteps {
            for b in 0..<ImageSweep.bands {
                let mean = bandSums[s * ImageSweep.bands + b] / Double(imageColumns[s].count * bands[b].count)
                levels[s * ImageSweep.bands + b] = Float(stretch.level(value: mean))
            }
        }
        let columns = (0..<(width * columnSteps)).map { i in
            Float(tone(mean: columnSums[i] / Double(columnBoxes[i % columnSteps].count)))
        }
        self.init(
            image: ImageSweep.Table(
                levels: levels, steps: imageSteps, toneAmplitude: profile.amplitude, peak: chain.limiterThreshold),
            lines: LineSweep.Table(
                width: width, height: height, rowSteps: rowSteps, columnSteps: columnSteps,
                amplitude: profile.amplitude, rows: rows, columns: columns))
    }

    /// `count` boxes splitting `size` pixels as evenly as whole pixels allow; where they outnumber the pixels, each
    /// is the pixel it falls on.
    static func boxes(_ count: Int, over size: Int) -> [Range<Int>] {
        (0..<count).map { k in
            let start = k * size / count
            return start..<max(start + 1, (k + 1) * size / count)
        }
    }

    /// The box each of `size` pixels falls in, for boxes that split them.
    private static func owners(of boxes: [Range<Int>], size: Int) -> [Int] {
        var owner = [Int](repeating: 0, count: size)
        for (k, box) in boxes.enumerated() { for i in box { owner[i] = k } }
        return owner
    }
}
