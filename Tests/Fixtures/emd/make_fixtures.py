"""Writes the small EMD fixtures beside this script and expected.json with what each holds.

Run with h5py and numpy (any recent versions; the files are written in HDF5's earliest format so
that older libraries read them):

    python3 -m venv /tmp/emd-venv && /tmp/emd-venv/bin/pip install h5py numpy
    /tmp/emd-venv/bin/python Tests/Fixtures/emd/make_fixtures.py

The expected values are computed here with numpy, independently of the reader under test: images
are given row-major, top row first, as a viewer shows them ([rows][columns]); calibration in the
units the reader hands over.
"""

import json
import os

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
METADATA_BYTES = 512


def string_dataset(group, name, text):
    group.create_dataset(name, data=[text.encode()], dtype=h5py.string_dtype("ascii"))


def velox_file(name):
    f = h5py.File(os.path.join(HERE, name), "w", libver="earliest")
    string_dataset(f, "Version", json.dumps({"version": "11", "format": "Velox"}))
    return f


def velox_metadata(detector, width_m, height_m, offset_x_m, offset_y_m, frames, unit="m"):
    """Velox's JSON metadata, null-padded, one column per frame."""
    text = json.dumps({
        "BinaryResult": {
            "DetectorIndex": "0",
            "PixelSize": {"width": repr(width_m), "height": repr(height_m)},
            "PixelUnitX": unit,
            "PixelUnitY": unit,
            "Offset": {"x": repr(offset_x_m), "y": repr(offset_y_m)},
        },
        "Detectors": {"Detector-0": {"DetectorName": detector}},
    }).encode()
    column = np.zeros(METADATA_BYTES, dtype=np.uint8)
    column[: len(text)] = np.frombuffer(text, dtype=np.uint8)
    return np.repeat(column[:, None], frames, axis=1)


def velox_image(f, group_id, frames_yxf, metadata, **options):
    """Velox stores an image as (rows, columns, frames)."""
    group = f.create_group(f"Data/Image/{group_id}")
    group.create_dataset("Data", data=frames_yxf, **options)
    group.create_dataset("Metadata", data=metadata)
    return group


def plane(array):
    return [[float(v) for v in row] for row in array]


expected = {}

# Two detectors of different sizes and types, calibrated in metres. Entries come in the order of
# the groups' names, which is the order HDF5 keeps them in.
with velox_file("velox_two_detectors.emd") as f:
    haadf = (np.arange(5 * 7, dtype=np.uint16) * 1873 + 3).reshape(5, 7)   # 5 rows, 7 columns
    haadf[0, 0], haadf[4, 6] = 0, 65535
    velox_image(f, "0a1b2c3d4e5f60718293a4b5c6d7e8f9", haadf[:, :, None],
                velox_metadata("HAADF", 1.5e-11, 1.5e-11, -2.0e-10, 3.0e-11, 1))
    df4 = ((np.arange(6 * 4, dtype=np.float32) - 10.5) * 0.25).reshape(6, 4)  # 6 rows, 4 columns
    velox_image(f, "f0e1d2c3b4a5968778695a4b3c2d1e0f", df4[:, :, None],
                velox_metadata("DF4", 2.5e-10, 3.0e-10, 1.0e-9, -5.0e-10, 1),
                chunks=(3, 4, 1), compression="gzip")
expected["velox_two_detectors.emd"] = [
    {"title": "HAADF", "shape": [7, 5], "sampleType": "uint16", "image": True,
     "x": {"scale": 15.0, "offset": -200.0, "unit": "pm"},
     "y": {"scale": 15.0, "offset": 30.0, "unit": "pm"},
     "samples": plane(haadf)},
    {"title": "DF4", "shape": [4, 6], "sampleType": "float32", "image": True,
     "x": {"scale": 250.0, "offset": 1000.0, "unit": "pm"},
     "y": {"scale": 300.0, "offset": -500.0, "unit": "pm"},
     "samples": plane(df4)},
]

