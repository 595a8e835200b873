import Foundation
import TestSupport
import Testing

@testable import SonicCore

/// The overview in a session: said after the greeting, described on request, its features stepped through with the
/// pen guided to each; the sweeps started and stopped; all as the controller hands them on.
@Suite struct OverviewPlayTests {
    /// A lattice with columns brighter and dimmer than the rest, vacancies and interstitials, its columns and
    /// overview.
    static let sample = OverviewSamples.defects(.low).render()
    static let found: (lattice: LatticeColumns, overview: ImageOverview) = {
        let finder = ColumnFinder(image: sample)
        let lattice = LatticeColumns(finding: finder, pixelSize: nil)
        return (lattice, ImageOverview(finder: finder, columns: lattice))
    }()

    /// A session on the sample shown at scale 1 from (0, 0): image point p is at root p + 0.5.
    func session(overview: Bool = true) -> (SessionController, TestPlayer) {
        let player = TestPlayer(Self.sample)
        let controller = player.controller()
        _ = controller.start()
        if overview {
            let lattice = Self.found.lattice
            _ = controller.setColumns(
                lattice.analysis.columns.map { ImagePoint(x: $0.column.x, y: $0.column.y) }, lattice: lattice)
            _ = controller.setOverview(Self.found.overview)
        }
        return (controller, player)
    }

    func pen(_ t: Double, at p: ImagePoint, buttons: [Int] = [], pressure: Double = 0, inWindow: Bool = true)
        -> PenEvent
    {
        var b = PenButtons()
        for n in buttons { b.insert(n) }
        return PenEvent(
            time: t, rootX: p.x + 0.5, rootY: p.y + 0.5, pressure: pressure, tiltX: 0, tiltY: 0, buttons: b,
            inWindow: inWindow)
    }

    func speech(_ outputs: [ControllerOutput]) -> [String] {
        outputs.compactMap { if case .speak(let text) = $0 { text } else { nil } }
    }

    var overview: ImageOverview { Self.found.overview }
    var spacing: Double { Self.found.lattice.spacing }

    // MARK: The summary and the details

    @Test func theFirstSentenceFollowsWhatIsSaidAndDescribingSaysTheSummaryThenEachDetail() {
        let player = TestPlayer(Self.sample)
        let c = player.controller()
        _ = c.start()
        #expect(speech(c.handle(key: "D", at: 1)) == [Phrases.overviewNotReady])
        #expect(c.setOverview(overview) == [.speakAfter(overview.summary[0])])
        #expect(overview.summary.count > 1 && overview.details.count > 3)
        #expect(speech(c.handle(key: "D", at: 2)) == [overview.summary.joined(separator: " ")])
        var details: [String] = []
        for k in 0..<overview.details.count { details += speech(c.handle(key: "D", at: 3 + Double(k))) }
        #expect(details == overview.details)
        #expect(speech(c.handle(key: "D", at: 50)) == [Phrases.noMoreDetails])
        #expect(speech(c.handle(key: "D", at: 51)) == [overview.summary.joined(separator: " ")])
        // Another frame's overview is not said: D tells it.
        #expect(c.setOverview(overview).isEmpty)
        // R repeats what was said last, the summary's first sentence included.
        let fresh = player.controller()
        _ = fresh.setOverview(overview)
        #expect(speech(fresh.handle(key: "R", at: 52)) == [overview.summary[0]])
    }

