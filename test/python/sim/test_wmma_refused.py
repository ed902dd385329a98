"""Every wmma row of the ISA coverage table is refused by name, with the reason (its fragment
layout is implementation-defined), before anything runs; never as an unknown instruction."""

from tile_mlir.sim.coverage import decode_check, load


def test_every_wmma_row_is_refused_with_its_reason():
    rows = [r for r in load()["forms"] if r["form"].startswith("wmma.")]
    assert len(rows) > 100
    for r, why in zip(rows, decode_check([r["text"] for r in rows])):
        assert why is not None and "implementation-defined layout" in why, (r["form"], why)
