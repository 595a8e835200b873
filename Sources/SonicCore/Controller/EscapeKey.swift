/// Escape ends what is going on and never quits at once — a screen reader's user presses it to silence
/// speech by reflex. With nothing going on it says that a second press quits, and quits only when the
/// next key is Escape again.
struct EscapeKey {
    private var armed = false

    /// Another key came between: the next Escape warns again.
    mutating func otherKey() { armed = false }

    mutating func press(in state: SessionState, tour: OverviewTour) -> [ControllerOutput] {
        if state.guidance != nil {
            armed = false
            return tour.endGuidance()
        }
        if armed { return [.speak(Phrases.goodbye), .quit] }
        armed = true
        return [.speak(Phrases.escapeAgainToQuit)]
    }
}
