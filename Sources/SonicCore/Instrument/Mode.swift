/// What the pen does. The profile orders them into the cycle the barrel button steps through.
public enum Mode: String, Sendable, CaseIterable, Equatable {
    /// Pitch follows the intensity under the nib; fixed loudness.
    case intensityPitch = "intensity-pitch"
    /// As intensity-pitch, and nib pressure sets the loudness.
    case pressureAmplitude = "pressure-amplitude"
    /// As pressure-amplitude, and the pen's tilt drives the low-pass filter.
    case tiltFilter = "tilt-filter"
    /// The pen plays as in intensity-pitch; a tap tags the point.
    case unitCellTagging = "unit-cell-tagging"
    /// Each atom column near the nib sounds a note pitched by its integrated intensity against its sublattice's.
    case columnIntensity = "column-intensity"
    /// Each atom column near the nib sounds its displacement from its ideal site: how far as pitch, which way as
    /// stereo position and brightness.
    case latticeDisplacement = "lattice-displacement"
    /// Each atom column near the nib sounds the strain round it: its dilatation as pitch about the middle note, its
    /// rotation as stereo position.
    case latticeStrain = "lattice-strain"
    /// The spectrum under the nib (a spectrum image's) sounds as a timbre: each band of its energy axis a sine at
    /// its place, as loud as its counts. Added after the profile's modes for a spectrum image.
    case spectrum

    /// The modes a profile that names none cycles through.
    public static let standard: [Mode] = [.intensityPitch, .pressureAmplitude, .tiltFilter, .unitCellTagging]
    /// The modes that sound the lattice's columns rather than the pixels.
    public var soundsColumns: Bool { [.columnIntensity, .latticeDisplacement, .latticeStrain].contains(self) }

    /// How the voice says it: "pressure amplitude".
    public var spokenName: String { String(rawValue.map { $0 == "-" ? " " : $0 }) }
}

/// The modes in the profile's order, and which one is active.
public struct ModeCycle: Sendable, Equatable {
    public let order: [Mode]
    public private(set) var index = 0

    public init(order: [Mode]) {
        precondition(!order.isEmpty, "a mode cycle needs at least one mode")
        self.order = order
    }

    public var current: Mode { order[index] }
    /// 1-based, as spoken: "Mode 2".
    public var number: Int { index + 1 }

    public mutating func next() { index = (index + 1) % order.count }
    public mutating func previous() { index = (index + order.count - 1) % order.count }

    /// Selects the n-th mode (1-based); false if there is no such mode.
    @discardableResult
    public mutating func select(number n: Int) -> Bool {
        guard n >= 1 && n <= order.count else { return false }
        index = n - 1
        return true
    }

    /// Selects `mode` if it is in the cycle.
    @discardableResult
    public mutating func select(_ mode: Mode) -> Bool {
        guard let i = order.firstIndex(of: mode) else { return false }
        index = i
        return true
    }
}
