"""Tile IR generators shared by the bench scripts and tests, built with tile_mlir's op builders
(tile_mlir.dialect.builders); each returns an ir.Module in a fresh tile_mlir context."""
from __future__ import annotations

from contextlib import contextmanager

TMEM_WARPX4 = "R[4 : 32@TLane]"


@contextmanager
def _module():
    """A new module in a new tile_mlir context, with the context and an unknown location current."""
    from tile_mlir.frontend.context import make_context
    from tile_mlir.mlir import ir

    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        yield module


def _i32(value: int):
    from tile_mlir.mlir import arith, ir
    return arith.constant(ir.IntegerType.get_signless(32), value)


def _cmp(pred: str, a, b):
    from tile_mlir.mlir import arith
    return arith.cmpi(getattr(arith.CmpIPredicate, pred), a, b)


def smem_to_tmem_kernel(name: str, *, rows: int = 32, cols_bytes: int = 16, swizzle: str | None = None,
                        n_copies: int = 1, readback_cols: int | None = None):
    """A warpgroup kernel: fill a shared tile from global, copy it to tensor memory with n_copies
    copy_async ops (each a 32 x cols_bytes/n_copies uint8 slice into its own columns), commit, wait,
    read tmem back to global. With swizzle (e.g. "128B") the shared tile is K-major swizzled."""
    from tile_mlir.dialect import builders as tb

    assert rows == 32
    tcols = max(32, _pow2(cols_bytes // 4))
    rb = readback_cols or cols_bytes // 4
    per = cols_bytes // n_copies
    with _module() as module:
        s_t = tb.buffer_t("shared", (32, cols_bytes), "ui8", _kmajor(cols_bytes, swizzle), align=1024)
        t_t = tb.buffer_t("tmem", (32, cols_bytes), "ui8", f"S[(32, {cols_bytes}) : (1@TLane, 1@TCol)] + {TMEM_WARPX4}")
        params = {"A": tb.buffer_t("global", (32, cols_bytes), "ui8"), "out": tb.buffer_t("global", (128, rb * 4), "ui8")}
        with tb.kernel(module, name, params, block=(128, 1, 1)) as (_, (A, out)):
            smem = tb.alloc_shared(s_t)
            slot = tb.alloc_shared(tb.buffer_t("shared", (1,), "i32"))
            bar = tb.alloc_shared(tb.buffer_t("shared", (1,), "i64"))
            tid, warp = tb.thread_id(), tb.warp_id()
            c0 = _i32(0)
            w0, t0 = _cmp("eq", warp, c0), _cmp("eq", tid, c0)
            with tb.when(w0):
                tb.tmem_alloc(slot, tcols)
            with tb.when(t0):
                tb.mbarrier_init(bar, 1)
                tb.fence("mbarrier_init")
            tb.copy(smem, A)
            tb.fence("proxy_async")
            tb.fence("tcgen05_before_sync")
            tb.barrier()
            tb.fence("tcgen05_after_sync")
            tmem = tb.tmem_buffer(slot, t_t)
            with tb.when(t0):
                for i in range(n_copies):
                    region = [(0, 32), (i * per, (i + 1) * per)]
                    tb.copy_async(tmem, smem, dst_region=region, src_region=region)
                tb.commit(bar)
            tb.mbarrier_wait(bar, 0)
            tb.fence("tcgen05_after_sync")
            tb.tmem_load(out, tmem, rb)
            tb.fence("tcgen05_before_sync")
            tb.barrier()
            with tb.when(w0):
                tb.tmem_relinquish()
                tb.tmem_dealloc(slot, tcols)
            tb.ret()
    return module


def _pow2(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def _kmajor(cols: int, swizzle: str | None) -> str:
    if swizzle is None:  # 16-byte core-matrix columns: 32 rows x 16 B contiguous per K chunk
        return f"S[(32, {cols // 16}, 16) : (16, 512, 1)]" if cols > 16 else "S[(32, 16) : (16, 1)]"
    pitch = {"32B": 32, "64B": 64, "128B": 128}[swizzle]
    if cols == pitch:
        return f"Swizzle<{swizzle}> o S[(32, {cols}) : ({pitch}, 1)]"
    return f"Swizzle<{swizzle}> o S[(32, {cols // pitch}, {pitch}) : ({pitch}, {32 * pitch}, 1)]"


def global_shared_global_kernel(name: str, scope: str = "cta", *, rows: int = 64, cols: int = 64,
                                elem: str = "f32", swizzle: str | None = "128B"):
    """Hopper-runnable round trip: global -> shared by copy_async (cp.async, by `scope`), wait, barrier,
    shared -> global by copy_async (ld.shared/st.global). With scope warp/thread only warp 0 / thread 0
    reaches the copies; the output must equal the input."""
    from tile_mlir.dialect import builders as tb

    bits = {"f32": 32, "bf16": 16, "ui8": 8, "f16": 16, "i32": 32}[elem]
    if swizzle:
        pitch = {"32B": 32, "64B": 64, "128B": 128}[swizzle]
        atom = pitch * 8 // bits
        lay = (f"Swizzle<{swizzle}> o S[({rows}, {cols // atom}, {atom}) : ({atom}, {rows * atom}, 1)]"
               if cols > atom else f"Swizzle<{swizzle}> o S[({rows}, {cols}) : ({cols}, 1)]")
    else:
        lay = f"S[({rows}, {cols}) : ({cols}, 1)]"
    with _module() as module:
        g_t = tb.buffer_t("global", (rows, cols), elem)
        with tb.kernel(module, name, {"A": g_t, "out": g_t}, block=(256, 1, 1)) as (_, (A, out)):
            smem = tb.alloc_shared(tb.buffer_t("shared", (rows, cols), elem, lay, align=1024))
            tid, warp = tb.thread_id(), tb.warp_id()
            c0, c4 = _i32(0), _i32(4)
            w0, wg0, t0 = _cmp("eq", warp, c0), _cmp("ult", warp, c4), _cmp("eq", tid, c0)
            guard = {"cta": None, "warpgroup": wg0, "warp": w0, "thread": t0}[scope]

            def guarded(body):
                if guard is None:
                    body()
                else:
                    with tb.when(guard):
                        body()

            guarded(lambda: (tb.copy_async(smem, A, scope=scope), tb.async_wait()))
            tb.barrier()
            guarded(lambda: tb.copy_async(out, smem, scope=scope))
            tb.ret()
    return module


def fp6_round_trip_kernel(name: str, *, rows: int = 64, cols: int = 128, elem: str = "f6E3M2FN"):
    """Hopper-runnable 6-bit round trip by tile.copy: packed global -> shared in the .b6x16_p32 form
    (128B-swizzled, one 16-byte unit per 16 elements, padding zeroed) -> barrier -> packed global. The
    output must equal the input byte for byte."""
    from tile_mlir.dialect import builders as tb

    with _module() as module:
        s_t = tb.buffer_t("shared", (rows, cols), elem,
                          f"Swizzle<128B> o S[({rows}, {cols // 128}, 128) : (128, {rows * 128}, 1)]", align=1024,
                          packing="b6x16_p32")
        g_t = tb.buffer_t("global", (rows, cols), elem)
        with tb.kernel(module, name, {"A": g_t, "out": g_t}, block=(256, 1, 1)) as (_, (A, out)):
            smem = tb.alloc_shared(s_t)
            tb.copy(smem, A, scope="cta")
            tb.barrier()
            tb.copy(out, smem, scope="cta")
            tb.ret()
    return module


# -- TMA (docs/tma.md) --------------------------------------------------------------------------------------
ELEM_BYTES = {"ui8": 1, "i8": 1, "f8E4M3FN": 1, "bf16": 2, "f16": 2, "ui16": 2, "f32": 4, "i32": 4, "ui32": 4,
              "f64": 8, "i64": 8}
SWIZZLE_SPAN = {None: 0, "32B": 32, "64B": 64, "128B": 128}


def tma_smem_layout(box, elem: str, swizzle: str | None) -> str:
    """The shared layout TMA writes a box in: row-major, inner rows one swizzle span apart (dense without
    swizzle), the swizzle on top (docs/tma.md §3 C)."""
    eb = ELEM_BYTES[elem]
    row = max(SWIZZLE_SPAN[swizzle], box[-1] * eb) // eb
    strides, s = [1], row
    for n in reversed(box[1:-1] if len(box) > 2 else ()):
        strides.insert(0, s)
        s *= n
    if len(box) > 1:
        strides.insert(0, s)
    inner = f"S[({', '.join(map(str, box))}) : ({', '.join(map(str, strides))})]"
    return f"Swizzle<{swizzle}> o {inner}" if swizzle else inner


def _region(offsets, sizes):
    return [(o, o + n) for o, n in zip(offsets, sizes)]


def tma_kernel(name: str, *, elem: str, shape, box, offset, swizzle: str | None = None,
               readback: str = "tma", multicast: bool = False, block: int = 128):
    """A TMA load of `box` at `offset` of an `elem` tensor of `shape` into shared memory (completing on an
    mbarrier armed with the box's bytes), then a readback to global: readback "tma" stores the region
    back by TMA to `out` (same shape as A, at the same offset); "copy" copies the whole shared box with
    tile.copy (ordinary ld.shared through the buffer's layout) to `out` of the box's shape, so OOB-filled
    zeros show. multicast (2D boxes): a cluster of 2, CTA 0 loads for both, `out` stacks the CTAs' boxes."""
    from tile_mlir.dialect import builders as tb
    from tile_mlir.mlir import arith

    eb = ELEM_BYTES[elem]
    box, shape, offset = tuple(box), tuple(shape), tuple(offset)
    sizes = tuple(min(b, e - o) for b, e, o in zip(box, shape, offset))
    align = max(128, {None: 0, "32B": 256, "64B": 512, "128B": 1024}[swizzle])
    nbytes = eb
    for b in box:
        nbytes *= b
    zero = (0,) * len(box)
    swz = swizzle or "none"
    with _module() as module:
        g_t = tb.buffer_t("global", shape, elem)
        s_t = tb.buffer_t("shared", box, elem, tma_smem_layout(box, elem, swizzle), align=align)
        o_t = g_t if readback == "tma" else tb.buffer_t("global", (box[0] * (2 if multicast else 1),) + box[1:], elem)
        cluster = dict(cluster=(2, 1, 1), grid=(2, 1, 1)) if multicast else {}
        with tb.kernel(module, name, {"A": g_t, "out": o_t}, block=(block, 1, 1), **cluster) as (_, (A, out)):
            tb.tensor_map(A, box, swz)
            if readback == "tma":
                tb.tensor_map(out, box, swz)
            smem = tb.alloc_shared(s_t)
            bar = tb.alloc_shared(tb.buffer_t("shared", (1,), "i64"))
            tid = tb.thread_id()
            c0 = _i32(0)
            t0 = _cmp("eq", tid, c0)
            with tb.when(t0):
                tb.mbarrier_init(bar, 1)
                tb.fence("mbarrier_init")
                tb.mbarrier_arrive_expect_tx(bar, nbytes)
            issuer = t0
            if not multicast:  # the initialised barrier before any thread waits on it
                tb.barrier()
            else:  # and both CTAs' barriers armed before CTA 0 issues
                tb.barrier("cluster")
                r0 = _cmp("eq", tb.cta_rank(), c0)
                issuer = arith.andi(t0, r0)
            with tb.when(issuer):
                tb.copy_async(smem, A, bar, multicast_mask=3 if multicast else None,
                              dst_region=_region(zero, sizes), src_region=_region(offset, sizes))
            tb.mbarrier_wait(bar, 0)
            if readback == "tma":
                with tb.when(t0):
                    tb.copy_async(out, smem, dst_region=_region(offset, sizes), src_region=_region(zero, sizes))
                    tb.bulk_wait(0)
            elif multicast:
                with tb.when(r0) as even:
                    tb.copy(out, smem, scope="cta", dst_region=_region(zero, box))
                with even.otherwise():
                    tb.copy(out, smem, scope="cta", dst_region=_region((box[0],) + zero[1:], box))
                tb.barrier("cluster")
            else:
                tb.copy(out, smem, scope="cta")
            tb.ret()
    return module
