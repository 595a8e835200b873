import Synchronization

/// Hands the sweeps' tables for another image (a stack's next frame) to the engine while the audio thread runs,
/// without that thread waiting or freeing memory: the controller's thread offers tables, the engine takes the latest
/// offered as a render starts and gives back the ones it played before, which are freed at the next offer.
public final class SweepTableExchange: Sendable {
    final class Box: Sendable {
        let tables: SweepTables
        init(_ tables: SweepTables) { self.tables = tables }
    }

    /// A box offered and not yet taken, and one the engine has given back: retained pointers, 0 for none.
    private let offered = Atomic<UInt>(0)
    private let retired = Atomic<UInt>(0)

    init() {}

    deinit {
        Self.release(offered.load(ordering: .acquiring))
        Self.release(retired.load(ordering: .acquiring))
    }

    /// The tables the sweeps play from now on (the controller's thread).
    public func offer(_ tables: SweepTables) {
        Self.release(retired.exchange(0, ordering: .acquiring))
        let box = UInt(bitPattern: Unmanaged.passRetained(Box(tables)).toOpaque())
        // Tables offered and never taken are freed here, not by the engine.
        Self.release(offered.exchange(box, ordering: .acquiringAndReleasing))
    }

    /// The tables offered last, if any: the engine's from now on (the audio thread).
    func take() -> Unmanaged<Box>? {
        let bits = offered.exchange(0, ordering: .acquiring)
        return UnsafeRawPointer(bitPattern: bits).map { Unmanaged.fromOpaque($0) }
    }

    /// Gives back tables the engine no longer plays (the audio thread); false while the ones given back before are
    /// not yet freed: it tries again at its next render.
    func retire(_ box: Unmanaged<Box>) -> Bool {
        retired.compareExchange(
            expected: 0, desired: UInt(bitPattern: box.toOpaque()), ordering: .releasing
        ).exchanged
    }

    private static func release(_ bits: UInt) {
        UnsafeRawPointer(bitPattern: bits).map { Unmanaged<Box>.fromOpaque($0).release() }
    }
}
