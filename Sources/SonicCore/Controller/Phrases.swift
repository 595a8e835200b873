import Foundation

/// Every sentence the program speaks, in one place. Callers hand over numbers and names; the
/// words, their order and their punctuation are decided here.
public enum Phrases {
    // MARK: - The session

    /// "SonicAtomic. atomic-lattice.png, 384 by 384 pixels, 16 bit. Mode 1, intensity pitch."
    public static func greeting(
        _ opened: OpenedImage, _ image: GrayImage, pixelSize: PixelSize?, modeNumber: Int,
        mode: Mode
    ) -> String {
        let scale = opened.spokenScale(pixelSize: pixelSize).map { ", \($0)" } ?? ""
        return "SonicAtomic. \(opened.spokenName), \(image.width) by \(image.height) pixels, "
            + "\(image.sampleType.spoken)\(scale). " + self.mode(modeNumber, mode)
    }

    public static func savedTagsLoaded(_ count: Int) -> String { "\(counted(count, "saved tag")) loaded." }

    /// "Mode 2, pressure amplitude."
    public static func mode(_ number: Int, _ mode: Mode) -> String { "Mode \(number), \(mode.spokenName)." }

    public static func noMode(_ number: Int) -> String { "There is no mode \(number)." }

    public static let nothingToRepeat = "Nothing to repeat."
    public static let goodbye = "Goodbye."
    public static let escapeAgainToQuit = "Press Escape again to quit."
    public static let tagsNotSaved = "Warning: the tags could not be saved."

    public static func statusPanel(shown: Bool) -> String { shown ? "Status panel shown." : "Status panel hidden." }

    /// "Text 3 times.": the text on screen, as a multiple of the desktop's size.
    public static func textSize(_ scale: Double) -> String { "Text \(times(scale))." }

    public static func textSizeLimit(larger: Bool) -> String {
        let limit = TextSize(scale: larger ? .infinity : 0).scale
        return "Text \(times(limit)): as \(larger ? "large" : "small") as it goes."
    }

    // MARK: - Where things are

    public static let penNotOnTablet = "The pen is not on the tablet."

    /// "Peaks at 4.51 kilo electron volts, titanium K alpha, and 7.06, unidentified.": the strongest first, each
    /// with the identified element's line that explains it; on an energy axis a peak none explains is unidentified.
    public static func peaks(_ peaks: [SpectrumPeak], units: String) -> String {
        guard !peaks.isEmpty else { return "No peaks." }
        let unit = spokenUnits(units).map { " " + $0 } ?? ""
        let unexplained = EnergyUnit(units) == nil ? "" : ", unidentified"
        let parts = peaks.enumerated().map { index, peak in
            NumberText.significant(peak.position, digits: 3) + (index == 0 ? unit : "")
                + (peak.spokenLine.map { ", " + $0 } ?? unexplained)
        }
        let listed = parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + ", and " + parts.last!
        return "\(peaks.count == 1 ? "Peak" : "Peaks") at \(listed)."
    }

    public static let spectrumUnreadable = "The spectrum here cannot be read."

    /// Said when an energy window holds nothing above the spectra's background (and, for an element, that it is not
    /// found).
    public static func windowHoldsNothing(element: Element?) -> String {
        "The window holds no significant signal above the background"
            + (element.map { ": no \($0.name) is found in the spectra." } ?? ".")
    }

    /// "Window 455 to 475 electron volts, titanium L edge.", ", background taken away" where it is.
    public static func window(_ window: PlayedWindow, units: String, feature: String?) -> String {
        let unit = spokenUnits(units).map { " " + $0 } ?? ""
        let bounds =
            "\(NumberText.significant(window.start, digits: 3)) to \(NumberText.significant(window.end, digits: 3))"
        let background = window.background ? ", background taken away" : ""
        return "Window \(bounds)\(unit)\(feature.map { ", " + $0 } ?? "")\(background)."
    }

    /// Why the energy window did not change.
    public enum WindowLimit { case end, narrowest, widest, noLines, lastLine }

    public static func windowLimit(_ limit: WindowLimit) -> String {
        switch limit {
        case .end: "The window is at the end of the spectrum."
        case .narrowest: "The window is one channel wide."
        case .widest: "The window covers the whole spectrum."
        case .noLines: "No element stands out from the background of these spectra."
        case .lastLine: "No further line of an element the spectra hold."
        }
    }

    public static let noEnergyWindow = "Only a spectrum image has an energy window."
    public static let windowMapFailed = "The map of that window cannot be made."