    @Test func withoutALatticeTheSummarySaysSoAndNothingIsThereToGoTo() {
        var random = SeededRandom(seed: 3)
        let noise = GrayImage(
            width: 64, height: 64, bitDepth: 16, samples: (0..<4096).map { _ in UInt16(random.next() % 4000) })
        let finder = ColumnFinder(image: noise)
        let lattice = LatticeColumns(finding: finder, pixelSize: nil)
        let plain = ImageOverview(finder: finder, columns: lattice)
        let c = TestPlayer(noise).controller()
        _ = c.setColumns([], lattice: lattice)
        #expect(c.setOverview(plain) == [.speakAfter(plain.summary[0])])
        #expect(speech(c.handle(key: "D", at: 1)) == [plain.summary.joined(separator: " ")])
        #expect(speech(c.handle(key: "D", at: 2)) == [Phrases.noMoreDetails])
        #expect(speech(c.handle(key: "N", at: 3)) == [Phrases.nothingStandsOut])
    }

    // MARK: Going to what matters

    @Test func particlesAreSteppedThroughLargestFirstAndThePenGuidedIntoEach() throws {
        let image = ParticleSamples.touching(.low).render()
        let finder = ColumnFinder(image: image)
        let lattice = LatticeColumns(finding: finder, pixelSize: ParticleSamples.pixelSize)
        let particles = ImageOverview(finder: finder, columns: lattice)
        let c = TestPlayer(image).controller()
        _ = c.start()
        _ = c.setColumns([], lattice: lattice)
        #expect(c.setOverview(particles) == [.speakAfter(particles.summary[0])])
        let features = particles.features
        #expect(features.count == 9 && features.allSatisfy { $0.kind == .particle })
        let largest = try #require(features.first)
        let radius = try #require(largest.radius)
        // 36 pixels of 200 pm: 7.2 nanometres, measured a little small (at a quarter of its height).
        let said = try #require(largest.label.firstMatch(of: #/^Particle 1 of 9, right, (\d\.\d) nanometres$/#))
        #expect(abs(Double(said.1)! - 7.2) <= 0.4)
        #expect(
            c.handle(key: "N", at: 1) == [
                .cursor(largest.position), .guidance(Guidance(target: largest.position, radius: radius)),
                .speak(largest.label + ".")
            ])
        // Inside the particle, not only at its middle, the pen is there.
        let inside = ImagePoint(x: largest.position.x + 0.8 * radius, y: largest.position.y)
        #expect(speech(c.handle(pen(2, at: inside))) == [Phrases.here])
        #expect(speech(c.handle(key: "N", at: 3)) == [features[1].label + "."])
        #expect(speech(c.handle(key: "Shift+N", at: 4)) == [largest.label + ". " + Phrases.here])
    }

    @Test func diffractionSpotsAreSteppedThroughStrongestFirstAndThePenGuidedToEach() throws {
        let sample = try #require(DiffractionSamples.all(.low).first { !$0.spots.isEmpty })
        let image = sample.render()
        let finder = ColumnFinder(image: image)
        let lattice = LatticeColumns(finding: finder, pixelSize: nil)
        let pattern = ImageOverview(finder: finder, columns: lattice, reciprocalPerPixel: sample.reciprocalPerPixel)
        let c = TestPlayer(image).controller()
        _ = c.start()
        _ = c.setColumns([], lattice: lattice)
        _ = c.setOverview(pattern)
        let spots = pattern.features
        #expect(spots.count >= 8 && spots.allSatisfy { $0.kind == .spot })
        let strongest = try #require(spots.first)
        #expect(strongest.label.hasPrefix("Spot 1 of \(spots.count), "))
        #expect(
            c.handle(key: "N", at: 1) == [
                .cursor(strongest.position),
                .guidance(Guidance(target: strongest.position, radius: Double(DiffractionPattern.spotReach))),
                .speak(strongest.label + ".")
            ])
        #expect(speech(c.handle(pen(2, at: strongest.position))) == [Phrases.here])
        #expect(speech(c.handle(key: "N", at: 3)) == [spots[1].label + "."])
        #expect(speech(c.handle(key: "Shift+N", at: 4)) == [strongest.label + ". " + Phrases.here])
    }

    @Test func theFeaturesAreSteppedThroughTheCursorGoingThereAndThePenGuided() {
        let (c, _) = session()
        let features = overview.features
        #expect(features.count >= 10)
        let first = c.handle(key: "N", at: 1)
        let guidance = Guidance(target: features[0].position, radius: Guidance.arrival * spacing)
        #expect(
            first == [.cursor(features[0].position), .guidance(guidance), .speak(features[0].label + ".")])
        #expect(c.state.guidance == guidance && c.cursor == features[0].position)
        #expect(speech(c.handle(key: "N", at: 2)) == [features[1].label + "."])
        #expect(speech(c.handle(key: "Shift+N", at: 3)) == [features[0].label + "."])
        #expect(speech(c.handle(key: "Shift+N", at: 4)) == [Phrases.firstFeature])
        #expect(c.state.guidance?.target == features[0].position, "the guidance stays where it was")
        for k in 1..<features.count { _ = c.handle(key: "N", at: 5 + Double(k)) }
        #expect(c.state.guidance?.target == features.last?.position)
        #expect(speech(c.handle(key: "N", at: 40)) == [Phrases.lastFeature])
        // The upper barrel button's double click steps too (from the last: no further).
        _ = c.handle(pen(41, at: ImagePoint(x: 10, y: 10), buttons: [3]))
        _ = c.handle(pen(41.05, at: ImagePoint(x: 10, y: 10)))
        _ = c.handle(pen(41.1, at: ImagePoint(x: 10, y: 10), buttons: [3]))
        #expect(speech(c.handle(pen(41.15, at: ImagePoint(x: 10, y: 10)))) == [Phrases.lastFeature])
        // In a column mode the arrows step on from the feature, as from any column the cursor reached.
        _ = c.handle(key: "4", at: 42)
        #expect(c.state.guidance == nil)
        let last = features[features.count - 1].position
        let moved = (c.handle(key: "Right", at: 43) + c.handle(key: "Left", at: 44)).compactMap { output in
            if case .cursor(let p?) = output { p } else { nil }
        }
        #expect(moved.first.map { hypot($0.x - last.x, $0.y - last.y) < 1.5 * spacing } == true, "\(moved)")
    }

    /// The guide's beeps say which way and how far as the nib moves, from each pen event; "Here." once the nib is
    /// within a third of a column spacing (not next door), the arrival cue while it stays, and "Here." again only
    /// after it has left.
    @Test func thePenIsGuidedAndHearsHereOnArrival() throws {
        let (c, player) = session()
        _ = c.handle(key: "N", at: 1)
        let target = try #require(c.state.guidance).target
        // From the far left of the target, hovering: beeps on the right, slowly.
        let farLeft = ImagePoint(x: max(0, target.x - 150), y: target.y)
        #expect(speech(c.handle(pen(2, at: farLeft))).isEmpty)
        let far = player.targets.guide
        #expect(far.rate > 0 && far.pan > 0.99 && abs(far.frequency - GuideBeeps.frequencyDef.defaultValue) < 1)
        // Closer: faster. Below it: higher.
        _ = c.handle(pen(3, at: ImagePoint(x: target.x - 2 * spacing, y: target.y)))
        #expect(player.targets.guide.rate > far.rate)
        _ = c.handle(pen(4, at: ImagePoint(x: target.x, y: target.y + 3 * spacing)))
        #expect(player.targets.guide.frequency > 1.9 * GuideBeeps.frequencyDef.defaultValue)
        #expect(abs(player.targets.guide.pan) < 1e-9)
        // Next door, 0.6 spacing away: not there, the beeps fast.
        #expect(speech(c.handle(pen(4.5, at: ImagePoint(x: target.x - 0.6 * spacing, y: target.y)))).isEmpty)
        #expect(player.targets.guide.rate > 4 && player.targets.guide.loudness == 1)
        // Touching counts as hovering does: 0.15 spacing away, "Here." and the arrival cue.
        let there = ImagePoint(x: target.x + 0.15 * spacing, y: target.y)
        #expect(speech(c.handle(pen(5, at: there, buttons: [1], pressure: 0.5))) == [Phrases.here])
        #expect(player.targets.guide == .arrived)
        #expect(speech(c.handle(pen(5.1, at: target))).isEmpty, "said once")
        // Leaving by a little more than the radius is not leaving; by twice the radius it is.
        #expect(speech(c.handle(pen(6, at: ImagePoint(x: target.x + 0.4 * spacing, y: target.y)))).isEmpty)
        #expect(speech(c.handle(pen(6.1, at: there))).isEmpty)
        _ = c.handle(pen(7, at: ImagePoint(x: target.x + 0.7 * spacing, y: target.y)))
        #expect(speech(c.handle(pen(7.1, at: there))) == [Phrases.here])
        // Off the window: the guide is silent.
        _ = c.handle(pen(8, at: farLeft, inWindow: false))
        #expect(player.targets.guide == .silent)
        // Stepping to a feature the nib is on already says so at once.
        _ = c.handle(pen(9, at: overview.features[1].position))
        #expect(speech(c.handle(key: "N", at: 10)) == [overview.features[1].label + ". " + Phrases.here])
    }

    /// "Where am I" names the feature the nib is on — within the radius "Here." is said in, not next door — and,
    /// after the arrow keys moved the column cursor, tells the cursor's column rather than the pen's place.
    @Test func whereAmINamesTheFeatureUnderTheNibAndTheCursorsColumn() throws {
        let (c, _) = session()
        let bright = overview.features.filter { $0.kind == .brightColumn }
        let first = try #require(bright.first)
        let ratio = String(format: "%.2f", try #require(first.relativeIntensity))
        _ = c.handle(pen(1, at: ImagePoint(x: first.position.x + 0.15 * spacing, y: first.position.y)))
        let on = try #require(speech(c.handle(key: "Space", at: 2)).first)
        #expect(on.contains(", bright column 1 of \(bright.count), \(ratio) times as bright"), "\(on)")
        _ = c.handle(pen(3, at: ImagePoint(x: first.position.x + 0.6 * spacing, y: first.position.y)))
        let nextDoor = try #require(speech(c.handle(key: "Space", at: 4)).first)
        #expect(!nextDoor.contains("bright column"), "\(nextDoor)")
        let vacancy = try #require(overview.features.first { $0.kind == .vacancy })
        _ = c.handle(pen(5, at: vacancy.position))
        #expect(speech(c.handle(key: "Space", at: 6)).first?.contains(", vacancy 1 of 3") == true)
        // The arrows, in a column mode: the cursor's column, until the pen moves again.
        _ = c.handle(key: "4", at: 7)
        let moved = c.handle(key: "Right", at: 8).compactMap { output -> ImagePoint? in
            if case .cursor(let p?) = output { p } else { nil }
        }
        let column = try #require(moved.first)
        let said = try #require(speech(c.handle(key: "Space", at: 9)).first)
        #expect(said.hasPrefix("x \(column.nearestPixel.x), y \(column.nearestPixel.y)"), "\(said) at \(column)")
        _ = c.handle(pen(10, at: first.position))
        #expect(speech(c.handle(key: "Space", at: 11)).first?.contains("bright column 1 of") == true)
    }

    /// A cell of neighbouring columns is given as it is; one whose corner lies several columns from the origin is
    /// questioned, with how many columns apart they are.
    @Test func aCellOfTagsThatAreNotNeighboursIsQuestioned() throws {
        var t = 1.0
        func press(_ c: SessionController, _ key: String) -> [ControllerOutput] {
            t += 1
            return c.handle(key: key, at: t)
        }
        func tags(_ outputs: [ControllerOutput]) -> [SonicCore.Tag] {
            outputs.compactMap { if case .tagAdded(let tag) = $0 { tag } else { nil } }
        }
        // Neighbours: the origin, the column to its right, the column below it.
        let (near, _) = session()
        _ = press(near, "4")
        _ = press(near, "Right")
        _ = press(near, "Enter")
        _ = press(near, "Right")
        _ = press(near, "Enter")
        _ = press(near, "Left")
        _ = press(near, "Down")
        let third = press(near, "Enter")
        #expect(tags(third).count == 1)
        #expect(speech(third).first?.contains("Unit cell") == true && speech(third).first?.contains("apart") == false)
        // Four columns along: questioned.
        let (far, _) = session()
        _ = press(far, "4")
        _ = press(far, "Right")
        let first = try #require(tags(press(far, "Enter")).first)
        for _ in 0..<4 { _ = press(far, "Right") }
        let second = try #require(tags(press(far, "Enter")).first)
        _ = press(far, "Down")
        let said = speech(press(far, "Enter")).joined()
        let apart = Int((hypot(second.x - first.x, second.y - first.y) / spacing).rounded())
        #expect(apart >= 3)
        #expect(said.contains("Tags 1 and 2 are \(apart) columns apart, not neighbours."), "\(said)")
    }

    /// While the atom columns are being found, "where am I" says how far that has got.
    @Test func whereAmITellsHowFarTheColumnSearchHasGot() throws {
        let (c, _) = session(overview: false)
        _ = c.handle(pen(1, at: ImagePoint(x: 100, y: 100)))
        c.workUnderWay = ("fitting the atom columns", 0.42)
        let said = try #require(speech(c.handle(key: "Space", at: 2)).first)
        #expect(said.hasSuffix(". Still fitting the atom columns, 42 percent."), "\(said)")
        let (found, _) = session()
        found.workUnderWay = ("fitting the atom columns", 1)
        _ = found.handle(pen(3, at: ImagePoint(x: 100, y: 100)))
        #expect(speech(found.handle(key: "Space", at: 4)).first?.contains("Still") == false)
    }

    /// While a window's map or a frame is awaited, "where am I" says what is read and how far it has got, and the
    /// waiting pulse sounds until the wait ends.
    @Test func whereAmITellsHowFarAWaitHasGot() throws {
        let (c, _) = session()
        _ = c.handle(pen(1, at: ImagePoint(x: 100, y: 100)))
        #expect(!c.sound.waiting)
        c.waitUnderWay = ("reading the spectra", 0.4)
        #expect(c.sound.waiting)
        let said = try #require(speech(c.handle(key: "Space", at: 2)).first)
        #expect(said.hasSuffix(". Reading the spectra, 40 percent."), "\(said)")
        c.waitUnderWay = ("reading the frame", nil)
        #expect(speech(c.handle(key: "Space", at: 3)).first?.hasSuffix(". Reading the frame.") == true)
        c.waitUnderWay = nil
        #expect(!c.sound.waiting)
        #expect(speech(c.handle(key: "Space", at: 4)).first?.contains("Reading") == false)
    }

    @Test func escapeEndsTheGuidanceAndQuitsOnlyWhenPressedTwiceWithNothingGoingOn() {
        let (c, player) = session()
        _ = c.handle(key: "N", at: 1)
        _ = c.handle(pen(2, at: ImagePoint(x: 5, y: 5)))
        #expect(player.targets.guide.rate > 0)
        #expect(c.handle(key: "Escape", at: 3) == [.guidance(nil), .speak(Phrases.guidanceEnded)])
        #expect(c.state.guidance == nil && player.targets.guide == .silent)
        #expect(c.handle(key: "Escape", at: 4) == [.speak(Phrases.escapeAgainToQuit)])
        // Another key between the two presses: the next Escape warns again.
        _ = c.handle(key: "R", at: 5)
        #expect(c.handle(key: "Escape", at: 6) == [.speak(Phrases.escapeAgainToQuit)])
        #expect(c.handle(key: "Escape", at: 7) == [.speak(Phrases.goodbye), .quit])
    }

    @Test func controlSilencesTheSpeechAndNothingElse() {
        let (c, _) = session()
        _ = c.handle(key: "D", at: 1)
        _ = c.handle(key: "S", at: 2)
        #expect(c.handle(key: "Control", at: 3) == [.speak("")])
        // The sweep plays on, and "repeat" still has the last words said.
        #expect(c.handle(key: "R", at: 4).contains(.sweep(nil)))
        #expect(c.handle(key: "R", at: 5).contains { if case .speak(let text) = $0 { !text.isEmpty } else { false } })
    }

    @Test func aModeChosenEndsTheGuidance() {
        let (c, player) = session()
        _ = c.handle(key: "N", at: 1)
        _ = c.handle(pen(2, at: ImagePoint(x: 5, y: 5)))
        #expect(
            c.handle(key: "Tab", at: 3) == [
                .mode(.pressureAmplitude), .guidance(nil), .speak("Mode 2, pressure amplitude. Guidance ended.")
            ])
        #expect(c.state.guidance == nil && player.targets.guide == .silent)
        // Without guidance, a mode is only a mode.
        #expect(c.handle(key: "1", at: 4) == [.mode(.intensityPitch), .speak("Mode 1, intensity pitch.")])
    }

    // MARK: Sweeps

    @Test func sweepKeysStartSweepsAndAnyKeyThenStopsOneAndDoesNothingElse() {
        let (c, _) = session()
        let length = Profile.builtIn.chain.sweepLength
        #expect(c.handle(key: "S", at: 10) == [.sweep(.image)])
        #expect(c.state.sweep == PlayingSweep(sweep: .image, end: 10 + length))
        #expect(c.handle(key: "Space", at: 11) == [.sweep(nil), .speak(Phrases.sweepStopped)])
        #expect(c.state.sweep == nil)
        // No pen yet: no row to sweep.
        #expect(speech(c.handle(key: "X", at: 12)) == [Phrases.penNotOnTablet])
        _ = c.handle(pen(13, at: ImagePoint(x: 100.4, y: 200.6)))
        #expect(c.handle(key: "X", at: 14) == [.sweep(.row(201))])
        // Once the sweep is over, a key is a key again.
        #expect(c.handle(key: "Shift+X", at: 14 + length + 0.01) == [.sweep(.column(100))])
        // The pen touching stops a sweep, without a word.
        let touch = c.handle(pen(15, at: ImagePoint(x: 50, y: 50), buttons: [1], pressure: 0.5))
        #expect(touch.contains(.sweep(nil)) && speech(touch).isEmpty && c.state.sweep == nil)
        // Off the image, the row is the column cursor's, if any.
        _ = c.handle(pen(16, at: ImagePoint(x: -40, y: 50)))
        #expect(speech(c.handle(key: "X", at: 17)) == [Phrases.outsideImage])
        _ = c.handle(key: "N", at: 18)
        let feature = overview.features[0].position
        #expect(c.handle(key: "X", at: 19) == [.sweep(.row(feature.nearestPixel.y))])
    }

    @Test func holdingABarrelButtonStillSweeps() {
        let (c, _) = session()
        let p = ImagePoint(x: 30, y: 40)
        _ = c.handle(pen(1, at: p))
        _ = c.handle(pen(2, at: p, buttons: [3]))
        #expect(c.poll(at: 2 + PenGestures.holdTime + 0.01) == [.sweep(.image)])
        _ = c.handle(pen(3, at: p))
        // Sweeping: a button is no key, and does not stop it; the lower one held sweeps the row instead.
        _ = c.handle(pen(3.1, at: p, buttons: [2]))
        #expect(c.poll(at: 3.1 + PenGestures.holdTime + 0.01) == [.sweep(.row(40))])
        #expect(c.handle(pen(4, at: p)).count == 1, "the release: the pen's record only")
    }
}
