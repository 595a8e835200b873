/// The instrument's sound engine: the profile's chain as an array of sound units, driven by the controller's targets.
///
/// ```
/// oscillators → loudness → [note envelope] → [panner] → effects, in order → tick → image sweep → spectrum bank
///   → guide → waiting pulse → duck → limiter
/// ```
///
/// A line sweep plays through the oscillators as the pen does, from a table; meanwhile the pen's targets wait.
///
/// Rendering allocates nothing, takes no locks and makes no system calls, so it runs on the audio thread; every
/// buffer and delay line is allocated here, up front. Targets arrive through `SynthControls` (lock-free) and are
/// read at the start of each block of at most `blockSize` frames.
public final class SynthEngine {
    public static let blockSize = 128

    public let sampleRate: Double
    public let chain: SoundChain
    private let controls: SynthControls

    /// Every unit, in the order they process a block.
    private let units: [any SoundUnit]
    /// The units the controller drives, by kind. `oscillators[k]` plays `chain.oscillators[k]`.
    private let oscillators: [any Oscillator]
    private let timbres: [TimbreControl]
    private let loudness: Fader
    /// For chains that play notes.
    private let envelope: NoteEnvelope?
    private var lastNote = 0
    private let panner: Panner?
    /// The ladder the controller's cutoff and resonance drive: the last one.
    private let drivenLadder: DrivenLadder?
    /// The cell-boundary tick, and how many ticks the controller had asked for at the last block.
    private let tick: Tick
    private var ticksSounded: Int
    /// When the first render placed in time began: a change asked for before then, while no sound was
    /// made yet, is made at once and is not late.
    private var firstPlacedRender: Double?
    /// The whole image, swept; a row or a column, swept; and the guide to a chosen place.
    private let imageSweep: ImageSweep
    private let lineSweep: LineSweep
    /// The tables taken from the controls' exchange that the sweeps play, and those played before, until given back.
    private var playedTables: Unmanaged<SweepTableExchange.Box>?
    private var retiring: Unmanaged<SweepTableExchange.Box>?
    private let guide: GuideBeeps
    /// The spectrum under the pen, as a timbre (the spectrum mode).
    private let spectrumBank: SpectrumBank
    /// The latest targets asked for: played unless a line sweep plays, and once it ends.
    private var penTargets = SynthTargets.silent
    /// How many sweeps the controls had been asked for at the last block.
    private var sweepsMade: Int
    /// The soft pulse of a long wait.
    private let waitingPulse: WaitingPulse
    /// Lowers everything before the limiter while the voice speaks.
    private let duck: Fader

    /// An FM oscillator and the index it has when the controller asks for no timbre of its own.
    private struct TimbreControl {
        let oscillator: FMOscillator
        let ownIndex: Double
    }

    /// A ladder the controller drives, and the cutoff and resonance it has when the controller leaves them.
    private struct DrivenLadder {
        let ladder: MoogLadder
        let cutoff: Double
        let resonance: Double
    }

    private let left: UnsafeMutablePointer<Float>
    private let right: UnsafeMutablePointer<Float>

