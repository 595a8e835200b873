/// The instrument's sound engine: the profile's chain, driven by the controller's targets.
///
/// Rendering allocates nothing, takes no locks and makes no system calls, so it runs on the audio
/// thread; every buffer and delay line is allocated here, up front. Targets arrive through
/// `SynthControls` (lock-free) and are read at the start of each block of at most `blockSize` frames.
public final class SynthEngine {
    public static let blockSize = 128

    public let sampleRate: Double
    public let chain: SoundChain
    private let controls: SynthControls

    private var oscillators: [OscillatorUnit]
    private var mixer: Mixer
    /// For chains that play notes.
    private var envelope: NoteEnvelope?
    private var lastNote = 0
    private var panner: Panner?
    private var effects: [EffectUnit]
    /// The index of the ladder the controller's cutoff and resonance drive: the last one.
    private let drivenLadder: Int?
    /// Lowers everything before the limiter while the voice speaks.
    private var duck: LinearRamp
    /// The cell-boundary tick, and how many ticks the controller had asked for at the last block.
    private var tick: Tick
    private var ticksSounded: Int
    private let limiter: SoftLimiter

    private enum OscillatorUnit {
        case fm(FMOscillator)
        case square(SquareOscillator)
    }

    /// Named types only: a tuple payload would make the runtime build its type metadata (allocating,
    /// under a lock) the first time the audio thread touched it.
    private enum EffectUnit {
        case delay(FeedbackDelay)
        case reverb(ReverbInsert)
        case ladder(MoogLadder)
    }

    /// The reverberation crossfaded with its own input.
    private struct ReverbInsert {
        let reverb: CostelloReverb
        var dryWet: DryWetMixer
    }

    /// One buffer per oscillator, then left, right, dry left, dry right.
    private let buffers: UnsafeMutablePointer<Float>
    private let oscillatorBuffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let stereo: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private var left: UnsafeMutablePointer<Float> { stereo[0] }
    private var right: UnsafeMutablePointer<Float> { stereo[1] }
    private let dryLeft: UnsafeMutablePointer<Float>
    private let dryRight: UnsafeMutablePointer<Float>

    public init(chain: SoundChain, sampleRate: Double, controls: SynthControls) {
        self.chain = chain
        self.sampleRate = sampleRate
        self.controls = controls
        let ramp = max(1, Int((chain.glideTime * sampleRate).rounded()))
        // A filter swept fast sharpens the waveform it passes; 20 ms keeps that close to a slow sweep.
        let filterRamp = max(ramp, Int(0.02 * sampleRate))
        oscillators = chain.oscillators.map {
            switch $0.waveform {
            case .sine:
                .fm(FMOscillator(sampleRate: sampleRate, rampSamples: ramp, carrierFrequency: 440,
                                 modulatorRatio: $0.modulatorRatio, index: $0.index, amplitude: 1))
            case .square:
                .square(SquareOscillator(sampleRate: sampleRate, rampSamples: ramp))
            }
        }
        envelope = chain.noteLength.map { NoteEnvelope(sampleRate: sampleRate, length: $0) }
        mixer = Mixer(inputs: chain.oscillators.count, rampSamples: ramp, levels: chain.oscillators.map(\.level), gain: 0)
        panner = chain.panned ? Panner(rampSamples: ramp) : nil
        drivenLadder = chain.effects.lastIndex { if case .ladder = $0 { true } else { false } }
        // Speech comes in over 10 ms: quick, but no click.
        duck = LinearRamp(value: 1, duration: Int(0.01 * sampleRate), range: 0...1)
        effects = chain.effects.map { effect in
            switch effect {
            case let .delay(time, feedback, mix):
                .delay(FeedbackDelay(sampleRate: sampleRate, channels: 2, rampSamples: ramp, time: time,
                                     feedback: feedback, mix: mix))
            case let .reverb(feedback, cutoff, mix):
                .reverb(ReverbInsert(
                    reverb: CostelloReverb(sampleRate: sampleRate, rampSamples: filterRamp, feedback: feedback, cutoff: cutoff),
                    dryWet: DryWetMixer(rampSamples: ramp, balance: mix)))
            case let .ladder(cutoff, resonance):
                .ladder(MoogLadder(sampleRate: sampleRate, rampSamples: filterRamp, cutoff: cutoff, resonance: resonance))
            }
        }
        limiter = SoftLimiter(threshold: Float(chain.limiterThreshold))
        tick = Tick(sampleRate: sampleRate, level: chain.tickLevel)
        ticksSounded = controls.tickCount

        let count = chain.oscillators.count + 4
        buffers = .allocate(capacity: count * Self.blockSize)
        buffers.initialize(repeating: 0, count: count * Self.blockSize)
        oscillatorBuffers = .allocate(capacity: max(1, chain.oscillators.count))
        for k in 0..<chain.oscillators.count { oscillatorBuffers[k] = buffers + k * Self.blockSize }
        let base = buffers + chain.oscillators.count * Self.blockSize
        stereo = .allocate(capacity: 2)
        stereo[0] = base
        stereo[1] = base + Self.blockSize
        dryLeft = base + 2 * Self.blockSize
        dryRight = base + 3 * Self.blockSize
        // One silent block now, so whatever the runtime sets up lazily on first use happens here,
        // not on the audio thread.
        renderBlock(frames: Self.blockSize)
    }

