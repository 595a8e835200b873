import RealModule

/// The sound side of the controller: turns pen events into synth targets, one way —
/// pen → pixel → level → pitch, with loudness and filter as the mode says.
public final class Instrument {
    public let image: GrayImage
    public let profile: Profile
    public let stretch: LevelStretch
    public let pitch: PitchMap
    public private(set) var viewport: Viewport
    /// The mode the pen plays in: the one place it is kept.
    public private(set) var mode: Mode
    /// The lattice's unit cell, once tagged, and whether the touching pen ticks as it crosses its
    /// boundaries: the one place they are kept.
    public private(set) var cell: UnitCell?
    public private(set) var cellTicks: Bool
    /// The lattice's analysed columns, once found, for the column modes: the one place they are kept.
    public private(set) var lattice: LatticeColumns?
    /// The column the column modes sound now, so the next one starts a new note.
    private var soundedColumn: Int?
    /// The last event handled, for "where am I".
    public private(set) var lastRecord: PenRecord?
    /// The pen's last report, to sound afresh when the image moves under a still pen.
    private var lastEvent: PenEvent?
    private let controls: SynthControls
    /// With note articulation: the band the last note played, and how many notes so far.
    private var noteBand: Int?
    private var notes = 0
    /// The cell (in lattice steps from the origin) the touching pen is in; nil while it is not touching.
    private var cellUnderPen: (n: Int, m: Int)?
    /// How far (in cell units) the pen must pass a boundary before it counts as crossed, so a pen
    /// resting on a boundary does not chatter.
    static let boundaryMargin = 0.02

    public init(
        image: GrayImage, profile: Profile, statistics: SampleStatistics, viewport: Viewport, controls: SynthControls
    ) {
        self.image = image
        self.profile = profile
        self.stretch = profile.level.stretch(statistics)
        self.pitch = profile.pitch
        self.viewport = viewport
        self.mode = profile.modes[0]
        cellTicks = profile.gestures.cellTicks
        self.controls = controls
    }

    public func place(_ viewport: Viewport) { self.viewport = viewport }

    /// Switches mode at `time`; the next pen event sounds the new way (the current sound follows at once).
    public func set(mode: Mode, at time: Double) {
        self.mode = mode
        if let last = lastRecord { controls.set(targets(for: last), at: time) }
    }

    /// Handles one pen event: sets the synth's targets and returns what happened, for the session log.
    @discardableResult
    public func handle(_ event: PenEvent) -> PenRecord {
        let point = viewport.imagePoint(rootX: event.rootX, rootY: event.rootY)
        let pixel = point.nearestPixel
        let inImage = event.inWindow && image.contains(pixelX: pixel.x, y: pixel.y)
        let sample = inImage ? image[pixel.x, pixel.y] : 0
        let value = inImage ? sampledValue(at: point) : 0
        var record = PenRecord(
            t: event.time, rootX: event.rootX, rootY: event.rootY, imageX: point.x, imageY: point.y,
            inImage: inImage, sample: Double(sample), level: inImage ? stretch.level(value: value) : 0,
            pressure: event.pressure,
            tiltX: event.tiltX, tiltY: event.tiltY, buttons: event.buttons, mode: mode.rawValue, frequency: 0,
            amplitude: 0)
        let targets = targets(for: record, value: value)
        followCell(to: touching(record) ? point : nil, at: event.time)
        record.frequency = targets.frequency
        record.amplitude = targets.amplitude
        controls.set(targets, at: event.time)
        lastRecord = record
        lastEvent = event
        return record
    }

    /// After the view changed: what the still pen is over now (nil before any pen event).
    public func refresh(at time: Double) -> PenRecord? {
        guard var event = lastEvent else { return nil }
        event.time = time
        return handle(event)
    }

    /// Sets the unit cell and whether its boundaries tick under the pen; the pen starts afresh in
    /// whichever cell it is in.
    public func set(cell: UnitCell?, ticks: Bool) {
        self.cell = cell
        cellTicks = ticks
        cellUnderPen = nil
    }

