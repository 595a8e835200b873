/// F1: the keys in short pages, each press the next, and after the last the first again.
struct KeyHelp {
    private var page = 0

    /// The next page for `mode`, the keys of a stack's frames (stepped through), of spectra and of a lesson first
    /// where they are used.
    mutating func next(_ mode: Mode, frames: SessionFrames?, _ instrument: Instrument, lesson: Bool) -> String {
        let pages = Bindings.helpPages(
            mode: mode, frames: frames != nil && frames?.combination == nil, spectra: instrument.spectra != nil,
            lesson: lesson)
        defer { page = (page + 1) % pages.count }
        return pages[min(page, pages.count - 1)]
    }
}
