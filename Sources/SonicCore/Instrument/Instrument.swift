import RealModule

/// The sound of a session: turns pen events into synth targets, one way — pen → pixel → level →
/// pitch, with loudness and filter as the session's mode says. It reads the session's state (mode,
/// placement, cell, lattice) and keeps only what sounding needs: the notes it has played, the cell the
/// touching pen is in, the pen's last report. It sets no targets itself: `SessionSound` does, from
/// what it returns.
public final class Instrument {
    /// The image played (another of the same size replaces it: `play`), and its stretch.
    public private(set) var image: GrayImage
    public let profile: Profile
    public private(set) var stretch: LevelStretch
    public let pitch: PitchMap
    /// A spectrum image's spectra, which the spectrum mode plays.
    public let spectra: SpectrumVoice?
    /// The column the column modes sound now, so the next one starts a new note.
    private var soundedColumn: Int?
    /// The last event sounded, for "where am I".
    public private(set) var lastRecord: PenRecord?
    /// The pen's last report, to sound afresh when the image moves under a still pen.
    private var lastEvent: PenEvent?
    /// With note articulation: the band the last note played, and how many notes so far.
    private var noteBand: Int?
    private var notes = 0
    /// The cell (in lattice steps from the origin) the touching pen is in; nil while it is not touching.
    private var cellUnderPen: (n: Int, m: Int)?
    /// How far (in cell units) the pen must pass a boundary before it counts as crossed, so a pen
    /// resting on a boundary does not chatter.
    static let boundaryMargin = 0.02

    /// What a pen event sounds: the record for the log, the targets, and whether it crossed into
    /// another cell (a tick).
    struct Sounded {
        var record: PenRecord
        var targets: SynthTargets
        var tick: Bool
    }

    public init(image: GrayImage, profile: Profile, statistics: SampleStatistics, spectra: SpectrumVoice? = nil) {
        self.image = image
        self.profile = profile
        self.stretch = profile.level.stretch(statistics)
        self.pitch = profile.pitch
        self.spectra = spectra
    }

    /// The modes the session cycles through: the profile's, and the spectrum mode for a spectrum image.
    public var modes: [Mode] { spectra == nil ? profile.modes : profile.modes + [.spectrum] }

    /// The spectrum the pen plays in the spectrum mode: under the nib, widened by its pressure; nil while it does not
    /// touch the spectrum image.
    public func spectrumRequest(in state: SessionState) -> SpectrumRequest? {
        guard state.mode == .spectrum, let spectra, let record = lastRecord, touching(record) else { return nil }
        let pixel = ImagePoint(x: record.imageX, y: record.imageY).nearestPixel
        guard pixel.x >= 0, pixel.x < spectra.width, pixel.y >= 0, pixel.y < spectra.height else { return nil }
        return SpectrumRequest(x: pixel.x, y: pixel.y, radius: SpectrumRequest.radius(pressure: record.pressure))
    }

    /// What makes another image ready to play in this instrument's place.
    public var preparation: ImagePreparation { ImagePreparation(profile: profile, stretch: stretch) }

    /// Plays `played` from now on in place of the image played.
    func play(_ played: PlayedImage) {
        precondition(
            played.image.width == image.width && played.image.height == image.height, "an image of the same size")
        image = played.image
        stretch = played.stretch
    }

    /// What the session starts as, for this instrument's profile: its first mode, ticks as it says,
    /// one screen pixel an image pixel until the window is placed.
    public var initialState: SessionState {
        SessionState(
            mode: profile.modes[0], viewport: Viewport(originX: 0, originY: 0, scale: 1),
            cellTicks: profile.gestures.cellTicks)
    }

