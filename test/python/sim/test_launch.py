"""Launches are checked as the driver checks them (.reqntid, .maxntid, cluster directives), and no
input takes unbounded memory or time: caps on CTAs, shared, local and parameter memory, memory in
all, and step / time budgets whose report says where the warps spin."""

import time

import numpy as np
import pytest

from ptxgen import HEADER
from tile_mlir.sim import EmulationError, launch, run_ptx
from tile_mlir.sim.memory import TensorMemory


def kernel(body="", directives="", decls=""):
    return (HEADER + ".visible .entry k(\n\t.param .u64 k_param_0\n)\n" + directives + "\n{\n"
            "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<4>;\n" + decls
            + "\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n" + body
            + "\tret;\n}\n")


def run(ptx, **kw):
    return run_ptx(ptx, "k", [np.zeros(4, np.uint32)], **kw)


@pytest.mark.parametrize("directives,launch_kw,match", [
    (".reqntid 128, 1, 1", {"block": 1}, r"launch of k: block \(1, 1, 1\) differs from the "
     r"kernel's \.reqntid 128, 1, 1 \(the driver refuses the launch with CUDA_ERROR_INVALID_VALUE"),
    (".reqntid 64, 2", {"block": (128, 1, 1)}, r"differs from the kernel's \.reqntid 64, 2"),
    (".maxntid 64, 1, 1", {"block": 128}, r"block \(128, 1, 1\) has 128 threads, more than the "
     r"kernel's \.maxntid 64, 1, 1 allows"),
    ("", {"block": (1025, 1, 1)}, r"1025 threads, more than the 1024 a CTA can have"),
    (".reqnctapercluster 2, 1, 1", {"grid": 2, "cluster": (1, 1, 1)},
     r"cluster \(1, 1, 1\) differs from the kernel's \.reqnctapercluster 2, 1, 1"),
    (".maxclusterrank 2", {"grid": 4, "cluster": 4}, r"more than the kernel's \.maxclusterrank 2"),
    ("", {"grid": 32, "cluster": 32}, r"32 CTAs, more than the 16 a cluster can have"),
    ("", {"grid": 3, "cluster": 2}, r"grid \(3, 1, 1\) is not a multiple of cluster"),
    ("", {"grid": 100000}, r"grid \(100000, 1, 1\) has 100000 CTAs, more than tile-sim emulates "
     r"in one launch \(65536\)"),
    ("", {"block": (0, 1, 1)}, r"bad block dimensions"),
])
def test_launch_refused(directives, launch_kw, match, assemble):
    ptx = kernel(directives=directives)
    assemble(ptx)
    with pytest.raises(EmulationError, match=match):
        run(ptx, **launch_kw)


def test_launch_matching_the_directives_runs():
    assert run(kernel(directives=".reqntid 64, 2"), block=(64, 2, 1)).warnings == []
    res = run(kernel(directives=".maxntid 256 .maxnreg 32 .minnctapersm 1"), block=100)
    assert res.warnings == [".maxnreg 32 of k has no effect on tile-sim: its registers are "
                            "virtual, one slot per PTX register"]


def test_cluster_defaults_to_reqnctapercluster():
    body = "\tmov.u32 %r1, %cluster_nctarank;\n\tst.global.u32 [%rd1], %r1;\n"
    out = np.zeros(4, np.uint32)
    run_ptx(kernel(body, ".reqnctapercluster 2, 1, 1"), "k", [out], grid=2, block=32)
    assert out[0] == 2


@pytest.mark.parametrize("decls,kw,match", [
    ("\t.shared .align 16 .b8 buf[232449];\n", {}, r"shared memory of 232449 bytes exceeds the "
     r"232448-byte limit per CTA"),
    ("", {"dynamic_smem": 1 << 40}, r"exceeds the 232448-byte limit"),
    ("\t.local .align 8 .b8 stack[1048576];\n", {}, r"local memory of 1048576 bytes per thread "
     r"exceeds the 524288-byte limit"),
    ("\t.global .align 8 .b8 big[1099511627776];\n", {}, r"takes about \d+ MiB, more than "
     r"tile-sim's limit of 1024 MiB"),
    ("\t.shared .align 16 .b8 buf[65536];\n", {"grid": 65536}, r"takes about \d+ MiB"),
])
def test_memory_caps(decls, kw, match):
    with pytest.raises(EmulationError, match=match):
        run(kernel(decls=decls), **kw)


def test_parameter_space_cap():
    ptx = kernel().replace(".param .u64 k_param_0", ".param .u64 k_param_0,\n\t.param .b8 p[40000]")
    with pytest.raises(EmulationError, match=r"take 40008 bytes, more than the 32764"):
        run_ptx(ptx, "k", [np.zeros(4, np.uint32), 0])