    deinit {
        buffers.deallocate()
        oscillatorBuffers.deallocate()
        stereo.deallocate()
    }

    /// Fills `frames` interleaved frames of `channels` samples (1: mono, 2: stereo, more: stereo then copies).
    public func render(into output: UnsafeMutablePointer<Float>, frames: Int, channels: Int) {
        var done = 0
        while done < frames {
            let n = min(Self.blockSize, frames - done)
            applyTargets()
            renderBlock(frames: n)
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
    public func duck(to gain: Double) { duck.glide(to: gain) }

    private func applyTargets() {
        let targets = controls.targets
        // Ticks asked for within one block sound as one.
        let ticksAsked = controls.tickCount
        if ticksAsked != ticksSounded {
            ticksSounded = ticksAsked
            tick.trigger()
        }
        // A note that starts from silence starts at its own pitch, not with a glide from the last one.
        let fromSilence = mixer.gain.value == 0 && !mixer.gain.isGliding
        // A note starts at its own pitch too.
        let newNote = envelope != nil && targets.note != lastNote
        if newNote {
            lastNote = targets.note
            envelope!.trigger()
        }
        for k in oscillators.indices {
            let pitch = targets.frequency * chain.oscillators[k].ratio
            switch oscillators[k] {
            case .fm(var oscillator):
                if targets.frequency > 0 {
                    if fromSilence || newNote { oscillator.carrierFrequency.jump(to: pitch) }
                    else { oscillator.carrierFrequency.glide(to: pitch) }
                }
                oscillator.index.glide(to: targets.timbre ?? chain.oscillators[k].index)
                oscillators[k] = .fm(oscillator)
            case .square(var oscillator):
                if targets.frequency > 0 {
                    if fromSilence || newNote { oscillator.frequency.jump(to: pitch) } else { oscillator.frequency.glide(to: pitch) }
                }
                oscillators[k] = .square(oscillator)
            }
        }
        mixer.gain.glide(to: targets.amplitude)
        panner?.pan.glide(to: targets.pan)
        if let index = drivenLadder, case .ladder(var ladder) = effects[index],
           case .ladder(let cutoff, let resonance) = chain.effects[index] {
            ladder.cutoff.glide(to: targets.cutoff ?? cutoff)
            ladder.resonance.glide(to: targets.resonance ?? resonance)
            effects[index] = .ladder(ladder)
        }
    }

    private func renderBlock(frames: Int) {
        for k in oscillators.indices {
            switch oscillators[k] {
            case .fm(var oscillator):
                oscillator.process(into: oscillatorBuffers[k], frames: frames)
                oscillators[k] = .fm(oscillator)
            case .square(var oscillator):
                oscillator.process(into: oscillatorBuffers[k], frames: frames)
                oscillators[k] = .square(oscillator)
            }
        }
        mixer.process(oscillatorBuffers, into: left, frames: frames)
        if envelope != nil {
            for i in 0..<frames { left[i] *= Float(envelope!.next()) }
        }
        if panner == nil { right.update(from: left, count: frames) } else { panner!.process(left: left, right: right, frames: frames) }
        for index in effects.indices {
            switch effects[index] {
            case .delay(let delay):
                delay.process(stereo, frames: frames)
            case .reverb(var insert):
                dryLeft.update(from: left, count: frames)
                dryRight.update(from: right, count: frames)
                insert.reverb.process(left: left, right: right, frames: frames)
                insert.dryWet.process(dry: (dryLeft, dryRight), wet: (left, right), frames: frames)
                effects[index] = .reverb(insert)
            case .ladder(var ladder):
                ladder.process(left: left, right: right, frames: frames)
                effects[index] = .ladder(ladder)
            }
        }
        // After the effects, so no filter or echo blurs it; ducked with the rest under the voice.
        tick.process(addingTo: left, right, frames: frames)
        for i in 0..<frames {
            let gain = Float(duck.next())
            left[i] *= gain
            right[i] *= gain
        }
        limiter.process(left, frames: frames)
        limiter.process(right, frames: frames)
    }
}