    /// The lattice's columns, once found: the column modes sound them.
    public func set(lattice: LatticeColumns?) {
        self.lattice = lattice
        soundedColumn = nil
    }

    /// The analysed column within the profile's reach of `point`, if any.
    public func column(near point: ImagePoint) -> (index: Int, column: AnalysedColumn)? {
        lattice.flatMap { $0.nearest(to: point, within: profile.lattice.reach * $0.spacing) }
    }

    /// Ticks when the pen, touching, moves into another cell of the unit cell's lattice.
    private func followCell(to point: ImagePoint?, at time: Double) {
        guard cellTicks, let cell, let point else {
            cellUnderPen = nil
            return
        }
        guard let (n, m) = cellUnderPen else {
            cellUnderPen = cell.cellIndex(of: point)
            return
        }
        let f = cell.fractional(point)
        let margin = Self.boundaryMargin
        let outside =
            f.u < Double(n) - margin || f.u > Double(n + 1) + margin
            || f.v < Double(m) - margin || f.v > Double(m + 1) + margin
        guard outside else { return }
        cellUnderPen = cell.cellIndex(of: point)
        controls.tick(at: time)
    }

    /// Silence from `time` on, e.g. when the program quits.
    public func silence(at time: Double) { controls.set(silent, at: time) }

    /// Silence that keeps the last note's number: a new number would start a note as the sound fades.
    private var silent: SynthTargets { SynthTargets(note: notes) }

    /// Sounds the pixel at `point` from `time` on as a touch there would (the column cursor); nil
    /// returns the sound to the pen.
    public func probe(at point: ImagePoint?, time: Double) {
        guard let point else { return controls.set(lastRecord.map { targets(for: $0) } ?? silent, at: time) }
        let pixel = point.nearestPixel
        guard image.contains(pixelX: pixel.x, y: pixel.y) else { return }
        if mode.soundsColumns { return controls.set(columnTargets(at: point) ?? silent, at: time) }
        let value = sampledValue(at: point)
        var tone = SynthTargets(
            frequency: pitch.frequency(level: stretch.level(value: value), sample: value),
            amplitude: profile.amplitude)
        notes += 1
        tone.note = notes
        controls.set(tone, at: time)
    }

    /// The level (0...1) of the pixel under an image point, nil outside the image.
    public func level(at point: ImagePoint) -> Double? {
        let pixel = point.nearestPixel
        guard image.contains(pixelX: pixel.x, y: pixel.y) else { return nil }
        return stretch.level(value: sampledValue(at: point))
    }

    /// The sample value the level is read from: the nearest pixel's, or interpolated between the
    /// four pixels around the point.
    func sampledValue(at point: ImagePoint) -> Double {
        let nearest = point.nearestPixel
        guard profile.level.sampling == .bilinear else { return Double(image[nearest.x, nearest.y]) }
        let x = min(max(point.x, 0), Double(image.width - 1)), y = min(max(point.y, 0), Double(image.height - 1))
        let x0 = Int(x), y0 = Int(y)
        let x1 = min(x0 + 1, image.width - 1), y1 = min(y0 + 1, image.height - 1)
        let fx = x - Double(x0), fy = y - Double(y0)
        let top = Double(image[x0, y0]) * (1 - fx) + Double(image[x1, y0]) * fx
        let bottom = Double(image[x0, y1]) * (1 - fx) + Double(image[x1, y1]) * fx
        return top * (1 - fy) + bottom * fy
    }

    private func touching(_ record: PenRecord) -> Bool {
        record.inImage && record.buttons.contains(PenButtons.tip) && record.pressure > 0
    }

