import ArgumentParser
import SonicCore

struct Learn: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "A spoken course in listening: each step plays a generated image, asks you to do something and checks it.",
        discussion:
            "\(Lesson.steps.count) steps, about \(Lesson.minutes) minutes: pitch, loudness and lean; a lattice's rhythm in a sweep; finding a bright column with the guide and without it; a vacancy; two polar domains; a unit cell of tags; a spectrum's timbre. F2 in play starts it too, in place of the image. Enter answers a step, Shift+Enter says it again and starts it afresh, Ctrl+Enter skips it; every key of play works as in play. Where you got to is kept in $XDG_DATA_HOME/sonic-atomic/lesson.json (~/.local/share/sonic-atomic/lesson.json), and the next learn goes on from there."
    )

    @OptionGroup var session: SessionOptions

    @Flag(help: "Start from the first step, whatever step was reached before.")
    var restart = false

    func run() throws {
        _ = PlaySession.runToTheEnd(try PlaySession(self))
    }
}