    /// An axis's units as the voice says them: "kilo electron volts"; nil for none.
    public static func spokenUnits(_ units: String) -> String? {
        switch units.trimmingCharacters(in: .whitespaces) {
        case "": nil
        case "eV": "electron volts"
        case "keV": "kilo electron volts"
        case "nm": "nanometres"
        case "µm", "um": "micrometres"
        case let other: other
        }
    }
    public static let outsideImage = "Outside the image."

    /// "x 512, y 300, intensity 82 percent": whole pixels, or to a tenth for refined column centres.
    public static func point(_ p: ImagePoint, level: Double, precise: Bool) -> String {
        let position =
            precise
            ? "x \(UnitCell.oneDecimal(p.x)), y \(UnitCell.oneDecimal(p.y))"
            : "x \(p.nearestPixel.x), y \(p.nearestPixel.y)"
        return "\(position), intensity \(percent(level)) percent"
    }

    /// "cell 3 along a, minus 1 along b": which cell of the lattice, counted from the origin's.
    public static func cellPosition(_ n: Int, _ m: Int) -> String {
        func spoken(_ k: Int) -> String { k < 0 ? "minus \(-k)" : "\(k)" }
        return "cell \(spoken(n)) along a, \(spoken(m)) along b"
    }

    /// "Unit cell: a 24.1 pixels, b 24.3 pixels, gamma 90.2 degrees.", or in picometres.
    public static func unitCell(_ cell: UnitCell, pixelSize: PixelSize?) -> String {
        func length(_ pixels: Double) -> String {
            guard let pixelSize else { return "\(UnitCell.oneDecimal(pixels)) pixels" }
            return "\(UnitCell.oneDecimal(pixels * pixelSize.picometres)) picometres"
        }
        return
            "Unit cell: a \(length(cell.lengthA)), b \(length(cell.lengthB)), gamma \(UnitCell.oneDecimal(cell.gamma)) degrees."
    }

    // MARK: - Zoom and pan

    /// "Zoom 4 times."
    public static func zoom(_ level: Double) -> String { "Zoom \(times(level))." }

    public static func zoomLimit(inward: Bool) -> String {
        inward ? "Zoom 16 times: as far in as it goes." : "Zoom 1 time: the whole image."
    }

    public static let wholeImageInView = "The whole image is in view."

    /// "At the left edge.", "At the top edge."
    public static func atEdge(_ direction: Direction) -> String {
        let edge =
            switch direction {
            case .left: "left"
            case .right: "right"
            case .up: "top"
            case .down: "bottom"
            }
        return "At the \(edge) edge."
    }

    /// "Showing x 120 to 311, y 40 to 147."
    public static func showing(x: (from: Int, to: Int), y: (from: Int, to: Int)) -> String {
        "Showing x \(x.from) to \(x.to), y \(y.from) to \(y.to)."
    }

    /// "4 times", "1.5 times", "1 time".
    public static func times(_ zoom: Double) -> String {
        let number = zoom == zoom.rounded() ? String(Int(zoom)) : String(zoom)
        return zoom == 1 ? "1 time" : "\(number) times"
    }

    // MARK: - Tags

    public static let notTaggedOutside = "Not tagged: outside the image."

    /// "Tags 1 and 2 are 11 columns apart, not neighbours.": a cell's edge that spans more than one cell of the
    /// columns' lattice.
    public static func tagsApart(_ first: Int, _ second: Int, columns: Int) -> String {
        "Tags \(first) and \(second) are \(columns) columns apart, not neighbours."
    }

    /// "Tag 3 at x 512.3, y 300.1, intensity 82 percent." — with a note when a tap found no column.
    public static func tagPlaced(_ id: Int, at point: String, missedColumn: Bool) -> String {
        "Tag \(id) at \(point)\(missedColumn ? ", not snapped: no atom column nearby" : "")."
    }

    public static let removedWaitingTag = "Removed the tag being placed."
    public static let noTagsToRemove = "No tags to remove."
    public static func removedTag(_ id: Int) -> String { "Removed tag \(id)." }

    public static let noTagsToClear = "No tags to clear."
    public static func confirmClearing(_ count: Int) -> String {
        "Clear all \(counted(count, "tag"))? Press C again to confirm."
    }
    public static func cleared(_ count: Int) -> String { "Cleared \(counted(count, "tag"))." }

