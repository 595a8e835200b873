import CHDF5
import Foundation
import Testing

extension EndToEnd {
    /// A HyperSpy spectrum image written here through libhdf5 in the layouts files come in —
    /// contiguous, chunked, gzip with shuffle, chunks across the spectrum, several chunks along a row,
    /// chunks of every pixel and a few channels —
    /// maps and inspects as the contiguous one does: the lasting helpers' tiles give the same sums.
    @Suite struct HDF5StorageTests {
        /// `chunks` (y, x, channels) nil: contiguous.
        static func write(_ path: String, chunks: [Int]?, gzip: Bool) throws {
            // More values than one block (8 Mi): gone through in tiles, both helpers at once.
            let (height, width, channels) = (64, 72, 2048)
            _ = H5Eset_auto2(sonic_h5_error_stack(), nil, nil)
            let file = H5Fcreate(path, sonic_h5_truncate(), sonic_h5_default(), sonic_h5_default())
            try #require(file >= 0)
            defer { _ = H5Fclose(file) }
            func group(_ parent: hid_t, _ name: String) -> hid_t {
                H5Gcreate2(parent, name, sonic_h5_default(), sonic_h5_default(), sonic_h5_default())
            }
            func attribute(_ object: hid_t, _ name: String, _ text: String) {
                let type = H5Tcopy(sonic_h5_c_string())
                _ = H5Tset_size(type, text.utf8.count)
                let space = H5Screate(H5S_SCALAR)
                let made = H5Acreate2(object, name, type, space, sonic_h5_default(), sonic_h5_default())
                _ = H5Awrite(made, type, text)
                _ = (H5Aclose(made), H5Sclose(space), H5Tclose(type))
            }
            func attribute(_ object: hid_t, _ name: String, _ value: Double) {
                let space = H5Screate(H5S_SCALAR)
                let made = H5Acreate2(
                    object, name, sonic_h5_native_double(), space, sonic_h5_default(), sonic_h5_default())
                var value = value
                _ = H5Awrite(made, sonic_h5_native_double(), &value)
                _ = (H5Aclose(made), H5Sclose(space))
            }
            attribute(file, "file_format", "HyperSpy")
            let experiments = group(file, "Experiments")
            let experiment = group(experiments, "EELS")
            defer { _ = (H5Gclose(experiment), H5Gclose(experiments)) }
            let space = H5Screate_simple(3, [height, width, channels].map { hsize_t($0) }, nil)
            let creation = H5Pcreate(sonic_h5_dataset_creation())
            defer { _ = (H5Sclose(space), H5Pclose(creation)) }
            if let chunks { _ = H5Pset_chunk(creation, 3, chunks.map { hsize_t($0) }) }
            if gzip { _ = (H5Pset_shuffle(creation), H5Pset_deflate(creation, 4)) }
            let data = H5Dcreate2(
                experiment, "data", sonic_h5_little_endian_uint16(), space, sonic_h5_default(), creation,
                sonic_h5_default())
            try #require(data >= 0)
            var values: [UInt16] = []
            values.reserveCapacity(height * width * channels)
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<channels { values.append(UInt16((y * 7919 + x * 104_729 + c * 31) % 4099)) }
                }
            }
            #expect(
                H5Dwrite(data, sonic_h5_native_ushort(), sonic_h5_all(), sonic_h5_all(), sonic_h5_default(), values)
                    >= 0)
            _ = H5Dclose(data)
            for (index, (name, size, navigate)) in [("y", height, 1.0), ("x", width, 1), ("Energy loss", channels, 0)]
                .enumerated()
            {
                let axis = group(experiment, "axis-\(index)")
                attribute(axis, "name", name)
                attribute(axis, "units", index == 2 ? "eV" : "nm")
                attribute(axis, "size", Double(size))
                attribute(axis, "scale", index == 2 ? 0.25 : 0.2)
                attribute(axis, "offset", index == 2 ? 100 : 0)
                attribute(axis, "navigate", navigate)
                _ = H5Gclose(axis)
            }
        }

        @Test func everyStorageMapsAndInspectsAsTheContiguousFile() throws {
            let folder = try Fixtures.scratch("hdf5-storage")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let layouts: [(String, [Int]?, Bool)] = [
                ("contiguous", nil, false), ("chunked", [4, 7, 2048], false), ("gzip-shuffle", [4, 7, 2048], true),
                ("across-channels", [3, 5, 300], true), ("along-rows", [1, 8, 2048], true),
                ("channel-planes", [64, 72, 4], true)
            ]
            var answers: [String: [String]] = [:]
            for (name, chunks, gzip) in layouts {
                let path = folder + "/\(name).hspy"
                try Self.write(path, chunks: chunks, gzip: gzip)
                answers[name] = try [
                    ["map", path, "--window", "450:470eV", "--json"], ["map", path, "--window", "0:100000eV", "--json"],
                    ["inspect", "--json", path]
                ].map { arguments in
                    let run = try Subprocess.run(Fixtures.binary, arguments, timeout: 120)
                    #expect(run.status == 0, "\(name): \(run.output)")
                    return run.output.replacingOccurrences(of: path, with: "FILE")
                }
            }
            let contiguous = try #require(answers["contiguous"])
            #expect(contiguous[0].contains("\"values\""), "\(contiguous[0])")
            for (name, _, _) in layouts { #expect(answers[name] == contiguous, "\(name)") }
        }
    }
}