    /// One pen event, in `state`.
    func sound(_ event: PenEvent, in state: SessionState) -> Sounded {
        let point = state.viewport.imagePoint(rootX: event.rootX, rootY: event.rootY)
        let pixel = point.nearestPixel
        let inImage = event.inWindow && image.contains(pixelX: pixel.x, y: pixel.y)
        let sample = inImage ? image[pixel.x, pixel.y] : 0
        let value = inImage ? sampledValue(at: point) : 0
        var record = PenRecord(
            t: event.time, rootX: event.rootX, rootY: event.rootY, imageX: point.x, imageY: point.y,
            inImage: inImage, sample: Double(sample), level: inImage ? stretch.level(value: value) : 0,
            pressure: event.pressure,
            tiltX: event.tiltX, tiltY: event.tiltY, buttons: event.buttons, mode: state.mode.rawValue, frequency: 0,
            amplitude: 0)
        let targets = targets(for: record, in: state, value: value)
        let tick = followCell(to: touching(record) ? point : nil, in: state)
        record.frequency = targets.frequency
        record.amplitude = max(targets.amplitude, targets.spectrum)
        lastRecord = record
        lastEvent = event
        return Sounded(record: record, targets: targets, tick: tick)
    }

    /// What the still pen is over after the image moved under it, at `time` (nil before any pen event).
    func soundAgain(at time: Double, in state: SessionState) -> Sounded? {
        guard var event = lastEvent else { return nil }
        event.time = time
        return sound(event, in: state)
    }

    /// Where the nib is over the image (beyond its edges too), while the pen is over the window.
    /// Where the pen last was over the image, in image pixels; nil off it or before any pen event.
    var penInImage: ImagePoint? {
        lastRecord.flatMap { $0.inImage ? ImagePoint(x: $0.imageX, y: $0.imageY) : nil }
    }

    func nib(in state: SessionState) -> ImagePoint? {
        guard let event = lastEvent, event.inWindow else { return nil }
        return state.viewport.imagePoint(rootX: event.rootX, rootY: event.rootY)
    }

    /// The last event's sound in `state` (after the mode changed); nil before any pen event.
    func lastTargets(in state: SessionState) -> SynthTargets? { lastRecord.map { targets(for: $0, in: state) } }

    /// The cell changed, or its ticks were turned on or off: the pen starts afresh in whichever cell it is in.
    func cellChanged() { cellUnderPen = nil }

    /// The lattice changed: the next column sounded is a new note.
    func latticeChanged() { soundedColumn = nil }

    /// The analysed column within the profile's reach of `point`, if any.
    public func column(near point: ImagePoint, in lattice: LatticeColumns?) -> (index: Int, column: AnalysedColumn)? {
        lattice.flatMap { $0.nearest(to: point, within: profile.lattice.reach * $0.spacing) }
    }

    /// Whether the touching pen moved into another cell of the unit cell's lattice: a tick.
    private func followCell(to point: ImagePoint?, in state: SessionState) -> Bool {
        guard state.cellTicks, let cell = state.cell, let point else {
            cellUnderPen = nil
            return false
        }
        guard let (n, m) = cellUnderPen else {
            cellUnderPen = cell.cellIndex(of: point)
            return false
        }
        let f = cell.fractional(point)
        let margin = Self.boundaryMargin
        let outside =
            f.u < Double(n) - margin || f.u > Double(n + 1) + margin
            || f.v < Double(m) - margin || f.v > Double(m + 1) + margin
        guard outside else { return false }
        cellUnderPen = cell.cellIndex(of: point)
        return true
    }

    /// Silence that keeps the last note's number: a new number would start a note as the sound fades.
    var silent: SynthTargets { SynthTargets(note: notes) }

