import SonicBraille
import SonicCore
import SonicImageFiles

/// What brltty hands the program through BrlAPI — key codes and display sizes — damaged: each 16 bytes of the input
/// are a key code (8 bytes) and a size (columns and rows, 4 bytes each), all little-endian, applied in turn to the
/// braille line with a message between; every size's rows must fit the display, and a small display's tactile
/// picture must have a byte a cell.
struct BrailleTrial: FuzzTrial {
    static let messages = [
        "SonicAtomic. lattice.png 384 by 384px 16 bit. Mode 1 intensity pitch", "Tag 3 x 97.8 y 92.9 100%",
        "Cell a 390.5pm b 391.2pm γ 89.7°", "", "\u{28FF}\u{28FF} averyveryverylongwordthatfitsnodisplayatallwhatever"
    ]

    func run(_ path: String, seed: String) throws {
        let bytes = try ImageFiles.readBytes(path)
        var line = BrailleLine(messageSeconds: 2, showsStatus: true)
        func number(_ at: Int, _ width: Int) -> UInt64 {
            (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[at + $1]) << (8 * UInt64($1)) }
        }
        var time = 0.0
        for (step, at) in stride(from: 0, to: bytes.count - 15, by: 16).enumerated() {
            time += 0.7
            let size = BrailleSize(columns: Int(number(at + 8, 4)), rows: Int(number(at + 12, 4)))
            let message = Self.messages[step % Self.messages.count]
            line.add(
                BrailleMessage(message, targets: [BrailleTarget(characters: 0..<3, action: .guideToTag(3))]),
                continuing: step % 3 == 0, at: time)
            if let key = BrailleKey(brlapiCode: number(at, 8)) { _ = line.press(key, size: size, at: time) }
            let rows = line.rows(size, status: "M1 x 97 y 92 82%", at: time)
            guard rows.count <= size.rows, rows.allSatisfy({ $0.count <= size.columns }) else {
                throw FuzzFinding(message: "rows \(rows) do not fit a display of \(size.columns) × \(size.rows)")
            }
            if size.cells > 0 && size.cells <= 400 {
                let picture = TactilePicture(
                    width: 7, height: 5, level: { ($0.x + $0.y) / 10 }, pen: ImagePoint(x: 3, y: 2), size: size)
                guard picture.cells.count == size.cells else {
                    throw FuzzFinding(message: "a picture of \(picture.cells.count) cells on \(size.cells)")
                }
            }
        }
    }
}
