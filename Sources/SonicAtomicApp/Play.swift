import ArgumentParser
import Foundation
import Glibc
import SonicCore
import SonicPNG
import SonicPulse
import SonicX11

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show an image full-screen and play it: the pen's nib sounds the intensity under it.",
        discussion: "Keys: Escape or q quits.")

    static let sampleRate = 48_000

    @Argument(help: "A PNG image (8- or 16-bit gray, or colour). Default: the bundled atomic lattice.")
    var image: String?

    @Option(help: "A profile name (from your profiles, then the shipped ones) or a path to a profile file.")
    var profile = "default"

    @Option(name: .customLong("events"), help: "Write the session log (JSON Lines) to this file.")
    var eventsPath: String?

    @Option(help: "Audio buffer in milliseconds: lower is more immediate, higher survives a busy machine.")
    var latency = 5.0

    func validate() throws {
        guard latency >= 1 && latency <= 200 else { throw ValidationError("--latency must be 1 to 200 ms") }
    }

    func run() throws {
        let profile: Profile
        do { profile = try Installation.loadProfile(self.profile) } catch let error as ProfileError {
            throw fail(error.description, status: ExitStatus.badInput)
        }
        guard let imagePath = image ?? Installation.defaultImage else {
            throw fail("no image given and the bundled images are not installed (set SONIC_ATOMIC_DATA)",
                       status: ExitStatus.badInput)
        }
        let picture: GrayImage
        do { picture = try PNGDecoder.decode(path: imagePath) } catch {
            throw fail("cannot read image \(imagePath): \(error)", status: ExitStatus.badInput)
        }
        let log: SessionLog?
        do { log = try eventsPath.map { try SessionLog(path: $0) } } catch let error as SessionLogError {
            throw fail(error.message, status: ExitStatus.badInput)
        }

        let statistics = SampleStatistics(picture)
        let controls = SynthControls()
        let instrument = Instrument(image: picture, profile: profile, statistics: statistics,
                                    viewport: Viewport(originX: 0, originY: 0, scale: 1), controls: controls)
        let imageName = URL(fileURLWithPath: imagePath).lastPathComponent
        let frontend: X11Frontend
        do {
            frontend = try X11Frontend(title: "SonicAtomic — \(imageName)", image: picture,
                                       stretch: instrument.stretch, clock: monotonicSeconds)
        } catch {
            throw fail(error.description, status: ExitStatus.noDisplay)
        }
        let output: PulseOutput
        do {
            output = try PulseOutput(renderer: SynthEngine(chain: profile.chain, sampleRate: Double(Self.sampleRate),
                                                                  controls: controls),
                                     sampleRate: Self.sampleRate, latency: latency / 1000, streamName: imageName)
        } catch {
            throw fail(error.description, status: ExitStatus.noSound)
        }

        log?.write(.start(StartRecord(
            t: monotonicSeconds(), image: URL(fileURLWithPath: imagePath).standardizedFileURL.path,
            width: picture.width, height: picture.height, bitDepth: picture.bitDepth, profile: profile.name,
            sampleRate: Self.sampleRate)))
        log?.flush()

        installQuitSignals()
        var running = true
        while running && !quitSignalled.load(ordering: .relaxed) {
            for event in frontend.nextEvents(timeout: 100) {
                switch event {
                case .pen(let pen):
                    let record = instrument.handle(pen)
                    log?.write(.pen(record))
                case .placed(let window):
                    let viewport = Viewport(fitting: picture.width, picture.height, into: window)
                    instrument.place(viewport)
                    log?.write(.viewport(t: monotonicSeconds(), viewport))
                    frontend.show(viewport)
                case .key(let name):
                    if name == "Escape" || name == "q" { running = false }
                case .closeRequested:
                    running = false
                }
            }
            log?.flush()
        }

        // Let the tone fade through the buffer rather than cut off mid-wave.
        instrument.silence()
        usleep(UInt32(max(0.02, 2 * output.grantedLatency) * 1_000_000))
        log?.flush()
    }
}