# A stack of three frames, named by the camera operation as Velox does.
with velox_file("velox_stack.emd") as f:
    stack = (np.arange(3 * 4 * 5, dtype=np.int16) * 97 - 2500).reshape(3, 4, 5)  # frames, rows, columns
    group_id = "5c6d7e8f90a1b2c3d4e5f60718293a4b"
    velox_image(f, group_id, np.moveaxis(stack, 0, 2),
                velox_metadata("BM-Ceta", 2.0e-9, 2.0e-9, 0.0, 0.0, 3), chunks=(4, 5, 1))
    string_dataset(f.create_group("Operations/CameraInputOperation"), "9d8c7b6a5f4e3d2c1b0a998877665544",
                   json.dumps({"dataPath": f"/Data/Image/{group_id}", "cameraName": "Ceta"}))
expected["velox_stack.emd"] = [
    {"title": "Ceta", "kind": "stack", "shape": [5, 4, 3], "sampleType": "int16", "image": False,
     "x": {"scale": 2.0, "offset": 0.0, "unit": "nm"},
     "y": {"scale": 2.0, "offset": 0.0, "unit": "nm"},
     "frames": [plane(frame) for frame in stack]},
]

# An image beside a spectrum, a spectrum stream and a complex (FFT-like) image.
with velox_file("velox_spectrum.emd") as f:
    image = (np.arange(6 * 6, dtype=np.uint16) * 11).reshape(6, 6)
    velox_image(f, "11112222333344445555666677778888", image[:, :, None],
                velox_metadata("HAADF", 1.0e-6, 1.0e-6, 0.0, 0.0, 1, unit="m"))
    spectrum = f.create_group("Data/Spectrum/99990000aaaabbbbccccddddeeeeffff")
    spectrum.create_dataset("Data", data=np.arange(64, dtype=np.uint32)[:, None])
    stream = f.create_group("Data/SpectrumStream/1234abcd1234abcd1234abcd1234abcd")
    stream.create_dataset("Data", data=np.arange(40, dtype=np.uint16)[:, None])
    complex_type = np.dtype([("realFloat", "<f4"), ("imagFloat", "<f4")])
    fft = f.create_group("Data/Image/ffffeeeeddddccccbbbbaaaa99998888")
    fft.create_dataset("Data", data=np.zeros((4, 4, 1), dtype=complex_type))
    fft.create_dataset("Metadata", data=velox_metadata("DPC", 1.0e-10, 1.0e-10, 0.0, 0.0, 1))
expected["velox_spectrum.emd"] = [
    {"title": "HAADF", "shape": [6, 6], "sampleType": "uint16", "image": True,
     "x": {"scale": 1.0, "offset": 0.0, "unit": "µm"},
     "y": {"scale": 1.0, "offset": 0.0, "unit": "µm"},
     "samples": plane(image)},
    {"title": "DPC", "shape": [4, 4], "image": False, "unsupported": "complex data"},
    # Without metadata the spectrum is uncalibrated, and a stream without its settings is not read.
    {"title": "EDS", "kind": "spectrum", "shape": [64], "sampleType": "uint32", "image": False,
     "energy": {"scale": 1.0, "offset": 0.0, "unit": ""}, "spectra": [[[float(v) for v in range(64)]]]},
    {"title": "EDS", "shape": [40], "image": False,
     "unsupported": "spectrum streams without their channels and scan size"},
]


