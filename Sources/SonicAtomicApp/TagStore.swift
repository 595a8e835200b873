import Foundation
import Glibc
import SonicCore

/// The user's tags on disk: IMAGE.tags.json beside the image (see README), rewritten after every
/// change through a temporary file that is synced and renamed over the old one, so a crash or kill
/// at any moment leaves either the old file or the new, never half of one.
struct TagStore {
    /// The sidecar's contents.
    struct File: Codable, Equatable {
        var format = "sonic-atomic tags"
        var version = 1
        var image: String
        var width: Int
        var height: Int
        /// Picometres per pixel, if known.
        var pixelSize: Double?
        /// Ids of the unit cell's origin, a and b, when the user chose the origin (else the first three tags).
        var cell: [Int]?
        var tags: [StoredTag]
        /// Tags asked for but not yet placed when the file was written (their taps still being snapped).
        var unplaced: [StoredUnplacedTag]?
    }

    struct StoredTag: Codable, Equatable {
        var id: Int
        var x: Double
        var y: Double
        var snapped: Bool
    }

    struct StoredUnplacedTag: Codable, Equatable {
        var x: Double
        var y: Double
        /// Present (true) when it is to be the unit cell's origin.
        var origin: Bool?
    }

    /// What the sidecar holds.
    struct Saved {
        var book = TagBook()
        var unplaced: [UnplacedTag] = []
        var pixelSize: PixelSize?
        var notice: String?
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// More tags waiting to be placed than anyone asks for during one snap: such a file was not written by
    /// this program, and snapping them all could take hours.
    static let mostUnplaced = 100

    let path: String
    let imageName: String
    let width: Int
    let height: Int

    /// The sidecar for an image: beside it, or — when that folder is not writable — in the user's
    /// data folder (`notice` then says so, to be announced). Each image of a file holding several
    /// (`number`) has its own: IMAGE.image-N.tags.json.
    static func forImage(_ imagePath: String, number: Int? = nil, width: Int, height: Int) -> (
        store: TagStore, notice: String?
    ) {
        let url = URL(fileURLWithPath: imagePath).standardizedFileURL
        let suffix = (number.map { ".image-\($0)" } ?? "") + ".tags.json"
        let beside = url.path + suffix
        let folder = url.deletingLastPathComponent().path
        if FileManager.default.fileExists(atPath: beside) || access(folder, W_OK) == 0 {
            return (TagStore(path: beside, imageName: url.lastPathComponent, width: width, height: height), nil)
        }
        let environment = ProcessInfo.processInfo.environment
        let data =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        let safeName = url.path.map { $0 == "/" ? "%" : $0 }
        let elsewhere = data + "/sonic-atomic/tags/" + String(safeName) + suffix
        return (
            TagStore(path: elsewhere, imageName: url.lastPathComponent, width: width, height: height),
            Phrases.tagsSavedElsewhere(in: data + "/sonic-atomic/tags")
        )
    }

    /// The saved tags, if any. A file for a different image size is set aside (renamed), not lost.
    func load() throws(Failure) -> Saved {
        guard let data = FileManager.default.contents(atPath: path) else { return Saved() }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw Failure(
                description:
                    "the saved tags \(path) are damaged (\(Self.reason(error))); move the file away to start afresh")
        }
        if let unplaced = file.unplaced, unplaced.count > Self.mostUnplaced {
            throw Failure(
                description:
                    "the saved tags \(path) are damaged (\(unplaced.count) unplaced tags, at most \(Self.mostUnplaced)); move the file away to start afresh"
            )
        }
        guard file.width == width, file.height == height else {
            let aside = path + ".\(file.width)x\(file.height).bak"
            _ = rename(path, aside)
            return Saved(notice: Phrases.tagsSetAside(width: file.width, height: file.height))
        }
        let tags = file.tags.map { Tag(id: $0.id, x: $0.x, y: $0.y, snapped: $0.snapped) }
        return Saved(
            book: TagBook(tags: tags, cellMarks: file.cell),
            unplaced: (file.unplaced ?? []).map {
                UnplacedTag(point: ImagePoint(x: $0.x, y: $0.y), makesOrigin: $0.origin ?? false)
            },
            pixelSize: file.pixelSize.flatMap { PixelSize(picometres: $0) })
    }

    func save(_ tags: TagSnapshot) throws(Failure) {
        let file = File(
            image: imageName, width: width, height: height, pixelSize: tags.pixelSize?.picometres,
            cell: tags.book.cellMarks,
            tags: tags.book.tags.map { StoredTag(id: $0.id, x: $0.x, y: $0.y, snapped: $0.snapped) },
            unplaced: tags.unplaced.isEmpty
                ? nil
                : tags.unplaced.map {
                    StoredUnplacedTag(x: $0.point.x, y: $0.point.y, origin: $0.makesOrigin ? true : nil)
                })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(file) } catch { throw Failure(description: "cannot encode the tags") }
        try Self.writeAtomically(data, to: path)
    }

    /// CSV of the tags (id, x, y, snapped), for spreadsheets.
    static func csv(_ book: TagBook) -> String {
        "id,x,y,snapped\n" + book.tags.map { "\($0.id),\($0.x),\($0.y),\($0.snapped)\n" }.joined()
    }

    /// Writes a temporary file beside `path`, syncs it, renames it over `path` and syncs the folder.
    static func writeAtomically(_ data: Data, to path: String) throws(Failure) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot save \(path): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == data.count, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot save \(path): \(reason)")
        }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 { fsync(directory); close(directory) }
    }

    private static func reason(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "no \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "bad \"\(context.codingPath.map(\.stringValue).joined(separator: "."))\""
        default: "not JSON"
        }
    }
}

/// Saves the tags after every change: the sidecar, and the CSV copy when asked for. A failure is
/// reported once, and not again until a save has worked.
final class TagSaver {
    /// nil: the tags are not kept (a lesson's).
    private let store: TagStore?
    private let csvPath: String?
    private var failing = false

    init(store: TagStore?, csvPath: String?) {
        self.store = store
        self.csvPath = csvPath
    }

    /// Saves `tags`; returns why not when saving has just begun to fail.
    func save(_ tags: TagSnapshot) -> String? {
        do {
            try store?.save(tags)
            if let csvPath { try TagStore.writeAtomically(Data(TagStore.csv(tags.book).utf8), to: csvPath) }
            failing = false
            return nil
        } catch {
            defer { failing = true }
            return failing ? nil : error.description
        }
    }
}
