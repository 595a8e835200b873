import Synchronization

/// One change the engine is to make at a moment.
struct SynthChange {
    enum Kind {
        /// New targets.
        case targets
        /// One tick.
        case tick
        /// A sweep starts, or (nil) stops.
        case sweep
        /// The spectrum bank's amplitudes, kept beside the ring at the change's slot.
        case spectrum
        /// The latest targets, after changes were dropped from a full ring: made at once, with every
        /// tick asked for since, and the latest sweep if one was asked for since.
        case latest
    }

    /// When it was asked for (CLOCK_MONOTONIC seconds, or `SynthControls.immediately`).
    var time: Double
    var kind: Kind
    var targets: SynthTargets
    var sweep: Sweep? = nil
}

/// The synth's targets, written by the controller and read by the audio thread without locks or waiting.
///
/// Each change is stamped with the time it was asked for (the pen event's, the key's) and queued, so
/// the engine can make it at the sample that time falls on, a fixed delay later, rather than at
/// the start of whichever block comes next: one writer, one reader, a ring of changes. Should the
/// ring fill (the audio side has stopped reading, as while the sound server is away), the latest
/// targets and the count of ticks, kept beside it, still reach the engine once it reads again. The spectrum bank's
/// amplitudes travel beside the ring, in a fixed block of storage per slot, so no change allocates.
public final class SynthControls: Sendable {
    /// A time before every other: the change is made at once.
    public static let immediately = -Double.infinity
    static let capacity = 1024
    /// The image the sweeps play, handed over when it changes.
    public let sweepTables = SweepTableExchange()
    /// The changes the live sound made later than they were due.
    public let lateChanges = LateChanges()

    /// The latest targets and ticks asked for: the writer's view, and what the reader falls back on
    /// after the ring overflowed.
    private let frequency = Atomic<UInt64>(0)
    private let amplitude = Atomic<UInt64>(0)
    private let cutoff = Atomic<UInt64>(Double.nan.bitPattern)
    private let resonance = Atomic<UInt64>(Double.nan.bitPattern)
    private let pan = Atomic<UInt64>(0)
    private let timbre = Atomic<UInt64>(Double.nan.bitPattern)
    private let note = Atomic<Int>(0)
    private let guideRate = Atomic<UInt64>(0)
    private let guideFrequency = Atomic<UInt64>(GuideTone.silent.frequency.bitPattern)
    private let guidePan = Atomic<UInt64>(0)
    private let guideLoudness = Atomic<UInt64>(1.0.bitPattern)
    private let spectrumGain = Atomic<UInt64>(0)
    private let ticks = Atomic<Int>(0)
    /// How many sweeps were asked to start or stop, and the latest of them (`code(of:)`).
    private let sweeps = Atomic<Int>(0)
    private let latestSweep = Atomic<Int>(0)
    /// Whether the user waits on long work (the waiting pulse sounds).
    private let waiting = Atomic<Bool>(false)

    /// Written only at slots the reader has finished with; read only at slots the writer has published.
    nonisolated(unsafe) private let ring: UnsafeMutablePointer<SynthChange>
    /// The spectrum bank's amplitudes of each slot's spectrum change (`SpectrumBank.bands` a slot), written and read
    /// as the slot is.
    nonisolated(unsafe) private let spectra: UnsafeMutablePointer<Float>
    /// The reader's copy of the last spectrum taken, kept once its slot is handed back.
    nonisolated(unsafe) private let takenSpectrum: UnsafeMutablePointer<Float>
    /// Running totals; a slot is total % capacity.
    private let written = Atomic<Int>(0)
    private let taken = Atomic<Int>(0)
    /// Set when a change found the ring full and was dropped from it.
    private let overflowed = Atomic<Bool>(false)

    public init() {
        ring = .allocate(capacity: Self.capacity)
        ring.initialize(repeating: SynthChange(time: 0, kind: .targets, targets: .silent), count: Self.capacity)
        spectra = .allocate(capacity: Self.capacity * SpectrumBank.bands)
        spectra.initialize(repeating: 0, count: Self.capacity * SpectrumBank.bands)
        takenSpectrum = .allocate(capacity: SpectrumBank.bands)
        takenSpectrum.initialize(repeating: 0, count: SpectrumBank.bands)
    }

    deinit {
        ring.deallocate()
        spectra.deallocate()
        takenSpectrum.deallocate()
    }

    // MARK: Writer (the controller's thread)

    /// Asks for `targets` from `time` on.
    public func set(_ targets: SynthTargets, at time: Double) {
        frequency.store(targets.frequency.bitPattern, ordering: .relaxed)
        amplitude.store(targets.amplitude.bitPattern, ordering: .relaxed)
        // nil travels as NaN.
        cutoff.store((targets.cutoff ?? .nan).bitPattern, ordering: .relaxed)
        resonance.store((targets.resonance ?? .nan).bitPattern, ordering: .relaxed)
        pan.store(targets.pan.bitPattern, ordering: .relaxed)
        timbre.store((targets.timbre ?? .nan).bitPattern, ordering: .relaxed)
        note.store(targets.note, ordering: .relaxed)
        guideRate.store(targets.guide.rate.bitPattern, ordering: .relaxed)
        guideFrequency.store(targets.guide.frequency.bitPattern, ordering: .relaxed)
        guidePan.store(targets.guide.pan.bitPattern, ordering: .relaxed)
        guideLoudness.store(targets.guide.loudness.bitPattern, ordering: .relaxed)
        spectrumGain.store(targets.spectrum.bitPattern, ordering: .relaxed)
        queue(SynthChange(time: time, kind: .targets, targets: targets))
    }

