/// "Where am I": the place the user last moved to, told in full.
extension SessionController {
    /// "x 512, y 300, intensity 82 percent" for the pixel under the pen — or the column cursor's column, when the
    /// arrow keys moved it since the pen last moved — with the feature there, and its cell.
    var whereAmI: String {
        let point: ImagePoint
        if let cursor, columnCursor.isTheUsersPlace(pen: instrument.penInImage) {
            point = cursor
        } else {
            guard let record = instrument.lastRecord else { return Phrases.penNotOnTablet }
            guard record.inImage else { return Phrases.outsideImage }
            point = ImagePoint(x: record.imageX, y: record.imageY)
        }
        if let shown = state.diffractogram {
            return DiffractogramView.said(
                at: point, level: instrument.level(at: point) ?? 0, in: shown, pixelSize: pixelSize)
        }
        let cell = unitCell.map { cell in
            let (n, m) = cell.cellIndex(of: point)
            return ", " + Phrases.cellPosition(n, m)
        }
        let needs = latticeNeeded(in: state.mode).map { ". " + $0 } ?? ""
        let frame = framePlayed.map { ", " + Phrases.inFrame($0.number, of: $0.count) } ?? ""
        return describe(point, precise: false) + frame + FeatureReading.said(at: point, in: state)
            + columnReading(at: point) + (cell ?? "") + needs
            + spectrumPeaks(at: point) + stillWorking
    }

    /// ". Still fitting the atom columns, 40 percent." while the columns are being found;
    /// ". Reading the spectra, 40 percent." while a window's map is being made.
    private var stillWorking: String {
        let waiting = waitUnderWay.map { ". " + Phrases.underWay($0.what, fraction: $0.fraction) } ?? ""
        guard columns == nil, let work = workUnderWay else { return waiting }
        return waiting + ". " + Phrases.stillWorking(work.what, fraction: work.fraction)
    }

    /// On a stack stepped through frame by frame, the frame played (from 1) and how many there are.
    var framePlayed: (number: Int, count: Int)? {
        guard let frames = frameStepper.frames, frames.combination == nil else { return nil }
        return (state.frame + 1, frames.stack.count)
    }

    /// In the spectrum mode, the strongest peaks of the spectrum under the pen and what they likely are:
    /// ". Peaks at 4.51 kilo electron volts, titanium K alpha, and 8.04, copper K alpha."; empty in the other modes.
    private func spectrumPeaks(at point: ImagePoint) -> String {
        guard state.mode == .spectrum, let spectra = instrument.spectra else { return "" }
        let pixel = point.nearestPixel
        let request = SpectrumRequest(
            x: pixel.x, y: pixel.y, radius: SpectrumRequest.radius(pressure: instrument.lastRecord?.pressure ?? 0))
        guard let peaks = try? spectra.peaks(request) else { return ". " + Phrases.spectrumUnreadable }
        return ". " + Phrases.peaks(peaks, units: spectra.cube.spectralAxis.units)
    }

    func columnReading(at point: ImagePoint) -> String {
        ColumnReading.said(at: point, in: state, by: instrument)
    }

    func describe(_ point: ImagePoint, precise: Bool) -> String {
        Phrases.point(point, level: instrument.level(at: point) ?? 0, precise: precise)
    }
}
