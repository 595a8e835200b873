/// `value`'s lowest `bytes` bytes, least significant first, as TIFF and Bruker files store numbers.
func littleEndian(_ value: Int, bytes: Int) -> [UInt8] {
    (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
