#!/usr/bin/env python3
"""Writes the TIFF fixtures of SonicTIFFTests and expected.json, what each holds.

The expected values are numpy's arrays as written, not anything read back, so the tests compare
the reader with an independent source. Deterministic: run it again and nothing changes.

    python3 -m venv /tmp/tiff-fixtures && /tmp/tiff-fixtures/bin/pip install numpy tifffile imagecodecs
    /tmp/tiff-fixtures/bin/python Tests/Fixtures/tiff/make_fixtures.py

Made with numpy 2.4.6, tifffile 2026.3.3, imagecodecs 2026.3.6.
"""

import json
import os
import struct

import numpy
import tifffile

HERE = os.path.dirname(os.path.abspath(__file__))
random = numpy.random.RandomState(20240611)
expected = {}


def samples(dtype, width, height):
    """Random values of the type, its extremes and byte-boundary values first."""
    dtype = numpy.dtype(dtype)
    count = width * height
    if dtype.kind in "ui":
        info = numpy.iinfo(dtype)
        edges = [info.min, info.max, 0, 1, info.min + 1, info.max - 1, 127, 128, 255, 256, -1, -129]
        edges = [v for v in edges if info.min <= v <= info.max]
        values = random.randint(info.min, info.max, size=count, dtype=numpy.int64 if dtype != numpy.uint64 else dtype)
    else:
        edges = [0.0, -0.0, 1.0, -1.5, 3.0e38, -3.0e38, 1.0e-30, 65504.0, 0.1, 1.0 / 3.0]
        edges = [v for v in edges if abs(v) <= float(numpy.finfo(dtype).max)]
        values = random.standard_normal(count) * 1000.0
    values[: len(edges)] = edges[:count]
    return values.astype(dtype).reshape(height, width)


def page(data, title="", calibration=None, unsupported=None):
    """What one page is expected to read as; `unsupported` is a word the reason must contain."""
    height, width = data.shape[:2]
    entry = {"shape": [width, height], "title": title, "calibration": calibration or {}}
    if unsupported:
        entry["unsupported"] = unsupported
    else:
        entry["dtype"] = data.dtype.name
        entry["values"] = [float(v) for v in data.ravel()]
    return entry


def axis(scale, unit, offset=0.0):
    return {"scale": scale, "offset": offset, "unit": unit}


def write(name, data, pages=None, **options):
    options.setdefault("photometric", "minisblack")
    options.setdefault("metadata", None)
    tifffile.imwrite(os.path.join(HERE, name), data, **options)
    expected[name] = pages or [page(data)]


def page_name(text):
    return [(285, "s", 0, text, True)]


# Every gray type, uncompressed strips, little-endian, odd widths.
for dtype, (width, height) in {
    "uint8": (7, 5), "int8": (9, 3), "uint16": (13, 7), "int16": (11, 4),
    "uint32": (5, 9), "int32": (3, 11), "float32": (13, 5), "float64": (7, 7),
}.items():
    write(f"{dtype}.tif", samples(dtype, width, height))

# Several strips, one row over: the last strip is short.
write("uint16-strips.tif", samples("uint16", 13, 9), rowsperstrip=2)

# Tiles: 16 × 16 tiles over images that are not multiples of 16, so edge tiles are padded.
write("uint16-tiled.tif", samples("uint16", 37, 21), tile=(16, 16))
write("float64-tiled.tif", samples("float64", 17, 18), tile=(16, 16))

# Compression.
write("uint16-lzw.tif", samples("uint16", 29, 11), compression="lzw", rowsperstrip=4)
write("int16-lzw-predictor.tif", samples("int16", 21, 9), compression="lzw", predictor=True)
write("float32-deflate-predictor.tif", samples("float32", 19, 7), compression="zlib", predictor=True)
write("int32-deflate-tiled.tif", samples("int32", 33, 17), compression="zlib", tile=(16, 16))
write("uint8-packbits.tif", samples("uint8", 25, 6), compression="packbits")
write("uint16-zstd.tif", samples("uint16", 15, 5), compression="zstd")

# Big-endian, and BigTIFF.
write("int16-bigendian.tif", samples("int16", 9, 5), byteorder=">")
write("float64-bigendian.tif", samples("float64", 5, 3), byteorder=">")
write("uint16-bigendian-lzw-tiled.tif", samples("uint16", 20, 19), byteorder=">", compression="lzw", tile=(16, 16))
write("float32-bigtiff.tif", samples("float32", 11, 3), bigtiff=True)

# Three pages of different sizes and types, each named.
first, second, third = samples("uint8", 5, 3), samples("float32", 9, 4), samples("int16", 13, 6)
with tifffile.TiffWriter(os.path.join(HERE, "three-pages.tif")) as tiff:
    tiff.write(first, photometric="minisblack", metadata=None, extratags=page_name("first"))
    tiff.write(second, photometric="minisblack", metadata=None, extratags=page_name("second"), compression="lzw")
    tiff.write(third, photometric="minisblack", metadata=None, extratags=page_name("third"), tile=(16, 16))
expected["three-pages.tif"] = [page(first, "first"), page(second, "second"), page(third, "third")]