def velox_stream(f, group_id, values, detector, channels, width, height):
    """A detector's spectrum stream: 65535 between pixels, each other value one count in that channel."""
    group = f.create_group(f"Data/SpectrumStream/{group_id}")
    group.create_dataset("Data", data=np.array(values, dtype=np.uint16)[:, None])
    string_dataset(group, "AcquisitionSettings", json.dumps({
        "encoding": "uint16", "bincount": str(channels), "StreamEncoding": "uint16",
        "RasterScanDefinition": {"Width": str(width), "Height": str(height)}}))
    text = json.dumps({
        "BinaryResult": {"Detector": detector, "PixelSize": {"width": "5e-10", "height": "5e-10"},
                         "PixelUnitX": "m", "PixelUnitY": "m", "Offset": {"x": "0", "y": "0"}},
        "Detectors": {"Detector-0": {"DetectorName": "BF-S"},
                      "Detector-1": {"DetectorName": detector, "Dispersion": "10", "OffsetEnergy": "-200"}},
    }).encode()
    column = np.zeros(METADATA_BYTES * 2, dtype=np.uint8)
    column[: len(text)] = np.frombuffer(text, dtype=np.uint8)
    group.create_dataset("Metadata", data=column[:, None])


def stream_values(counts, trailing_separator, rng):
    """counts[frame, y, x, channel] as a stream, each pixel's counts in a shuffled order."""
    values = []
    pixels = [pixel for frame in counts for row in frame for pixel in row]
    for index, pixel in enumerate(pixels):
        channels = [c for c, n in enumerate(pixel) for _ in range(n)]
        rng.shuffle(channels)
        values += channels
        if trailing_separator or index + 1 < len(pixels):
            values.append(65535)
    return values


# Velox's EDS spectrum image: two detectors' streams over a 3 × 2 scan of 8 channels, two frames
# each, one stream ending with a separator and one without; the reader sums frames and detectors.
rng = np.random.default_rng(33)
with velox_file("velox_eds_stream.emd") as f:
    counts = rng.integers(0, 4, size=(2, 2, 2, 3, 8))  # detector, frame, y, x, channel
    for detector in range(2):
        velox_stream(f, f"5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5{detector}", stream_values(counts[detector], detector == 1, rng),
                     f"SuperXG2{detector + 1}", 8, 3, 2)
summed = counts.sum(axis=(0, 1))  # y, x, channel
expected["velox_eds_stream.emd"] = [
    {"title": "EDS", "kind": "spectrum-image", "shape": [8, 3, 2], "sampleType": "uint16", "image": False,
     "x": {"scale": 500.0, "offset": 0.0, "unit": "pm"}, "y": {"scale": 500.0, "offset": 0.0, "unit": "pm"},
     "energy": {"scale": 0.01, "offset": -0.2, "unit": "keV"},
     "spectra": [[[float(v) for v in pixel] for pixel in row] for row in summed]},
]

# An EELS spectrum image as Velox stores it (x × channels × y: 3 × 16 × 2), its energy in its
# AcquisitionMetadata, its scan calibrated by the SpectrumImage group's metadata, and the DF-S image
# acquired with it named by the spectrum-imaging record.
with velox_file("velox_eels.emd") as f:
    cube = (np.arange(2 * 3 * 16, dtype=np.uint16) * 37 % 1009).reshape(2, 3, 16)  # y, x, channel
    eels = f.create_group("Data/EelsSpectrumImage/7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c7c")
    eels.create_dataset("Data", data=np.transpose(cube, (1, 2, 0)), chunks=(3, 16, 1))
    text = json.dumps({"Data": {"offset": 450.0, "dispersion": 0.25}, "Type": "EelsAcquisitionMetadata"}).encode()
    column = np.zeros(256, dtype=np.uint8)
    column[: len(text)] = np.frombuffer(text, dtype=np.uint8)
    eels.create_dataset("AcquisitionMetadata", data=np.repeat(column[:, None], 2, axis=1))
    survey = f.create_group("Data/SpectrumImage/8d8d8d8d8d8d8d8d8d8d8d8d8d8d8d8d")
    survey.create_dataset("Data", data=np.zeros((64, 1), dtype=np.uint8))
    survey.create_dataset("Metadata", data=velox_metadata("Zebra", 2.0e-9, 2.0e-9, 0.0, 0.0, 1))
    image_id = "9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e"
    df = (np.arange(6, dtype=np.uint16) * 100 + 7).reshape(2, 3)
    velox_image(f, image_id, df[:, :, None], velox_metadata("DF-S", 2.0e-9, 2.0e-9, 0.0, 0.0, 1))
    reference = "/SharedProperties/ImageSeriesDataReference/afafafafafafafafafafafafafafafaf"
    string_dataset(f.create_group("SharedProperties/ImageSeriesDataReference"), reference.split("/")[-1],
                   json.dumps({"dataPath": f"/Data/Image/{image_id}", "frameIndex": 0}))
    string_dataset(f.create_group("Features/SIFeature"), "bcbcbcbcbcbcbcbcbcbcbcbcbcbcbcbc",
                   json.dumps({"stem": {"stemDetectors": [{"physicalDetector": "DFS", "referenceImage": reference}]}}))