    /// Asks the spectrum bank for `amplitudes` (`SpectrumBank.bands` of them, lowest band first; missing ones are
    /// silence) from `time` on. Should the ring be full, they are dropped: the bank keeps the last it took.
    public func setSpectrum(_ amplitudes: [Float], at time: Double) {
        let w = written.load(ordering: .relaxed)
        guard w - taken.load(ordering: .acquiring) < Self.capacity else { return }
        let slot = spectra + (w % Self.capacity) * SpectrumBank.bands
        for b in 0..<SpectrumBank.bands { slot[b] = b < amplitudes.count ? amplitudes[b] : 0 }
        ring[w % Self.capacity] = SynthChange(time: time, kind: .spectrum, targets: .silent)
        written.store(w + 1, ordering: .releasing)
    }

    /// Asks for `sweep` to start at `time`, ending any other; nil stops whichever plays.
    public func sweep(_ sweep: Sweep?, at time: Double) {
        latestSweep.store(Self.code(of: sweep), ordering: .relaxed)
        sweeps.add(1, ordering: .releasing)
        queue(SynthChange(time: time, kind: .sweep, targets: .silent, sweep: sweep))
    }

    /// How many sweeps have been asked to start or stop so far.
    var sweepCount: Int { sweeps.load(ordering: .acquiring) }

    /// The latest sweep asked for (nil: a stop).
    var lastSweep: Sweep? { Self.sweep(coded: latestSweep.load(ordering: .relaxed)) }

    /// A sweep as one number, for an atomic: 0 none, 1 the image, then rows and columns in turn.
    private static func code(of sweep: Sweep?) -> Int {
        switch sweep {
        case nil: 0
        case .image: 1
        case .row(let r): 2 + 2 * r
        case .column(let c): 3 + 2 * c
        }
    }

    private static func sweep(coded code: Int) -> Sweep? {
        switch code {
        case 0: nil
        case 1: .image
        default: code % 2 == 0 ? .row(code / 2 - 1) : .column((code - 3) / 2)
        }
    }

    /// Asks for one soft tick (a cell boundary crossed) at `time`; the engine sounds each one asked for.
    public func tick(at time: Double) {
        ticks.add(1, ordering: .relaxed)
        queue(SynthChange(time: time, kind: .tick, targets: .silent))
    }

    /// Starts or stops the waiting pulse: at once, as it swells in and fades out of its own.
    public func setWaiting(_ on: Bool) { waiting.store(on, ordering: .relaxed) }

    /// Whether the waiting pulse is asked for.
    public var isWaiting: Bool { waiting.load(ordering: .relaxed) }

    /// How many ticks have been asked for so far.
    public var tickCount: Int { ticks.load(ordering: .acquiring) }

    /// The latest targets asked for.
    public var targets: SynthTargets {
        func load(_ a: borrowing Atomic<UInt64>) -> Double { Double(bitPattern: a.load(ordering: .relaxed)) }
        func optional(_ v: Double) -> Double? { v.isNaN ? nil : v }
        return SynthTargets(
            frequency: load(frequency), amplitude: load(amplitude), cutoff: optional(load(cutoff)),
            resonance: optional(load(resonance)), pan: load(pan), timbre: optional(load(timbre)),
            note: note.load(ordering: .relaxed),
            guide: GuideTone(
                rate: load(guideRate), frequency: load(guideFrequency), pan: load(guidePan),
                loudness: load(guideLoudness)),
            spectrum: load(spectrumGain))
    }

    private func queue(_ change: SynthChange) {
        let w = written.load(ordering: .relaxed)
        guard w - taken.load(ordering: .acquiring) < Self.capacity else {
            overflowed.store(true, ordering: .releasing)
            return
        }
        ring[w % Self.capacity] = change
        written.store(w + 1, ordering: .releasing)
    }

    // MARK: Reader (the audio thread)

    /// When the oldest change waiting was asked for; nil when none waits.
    func nextChangeTime() -> Double? {
        let r = taken.load(ordering: .relaxed)
        if r < written.load(ordering: .acquiring) { return ring[r % Self.capacity].time }
        return overflowed.load(ordering: .acquiring) ? Self.immediately : nil
    }

    /// The amplitudes of the last spectrum change taken.
    var lastSpectrum: UnsafePointer<Float> { UnsafePointer(takenSpectrum) }

    /// Takes the oldest change waiting: once the ring is empty after it overflowed, the latest targets.
    func takeChange() -> SynthChange? {
        let r = taken.load(ordering: .relaxed)
        if r < written.load(ordering: .acquiring) {
            let change = ring[r % Self.capacity]
            if change.kind == .spectrum {
                takenSpectrum.update(
                    from: spectra + (r % Self.capacity) * SpectrumBank.bands, count: SpectrumBank.bands)
            }
            taken.store(r + 1, ordering: .releasing)
            return change
        }
        guard overflowed.exchange(false, ordering: .acquiringAndReleasing) else { return nil }
        return SynthChange(time: Self.immediately, kind: .latest, targets: targets)
    }
}
