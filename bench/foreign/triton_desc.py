"""Host tensor descriptors for triton_corpus.py: a Gluon / Triton kernel argument that is a host
``TensorDescriptor`` (base, shape, strides, block shape, NVMMA shared layout), as Triton's launcher
passes it. Its type in the kernel signature is ``tensordesc<dtype[block],layout>`` (the
descriptor's own ``__mangle__`` in 3.9, the JIT's in 3.5); after compiling, Triton's metadata (``tensordesc_meta``: per
descriptor its swizzle, element size and type, block size) says how the launcher encodes it. The
launcher then passes three things per descriptor (``make_tensordesc_arg``, 3.5 and 3.9): the 128-byte
CUtensorMap that ``fill_tma_descriptor_tiled`` makes with ``cuTensorMapEncodeTiled``, the shape
(one i32 each) and the strides (one i64 each, in elements). The manifest records the map as a
``tensor_map`` parameter with the encode call's arguments as that function makes them (dims and
box innermost first, strides in bytes, L2 promotion 128B, no OOB NaN fill for ``padding="zero"``)
and the shape and strides as ``bytes``.
"""
from __future__ import annotations

import struct

#: the device TMA element types Triton's metadata names, as cuTensorMapEncodeTiled's enum names
#: (Triton's TMA_DTYPE_DEVICE_TO_HOST, then the CUtensorMapDataType names device_run.py uses)
DEVICE_TYPES = {0: "uint8", 1: "uint16", 2: "uint32", 3: "int32", 4: "uint64", 5: "int64",
                6: "float16", 7: "float32", 8: "float32_ftz", 9: "float64", 10: "bfloat16"}
SWIZZLE = {0: "none", 1: "32b", 2: "64b", 3: "128b"}
GL_TYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16"}


def mangle(arr, block):
    """The signature type of a descriptor over ``arr`` with block shape ``block`` and the layout
    the tutorials' host code gives it (``NVMMASharedLayout.get_default_for``), spelled as the
    descriptor's ``__mangle__`` spells it."""
    from triton.experimental.gluon import language as gl
    layout = gl.NVMMASharedLayout.get_default_for(list(block), getattr(gl, GL_TYPES[str(arr.dtype)]))
    import triton
    dtype = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}[str(arr.dtype)]
    if triton.__version__.startswith("3.5"):  # 3.5's JIT spells the block as a Python list
        return f"tensordesc<{dtype}{list(block)},{layout!r}>"
    return f"tensordesc<{dtype}[{','.join(map(str, block))}],{layout!r}>"


def expand(params, metadata, arrays):
    """``params`` with each descriptor placeholder (``kind="desc"``) replaced by what the launcher
    passes: the tensor map, the shape (i32) and the strides (i64)."""
    meta = list(metadata.tensordesc_meta or [])
    out = []
    for p in params:
        if p["kind"] != "desc":
            out.append(p)
            continue
        m = meta.pop(0)
        arr = arrays[p["buffer"]]
        shape = list(arr.shape)
        strides = [s // arr.itemsize for s in arr.strides]
        # the map's box is the metadata's block: the compiler may split the descriptor's block
        # into several copies (an f32 block 64 wide under the 128-byte swizzle: boxes 32 wide)
        assert strides[-1] == 1 and all(b % m_ == 0 for b, m_ in zip(p["block"], m["block_size"]))
        assert m["elem_size"] == arr.itemsize and not m.get("fp4_padded")
        rank = len(shape)
        out.append(dict(kind="tensor_map", buffer=p["buffer"],
                        data_type=DEVICE_TYPES[m["elem_type"]], rank=rank,
                        global_dim=shape[::-1],
                        global_strides=[s * arr.itemsize for s in strides[::-1][1:]],
                        box_dim=list(m["block_size"])[::-1], element_strides=[1] * rank,
                        interleave="none", swizzle=SWIZZLE[m["swizzle"]], l2_promotion="128b",
                        oob_fill="none"))
        out += [dict(kind="bytes", value=struct.pack("<i", d).hex()) for d in shape]
        out += [dict(kind="bytes", value=struct.pack("<q", s).hex()) for s in strides]
    assert not meta, ("descriptors the kernel has but the case does not", meta)
    return out