    private func targets(for record: PenRecord, value: Double? = nil) -> SynthTargets {
        guard touching(record) else {
            noteBand = nil
            soundedColumn = nil
            return silent
        }
        if mode.soundsColumns {
            return columnTargets(at: ImagePoint(x: record.imageX, y: record.imageY)) ?? silent
        }
        let sample = value ?? Double(record.sample)
        var targets = SynthTargets(
            frequency: pitch.frequency(level: record.level, sample: sample), amplitude: profile.amplitude)
        if case .notes(let bands, _) = profile.articulation {
            // One note per band: its pitch is the band's middle level; a new band plays a new note.
            let band = min(bands - 1, Int(record.level * Double(bands)))
            targets.frequency = pitch.frequency(level: (Double(band) + 0.5) / Double(bands), sample: sample)
            if band != noteBand {
                noteBand = band
                notes += 1
            }
            targets.note = notes
        }
        switch mode {
        case .intensityPitch, .unitCellTagging, .columnIntensity, .latticeDisplacement:
            break
        case .pressureAmplitude:
            targets.amplitude = loudness(pressure: record.pressure)
        case .tiltFilter:
            targets.amplitude = loudness(pressure: record.pressure)
            applyTilt(PenTilt(tiltX: record.tiltX, tiltY: record.tiltY), to: &targets)
        }
        return targets
    }

    /// The column modes: the column near `point` as a note of its own, nil (silence) between columns, before the
    /// lattice is known, and for a column on no sublattice.
    private func columnTargets(at point: ImagePoint) -> SynthTargets? {
        guard let lattice, let (index, column) = column(near: point) else {
            soundedColumn = nil
            return nil
        }
        let settings = profile.lattice
        var targets = SynthTargets(amplitude: profile.amplitude)
        switch mode {
        case .columnIntensity:
            guard let ratio = column.relativeIntensity else { return nil }
            let t = min(max((ratio - 1) / settings.intensityRange, -1), 1)
            targets.frequency = settings.intensityFrequency * Double.pow(2, settings.intensityOctaves * t / 2)
        case .latticeDisplacement:
            guard let displacement = column.displacement else { return nil }
            let fullScale =
                lattice.pixelSize == nil ? settings.displacementFullScalePixels : settings.displacementFullScale
            let share = min(lattice.length(displacement) / fullScale, 1)
            targets.frequency = settings.displacementFrequency * Double.pow(2, settings.displacementOctaves * share)
            // Which way: left or right in the stereo image, up bright (the FM index of tilt-filter's tone) and down
            // dark (a pure sine). The FM index, not a filter: it changes within a note, where a filter's cutoff may
            // sweep no faster than 50 octaves a second. Displacements far below the full scale (the fit's own
            // scatter) stay in the middle.
            let length = displacement.length
            let weight = length > 0 ? min(1, 4 * share) : 0
            let across = length > 0 ? displacement.x / length : 0, upward = length > 0 ? -displacement.y / length : 0
            targets.pan = across * weight
            targets.timbre = (profile.tilt.timbre ?? 0) * (1 + upward * weight) / 2
        default:
            return nil
        }
        if index != soundedColumn {
            soundedColumn = index
            notes += 1
        }
        targets.note = notes
        return targets
    }

    /// Silence at the tip threshold, full level at full pressure, shaped by the curve.
    func loudness(pressure: Double) -> Double {
        let settings = profile.pressure
        let above = (pressure - settings.threshold) / (1 - settings.threshold)
        return settings.fullLevel * settings.curve(min(max(above, 0), 1))
    }

    /// Upright is open and bright, flat is dark: the cutoff (a multiple of the pitch) falls evenly in
    /// octaves over the lean range. The direction of the lean sets the resonance — it rises from
    /// `resonanceBase` as the pen leans towards the user, and stays there leaning sideways or away,
    /// so a plain lean is a plain filter — or the stereo position (left to right, more the further
    /// it leans).
    func applyTilt(_ tilt: PenTilt, to targets: inout SynthTargets) {
        let settings = profile.tilt
        let lean = min(tilt.altitude / settings.leanRange, 1)
        let multiple = settings.cutoffUpright * Double.pow(settings.cutoffFlat / settings.cutoffUpright, lean)
        targets.cutoff = multiple * targets.frequency
        targets.timbre = settings.timbre
        let direction = tilt.azimuth * Double.pi / 180
        switch settings.azimuth {
        case .resonance:
            let towards = max(0, Double.sin(direction)) * lean
            targets.resonance = settings.resonanceBase + (settings.resonanceTowards - settings.resonanceBase) * towards
        case .pan:
            targets.pan = Double.cos(direction) * lean
        }
    }
}