def test_unused_tensor_memory_is_shared_not_allocated_per_cta():
    """A 4096-CTA grid of a kernel without tcgen05 (each CTA held 1.4 MB before)."""
    res = run(kernel(), grid=4096, block=32)
    assert len(res.tmem) == 4096 and all(t is TensorMemory.UNUSED for t in res.tmem)
    assert (res.tmem[0] == 0xDEADBEEF).all()


SPIN = ("\tmov.u32 %r1, 0;\n$L__spin:\n\tld.volatile.global.u32 %r2, [%rd1];\n"
        "\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra $L__spin;\n")


def test_livelock_reported_by_the_time_budget_in_seconds(assemble):
    ptx = kernel(SPIN)
    assemble(ptx)
    t0 = time.monotonic()
    with pytest.raises(EmulationError) as ei:
        run(ptx, block=64, max_seconds=1.0)
    assert time.monotonic() - t0 < 10
    msg = str(ei.value)
    assert msg.startswith("time budget of 1 s exceeded after "), msg
    assert "no thread stored, arrived or exited in the last" in msg
    spin = [i + 1 for i, l in enumerate(ptx.split("\n")) if "ld.volatile" in l or "@%p1 bra" in l]
    assert f"CTA 0 warp 1: lines {spin[0]}-{spin[1]} (`ld.volatile.global.u32 %r2, [%rd1]` .. " \
           f"`@%p1 bra $L__spin`)" in msg, msg


def test_livelock_reported_by_the_step_budget():
    with pytest.raises(EmulationError, match=r"step budget of 1000 warp-instructions exceeded .*"
                                             r"where the warps run:\n  CTA 0 warp 0: lines"):
        run(kernel(SPIN), block=32, max_steps=1000)


def test_time_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv("TILE_MLIR_SIM_MAX_SECONDS", "0.5")
    with pytest.raises(EmulationError, match=r"time budget of 0.5 s exceeded"):
        run(kernel(SPIN), block=32)
    monkeypatch.setenv("TILE_MLIR_SIM_MAX_SECONDS", "soon")
    with pytest.raises(EmulationError, match=r"TILE_MLIR_SIM_MAX_SECONDS='soon' is not a positive"):
        run(kernel(SPIN), block=32)


def test_step_budget_from_the_environment(monkeypatch):
    monkeypatch.setenv("TILE_MLIR_SIM_MAX_STEPS", "500")
    with pytest.raises(EmulationError, match=r"step budget of 500 warp-instructions exceeded"):
        run(kernel(SPIN), block=32)
    monkeypatch.setenv("TILE_MLIR_SIM_MAX_STEPS", "-3")
    with pytest.raises(EmulationError, match=r"TILE_MLIR_SIM_MAX_STEPS='-3' is not a positive"):
        run(kernel(SPIN), block=32)


def test_time_variable_old_name_is_read_with_a_warning(monkeypatch):
    """TILE_MLIR_SIM_MAX_SECONDS bounds a run; its old name without MLIR_ is read too, with a FutureWarning."""
    from tile_mlir import env
    new = "TILE_MLIR_SIM_MAX_SECONDS"
    monkeypatch.setattr(env, "_warned", set())
    monkeypatch.setattr(env, "_scanned", -1)  # (env looks at the names again when their count changes)
    monkeypatch.delenv(new, raising=False)
    monkeypatch.setenv("TILE_" + new[len("TILE_MLIR_"):], "soon")
    with pytest.warns(FutureWarning, match=f"is the old name of {new}"):
        with pytest.raises(EmulationError, match=rf"{new}='soon' is not a positive"):
            run(kernel(SPIN), block=32)


def test_default_budget_is_in_steps_scaled_from_the_launch():
    # no wall-clock default: a correct kernel never fails for time on a loaded machine
    assert launch.budget(None, None) == (None, None)
    assert launch.default_max_steps(1, 1, 10) == launch.STEP_FLOOR + 64 * 10
    assert launch.default_max_steps(16, 4, 500) == launch.STEP_FLOOR + 64 * 16 * 4 * 500
    from tile_mlir.sim import build_machine
    m = build_machine(kernel(SPIN), "k", [np.zeros(4, np.uint32)], grid=(3, 1, 1), block=(64, 1, 1),
                      cluster=None, dynamic_smem=0, trace=False, max_steps=None,
                      max_seconds=None, strict=True)
    assert m.max_steps == launch.STEP_FLOOR + 64 * 3 * 2 * 7  # 3 CTAs, 2 warps, 7 instructions
    assert m.max_seconds is None


def test_caps_are_documented_constants():
    assert launch.MAX_SMEM == 227 * 1024 and launch.MAX_THREADS_PER_CTA == 1024
    assert launch.STEP_FLOOR == 2_000_000 and launch.STEPS_PER_WARP_INSTRUCTION == 64


def test_object_array_argument():
    with pytest.raises(EmulationError, match=r"holds Python objects"):
        run_ptx(kernel(), "k", [np.array([None, 1])])
