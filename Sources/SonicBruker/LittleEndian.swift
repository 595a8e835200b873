/// Little-endian values read from bytes, nil where they would run past the end.
extension [UInt8] {
    func unsigned(at offset: Int, size: Int) -> UInt64? {
        guard offset >= 0, size <= 8, offset <= count - size else { return nil }
        var value: UInt64 = 0
        for index in (0..<size).reversed() { value = value << 8 | UInt64(self[offset + index]) }
        return value
    }

    func uint16(at offset: Int) -> Int? { unsigned(at: offset, size: 2).map(Int.init) }
    func uint32(at offset: Int) -> Int? { unsigned(at: offset, size: 4).map(Int.init) }
    func int32(at offset: Int) -> Int? { uint32(at: offset).map { Int(Int32(truncatingIfNeeded: $0)) } }
}