    /// What a touch at `point` would sound (the column cursor), nil outside the image.
    func probe(at point: ImagePoint, in state: SessionState) -> SynthTargets? {
        let pixel = point.nearestPixel
        guard image.contains(pixelX: pixel.x, y: pixel.y) else { return nil }
        if state.soundsColumns { return columnTargets(at: point, in: state) ?? silent }
        let value = sampledValue(at: point)
        var tone = SynthTargets(
            frequency: pitch.frequency(level: stretch.level(value: value), sample: value),
            amplitude: profile.amplitude)
        notes += 1
        tone.note = notes
        return tone
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

    private func targets(for record: PenRecord, in state: SessionState, value: Double? = nil) -> SynthTargets {
        guard touching(record) else {
            noteBand = nil
            soundedColumn = nil
            return silent
        }
        if state.soundsColumns {
            return columnTargets(at: ImagePoint(x: record.imageX, y: record.imageY), in: state) ?? silent
        }
        let sample = value ?? Double(record.sample)
        var targets = SynthTargets(
            frequency: frequency(level: record.level, sample: sample), amplitude: profile.amplitude)
        if case .notes(let bands, _) = profile.articulation {
            // A new band plays a new note.
            let band = Self.band(of: record.level, bands)
            if band != noteBand {
                noteBand = band
                notes += 1
            }
            targets.note = notes
        }
        switch state.mode {
        case .intensityPitch, .unitCellTagging, .columnIntensity, .latticeDisplacement, .latticeStrain:
            break
        case .pressureAmplitude:
            targets.amplitude = loudness(pressure: record.pressure)
        case .tiltFilter:
            targets.amplitude = loudness(pressure: record.pressure)
            applyTilt(PenTilt(tiltX: record.tiltX, tiltY: record.tiltY), to: &targets)
        case .spectrum:
            // The spectrum bank sounds instead of the oscillators, as loud as the spectrum's counts.
            targets.frequency = 0
            targets.amplitude = 0
            targets.spectrum = spectra == nil ? 0 : 1
        }
        return targets
    }

    /// The pitch the pen sounds at a level (and sample): with notes, one per band, the band's middle level's.
    func frequency(level: Double, sample: Double) -> Double {
        Self.frequency(level: level, sample: sample, profile: profile)
    }

    /// The same, for `profile`'s pitch map and articulation.
    static func frequency(level: Double, sample: Double, profile: Profile) -> Double {
        let pitch = profile.pitch
        guard case .notes(let bands, _) = profile.articulation else {
            return pitch.frequency(level: level, sample: sample)
        }
        return pitch.frequency(level: (Double(band(of: level, bands)) + 0.5) / Double(bands), sample: sample)
    }

    /// Which of `bands` equal bands a level falls in.
    private static func band(of level: Double, _ bands: Int) -> Int { min(bands - 1, Int(level * Double(bands))) }

    /// The column modes: the column near `point` as a note of its own, nil (silence) between columns, before the
    /// lattice is known, and for a column on no sublattice.
    private func columnTargets(at point: ImagePoint, in state: SessionState) -> SynthTargets? {
        guard let lattice = state.lattice, let (index, column) = column(near: point, in: lattice) else {
            soundedColumn = nil
            return nil
        }
        let settings = profile.lattice
        var targets = SynthTargets(amplitude: profile.amplitude)
        switch state.mode {
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
        case .latticeStrain:
            // Stretched against compressed is what strain tells first, and a step in pitch is heard at once: the
            // dilatation goes up or down from the middle note. Which way the lattice turns is which way the sound
            // moves, clockwise to the right.
            guard let tone = strainTone(of: column) else { return nil }
            targets.frequency = tone.frequency
            targets.pan = tone.pan
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

    /// lattice-strain: a column's pitch, from its dilatation, and its stereo position, from its rotation; nil where
    /// its strain is not read.
    func strainTone(of column: AnalysedColumn) -> (frequency: Double, pan: Double)? {
        guard let deformation = column.deformation else { return nil }
        let settings = profile.lattice
        let dilatation = (deformation.exx + deformation.eyy) / 2
        let t = min(max(dilatation / settings.strainFullScale, -1), 1)
        return (
            settings.strainFrequency * Double.pow(2, settings.strainOctaves * t),
            min(max(deformation.rotationDegrees / settings.rotationFullScale, -1), 1)
        )
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
