"""The prefetches that name an operand tile-sim checks, on tile-sim: cp.async.bulk.prefetch.tensor
(every rank, default and .tile mode), cp.async.bulk.prefetch.L2.global and
prefetch{.param,.const}.tensormap (a map in a kernel parameter, in a .const variable, or at a
generic address).
A prefetch is a hint with no memory effect (PTX ISA), so each row registered to this test is
checked for what it can break: run before a TMA load of the same map it leaves the loaded box and
the tensor unchanged and the run clean; and its operand is evaluated -- a tensor map of another
rank, a byte range past the allocation, an address that names no tensor map are each refused."""

from __future__ import annotations

import numpy as np
import pytest

from isa_harness import isa_rows
from test_isa_tma import AT, BOX, DIMS, SMEM, box_of, kernel
from tile_mlir.sim import EmulationError, TensorMap, run_ptx, tensor_map_bytes

T = "test/python/sim/test_isa_prefetch.py::"
ROWS = isa_rows(T + "test_prefetch_rows")


def tmap(n):
    shape = DIMS[:n][::-1]
    g = (np.arange(int(np.prod(shape)), dtype=np.uint32) * 11 + 5).reshape(shape)
    return g, TensorMap("uint32", g, DIMS[:n], [4 * int(np.prod(DIMS[:d])) for d in range(1, n)], BOX[:n])


def ptx_for(row, n, bad=False):
    form, op = row["form"], row["text"].partition(" ")[0]
    cs = ", ".join(str(c) for c in AT[:n])
    if form.startswith("cp.async.bulk.prefetch.tensor"):
        pf = f"{op} [%rd3, {{{cs}}}];"
    elif form.startswith("cp.async.bulk.prefetch"):
        pf = f"{op} [%rd1], {4096 if bad else 64};"
    elif form == "prefetch.param.tensormap":
        pf = f"{op} [{'out' if bad else 'tmap'}];"
    elif form == "prefetch.const.tensormap":
        pf = f"{op} [{'czero' if bad else 'cmap'}];"
    else:
        pf = f"{op} [{'%rd1' if bad else '%rd3'}];"
    return with_const_maps(n, kernel(f"""  {pf}
  mbarrier.init.shared::cta.b64 [mbar], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [mbar], {4 * int(np.prod(BOX[:n]))};
  cp.async.bulk.tensor.{n}d.shared::cta.global.tile.mbarrier::complete_tx::bytes [buf], [%rd3, {{{cs}}}], [mbar];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar], 0;
  @!%p2 bra WAIT;"""))


def with_const_maps(n, ptx):
    """Two .const variables: ``cmap`` holds the rank-n map in tile-sim's byte layout (a map in
    constant memory, as the host would copy it there; W4), ``czero`` 128 zero bytes."""
    raw = tensor_map_bytes.encode(tmap(n)[1], 0x7F00_0000_1000)
    init = ", ".join(str(b) for b in raw)
    return ptx.replace(".address_size 64\n", ".address_size 64\n"
                       f".const .align 64 .b8 cmap[128] = {{{init}}};\n"
                       ".const .align 64 .b8 czero[128];\n", 1)


def rank(form):
    return int(form.split(".")[5][0]) if ".tensor." in form else 2


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["form"])
def test_prefetch_rows(row, assemble):
    form = row["form"]
    n = rank(form)
    ptx = ptx_for(row, n)
    assemble(ptx)
    g, tm = tmap(n)
    old = g.copy()
    out = np.zeros(SMEM // 4, np.uint32)
    res = run_ptx(ptx, "k", [tm, out], block=(1, 1, 1), workers=1, strict=False)
    assert res.findings == []
    k = int(np.prod(BOX[:n]))
    assert (out[:k] == box_of(old, n).ravel()).all() and (g == old).all()
    # the operand is evaluated: another rank's map, a range past the buffer, no tensor map
    if ".tensor." in form:
        ptx, (g, tm) = ptx_for(row, n), tmap(n % 5 + 1)
        why = "rank"
    else:
        ptx, why = ptx_for(row, n, bad=True), ("out-of-bounds|outside|bounds|allocation"
                                                if form.startswith("cp.") else "not a tensor-map")
    with pytest.raises(EmulationError, match=why):
        run_ptx(ptx, "k", [tm, np.zeros(SMEM // 4, np.uint32)], block=(1, 1, 1), workers=1)
