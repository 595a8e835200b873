/// Reads Gatan DigitalMicrograph DM3 and DM4 files in place (mapped, or in memory).
///
/// Every dataset of the root's `ImageList` becomes an entry, in file order: images, stacks,
/// spectrum images, line scans and spectra; the thumbnails DigitalMicrograph writes (those its root
/// `Thumbnails` list names, or else a first RGB preview) are listed as what they are.
public enum DigitalMicrograph {
    public static func contents(of bytes: [UInt8]) throws(ImageFileError) -> ImageFileContents {
        try contents(of: FileBytes(copying: bytes))
    }

    public static func contents(of file: FileBytes) throws(ImageFileError) -> ImageFileContents {
        var parser = try DMTagParser(file.buffer)
        let root = try parser.parse()
        let images = root["ImageList"]?.group?.tags.compactMap(\.value.group) ?? []
        let builder = DMImageEntry(file: file, littleEndian: parser.littleEndian)
        var entries = images.map(builder.entry(for:))
        let thumbnails = root["Thumbnails"]?.group?.tags.compactMap {
            $0.value.group?["ImageIndex"]?.number.flatMap { Int(exactly: $0) }
        }
        for index in thumbnails ?? (entries.count > 1 && entries[0].storedAs == "RGB" ? [0] : [])
        where entries.indices.contains(index) {
            entries[index].unsupported = "the file's thumbnail"
        }
        return ImageFileContents(format: parser.version == 4 ? .dm4 : .dm3, entries: entries)
    }
}
