"""Coverage derived from the op classes: every tile op has a keyword builder that makes a verified op, a
lowering (convert-tile-to-nvvm's, or dispatch variants under its Dispatched key), an emulator handler for
each PTX opcode its lowering emits (sim/opcodes.py's TABLE), an IRDL entry, a kernel in
test/Dialect/tile/every-op.mlir and a lowering lit test; every tcgen05.ld/st shape is tested both ways.

Adding an op class without any of these fails here (docs/adding-an-instruction.md)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tile_mlir.frontend.context import make_context
from tile_mlir.diagnostics import DiagnosticEngine
from tile_mlir.dialect import builders as tb
from tile_mlir.dialect.enums import CtaGroup, FenceKind, Scope
from tile_mlir.dialect.irdl import irdl_name
from tile_mlir.dialect.ops import OP_CLASSES, TileOp
from tile_mlir.dialect.verifier import verify_module
from tile_mlir.lowering.dispatch import variants
from tile_mlir.lowering.copy_async import load_variants as load_copy_variants
from tile_mlir.lowering.copy_async.tcgen05_ldst_plan import SHAPES
from tile_mlir.lowering.dispatch_pass import TARGET
from tile_mlir.lowering.gemm_async import load_variants as load_gemm_variants
from tile_mlir.lowering.nvvm import lowering_of
from tile_mlir.mlir import ir
from tile_mlir.sim.opcodes import TABLE

ROOT = Path(__file__).resolve().parents[3]
NAMES = [c.SPEC.name for c in OP_CLASSES]
# ops whose lowering emits no instruction of its own (a parameter, a shared global, an alloca, a view)
EMITS_NOTHING = {"kernel", "tensor_map", "alloc_shared", "reinterpret", "alloc_reg"}


def _by_name(name: str) -> type[TileOp]:
    return next(c for c in OP_CLASSES if c.SPEC.name == name)


def test_op_names_are_unique_and_classes_registered():
    assert len(set(NAMES)) == len(NAMES)
    ctx = make_context()
    for cls in OP_CLASSES:
        assert cls.OPERATION_NAME == "tile." + cls.SPEC.name and cls.SPEC.cls is cls


# -- builders ------------------------------------------------------------------------------------------


def _types():
    t = {
        "g": tb.buffer_t("global", (32, 16), "ui8"),
        "smem": tb.buffer_t("shared", (32, 16), "ui8", "S[(32, 16) : (16, 1)]", align=1024),
        "slot": tb.buffer_t("shared", (1,), "i32"),
        "bar": tb.buffer_t("shared", (1,), "i64"),
        "tmem": tb.buffer_t("tmem", (32, 16), "ui8", "S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]"),
        "out": tb.buffer_t("global", (128, 16), "ui8"),
        "tile": tb.buffer_t("global", (16, 64), "ui8"),
        "sem": tb.buffer_t("global", (4,), "i32"),
        "reg32": tb.buffer_t("reg", (32, 8), "f32", "S[(32, 8) : (1@laneid, 1@reg)]"),
        "reg16": tb.buffer_t("reg", (32, 8), "bf16", "S[(32, 8) : (1@laneid, 1@reg)]"),
        "row32": tb.buffer_t("reg", (32, 1), "f32", "S[(32, 1) : (1@laneid, 1@reg)]"),
        "gemm_ab": tb.buffer_t("shared", (128, 16), "bf16", "S[(16, 8, 2, 8) : (64, 8, 512, 1)]"),
        "gemm_ab8": tb.buffer_t("shared", (128, 32), "f8E4M3FN", "Swizzle<32B> o S[(128, 32) : (32, 1)]", align=256),
        "gemm_d": tb.buffer_t("tmem", (128, 128), "f32", "S[(128, 128) : (1@TLane, 1@TCol)]"),
        "gemm_sf": tb.buffer_t("tmem", (128, 1), "f8E8M0FNU", "S[(4, 32) : (4@TCol, 1@TLane)] + R[4 : 32@TLane]"),
    }
    return t


def _tmem(t, key="tmem", cols=32):
    slot = tb.alloc_shared(t["slot"])
    tb.tmem_alloc(slot, cols)
    return tb.tmem_buffer(slot, t[key])


def _true():
    return ir.Operation.create("arith.constant", results=[ir.IntegerType.get_signless(1)],
                               attributes={"value": ir.BoolAttr.get(True)}).results[0]


def _const(value, t):
    return ir.Operation.create("arith.constant", results=[t], attributes={"value": ir.Attribute.parse(
        f"{value} : {t}")}).results[0]


def _reg(t, key="reg32"):
    return tb.alloc_reg(t[key])


def _f32(value=0.5):
    return _const(value, ir.F32Type.get())


def _block_scaled(t):
    slot = tb.alloc_shared(t["slot"])
    tb.tmem_alloc(slot, 256)
    d, sf = tb.tmem_buffer(slot, t["gemm_d"]), tb.tmem_buffer(slot, t["gemm_sf"])
    return tb.gemm_async_block_scale(d, tb.alloc_shared(t["gemm_ab8"]), tb.alloc_shared(t["gemm_ab8"]), _true(),
                                     sf, sf, scale_vec=32)


# one body per op, built with the op's builder (tile.kernel and tile.return: by every kernel)
BODIES = {
    "kernel": lambda t, a: None,
    "return": lambda t, a: None,
    "thread_id": lambda t, a: tb.thread_id(),
    "warp_id": lambda t, a: tb.warp_id(),
    "lane_id": lambda t, a: tb.lane_id(),
    "cta_rank": lambda t, a: tb.cta_rank(),
    "block_id": lambda t, a: tb.block_id("y"),
    "grid_dim": lambda t, a: tb.grid_dim(dim="x"),
    "elect_one": lambda t, a: tb.elect_one(),
    "alloc_shared": lambda t, a: tb.alloc_shared(t["smem"]),
    "subview": lambda t, a: tb.subview(a["g"], [tb.block_id("y")], static_offsets=[-1, 0], sizes=[8, 16]),
    "reinterpret": lambda t, a: tb.reinterpret(
        tb.alloc_shared(tb.buffer_t("shared", (32, 16), "ui8", align=128)),
        tb.buffer_t("shared", (128, 4), "f8E8M0FNU", "S[(4, 32, 4) : (4, 16, 1)]", align=128)),
    "copy": lambda t, a: tb.copy(tb.alloc_shared(t["smem"]), a["g"], Scope.WARPGROUP,
                                 dst_region=[(0, 32), (0, 16)], src_region=[(0, 32), (0, 16)]),
    "fence": lambda t, a: tb.fence(FenceKind.TCGEN05_AFTER_SYNC),
    "barrier": lambda t, a: tb.barrier("cluster"),
    "tmem.alloc": lambda t, a: tb.tmem_alloc(tb.alloc_shared(t["slot"]), 512),
    "tmem.relinquish": lambda t, a: tb.tmem_relinquish(cta_group=CtaGroup.CTA_2),
    "tmem.dealloc": lambda t, a: tb.tmem_dealloc(tb.alloc_shared(t["slot"]), 32),
    "tmem.buffer": lambda t, a: _tmem(t),
    "copy_async": lambda t, a: tb.copy_async(_tmem(t), tb.alloc_shared(t["smem"]), dispatch="smem->tmem"),
    "tensor_map": lambda t, a: tb.tensor_map(a["tile"], [8, 64], swizzle="128B"),
    "tensor_map.prefetch": lambda t, a: tb.tensor_map_prefetch(tb.tensor_map(a["tile"], [8, 64])),
    "mbarrier.arrive_expect_tx": lambda t, a: tb.mbarrier_arrive_expect_tx(tb.alloc_shared(t["bar"]), 1024),
    "mbarrier.expect_tx": lambda t, a: tb.mbarrier_expect_tx(tb.alloc_shared(t["bar"]), bytes=1024),
    "bulk_wait": lambda t, a: tb.bulk_wait(1, kind="read"),
    "commit": lambda t, a: tb.commit(tb.alloc_shared(t["bar"]), multicast_mask=1),
    "async_wait": lambda t, a: tb.async_wait(),
    "mbarrier.init": lambda t, a: tb.mbarrier_init(tb.alloc_shared(t["bar"]), 1),
    "mbarrier.arrive": lambda t, a: tb.mbarrier_arrive(tb.alloc_shared(t["bar"])),
    "mbarrier.wait": lambda t, a: tb.mbarrier_wait(tb.alloc_shared(t["bar"]), 1),
    "alloc_reg": lambda t, a: tb.alloc_reg(t["reg32"]),
    "convert": lambda t, a: tb.convert(tb.alloc_reg(t["reg16"]), tb.alloc_reg(t["reg32"])),
    "gemm_async": lambda t, a: tb.gemm_async(_tmem(t, "gemm_d", 128), tb.alloc_shared(t["gemm_ab"]),
                                             tb.alloc_shared(t["gemm_ab"]), _true()),
    "gemm_async.block_scale": lambda t, a: _block_scaled(t),
    "gemm_wait": lambda t, a: tb.gemm_wait(pending=1),
    "tmem.load": lambda t, a: tb.tmem_load(a["out"], _tmem(t), num_cols=4),
    "ring.stage": lambda t, a: tb.ring_stage(tb.thread_id(), [tb.alloc_shared(t["bar"]), tb.alloc_shared(t["bar"])],
                                             result_type=t["bar"]),
    "mbarrier.wait_parity": lambda t, a: tb.mbarrier_wait_parity(tb.alloc_shared(t["bar"]), tb.thread_id()),
    "raster.grouped": lambda t, a: tb.raster_grouped(tb.block_id("x"), tb.thread_id(), tb.warp_id(), 8),
    "setmaxnreg": lambda t, a: tb.setmaxnreg(action="dec", count=40),
    "named_barrier.sync": lambda t, a: tb.named_barrier_sync(id=1, count=128),
    "named_barrier.arrive": lambda t, a: tb.named_barrier_arrive(tb.warp_id(), id=4, count=64),
    "semaphore.arrive": lambda t, a: tb.semaphore_arrive(
        tb.subview(a["sem"], [tb.block_id("x")], static_offsets=[-1], sizes=[1]), tb.thread_id(), id=2, count=128),
    "reg.fill": lambda t, a: tb.reg_fill(_reg(t), _f32()),
    "reg.neg": lambda t, a: tb.reg_neg(_reg(t), _reg(t)),
    "reg.exp2": lambda t, a: tb.reg_exp2(_reg(t), _reg(t), _f32(), _reg(t, "row32")),
    "reg.lg2": lambda t, a: tb.reg_lg2(_reg(t), _reg(t)),
    "reg.rcp": lambda t, a: tb.reg_rcp(_reg(t, "row32"), _reg(t, "row32"), mode="approx"),
    "reg.add": lambda t, a: tb.reg_add(_reg(t), _reg(t), _reg(t, "row32")),
    "reg.sub": lambda t, a: tb.reg_sub(_reg(t), _reg(t), _reg(t)),
    "reg.mul": lambda t, a: tb.reg_mul(_reg(t), _reg(t), _reg(t, "row32")),
    "reg.max": lambda t, a: tb.reg_max(_reg(t), _reg(t), _reg(t)),
    "reg.min": lambda t, a: tb.reg_min(_reg(t), _reg(t, "row32"), _reg(t)),
    "reg.fma": lambda t, a: tb.reg_fma(_reg(t), _reg(t), _reg(t, "row32"), _reg(t)),
    "reg.select": lambda t, a: tb.reg_select(_reg(t), _reg(t), _reg(t), _reg(t, "row32"), _reg(t), predicate="le"),
    "reg.mask": lambda t, a: tb.reg_mask(_reg(t), _reg(t), _const(2, ir.IndexType.get()), kind="residual"),
    "reg.reduce": lambda t, a: tb.reg_reduce(_reg(t, "row32"), _reg(t), kind="sum", axis=1),
}


def test_every_op_has_a_builder():
    assert set(tb.BUILDERS) == set(OP_CLASSES)
    assert set(BODIES) == set(NAMES)
    for cls, fn in tb.BUILDERS.items():
        assert getattr(tb, tb.builder_name(cls)) is fn


@pytest.mark.parametrize("name", NAMES)
def test_builder_makes_a_verified_op(name):
    ctx = make_context()
    with ctx, ir.Location.unknown():
        t = _types()
        module = ir.Module.create()
        params = {"g": t["g"], "out": t["out"], "tile": t["tile"], "sem": t["sem"]}
        with tb.kernel(module, "k", params, block=(128, 1, 1), cluster=(2, 1, 1)) as (k, args):
            BODIES[name](t, dict(zip(params, args)))
            tb.ret()
        with DiagnosticEngine() as eng:
            ok = verify_module(module.operation)
        assert ok and not eng.diagnostics, [str(d) for d in eng.diagnostics]
        assert f'"tile.{name}"' in str(module)
        assert list(k.arg_names) == ["g", "out", "tile", "sem"]


def test_kernel_builder_takes_named_or_unnamed_parameters():
    ctx = make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        g = tb.buffer_t("global", (4,), "f32")
        with tb.kernel(module, "a", [g, ir.IntegerType.get_signless(32)], block=(32, 1, 1)) as (k, args):
            tb.ret()
        assert "arg_names" not in k.attributes and len(args) == 2
        with tb.kernel(module, "b", [("x", g), ("n", ir.IntegerType.get_signless(32))], block=(32, 1, 1)) as (k, _):
            tb.ret()
        assert k.arg_names == ("x", "n")
        with pytest.raises(TypeError, match="give every one a name or none"):
            with tb.kernel(module, "c", [("x", g), g], block=(32, 1, 1)):
                pass


# -- lowerings -----------------------------------------------------------------------------------------
def test_every_op_has_a_lowering():
    load_copy_variants()
    load_gemm_variants()
    for cls in OP_CLASSES:
        d = cls.SPEC.dispatched
        if d is None:
            assert lowering_of(cls), f"{cls.OPERATION_NAME} has no lowering in lowering/nvvm/"
        else:
            assert not lowering_of(cls), f"{cls.OPERATION_NAME} is dispatched and lowered by convert-tile-to-nvvm"
            assert variants(d.key, TARGET), f"{cls.OPERATION_NAME}: no variant registered under '{d.key}'"


# -- the emulator --------------------------------------------------------------------------------------
def _handled(opcode: str) -> bool:
    """Whether tile-sim's TABLE executes the opcode, found by its longest dotted prefix (as sim/opcodes.lookup):
    a row whose decoder only refuses (decode_unsupported) does not count."""
    parts = opcode.split(".")
    for k in range(len(parts), 0, -1):
        row = TABLE.get(".".join(parts[:k]))
        if row is not None:
            return row.decode.__name__ != "decode_unsupported"
    return False


@pytest.mark.parametrize("name", NAMES)
def test_emulator_handles_what_the_op_emits(name):
    spec = _by_name(name).SPEC
    ptx = [p for e in spec.emits for p in e.ptx]
    if name in EMITS_NOTHING:
        assert not ptx
        return
    assert ptx, f"tile.{name} declares no PTX it emits (Emits traits)"
    missing = [p for p in ptx if not _handled(p)]
    assert not missing, f"tile.{name} emits {missing}, which tile-sim's TABLE lacks"


def _lit_ptx_opcodes() -> set[str]:
    """The opcodes of the PTX that the test/Target/PTX lit tests with a plain `--tile-to-ptx[=chip=...]` RUN
    line lower their input to."""
    import io

    from tile_mlir.opt.command import TileOptMain

    seen = set()
    for path in sorted((ROOT / "test" / "Target" / "PTX").glob("*.mlir")):
        text = path.read_text()
        run = re.search(r"^// RUN: tile-opt %s (--tile-to-ptx(?:=chip=sm_\w+)?) >", text, re.M)
        if run is None or "--split-input-file" in text:
            continue
        out = io.StringIO()
        assert TileOptMain([str(path), run.group(1)], stdout=out, stderr=io.StringIO()).run() == 0, path.name
        for line in out.getvalue().splitlines():
            m = re.match(r"\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)[\s;]", line)
            if m and not line.lstrip().startswith(("//", ".")):
                seen.add(m.group(1))
    return seen


def test_the_ptx_of_the_lit_kernels_is_handled_and_declared():
    """Every opcode the Target lit tests' PTX holds is in TABLE, and each op's declared PTX occurs there
    (a declaration that no lowering honours, or that no lit test shows, fails)."""
    seen = _lit_ptx_opcodes()
    assert {"tcgen05.cp.cta_group::1.32x128b.warpx4", "ret"} <= seen
    unhandled = sorted(op for op in seen if not _handled(op))
    assert not unhandled, unhandled
    for cls in OP_CLASSES:
        unseen = [p for e in cls.SPEC.emits for p in e.ptx
                  if not any(s == p or s.startswith(p + ".") for s in seen)]
        assert not unseen, f"{cls.OPERATION_NAME} declares {unseen}, which no test/Target/PTX lit test emits"


# -- IRDL and lit --------------------------------------------------------------------------------------
def test_every_op_has_an_irdl_entry():
    text = (ROOT / "lib" / "TileOps.irdl").read_text()
    for name in NAMES:
        assert f"irdl.operation @{irdl_name(name)} {{" in text, name


def test_every_op_is_in_every_op_mlir_checked():
    text = (ROOT / "test" / "Dialect" / "tile" / "every-op.mlir").read_text()
    assert text.startswith("// RUN: tile-opt %s --tile-verify | FileCheck %s")
    for name in NAMES:
        assert f'sym_name = "op_{name.replace(".", "_")}"' in text, name
        if name != "kernel":
            assert f'// CHECK: "tile.{name}"(' in text, name


def _lit_texts(*dirs: str) -> str:
    return "\n".join(p.read_text() for d in dirs for p in sorted((ROOT / "test" / d).rglob("*.mlir")))


def test_every_op_has_a_lowering_lit_test():
    text = _lit_texts("Conversion", "Target")
    for name in NAMES:
        assert f'"tile.{name}"(' in text, f"no test/Conversion or test/Target lit test holds tile.{name}"


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("direction", ["ld", "st"])
def test_every_ldst_shape_has_a_ptx_lit_test(shape, direction):
    text = _lit_texts("Target/PTX")
    assert re.search(rf"// CHECK: tcgen05\.{direction}\.sync\.aligned\.{shape}\.x\d+", text), (direction, shape)
    assert "%ptxas -arch=sm_100a" in text


def test_builder_arguments_are_checked():
    ctx = make_context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        with tb.kernel(module, "k", [], block=(32, 1, 1)):
            bar = tb.alloc_shared(tb.buffer_t("shared", (1,), "i64"))
            with pytest.raises(TypeError, match="unexpected keyword argument 'group'"):
                tb.commit(bar, group=2)
            with pytest.raises(TypeError, match="missing required argument 'count'"):
                tb.mbarrier_init(bar)
            with pytest.raises(TypeError, match="multiple values for argument 'barrier'"):
                tb.mbarrier_arrive(bar, barrier=bar)
            with pytest.raises(TypeError, match="takes 2 positional arguments, 3 given"):
                tb.mbarrier_wait(bar, 0, 1)
            op = tb.mbarrier_wait(bar)
            assert op.phase == 0 and op.barrier == bar and str(op.attributes["phase"]) == "0 : i64"
            tb.ret()
