"""Writes the small HyperSpy (.hspy) fixtures beside this script and expected.json with what each holds.

Run with HyperSpy and exspy (they install from PyPI):

    python3 -m venv /tmp/hspy-venv && /tmp/hspy-venv/bin/pip install hyperspy exspy
    /tmp/hspy-venv/bin/python Tests/Fixtures/hspy/make_fixtures.py

The files are written by HyperSpy's own `save`; the expected values are numpy's arrays and the axes
HyperSpy gives, independently of the reader under test. Made with HyperSpy 2.5.0, exspy 0.3.2,
numpy 2.4.6, h5py 3.16.0.
"""

import json
import os

import h5py
import hyperspy.api as hs
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
expected = {}


def axes_of(signal):
    """HyperSpy's axes: navigation (x, then y), then signal."""
    return [{"name": str(a.name), "size": int(a.size), "scale": float(a.scale), "offset": float(a.offset),
             "units": str(a.units), "navigation": bool(a.navigate)}
            for a in signal.axes_manager._get_axes_in_natural_order()]


def save(signal, name):
    path = os.path.join(HERE, name)
    signal.save(path, overwrite=True)
    return path


# An image: 5 columns × 4 rows of float32, in nm, x offset.
image = hs.signals.Signal2D(((np.arange(20, dtype=np.float32) - 6) / 4).reshape(4, 5))
image.metadata.General.title = "ramp"
for axis, scale in zip(image.axes_manager.signal_axes, (0.2, 0.3)):
    axis.scale, axis.units = scale, "nm"
image.axes_manager.signal_axes[0].offset = -1.0
save(image, "image.hspy")
expected["image.hspy"] = {"kind": "image", "title": "ramp", "axes": axes_of(image),
                          "values": [float(v) for v in image.data.ravel()]}

# An EELS line scan: 6 positions × 32 channels from 280 eV at 0.5 eV, int16.
line = hs.signals.Signal1D((np.arange(6 * 32, dtype=np.int16) * 7 % 101).reshape(6, 32))
line.set_signal_type("EELS")
line.metadata.General.title = "across the interface"
line.axes_manager.navigation_axes[0].scale, line.axes_manager.navigation_axes[0].units = 1.5, "nm"
spectral = line.axes_manager.signal_axes[0]
spectral.scale, spectral.offset, spectral.units, spectral.name = 0.5, 280.0, "eV", "Energy loss"
save(line, "line_scan.hspy")
expected["line_scan.hspy"] = {"kind": "line-scan", "title": "across the interface", "axes": axes_of(line),
                              "values": [float(v) for v in line.data.ravel()]}

# One EDS spectrum: 64 uint32 channels from -0.1 keV at 0.02 keV.
spectrum = hs.signals.Signal1D((np.arange(64, dtype=np.uint32) ** 2) % 1000)
spectrum.set_signal_type("EDS_TEM")
spectrum.metadata.General.title = "one spot"
axis = spectrum.axes_manager.signal_axes[0]
axis.scale, axis.offset, axis.units, axis.name = 0.02, -0.1, "keV", "Energy"
save(spectrum, "spectrum.hspy")
expected["spectrum.hspy"] = {"kind": "spectrum", "title": "one spot", "axes": axes_of(spectrum),
                             "values": [float(v) for v in spectrum.data.ravel()]}

# A 4-D dataset (a 2 × 2 scan of 3 × 3 diffraction patterns): listed and skipped.
four = hs.signals.Signal2D(np.ones((2, 2, 3, 3), dtype=np.uint8))
four.metadata.General.title = "4D"
save(four, "four_d.hspy")
expected["four_d.hspy"] = {"kind": None, "title": "4D", "reason": "neither an image, a stack nor spectra"}

# A spectrum image whose axis-1 group says 9 columns where its data holds 3: listed and skipped.
bad = hs.signals.Signal1D(np.ones((2, 3, 8), dtype=np.uint16))
bad.metadata.General.title = "damaged"
path = save(bad, "bad_axes.hspy")
with h5py.File(path, "r+") as f:
    f["Experiments/damaged/axis-1"].attrs["size"] = np.int64(9)
expected["bad_axes.hspy"] = {"kind": None, "title": "damaged", "reason": "do not match its data"}

with open(os.path.join(HERE, "expected.json"), "w") as out:
    json.dump(expected, out, indent=1, ensure_ascii=False)
    out.write("\n")