data = samples("uint16", 6, 2)
write("document-name.tif", data, [page(data, "HAADF survey")], extratags=[(269, "s", 0, "HAADF survey", True)])

# ImageJ calibration: the unit in the description, pixels per unit in X/YResolution.
for name, unit, (x, y), spelled, origin in [
    ("imagej-nm.tif", "nm", (0.25, 0.25), "nm", None),
    ("imagej-micron.tif", "micron", (0.125, 0.5), "µm", None),
    ("imagej-um-escaped.tif", "\\u00B5m", (0.75, 0.75), "µm", None),
    ("imagej-angstrom.tif", "A", (1.5, 2.0), "Å", (10.0, 4.0)),
    ("imagej-pixel.tif", "pixel", (1.0, 1.0), None, None),
]:
    data = samples("float32", 7, 3)
    extra = {"xorigin": origin[0], "yorigin": origin[1]} if origin else {}
    calibration = {}
    if spelled:
        xo, yo = origin or (0.0, 0.0)
        calibration = {"x": axis(x, spelled, -xo * x), "y": axis(y, spelled, -yo * y)}
    write(name, data, [page(data, calibration=calibration)], imagej=True,
          resolution=(1 / x, 1 / y), metadata={"unit": unit, **extra})

# Resolution tags without ImageJ: lengths in millimetres; "none" is uncalibrated.
data = samples("uint8", 4, 3)
write("resolution-cm.tif", data, [page(data, calibration={"x": axis(10 / 2000, "mm"), "y": axis(10 / 4000, "mm")})],
      resolution=(2000, 4000), resolutionunit="CENTIMETER")
write("resolution-inch.tif", data, [page(data, calibration={"x": axis(25.4 / 254, "mm"), "y": axis(25.4 / 127, "mm")})],
      resolution=(254, 127), resolutionunit="INCH")
write("resolution-none.tif", data, resolution=(3, 3), resolutionunit="NONE")

# MinIsWhite keeps the stored values.
write("uint8-miniswhite.tif", samples("uint8", 6, 4), photometric="miniswhite")

# Pages that are listed but cannot be played.
rgb = random.randint(0, 255, size=(3, 4, 3)).astype(numpy.uint8)
write("rgb.tif", rgb, [page(rgb, unsupported="RGB")], photometric="rgb")
indexed = random.randint(0, 3, size=(3, 5)).astype(numpy.uint8)
colormap = random.randint(0, 65535, size=(3, 256)).astype(numpy.uint16)
write("palette.tif", indexed, [page(indexed, unsupported="palette")], photometric="palette", colormap=colormap)
bilevel = random.randint(0, 2, size=(4, 9)).astype(bool)
write("bilevel.tif", bilevel, [page(bilevel, unsupported="1-bit")])
complex_data = (samples("float32", 3, 2) + 1j * samples("float32", 3, 2)).astype(numpy.complex64)
write("complex.tif", complex_data, [page(complex_data, unsupported="complex")])
half = samples("float16", 4, 2)
write("float16.tif", half, [page(half, unsupported="16-bit float")])
two_samples = random.randint(0, 255, size=(3, 4, 2)).astype(numpy.uint8)
write("gray-alpha.tif", two_samples, [page(two_samples, unsupported="2 samples")],
      planarconfig="contig", extrasamples=["unassalpha"])

# A compression scheme no libtiff knows: an uncompressed file with its Compression tag rewritten.
data = samples("uint8", 3, 2)
write("unknown-compression.tif", data, [page(data, unsupported="scheme 34999")])
with open(os.path.join(HERE, "unknown-compression.tif"), "r+b") as file:
    raw = bytearray(file.read())
    (first_ifd,) = struct.unpack_from("<I", raw, 4)
    (count,) = struct.unpack_from("<H", raw, first_ifd)
    for entry in range(count):
        at = first_ifd + 2 + 12 * entry
        if struct.unpack_from("<H", raw, at)[0] == 259:
            struct.pack_into("<H", raw, at + 8, 34999)
    file.seek(0)
    file.write(raw)

# Older ImageJ and other writers put Latin-1 in ASCII tags.
data = samples("uint8", 5, 2)
write("imagej-latin1.tif", data,
      [page(data, "Probe µm scan", {"x": axis(0.5, "Å"), "y": axis(0.5, "Å")})],
      description=b"ImageJ=1.53t\nunit=\xc5\n", resolution=(2, 2), resolutionunit="NONE",
      extratags=[(269, "s", 0, "Probe µm scan".encode("latin-1"), True)])

# An ImageJ stack: the description, with the unit, is in the first page only.
stack = samples("int16", 6, 12).reshape(3, 4, 6)
stack_calibration = {"x": axis(0.5, "nm"), "y": axis(0.25, "nm")}
write("imagej-stack.tif", stack, [page(frame, calibration=stack_calibration) for frame in stack],
      imagej=True, resolution=(2, 4), metadata={"unit": "nm", "axes": "ZYX"})

# One fixture a line: small, and a change shows in a diff as the fixtures it touches.
with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8") as file:
    lines = [f"{json.dumps(name)}: {json.dumps(pages, ensure_ascii=False)}" for name, pages in sorted(expected.items())]
    file.write("{\n" + ",\n".join(lines) + "\n}\n")