    public init(chain: SoundChain, sampleRate: Double, controls: SynthControls) {
        self.chain = chain
        self.sampleRate = sampleRate
        self.controls = controls
        let ramp = max(1, Int((chain.glideTime * sampleRate).rounded()))
        // A filter swept fast sharpens the waveform it passes; 20 ms keeps that close to a slow sweep.
        let filterRamp = max(ramp, Int(0.02 * sampleRate))
        var timbres: [TimbreControl] = []
        oscillators = chain.oscillators.map { settings -> any Oscillator in
            switch settings.waveform {
            case .sine:
                let oscillator = FMOscillator(
                    sampleRate: sampleRate, rampSamples: ramp, modulatorRatio: settings.modulatorRatio,
                    index: settings.index, level: settings.level)
                timbres.append(TimbreControl(oscillator: oscillator, ownIndex: settings.index))
                return oscillator
            case .square:
                return SquareOscillator(sampleRate: sampleRate, rampSamples: ramp, level: settings.level)
            }
        }
        self.timbres = timbres
        loudness = Fader(rampSamples: ramp, gain: 0)
        envelope = chain.noteLength.map { NoteEnvelope(sampleRate: sampleRate, length: $0) }
        panner = chain.panned ? Panner(rampSamples: ramp) : nil
        var effects: [any SoundUnit] = []
        var lastLadder: DrivenLadder?
        // A filtered chain with no ladder of its own gets one after its effects, wide open and without resonance: it
        // leaves the tone as it is until the controller closes it.
        let hasLadder = chain.effects.contains { if case .ladder = $0 { true } else { false } }
        let openLadder = SoundChain.Effect.ladder(
            cutoff: MoogLadder.cutoffDef.range.upperBound, resonance: MoogLadder.resonanceDef.range.lowerBound)
        for effect in chain.effects + (chain.filtered && !hasLadder ? [openLadder] : []) {
            switch effect {
            case .delay(let time, let feedback, let mix):
                effects.append(
                    FeedbackDelay(
                        sampleRate: sampleRate, rampSamples: ramp, time: time, feedback: feedback,
                        mix: mix))
            case .reverb(let feedback, let cutoff, let mix):
                let reverb = CostelloReverb(
                    sampleRate: sampleRate, rampSamples: filterRamp, feedback: feedback,
                    cutoff: cutoff)
                effects.append(DryWetMixer(reverb, rampSamples: ramp, balance: mix, capacity: Self.blockSize))
            case .ladder(let cutoff, let resonance):
                let ladder = MoogLadder(
                    sampleRate: sampleRate, rampSamples: filterRamp, cutoff: cutoff,
                    resonance: resonance)
                effects.append(ladder)
                lastLadder = DrivenLadder(ladder: ladder, cutoff: cutoff, resonance: resonance)
            }
        }
        drivenLadder = lastLadder
        tick = Tick(sampleRate: sampleRate, level: chain.tickLevel)
        ticksSounded = controls.tickCount
        imageSweep = ImageSweep(sampleRate: sampleRate, length: chain.sweepLength)
        lineSweep = LineSweep(sampleRate: sampleRate, length: chain.sweepLength)
        guide = GuideBeeps(sampleRate: sampleRate, rampSamples: ramp)
        spectrumBank = SpectrumBank(sampleRate: sampleRate, rampSamples: ramp)
        sweepsMade = controls.sweepCount
        waitingPulse = WaitingPulse(sampleRate: sampleRate, level: chain.waitingLevel)
        // Speech comes in over 10 ms: quick, but no click.
        duck = Fader(rampSamples: Int(0.01 * sampleRate))
        let limiter = SoftLimiter(threshold: chain.limiterThreshold)

        var units: [any SoundUnit] = oscillators
        units.append(loudness)
        if let envelope { units.append(envelope) }
        if let panner { units.append(panner) }
        units += effects
        // After the effects, so no filter or echo blurs them; ducked with the rest under the voice.
        units += [tick, imageSweep, spectrumBank, guide, waitingPulse, duck, limiter] as [any SoundUnit]
        self.units = units

        left = .allocate(capacity: 2 * Self.blockSize)
        left.initialize(repeating: 0, count: 2 * Self.blockSize)
        right = left + Self.blockSize
        // One silent block now, so whatever the runtime sets up lazily on first use happens here,
        // not on the audio thread.
        renderBlock(frames: Self.blockSize)
    }

    deinit {
        left.deallocate()
        playedTables?.release()
        retiring?.release()
    }

    /// The image the sweeps play; given before the audio thread runs, and never while it does (tables offered through
    /// `controls.sweepTables` are taken as a render starts).
    public func load(_ tables: SweepTables) {
        imageSweep.load(tables.image)
        lineSweep.load(tables.lines)
    }

    /// Plays the tables offered since the last render, if any, once the ones given back before have been freed; the
    /// tables played until now go back to be freed off the audio thread.
    private func takeOfferedTables() {
        let exchange = controls.sweepTables
        if let box = retiring, exchange.retire(box) { retiring = nil }
        guard retiring == nil, let box = exchange.take() else { return }
        load(box.takeUnretainedValue().tables)
        retiring = playedTables
        playedTables = box
        if let old = retiring, exchange.retire(old) { retiring = nil }
    }

    /// Fills `frames` interleaved frames of `channels` samples (1: mono, 2: stereo, more: stereo then copies).
    ///
    /// `time` places the changes asked for: a change stamped `time + k / sampleRate` is made at frame k
    /// (the first frame at or after its time), one stamped earlier at once. Nil makes every change
    /// waiting at once, as offline rendering does, which queues each change at its frame.
    public func render(into output: UnsafeMutablePointer<Float>, frames: Int, channels: Int, at time: Double? = nil) {
        takeOfferedTables()
        waitingPulse.isOn = controls.isWaiting
        if let time, firstPlacedRender == nil { firstPlacedRender = time }
        var done = 0
        while done < frames {
            makeChanges(dueBy: done, from: time)
            switch lineSweep.event() {
            case .step(let targets): applyTone(targets)
            case .ended: applyTone(penTargets)
            case nil: break
            }
            var n = min(Self.blockSize, frames - done)
            // The block ends where the next change is due, or the line sweep's next step.
            if let next = controls.nextChangeTime(), let due = frame(of: next, from: time), due < done + n {
                n = max(1, due - done)
            }
            if let step = lineSweep.framesToNextEvent { n = min(n, step) }
            renderBlock(frames: n)
            lineSweep.advance(n)
            let out = output + done * channels
            for i in 0..<n {
                let l = left[i], r = right[i]
                if channels == 1 {
                    out[i] = (l + r) * 0.5
                } else {
                    out[i * channels] = l
                    out[i * channels + 1] = r
                    for c in 2..<max(2, channels) { out[i * channels + c] = (l + r) * 0.5 }
                }
            }
            done += n
        }
    }