expected["velox_eels.emd"] = [
    {"title": "EELS", "kind": "spectrum-image", "shape": [16, 3, 2], "sampleType": "uint16", "image": False,
     "x": {"scale": 2.0, "offset": 0.0, "unit": "nm"}, "y": {"scale": 2.0, "offset": 0.0, "unit": "nm"},
     "energy": {"scale": 0.25, "offset": 450.0, "unit": "eV"}, "acquiredImage": 1,
     "spectra": [[[float(v) for v in pixel] for pixel in row] for row in cube]},
    {"title": "DF-S", "shape": [3, 2], "sampleType": "uint16", "image": True,
     "x": {"scale": 2.0, "offset": 0.0, "unit": "nm"}, "y": {"scale": 2.0, "offset": 0.0, "unit": "nm"},
     "samples": plane(df)},
    {"title": "EDS", "shape": [64], "image": False,
     "unsupported": "Velox's compressed copy of the EDS spectrum image, whose streams are read instead"},
]

# A stream counting in channel 8 of 8: listed, but its spectra are refused when read.
with velox_file("velox_bad_stream.emd") as f:
    velox_stream(f, "6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b", [1, 2, 65535, 8, 3], "SuperXG21", 8, 2, 1)
expected["velox_bad_stream.emd"] = [
    {"title": "EDS", "kind": "spectrum-image", "shape": [8, 2, 1], "sampleType": "uint16", "image": False,
     "readError": "beyond the 8 channels"},
]

# Berkeley EMD as HyperSpy writes it: the array transposed, dim1 describing its first (x) axis.
with h5py.File(os.path.join(HERE, "berkeley_image.emd"), "w", libver="earliest") as f:
    f.attrs["version_major"] = 0
    f.attrs["version_minor"] = 2
    image = ((np.arange(4 * 6, dtype=np.float32) - 7) / 8).reshape(4, 6)   # 4 rows, 6 columns
    group = f.create_group("signals/lattice")
    group.attrs["emd_group_type"] = 1
    group.create_dataset("data", data=image.T)
    dim1 = group.create_dataset("dim1", data=np.array([-1.5, -1.25]))
    dim1.attrs["name"], dim1.attrs["units"] = "x", "[n_m]"
    dim2 = group.create_dataset("dim2", data=np.array([0.0, 0.5]))
    dim2.attrs["name"], dim2.attrs["units"] = "y", "nm"
    profile = f.create_group("signals/profile")
    profile.attrs["emd_group_type"] = 1
    profile.create_dataset("data", data=np.arange(10, dtype=np.float64))
    profile.create_dataset("dim1", data=np.array([0.0, 1.0]))
expected["berkeley_image.emd"] = [
    {"title": "lattice", "shape": [6, 4], "sampleType": "float32", "image": True,
     "x": {"scale": 0.25, "offset": -1.5, "unit": "nm"},
     "y": {"scale": 0.5, "offset": 0.0, "unit": "nm"},
     "samples": plane(image)},
    {"title": "profile", "shape": [10], "image": False, "unsupported": "a 1-D signal, not an image"},
]