    public static let waitingTagWillBeOrigin = "The tag being placed will be the unit cell's origin."
    public static let noTagForOrigin = "No tags yet: tag the cell's origin first."
    public static func origin(_ id: Int) -> String {
        "Tag \(id) is the unit cell's origin. Tag its two neighbours next."
    }

    /// "2 tags. Tag 1 at …. Tag 2 at …. 1 tag still being placed. Unit cell: …"
    public static func tagList(_ tags: [(id: Int, point: String)], waiting: Int, cell: String?) -> String {
        guard !tags.isEmpty || waiting > 0 else { return "No tags." }
        var parts = tags.isEmpty ? [] : ["\(counted(tags.count, "tag"))."]
        parts += tags.map { "Tag \($0.id) at \($0.point)." }
        if waiting > 0 { parts.append("\(counted(waiting, "tag")) still being placed.") }
        if let cell { parts.append(cell) }
        return parts.joined(separator: " ")
    }

    public static func cellTicks(on: Bool, hasCell: Bool) -> String {
        guard on else { return "Cell boundary ticks off." }
        return hasCell ? "Cell boundary ticks on." : "Cell boundary ticks on, once the unit cell is tagged."
    }

    // MARK: - The column cursor

    public static let stillFindingColumns = "Still finding the atom columns."
    public static let noColumnsFound = "No atom columns were found in this image."
    public static let moveToAColumnFirst = "Move to a column with the arrow keys first."

    public static func noColumnFurther(_ direction: Direction) -> String {
        let way =
            switch direction {
            case .left: "left"
            case .right: "right"
            case .up: "up"
            case .down: "down"
            }
        return "No column further \(way)."
    }

    /// "Column at x 70.2, y 49.9, intensity 71 percent."
    public static func column(at point: String) -> String { "Column at \(point)." }

    // MARK: - The lattice

    /// "column intensity 1.31 times its sublattice's median"
    public static func columnIntensity(_ ratio: Double) -> String {
        "column intensity \(String(format: "%.2f", ratio)) times its sublattice's median"
    }

    /// "displaced 14 picometres, towards the upper left": whole picometres, or pixels to a tenth without a pixel
    /// size; "on its ideal site" when that rounds to nothing.
    public static func displaced(_ d: PixelVector, pixelSize: PixelSize?) -> String {
        let amount =
            pixelSize.map { "\(Int((d.length * $0.picometres).rounded())) picometres" }
            ?? "\(UnitCell.oneDecimal(d.length)) pixels"
        guard amount != "0 picometres" && amount != "0.0 pixels" else { return "on its ideal site" }
        // Eight ways, counted anticlockwise from the right on screen (y is down in the image).
        let ways = ["right", "upper right", "top", "upper left", "left", "lower left", "bottom", "lower right"]
        let angle = atan2(-d.y, d.x) * 180 / Double.pi
        let way = ways[(Int((angle / 45).rounded()) + 8) % 8]
        return "displaced \(amount), towards the \(way)"
    }

    /// "stretched 1.2 percent along x, 0.3 along y, turned 0.4 degrees clockwise": the strains along x and y to a
    /// tenth of a percent, the shear where it is a tenth or more, and the rotation to a tenth of a degree.
    public static func strained(_ d: Deformation) -> String {
        func percent(_ strain: Double) -> String { UnitCell.oneDecimal(abs(strain) * 100) }
        func way(_ strain: Double) -> String { strain < 0 ? "compressed" : "stretched" }
        // The word and the unit only where they change: "stretched 1.2 percent along x, 0.3 along y".
        var parts: [String] = []
        var lastWay: String?
        for (strain, axis) in [(d.exx, "x"), (d.eyy, "y")] where percent(strain) != "0.0" {
            let word = way(strain) == lastWay ? "" : way(strain) + " "
            parts.append("\(word)\(percent(strain))\(parts.isEmpty ? " percent" : "") along \(axis)")
            lastWay = way(strain)
        }
        if parts.isEmpty { parts = ["unstrained"] }
        let shear = percent(d.exy)
        if shear != "0.0" { parts.append("sheared \(shear) percent") }
        let turn = UnitCell.oneDecimal(abs(d.rotationDegrees))
        parts.append(
            turn == "0.0"
                ? "not turned" : "turned \(turn) degrees \(d.rotation < 0 ? "anticlockwise" : "clockwise")")
        return parts.joined(separator: ", ")
    }

    /// A column whose neighbours are too few to show its strain.
    public static let strainUnread = "its strain unread: too few neighbours"