    /// Ducks (or restores) the whole sound: 1 is full level. Called from the audio thread.
    public func duck(to gain: Double) { duck.gain.glide(to: gain) }

    /// The frame of a render starting at `time` on which a change stamped `changeTime` is made; nil when
    /// the render places no changes (all are made at once), and at most 0 for a change already due.
    private func frame(of changeTime: Double, from time: Double?) -> Int? {
        guard let time else { return nil }
        return Int(max(-1, min(Double(Int.max / 2), ((changeTime - time) * sampleRate).rounded(.up))))
    }

    /// Makes every change due by frame `done`. Changes due at one frame count as one: the latest
    /// targets, and one tick for however many; sweeps in the order asked for.
    private func makeChanges(dueBy done: Int, from time: Double?) {
        var latest: SynthTargets?
        var ticked = false
        var lineEnded = false
        var lateness = 0.0
        while let next = controls.nextChangeTime(), frame(of: next, from: time) ?? 0 <= done,
            let change = controls.takeChange()
        {
            if let time, next.isFinite, next >= firstPlacedRender ?? time {
                lateness = max(lateness, time + Double(done) / sampleRate - next)
            }
            switch change.kind {
            case .targets: latest = change.targets
            case .tick:
                ticksSounded += 1
                ticked = true
            case .spectrum: spectrumBank.setAmplitudes(controls.lastSpectrum)
            case .sweep:
                sweepsMade += 1
                lineEnded = play(change.sweep) || lineEnded
            case .latest:
                // What the controls could not queue: the latest targets, the ticks since dropped, and the latest
                // sweep if one was dropped.
                latest = change.targets
                if controls.tickCount > ticksSounded {
                    ticksSounded = controls.tickCount
                    ticked = true
                }
                if controls.sweepCount > sweepsMade {
                    sweepsMade = controls.sweepCount
                    lineEnded = play(controls.lastSweep) || lineEnded
                }
            }
        }
        if lateness > LateChanges.threshold { controls.lateChanges.note(seconds: lateness) }
        if ticked { tick.trigger() }
        if let latest {
            penTargets = latest
            applyGuide(latest.guide)
        }
        // While a line plays, the pen's targets wait for its end.
        if !lineSweep.isPlaying && (latest != nil || lineEnded) { applyTone(penTargets) }
    }

    /// Starts `sweep`, ending the one playing, or (nil) stops it; whether a line sweep ended, giving the pen its
    /// sound back.
    private func play(_ sweep: Sweep?) -> Bool {
        let lineEnded = lineSweep.stop()
        switch sweep {
        case .image?: imageSweep.start()
        case let line?:
            imageSweep.stop()
            lineSweep.start(line)
        case nil: imageSweep.stop()
        }
        return lineEnded && !lineSweep.isPlaying
    }

    private func applyGuide(_ tone: GuideTone) {
        guide.rate.glide(to: tone.rate)
        guide.frequency.glide(to: tone.frequency)
        guide.pan.glide(to: tone.pan)
        guide.loudness.glide(to: tone.loudness)
    }

    private func applyTone(_ targets: SynthTargets) {
        // A note that starts from silence starts at its own pitch, not with a glide from the last one.
        let fromSilence = loudness.gain.value == 0 && !loudness.gain.isGliding
        // A note starts at its own pitch too.
        let newNote = envelope != nil && targets.note != lastNote
        if newNote {
            lastNote = targets.note
            envelope?.trigger()
        }
        if targets.frequency > 0 {
            for k in oscillators.indices {
                oscillators[k].setFrequency(
                    targets.frequency * chain.oscillators[k].ratio, glide: !(fromSilence || newNote))
            }
        }
        for timbre in timbres { timbre.oscillator.index.glide(to: targets.timbre ?? timbre.ownIndex) }
        loudness.gain.glide(to: targets.amplitude)
        spectrumBank.gain.glide(to: targets.spectrum)
        panner?.pan.glide(to: targets.pan)
        if let driven = drivenLadder {
            driven.ladder.cutoff.glide(to: targets.cutoff ?? driven.cutoff)
            driven.ladder.resonance.glide(to: targets.resonance ?? driven.resonance)
        }
    }

    private func renderBlock(frames: Int) {
        let audio = StereoBuffer(left: left, right: right)
        // Sources add to what is there.
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        for unit in units { unit.process(audio, frames: frames) }
    }
}
