"""mma.sync computes as the GPU that runs it, not as the module's ``.target`` names: the ISA leaves
the floating-point arithmetic of mma.sync to the implementation, and the driver JIT-compiles sm_80
PTX for an H100, whose tensor cores keep Hopper's precision (``run_ptx(device=...)``,
``launch.device_of``).

Evidence (H100, the lead's run of the foreign corpus, December 2026): the CuTe DSL Ampere HSTU
attention (``.target sm_80``, bench/foreign/cute_cases.py) wrote o[0, 45, 0, 62] = 0x186a; tile-sim
with Ampere's model gave 0x1869 (and one other element, 1 ulp off), with Hopper's model every
element of both variants equals the H100's.  The operands below are that element's: row 13 of the
warp's P tile (f16, after SiLU) and column 6 of its V tile, eight m16n8k16 steps from C = 0."""

import numpy as np
import pytest

from tile_mlir.sim import EmulationError, launch, mma_numerics, run_ptx
from test_mma_sync import _a, _b, _c, _unpack_d, kernel, mmasim_ref, pack

P = np.array([int(x, 16) for x in (
    "997f b08e 9e88 b3a1 b44e 43db 41b7 44f7 47ff 45fc 43db ac9b 0000 a849 ac9b 948c "
    "0000 b44e 948c 46fe 44f7 45fc 41b7 a849 46fe 45fc 4a80 3f0c 39d9 43db 39d9 ac9b "
    "41b7 84d5 0000 8f70 4880 0000 8a05 4880 3f0c 39d9 b08e 4980 ac9b 0000 43db 43db "
    "4b80 47ff b3a1 84d5 a399 9e88 8f70 ac9b 3f0c a849 b08e 44f7 948c ac9b 44f7 44f7 "
    "4900 39d9 41b7 b08e 43db 0000 a849 948c 0000 0000 b44e 948c 4980 997f 4a80 44f7 "
    "41b7 3f0c 41b7 ac9b 4a00 39d9 44f7 b44e 0000 43db 44f7 8a05 39d9 ac9b 0000 41b7 "
    "84d5 3f0c 45fc ac9b b08e 0000 948c 39d9 43db 948c 0000 46fe 45fc 4880 47ff b3a1 "
    "44f7 4880 46fe b3a1 0000 39d9 a399 41b7 ac9b b44e b08e b3a1 0000 47ff 0000 45fc").split()],
    np.uint64)
V = np.array([{"3c00": 0x3C00, "bc00": 0xBC00, "0000": 0}[x] for x in (
    "3c00 0000 3c00 bc00 bc00 3c00 bc00 0000 bc00 bc00 0000 3c00 3c00 3c00 0000 bc00 "
    "bc00 bc00 0000 0000 0000 bc00 0000 0000 3c00 3c00 3c00 0000 3c00 bc00 3c00 0000 "
    "bc00 bc00 3c00 bc00 bc00 0000 3c00 0000 3c00 0000 0000 0000 bc00 3c00 bc00 3c00 "
    "bc00 3c00 0000 bc00 0000 0000 3c00 3c00 bc00 0000 bc00 0000 0000 0000 0000 bc00 "
    "0000 bc00 0000 bc00 0000 bc00 3c00 3c00 0000 3c00 3c00 3c00 3c00 3c00 bc00 3c00 "
    "0000 0000 3c00 0000 0000 0000 0000 bc00 bc00 3c00 3c00 bc00 bc00 0000 3c00 bc00 "
    "0000 bc00 3c00 0000 3c00 bc00 3c00 0000 3c00 3c00 0000 0000 3c00 0000 bc00 bc00 "
    "0000 0000 0000 0000 bc00 bc00 3c00 3c00 3c00 3c00 bc00 3c00 bc00 0000 0000 0000").split()],
    np.uint64)
#: the third step's C (the f32 sum of steps one and two) and its D under each model: the exact sum
#: is -79592597 / 2^24; Hopper's 25 kept bits give -79592592 / 2^24, Ampere's 24 -79592600 / 2^24
C3, D3 = 0x40A8F01C, {"Ampere": 0xC097CF93, "Hopper": 0xC097CF92}


