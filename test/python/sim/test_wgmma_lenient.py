"""wgmma's lenient mode (run_ptx(strict=False)): each accumulator register in flight holds its own value, an
instance of a class made for its wgmma; wait_group retires them by a slice where every register still holds
one of them, and register by register otherwise. Both ways give what strict mode gives where strict mode
runs; an accumulator register overwritten in flight is reported and keeps the written value, the others take
D; a copy of an in-flight register (mov) is a reported use that carries the value."""

import numpy as np

from tile_mlir.sim.handlers import wgmma

from wgmma_cases import config, ptx_of, run


def _edit(ptx, old, new):
    assert old in ptx
    return ptx.replace(old, new, 1)


WAIT = "\twgmma.wait_group.sync.aligned 0;"


def test_lenient_d_equals_strict_d():
    cfg = config(atype="bf16", n=32, scale_d=1)
    strict, _ = run(cfg)
    lenient, res = run(cfg, strict=False)
    assert np.array_equal(strict, lenient) and not res.warnings


def test_overwritten_accumulator_register_is_reported_and_kept():
    cfg = config(n=8)
    base, _ = run(cfg)
    ptx = _edit(ptx_of(cfg), WAIT, "\tmov.b32 %d1, 7;\n" + WAIT)
    out, res = run(cfg, ptx, strict=False)
    assert any("was written while the wgmma was in flight" in w for w in res.warnings)
    assert (out[0, :, 1] == 7).all()  # (the written value stays)
    keep = [i for i in range(out.shape[2]) if i != 1]
    assert np.array_equal(out[0][:, keep], base[0][:, keep])


def test_copied_in_flight_register_is_a_reported_use():
    cfg = config(n=8)
    base, _ = run(cfg)
    ptx = _edit(ptx_of(cfg), WAIT, "\tmov.b32 %d1, %d0;\n" + WAIT)
    out, res = run(cfg, ptx, strict=False)
    assert any("accessed before the wgmma.wait_group" in w for w in res.warnings)
    assert np.array_equal(out[0][:, 1], base[0][:, 0])  # (d0's value, copied before the wait)
    assert np.array_equal(out[0][:, 2:], base[0][:, 2:])


def test_in_flight_value_is_the_register_value():
    class R:  # (a stand-in record: the class attribute is all a value reads)
        pass
    rec = R()
    cls = wgmma._lenient_class(rec)
    x = cls(0x3F800000)
    assert isinstance(x, wgmma.InFlight) and x.rec is rec and x.value == 0x3F800000
    assert type(x.value) is int and not x.__dict__