# A Berkeley stack of two frames (HyperSpy's order: frames on the array's last axis), uncalibrated.
with h5py.File(os.path.join(HERE, "berkeley_stack.emd"), "w", libver="earliest") as f:
    f.attrs["version_major"] = 0
    f.attrs["version_minor"] = 2
    frames = (np.arange(2 * 3 * 5, dtype=np.int32) * 1000 - 9000).reshape(2, 3, 5)  # frames, rows, columns
    group = f.create_group("data/series")
    group.attrs["emd_group_type"] = 1
    group.create_dataset("data", data=frames.T)
    for i in (1, 2, 3):
        group.create_dataset(f"dim{i}", data=np.array([0.0, 1.0])).attrs["units"] = "[]"
    words = f.create_group("data/words")
    words.attrs["emd_group_type"] = 1
    words.create_dataset("data", data=[b"not", b"numbers"], dtype=h5py.string_dtype("ascii"))
    # Storage in another file is refused: a file could name any file, a pipe or a device.
    elsewhere = f.create_group("data/elsewhere")
    elsewhere.attrs["emd_group_type"] = 1
    elsewhere.create_dataset("data", shape=(4, 4), dtype=np.uint8, external=[("elsewhere.raw", 0, 16)])
    huge = f.create_group("data/huge")
    huge.attrs["emd_group_type"] = 1
    huge.create_dataset("data", shape=(100000, 3000), dtype=np.uint8, chunks=(1000, 30))
# Groups come in the order of their names.
expected["berkeley_stack.emd"] = [
    {"title": "elsewhere", "shape": [4, 4], "image": False, "unsupported": "data kept in other files"},
    {"title": "huge", "shape": [100000, 3000], "sampleType": "uint8", "image": True, "readError": "limit"},
    {"title": "series", "kind": "stack", "shape": [5, 3, 2], "sampleType": "int32", "image": False,
     "frames": [plane(frame) for frame in frames]},
    {"title": "words", "shape": [2], "image": False, "unsupported": "not numeric data"},
]

# HDF5, but neither Velox nor Berkeley EMD.
with h5py.File(os.path.join(HERE, "not_emd.h5"), "w", libver="earliest") as f:
    f.create_dataset("measurements/values", data=np.arange(12, dtype=np.float32).reshape(3, 4))
    f.attrs["creator"] = "a test"
expected["not_emd.h5"] = {"error": "not an EMD file"}

# 4096 × 4096 float32 images without their samples: each file up to where they start. The
# samples come last in the file, so a test appends its own to time a full-size read.
def head_only(name, make_dataset):
    whole = os.path.join(HERE, name + ".tmp")
    with h5py.File(whole, "w", libver="earliest") as f:
        dataset = make_dataset(f)
        dataset[...] = 0
        offset = dataset.id.get_offset()
    assert offset + 4096 * 4096 * 4 == os.path.getsize(whole), "the samples must end the file"
    with open(whole, "rb") as source, open(os.path.join(HERE, name), "wb") as head:
        head.write(source.read(offset))
    os.remove(whole)
    return offset


def large_velox(f):
    string_dataset(f, "Version", json.dumps({"version": "11", "format": "Velox"}))
    return f.create_group("Data/Image/00112233445566778899aabbccddeeff").create_dataset("Data", shape=(4096, 4096, 1), dtype="<f4")


def large_berkeley(f):
    f.attrs["version_major"] = 0
    f.attrs["version_minor"] = 2
    group = f.create_group("data/large")
    group.attrs["emd_group_type"] = 1
    return group.create_dataset("data", shape=(4096, 4096), dtype="<f4")


# Velox stores rows first; Berkeley (HyperSpy) stores columns first, so the reader transposes.
for name, make, transposed in [("velox_4096_head.emd", large_velox, False), ("berkeley_4096_head.emd", large_berkeley, True)]:
    expected[name] = {"width": 4096, "height": 4096, "sampleType": "float32",
                      "samplesStartAt": head_only(name, make), "columnsFirst": transposed}

with open(os.path.join(HERE, "expected.json"), "w") as out:
    json.dump(expected, out, indent=1, ensure_ascii=False)
    out.write("\n")