    public static let betweenColumns = "between columns"
    public static let offTheLattice = "a column on no sublattice"

    /// What the column modes need while there is no lattice.
    public static func latticeNeeded(searching: Bool) -> String {
        searching
            ? "This mode needs the lattice, which is still being found."
            : "This mode needs atom columns on a lattice, and this image shows none."
    }

    // MARK: - The diffractogram

    /// "Diffractogram, 4 reflections.": it shows and plays in the image's place.
    public static func diffractogramShown(_ reflections: Int) -> String {
        "Diffractogram, \(counted(reflections, "reflection"))."
    }

    /// The image shows and plays again.
    public static let imageShown = "Image."

    /// "reflection 390 picometres along 0 degrees, grain 1": its fringes' spacing (whole picometres, or pixels to a
    /// tenth without a pixel size), their direction clockwise from the x axis, and its grain, counted from 1.
    public static func reflection(_ reflection: Reflection, pixelSize: PixelSize?) -> String {
        let spacing =
            pixelSize.map { "\(Int((reflection.spacing * $0.picometres).rounded())) picometres" }
            ?? "\(UnitCell.oneDecimal(reflection.spacing)) pixels"
        let grain = reflection.grain.map { ", grain \($0 + 1)" } ?? ""
        return "reflection \(spacing) along \(Int(reflection.direction.rounded()) % 180) degrees\(grain)"
    }

    /// "no reflection, 2.6 per nanometre from the centre" (per pixel without a pixel size): how far from the centre
    /// the nib is, as a frequency, where no reflection is near.
    public static func noReflection(fromCentre cyclesPerPixel: Double, pixelSize: PixelSize?) -> String {
        let distance =
            pixelSize.map {
                "\(NumberText.significant(cyclesPerPixel * 1000 / $0.picometres, digits: 2)) per nanometre"
            }
            ?? "\(NumberText.significant(cyclesPerPixel, digits: 2)) per pixel"
        return "no reflection, \(distance) from the centre"
    }

    // MARK: - The overview, the sweeps and the guidance

    /// Asked for before the overview is read, with the atom columns.
    public static let overviewNotReady = "The overview comes once the atom columns are found."

    /// "Reading the spectra, 40 percent.", or "Reading a frame." when the share done is not known.
    public static func underWay(_ what: String, fraction: Double?) -> String {
        let said = what.prefix(1).uppercased() + what.dropFirst()
        guard let fraction else { return said + "." }
        return "\(said), \(Int((100 * min(1, max(0, fraction))).rounded(.down))) percent."
    }

    /// Said when a wait of more than a few seconds ends.
    public static let windowMapReady = "Energy window map ready."
    public static func frameReady(_ number: Int) -> String { "Frame \(number) ready." }

    /// "Still fitting the atom columns, 40 percent."
    public static func stillWorking(_ what: String, fraction: Double) -> String {
        "Still \(what), \(Int((100 * min(1, max(0, fraction))).rounded(.down))) percent."
    }

    public static let noMoreDetails = "No more details. Press D again for the summary."
    public static let nothingStandsOut = "Nothing stands out to go to."
    public static let lastFeature = "That was the last feature."
    public static let firstFeature = "That was the first feature."

    /// "Vacancy 2 of 3, upper left.", and "Here." when the nib is at it already.
    public static func feature(_ label: String, here isHere: Bool) -> String {
        "\(label)." + (isHere ? " " + here : "")
    }

    /// What a routing key on the braille display guides the pen to.
    public static func tagLabel(_ id: Int) -> String { "Tag \(id)" }
    public static let tagGone = "That tag is gone."
    /// The braille display is reached again after brltty went away.
    public static let brailleBack = "Braille display is back."

    /// The nib has reached the place it is guided to.
    public static let here = "Here."
    public static let guidanceEnded = "Guidance ended."
    /// A key pressed while a sweep plays stops it, and does nothing else.
    public static let sweepStopped = "Sweep stopped."

    // MARK: - Stacks

    /// "Frame 3 of 12, 1.5 seconds.", or "Frame 3 of 12." when the frames' axis has no calibration.
    public static func frame(_ number: Int, of count: Int, at position: String?) -> String {
        "Frame \(number) of \(count)" + (position.map { ", \($0)" } ?? "") + "."
    }

    /// Where the pen is, on a stack stepped through: "frame 3 of 12".
    public static func inFrame(_ number: Int, of count: Int) -> String { "frame \(number) of \(count)" }

