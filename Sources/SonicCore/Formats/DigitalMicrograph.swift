/// Reads Gatan DigitalMicrograph DM3 and DM4 files from memory.
///
/// Every dataset of the root's `ImageList` becomes an entry, in file order: the small RGB thumbnail
/// DigitalMicrograph writes first, images, spectra and stacks. Only 2-D images of real samples are
/// readable; the others carry the reason they are not.
public enum DigitalMicrograph {
    public static func contents(of bytes: [UInt8]) throws(ImageFileError) -> ImageFileContents {
        var parser = try DMTagParser(bytes)
        let root = try parser.parse()
        let images = root["ImageList"]?.group?.tags.compactMap(\.value.group) ?? []
        let builder = DMImageEntry(bytes: bytes, littleEndian: parser.littleEndian)
        var entries = images.map(builder.entry(for:))
        // The preview DigitalMicrograph puts first is named as what it is, not just as colour data.
        if entries.count > 1, entries[0].unsupported == DMPixelType.rgbReason {
            entries[0].unsupported = "the file's thumbnail"
        }
        return ImageFileContents(format: parser.version == 4 ? .dm4 : .dm3, entries: entries)
    }
}