def _step(arch, k0, c):
    a, b = np.zeros((16, 16), np.uint64), np.zeros((16, 8), np.uint64)
    a[0], b[:, 0] = P[k0:k0 + 16], V[k0:k0 + 16]
    cc = np.zeros((16, 8), np.uint32)
    cc[0, 0] = c
    return int(mma_numerics.mma_sync(arch, "f32", "f16", "f16", a, b, cc)[0, 0])


@pytest.mark.parametrize("arch,want", [("Hopper", 0x186A), ("Ampere", 0x1869)])
def test_the_h100_output_is_hoppers_chain(arch, want):
    """The element's eight chained MMAs then cvt.rn.f16: Hopper's model gives the H100's 0x186a."""
    d = 0
    for s in range(8):
        d = _step(arch, 16 * s, d)
        if s == 2:
            assert d == D3[arch]
    assert np.uint32(d).view(np.float32).astype(np.float16).view(np.uint16) == want


@pytest.mark.parametrize("device,arch", [(None, "Ampere"), ("sm_90", "Hopper"), ("sm_100", "Blackwell")])
def test_sm80_mma_sync_computes_as_the_device(device, arch, assemble):
    """An sm_80 kernel's mma.sync on the GPU run_ptx emulates: that GPU's MMA-Sim model, bit for
    bit (the third step above in row 0 / column 0 of a full m16n8k16 tile of random others)."""
    rng = np.random.default_rng(7)
    a, b = ((rng.standard_normal(s) * 4).astype(np.float16).view(np.uint16).astype(np.uint64)
            for s in ((16, 16), (16, 8)))
    a[0], b[:, 0] = P[32:48], V[32:48]
    c = np.zeros((16, 8), np.uint64)
    c[0, 0] = C3
    shape = (16, 8, 16)
    ptx = kernel("sm_80", shape, "f32", "f16", "f16", "f32", 4, 2, 4, 4)
    assemble(ptx, "sm_80")
    fa = pack(a, lambda g, t, i: _a(shape, "f16", g, t, i), 8, 16).astype(np.uint32)
    fb = pack(b, lambda g, t, i: _b(shape, "f16", g, t, i), 4, 16).astype(np.uint32)
    fc = pack(c, lambda g, t, i: _c(shape, g, t, i), 4, 32).astype(np.uint32)
    out = np.zeros((32, 4), np.uint32)
    run_ptx(ptx, "k", [fa, fb, fc, out], block=(32, 1, 1), device=device)
    d = _unpack_d(out.astype(np.uint64), shape, 4, 32)
    np.testing.assert_array_equal(d, mmasim_ref(arch, shape, "f32", "f16", "f16", a, b, c))
    if arch != "Blackwell":
        assert d[0, 0] == D3[arch]
    if device is not None:  # schedule exploration and worker processes emulate the same GPU
        res = run_ptx(ptx, "k", [fa, fb, fc, out], block=(32, 1, 1), device=device, explore=1)
        assert res.failure is None


@pytest.mark.parametrize("target,device,want", [
    ("sm_80", None, "sm_80"), ("sm_80", "sm_90", "sm_90"), ("sm_90a", "sm_90", "sm_90"),
    ("sm_100f", "sm_103", "sm_103"), (None, None, "sm_100a")])
def test_device_of_names_the_gpu(target, device, want, monkeypatch):
    monkeypatch.delenv("TILE_MLIR_SIM_DEVICE", raising=False)
    assert launch.device_of(target, device) == want


def test_device_of_takes_the_environment(monkeypatch):
    monkeypatch.setenv("TILE_MLIR_SIM_DEVICE", "sm_90")
    assert launch.device_of("sm_80", None) == "sm_90"


@pytest.mark.parametrize("target,device,why", [
    ("sm_90a", "sm_80", "that GPU only"), ("sm_90a", "sm_100", "that GPU only"),
    ("sm_90", "sm_80", "its target or a later GPU"), ("sm_100f", "sm_120", "major architecture"),
    ("sm_80", "sm_75", "expected one of"), ("sm_80", "hopper", "expected one of"),
    ("sm_80", 90, "expected one of")])
def test_device_that_cannot_run_the_ptx_is_refused(target, device, why):
    with pytest.raises(EmulationError, match=why):
        launch.device_of(target, device)