    public static let firstFrame = "First frame."
    public static let lastFrame = "Last frame."
    public static let noFrames = "No frames: this image is not a stack."

    /// The keys on a stack played combined.
    public static func combinedFrames(_ combination: FrameCombination, count: Int) -> String {
        "This plays the \(combination.rawValue) of all \(count) frames: to step through them, play the file without the frames option."
    }

    public static func frameUnreadable(_ number: Int, _ reason: String) -> String {
        "Frame \(number) cannot be read: \(reason)."
    }

    /// Where frame `index` (from 0) lies along the frames' axis, in its units: "1.5 seconds", "-20 nanometres"; nil
    /// when the axis has no calibration.
    public static func position(_ index: Int, on axis: SignalAxis) -> String? {
        guard axis.scale != 1 || axis.offset != 0 || !axis.units.isEmpty else { return nil }
        let value = axis.position(index)
        let number = NumberText.significant(value, digits: 4)
        guard let (one, many) = axisUnits[axis.units] else {
            return axis.units.isEmpty ? number : "\(number) \(axis.units)"
        }
        return "\(number) \(value == 1 ? one : many)"
    }

    /// Units a stack's frames are placed in (a time series, a focal or tilt series), as said: one, and several.
    static let axisUnits: [String: (String, String)] = [
        "s": ("second", "seconds"), "ms": ("millisecond", "milliseconds"), "µs": ("microsecond", "microseconds"),
        "us": ("microsecond", "microseconds"), "min": ("minute", "minutes"), "h": ("hour", "hours"),
        "pm": ("picometre", "picometres"), "nm": ("nanometre", "nanometres"), "µm": ("micrometre", "micrometres"),
        "um": ("micrometre", "micrometres"), "°": ("degree", "degrees"), "deg": ("degree", "degrees"),
        "mrad": ("milliradian", "milliradians"), "K": ("kelvin", "kelvin"), "°C": ("degree Celsius", "degrees Celsius")
    ]

    // MARK: - Notices after the greeting

    /// The pen's device went away mid-session (unplugged), or came (back).
    public static let penLost = "Pen lost."
    public static let penFound = "Pen found."

    public static let noPenTablet = "No pen tablet found: the mouse plays, as a pen pressed fully."

    /// A warning from the voice itself, such as a missing voice replaced by English.
    public static func voiceNote(_ warning: String) -> String { "Note: \(warning)." }

    /// Why eSpeak-NG speaks when speech-dispatcher was asked for (the details go to stderr).
    public static let dispatcherUnreachable = "speech-dispatcher cannot be reached; speaking with eSpeak-NG"

    /// Said by eSpeak-NG when speech-dispatcher goes away mid-session and does not come back within seconds.
    public static let dispatcherLost = "speech-dispatcher has stopped; speaking with eSpeak-NG."

    /// Said when speech-dispatcher answers again after going away.
    public static let dispatcherBack = "speech-dispatcher is back."

    /// Said when the sound server plays again after going away (what was asked for meanwhile follows).
    public static let soundBack = "Sound is back."

    /// The status panel's line while the sound server is away.
    public static let noSoundServer = "No sound: the sound server has gone; trying again"

    /// How many pixels hold no number (NaN or infinity in a float file), and how they sound; nil for none.
    public static func nonFinitePixels(_ count: Int) -> String? {
        guard count > 0 else { return nil }
        let which = count == 1 ? "1 pixel holds" : "\(count) pixels hold"
        return "\(which) no number, and \(count == 1 ? "plays" : "play") as the lowest value."
    }

    /// Which saved tags were placed only now, their taps having been snapped when the program
    /// stopped; nil for none.
    public static func placedNow(_ placed: [Tag]) -> String? {
        guard let first = placed.first, let last = placed.last else { return nil }
        let which = placed.count == 1 ? "Tag \(first.id) was" : "Tags \(first.id) to \(last.id) were"
        return
            "\(which) still being placed when the program stopped, and \(placed.count == 1 ? "is" : "are") placed now."
    }

    public static func tagsSavedElsewhere(in folder: String) -> String {
        "The image's folder is not writable, so tags are saved in \(folder)."
    }

    public static func tagsSetAside(width: Int, height: Int) -> String {
        "Saved tags for a \(width) by \(height) image were set aside."
    }

    // MARK: - Words

    /// "1 tag", "3 tags".
    static func counted(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }

    /// A level 0…1 as whole percent.
    static func percent(_ level: Double) -> String { String(Int((level * 100).rounded())) }
}
