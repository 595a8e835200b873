import Foundation
import Testing

@testable import SonicCore

/// The lattice-strain mode on crystals whose strain is known: a coherent interface, stretched 3 % across it on its
/// right, and a crystal bent from −1.5° at its left edge to +1.5° at its right.
@Suite struct StrainModeTests {
    /// A player of `kind`'s image in the lattice-strain mode, its lattice read from the image.
    static func player(_ kind: StrainSamples.Kind) throws -> TestPlayer {
        let image = StrainSamples.sample(kind, .low).render()
        let player = TestPlayer(image, profile: try ColumnModeTests.profile([.latticeStrain]))
        player.set(
            lattice: LatticeColumns(
                finding: ColumnFinder(image: image), pixelSize: PixelSize(picometres: StrainSamples.pixelPicometres)))
        return player
    }

    /// The crystal's column nearest `point` whose strain is read.
    static func column(near point: ImagePoint, in player: TestPlayer) throws -> AnalysedColumn {
        let read = try #require(player.state.lattice).analysis.columns.filter { $0.deformation != nil }
        return try #require(
            read.min { a, b in
                hypot(a.column.x - point.x, a.column.y - point.y) < hypot(b.column.x - point.x, b.column.y - point.y)
            })
    }

    /// What touching the column nearest `point` sounds: its pitch and stereo position, and the column.
    static func touch(near point: ImagePoint, in player: TestPlayer) throws -> (
        frequency: Double, pan: Double, column: AnalysedColumn
    ) {
        let column = try column(near: point, in: player)
        let record = player.handle(ColumnModeTests.touch(column.column.x, column.column.y))
        return (record.frequency, player.targets.pan, column)
    }

    @Test func theStretchedSideOfAnInterfacePlaysHigherThanTheOther() throws {
        let player = try Self.player(.interface)
        let unstretched = try Self.touch(near: ImagePoint(x: 130, y: 256), in: player)
        let stretched = try Self.touch(near: ImagePoint(x: 400, y: 256), in: player)
        // 3 % along x is a dilatation of 1.5 %: three quarters of an octave at 2 % an octave.
        let octaves = Foundation.log2(stretched.frequency / unstretched.frequency)
        #expect(abs(octaves - 0.75) < 0.15, "\(octaves) octaves between the sides")
        // Each pitch is its column's dilatation about the middle note.
        for side in [unstretched, stretched] {
            let deformation = try #require(side.column.deformation)
            let dilatation = (deformation.exx + deformation.eyy) / 2
            #expect(abs(Foundation.log2(side.frequency / 440) - dilatation / 0.02) < 1e-9)
        }
        // Silent between columns.
        let between = try Self.column(near: ImagePoint(x: 130, y: 256), in: player).column
        #expect(player.handle(ColumnModeTests.touch(between.x + 10, between.y + 10)).amplitude == 0)
    }

    @Test func compressionPlaysBelowTheMiddleNoteAndStretchingAbove() throws {
        // The dislocation's extra half plane squeezes the crystal on one side of its glide plane and stretches it
        // on the other: both are heard, either side of the middle note.
        let player = try Self.player(.dislocation)
        let columns = try #require(player.state.lattice).analysis.columns.filter { $0.deformation != nil }
        let dilatation = { (c: AnalysedColumn) in (c.deformation!.exx + c.deformation!.eyy) / 2 }
        let compressed = try #require(columns.min { dilatation($0) < dilatation($1) })
        let stretched = try #require(columns.max { dilatation($0) < dilatation($1) })
        #expect(dilatation(compressed) < -0.005 && dilatation(stretched) > 0.005)
        let low = player.handle(ColumnModeTests.touch(compressed.column.x, compressed.column.y)).frequency
        let high = player.handle(ColumnModeTests.touch(stretched.column.x, stretched.column.y)).frequency
        #expect(low < 440 * pow(2, -0.25) && high > 440 * pow(2, 0.25), "\(low) Hz and \(high) Hz")
    }

    @Test func aBentCrystalPansFromLeftToRightAsItTurnsClockwise() throws {
        let player = try Self.player(.bent)
        let left = try Self.touch(near: ImagePoint(x: 40, y: 256), in: player)
        let right = try Self.touch(near: ImagePoint(x: 470, y: 256), in: player)
        // 3° turned from one side to the other, fully to one side at 2°.
        #expect(right.pan - left.pan > 0.7, "pans \(left.pan) and \(right.pan)")
        #expect(left.pan < right.pan)
        let turn = try #require(right.column.deformation).rotationDegrees
        #expect(abs(right.pan - min(max(turn / 2, -1), 1)) < 1e-9)
    }

    @Test func whereAmISaysTheStrainAndTheTurn() throws {
        #expect(
            Phrases.strained(Deformation(exx: 0.012, eyy: 0.003, exy: 0, rotation: 0.4 * Double.pi / 180))
                == "stretched 1.2 percent along x, 0.3 along y, turned 0.4 degrees clockwise")
        #expect(
            Phrases.strained(Deformation(exx: 0.012, eyy: -0.003, exy: 0.002, rotation: -0.01))
                == "stretched 1.2 percent along x, compressed 0.3 along y, sheared 0.2 percent, "
                + "turned 0.6 degrees anticlockwise")
        #expect(Phrases.strained(.none) == "unstrained, not turned")
        let player = try Self.player(.interface)
        let controller = player.controller(pixelSize: PixelSize(picometres: StrainSamples.pixelPicometres))
        let lattice = try #require(player.state.lattice)
        _ = controller.setColumns(
            lattice.analysis.columns.map { ImagePoint(x: $0.column.x, y: $0.column.y) }, lattice: lattice)
        let column = try Self.column(near: ImagePoint(x: 400, y: 256), in: player)
        _ = controller.handle(ColumnModeTests.touch(column.column.x, column.column.y))
        let said = controller.handle(key: "Space", at: 2).compactMap { if case .speak(let t) = $0 { t } else { nil } }
        let expected = ", " + Phrases.strained(try #require(column.deformation))
        #expect(said.first?.hasSuffix(expected) == true, "\(said)")
    }

    @Test func theRowSweepPlaysTheStrainAlongTheRowSoAnInterfaceIsAStep() throws {
        let player = try Self.player(.interface)
        player.sound.apply(.sweep(.row(256)), to: &player.state, at: 1)
        let offered = try #require(player.controls.sweepTables.take())
        defer { offered.release() }
        let lines = offered.takeUnretainedValue().tables.lines
        let steps = lines.steps(.row(256))
        #expect(steps == 256)
        // Each step is two pixels: the left side's steps and the right side's, clear of the interface at x 266.
        let pitches = (0..<steps).map { Double(lines.frequency(.row(256), step: $0)) }
        func median(_ range: Range<Int>) -> Double { pitches[range].sorted()[range.count / 2] }
        let left = median(30..<110), right = median(160..<240)
        #expect(abs(Foundation.log2(right / left) - 0.75) < 0.15, "\(left) Hz, then \(right) Hz")
        // The step is sharp: within a column spacing and a half of the interface.
        #expect(pitches[118] < left * 1.1 && pitches[148] > right / 1.1, "\(pitches[110..<155])")
        // Out of the strain mode, the row plays the image again.
        player.set(mode: .intensityPitch)
        player.sound.apply(.sweep(.row(256)), to: &player.state, at: 2)
        let image = try #require(player.controls.sweepTables.take())
        defer { image.release() }
        #expect(image.takeUnretainedValue().tables.lines !== lines)
    }
}
