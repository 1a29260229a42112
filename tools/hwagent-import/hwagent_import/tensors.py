"""safetensors files, written and read with the format's own rules.

The format (https://github.com/huggingface/safetensors, no Debian package):
an 8-byte little-endian header length, a JSON header mapping each name to
{dtype, shape, data_offsets} (plus an optional "__metadata__" of strings),
then the raw little-endian bytes, contiguous and in offset order. Tensors
are written in the order given; names are sorted by nothing else.
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
from typing import Mapping

import numpy as np
import torch

from .errors import ImportError_

_DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}
_TORCH = {v: k for k, v in _DTYPES.items()}


def write_safetensors(path: str, tensors: Mapping[str, torch.Tensor],
                      metadata: Mapping[str, str] | None = None) -> None:
    """Atomically: a temporary file in the same folder, fsync'ed, renamed."""
    header: dict = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs = []
    offset = 0
    for name, t in tensors.items():
        if name == "__metadata__" or not name:
            raise ImportError_(f"tensor name {name!r} is reserved or empty")
        t = t.detach().contiguous().cpu()
        if t.dtype not in _DTYPES:
            raise ImportError_(f"tensor '{name}' has dtype {t.dtype}, which safetensors lacks")
        data = t.view(torch.uint8).numpy().tobytes() if t.dtype == torch.bfloat16 \
            else t.numpy().tobytes()
        header[name] = {"dtype": _DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # align the data to 8 bytes
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".safetensors", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for b in blobs:
                f.write(b)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_safetensors(path: str) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
    """All tensors of a file, and its metadata."""
    with open(path, "rb") as f:
        raw = f.read()
    if len(raw) < 8:
        raise ImportError_(f"{path}: not a safetensors file (shorter than its header length)")
    (n,) = struct.unpack("<Q", raw[:8])
    if n > len(raw) - 8:
        raise ImportError_(f"{path}: header length {n} runs past the end of the file")
    try:
        header = json.loads(raw[8:8 + n])
    except ValueError as e:
        raise ImportError_(f"{path}: the header is not JSON ({e})") from e
    meta = header.pop("__metadata__", {}) or {}
    data = memoryview(raw)[8 + n:]
    out = {}
    for name, info in header.items():
        dtype = _TORCH.get(info.get("dtype"))
        if dtype is None:
            raise ImportError_(f"{path}: tensor '{name}' has dtype {info.get('dtype')!r}")
        begin, end = info["data_offsets"]
        shape = info["shape"]
        count = int(np.prod(shape)) if shape else 1
        size = torch.empty((), dtype=dtype).element_size()
        if end - begin != count * size or end > len(data) or begin < 0:
            raise ImportError_(f"{path}: tensor '{name}' has offsets {begin}..{end} for "
                               f"{count} elements of {size} bytes")
        buf = bytearray(data[begin:end])
        t = torch.frombuffer(buf, dtype=dtype) if count else torch.empty(0, dtype=dtype)
        out[name] = t.reshape(shape)
    return out, meta


def load_checkpoint(module: torch.nn.Module, path: str, optimizer=None, strict: bool = True):
    """Load a checkpoint hwagent-run wrote (or init.safetensors) into the
    nn.Module it was imported from: `hwagent_import.load_checkpoint(model,
    "out.safetensors")`. Names with a colon are optimizer state
    (`fc.weight:exp_avg`); given the torch.optim optimizer, they are loaded
    into it too, so training can continue in PyTorch. Returns the metadata."""
    tensors, meta = read_safetensors(path)
    model_state = {k: v for k, v in tensors.items() if ":" not in k}
    missing, unexpected = [], []
    own = module.state_dict()
    for k in own:
        if k not in model_state:
            missing.append(k)
    for k in model_state:
        if k not in own:
            unexpected.append(k)
    if strict and (missing or unexpected):
        raise ImportError_(f"{path} does not match the module: missing {missing}, "
                           f"unexpected {unexpected}")
    with torch.no_grad():
        for k, v in model_state.items():
            if k in own:
                if tuple(own[k].shape) != tuple(v.shape):
                    raise ImportError_(f"{path}: '{k}' has shape {list(v.shape)}, the module's "
                                       f"{list(own[k].shape)}")
                own[k].copy_(v.to(own[k].dtype))
    if optimizer is not None:
        by_name = dict(module.named_parameters())
        step = tensors.get("hwagent:optimizer_step")
        for k, v in tensors.items():
            if ":" not in k or k.startswith("hwagent:"):
                continue
            pname, key = k.rsplit(":", 1)
            p = by_name.get(pname)
            if p is None:
                continue
            optimizer.state[p][key] = v.clone()
        if step is not None:
            # torch.optim keeps a step count per parameter; hwagent one.
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p in optimizer.state:
                        optimizer.state[p]["step"] = step.clone().reshape(())
    return meta
