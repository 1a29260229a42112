"""Writes the NumPy conformance corpus for NumpyConformanceTest.cpp.

Every dtype hwagent reads, in .npy format versions 1.0, 2.0 and 3.0, in
np.savez and np.savez_compressed archives, plus what NumPy writes and hwagent
refuses (Fortran order, big-endian, structured, complex, object arrays).
Element i of every accepted array holds i (bool: i % 2). A manifest line per
file: `<file> <member|-> ok <dtype> <shape,...>` or `<file> - refuse <word>`,
the word expected in hwagent's message.
"""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
lines = []
dtypes = {"f4": "f32", "f2": "f16", "f8": "f64", "i4": "i32", "i8": "i64",
          "i1": "i8", "u1": "u8", "?": "bool"}
shapes = [(2, 3), (6,), (), (0, 3), (1, 2, 3)]


def values(code, shape):
    n = int(np.prod(shape)) if shape else 1
    a = np.arange(n)
    if code == "?":
        a = a % 2
    return a.astype(code).reshape(shape)


def dims(shape):
    return ",".join(str(d) for d in shape) or "scalar"


for code, name in dtypes.items():
    for shape in shapes:
        for version in [(1, 0), (2, 0), (3, 0)]:
            file = "%s_%s_v%d.npy" % (name, dims(shape), version[0])
            with open(os.path.join(out, file), "wb") as f:
                np.lib.format.write_array(f, values(code, shape), version)
            lines.append("%s - ok %s %s" % (file, name, dims(shape)))
arrays = {name: values(code, (2, 3)) for code, name in dtypes.items()}
np.savez(os.path.join(out, "all.npz"), **arrays)
np.savez_compressed(os.path.join(out, "all_compressed.npz"), **arrays)
for file in ["all.npz", "all_compressed.npz"]:
    for code, name in dtypes.items():
        lines.append("%s %s ok %s 2,3" % (file, name, name))

refused = {
    "fortran.npy": (np.asfortranarray(values("f4", (2, 3))), "Fortran"),
    "bigendian.npy": (values(">f4", (2, 3)), "big-endian"),
    "structured.npy": (np.zeros(3, dtype=[("a", "<f4"), ("b", "<i4")]),
                       "structured"),
    "complex.npy": (np.zeros(3, dtype=np.complex64), "not supported"),
    "u2.npy": (np.zeros(3, dtype=np.uint16), "not supported"),
}
for file, (array, word) in refused.items():
    np.save(os.path.join(out, file), array)
    lines.append("%s - refuse %s" % (file, word))
np.save(os.path.join(out, "object.npy"), np.array([1, "a"], dtype=object),
        allow_pickle=True)
lines.append("object.npy - refuse not supported")

with open(os.path.join(out, "manifest.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
