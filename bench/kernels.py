"""Tile IR generators shared by the bench scripts and tests (text, so each run parses like a user's)."""
from __future__ import annotations

TMEM_WARPX4 = "R[4 : 32@TLane]"


def smem_to_tmem_kernel(name: str, *, rows: int = 32, cols_bytes: int = 16, swizzle: str | None = None,
                        n_copies: int = 1, readback_cols: int | None = None) -> str:
    """A warpgroup kernel: fill a shared tile from global, copy it to tensor memory with n_copies
    copy_async ops (each a 32 x cols_bytes/n_copies uint8 slice into its own columns), commit, wait,
    read tmem back to global. With swizzle (e.g. "128B") the shared tile is K-major swizzled."""
    assert rows == 32
    lay_s = _kmajor(cols_bytes, swizzle)
    tcols = max(32, _pow2(cols_bytes // 4))
    s_t = f'!tile.buffer<shared, 32x{cols_bytes}xui8, "{lay_s}", align 1024>'
    t_t = f'!tile.buffer<tmem, 32x{cols_bytes}xui8, "S[(32, {cols_bytes}) : (1@TLane, 1@TCol)] + {TMEM_WARPX4}">'
    rb = readback_cols or cols_bytes // 4
    per = cols_bytes // n_copies
    lines = [
        '"tile.kernel"() ({',
        f'^bb0(%A: !tile.buffer<global, 32x{cols_bytes}xui8>, %out: !tile.buffer<global, 128x{rb * 4}xui8>):',
        f'  %smem = "tile.alloc_shared"() : () -> {s_t}',
        '  %slot = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi32>',
        '  %bar = "tile.alloc_shared"() : () -> !tile.buffer<shared, 1xi64>',
        '  %tid = "tile.thread_id"() : () -> i32',
        '  %warp = "tile.warp_id"() : () -> i32',
        '  %c0 = arith.constant 0 : i32',
        '  %w0 = arith.cmpi eq, %warp, %c0 : i32',
        '  %t0 = arith.cmpi eq, %tid, %c0 : i32',
        '  scf.if %w0 {',
        f'    "tile.tmem.alloc"(%slot) {{num_cols = {tcols}}} : (!tile.buffer<shared, 1xi32>) -> ()',
        '  }',
        '  scf.if %t0 {',
        '    "tile.mbarrier.init"(%bar) {count = 1} : (!tile.buffer<shared, 1xi64>) -> ()',
        '    "tile.fence"() {kind = "mbarrier_init"} : () -> ()',
        '  }',
        f'  "tile.copy"(%smem, %A) : ({s_t}, !tile.buffer<global, 32x{cols_bytes}xui8>) -> ()',
        '  "tile.fence"() {kind = "proxy_async"} : () -> ()',
        '  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()',
        '  "tile.barrier"() : () -> ()',
        '  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
        f'  %tmem = "tile.tmem.buffer"(%slot) : (!tile.buffer<shared, 1xi32>) -> {t_t}',
        '  scf.if %t0 {',
    ]
    for i in range(n_copies):
        lines.append(f'    "tile.copy_async"(%tmem, %smem) {{dst_offsets = array<i64: 0, {i * per}>, dst_sizes = '
                     f'array<i64: 32, {per}>, src_offsets = array<i64: 0, {i * per}>, src_sizes = array<i64: 32, {per}>}}'
                     f' : ({t_t}, {s_t}) -> ()')
    lines += [
        '    "tile.commit"(%bar) : (!tile.buffer<shared, 1xi64>) -> ()',
        '  }',
        '  "tile.mbarrier.wait"(%bar) {phase = 0} : (!tile.buffer<shared, 1xi64>) -> ()',
        '  "tile.fence"() {kind = "tcgen05_after_sync"} : () -> ()',
        f'  "tile.tmem.load"(%out, %tmem) {{num_cols = {rb}}} : (!tile.buffer<global, 128x{rb * 4}xui8>, {t_t}) -> ()',
        '  "tile.fence"() {kind = "tcgen05_before_sync"} : () -> ()',
        '  "tile.barrier"() : () -> ()',
        '  scf.if %w0 {',
        '    "tile.tmem.relinquish"() : () -> ()',
        f'    "tile.tmem.dealloc"(%slot) {{num_cols = {tcols}}} : (!tile.buffer<shared, 1xi32>) -> ()',
        '  }',
        '  "tile.return"() : () -> ()',
        f'}}) {{sym_name = "{name}", block = array<i32: 128, 1, 1>}} : () -> ()',
    ]
    return "\n".join(lines) + "\n"


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
                                elem: str = "f32", swizzle: str | None = "128B") -> str:
    """Hopper-runnable round trip: global -> shared by copy_async (cp.async, by `scope`), wait, barrier,
    shared -> global by copy_async (ld.shared/st.global). With scope warp/thread only warp 0 / thread 0
    reaches the copies; the output must equal the input."""
    bits = {"f32": 32, "bf16": 16, "ui8": 8, "f16": 16, "i32": 32}[elem]
    if swizzle:
        pitch = {"32B": 32, "64B": 64, "128B": 128}[swizzle]
        atom = pitch * 8 // bits
        lay = (f"Swizzle<{swizzle}> o S[({rows}, {cols // atom}, {atom}) : ({atom}, {rows * atom}, 1)]"
               if cols > atom else f"Swizzle<{swizzle}> o S[({rows}, {cols}) : ({cols}, 1)]")
    else:
        lay = f"S[({rows}, {cols}) : ({cols}, 1)]"
    s_t = f'!tile.buffer<shared, {rows}x{cols}x{elem}, "{lay}", align 1024>'
    g_t = f"!tile.buffer<global, {rows}x{cols}x{elem}>"
    guard = {"cta": None, "warpgroup": "%wg0", "warp": "%w0", "thread": "%t0"}[scope]
    body = [
        f'    "tile.copy_async"(%smem, %A) {{scope = "{scope}"}} : ({s_t}, {g_t}) -> ()',
        '    "tile.async_wait"() : () -> ()',
    ]
    out = [f'    "tile.copy_async"(%out, %smem) {{scope = "{scope}"}} : ({g_t}, {s_t}) -> ()']
    lines = [
        '"tile.kernel"() ({',
        f'^bb0(%A: {g_t}, %out: {g_t}):',
        f'  %smem = "tile.alloc_shared"() : () -> {s_t}',
        '  %tid = "tile.thread_id"() : () -> i32',
        '  %warp = "tile.warp_id"() : () -> i32',
        '  %c0 = arith.constant 0 : i32',
        '  %c4 = arith.constant 4 : i32',
        '  %w0 = arith.cmpi eq, %warp, %c0 : i32',
        '  %wg0 = arith.cmpi ult, %warp, %c4 : i32',
        '  %t0 = arith.cmpi eq, %tid, %c0 : i32',
    ]
    if guard:
        lines += [f"  scf.if {guard} {{"] + body + ["  }"]
    else:
        lines += [b[2:] for b in body]
    lines += ['  "tile.barrier"() : () -> ()']
    if guard:
        lines += [f"  scf.if {guard} {{"] + out + ["  }"]
    else:
        lines += [o[2:] for o in out]
    lines += ['  "tile.return"() : () -> ()',
              f'}}) {{sym_name = "{name}", block = array<i32: 256, 1, 1>}} : () -> ()']
    return "\n".join(lines) + "\n"


def fp6_round_trip_kernel(name: str, *, rows: int = 64, cols: int = 128, elem: str = "f6E3M2FN") -> str:
    """Hopper-runnable 6-bit round trip by tile.copy: packed global -> shared in the .b6x16_p32 form
    (128B-swizzled, one 16-byte unit per 16 elements, padding zeroed) -> barrier -> packed global. The
    output must equal the input byte for byte."""
    s_t = (f'!tile.buffer<shared, {rows}x{cols}x{elem}, "Swizzle<128B> o S[({rows}, {cols // 128}, 128) : '
           f'(128, {rows * 128}, 1)]", align 1024, packing b6x16_p32>')
    g_t = f"!tile.buffer<global, {rows}x{cols}x{elem}>"
    return "\n".join([
        '"tile.kernel"() ({',
        f'^bb0(%A: {g_t}, %out: {g_t}):',
        f'  %smem = "tile.alloc_shared"() : () -> {s_t}',
        f'  "tile.copy"(%smem, %A) {{scope = "cta"}} : ({s_t}, {g_t}) -> ()',
        '  "tile.barrier"() : () -> ()',
        f'  "tile.copy"(%out, %smem) {{scope = "cta"}} : ({g_t}, {s_t}) -> ()',
        '  "tile.return"() : () -> ()',
        f'}}) {{sym_name = "{name}", block = array<i32: 256, 1, 1>}} : () -> ()',
    ]) + "\n"


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


def _arr(v) -> str:
    return f"array<i64: {', '.join(map(str, v))}>"


def tma_kernel(name: str, *, elem: str, shape, box, offset, swizzle: str | None = None,
               readback: str = "tma", multicast: bool = False, block: int = 128) -> str:
    """A TMA load of `box` at `offset` of an `elem` tensor of `shape` into shared memory (completing on an
    mbarrier armed with the box's bytes), then a readback to global: readback "tma" stores the region
    back by TMA to `out` (same shape as A, at the same offset); "copy" copies the whole shared box with
    tile.copy (ordinary ld.shared through the buffer's layout) to `out` of the box's shape, so OOB-filled
    zeros show. multicast (2D boxes): a cluster of 2, CTA 0 loads for both, `out` stacks the CTAs' boxes."""
    eb = ELEM_BYTES[elem]
    box, shape, offset = tuple(box), tuple(shape), tuple(offset)
    sizes = tuple(min(b, e - o) for b, e, o in zip(box, shape, offset))
    lay = tma_smem_layout(box, elem, swizzle)
    align = max(128, {None: 0, "32B": 256, "64B": 512, "128B": 1024}[swizzle])
    dims = "x".join(map(str, shape))
    bdims = "x".join(map(str, box))
    g_t = f"!tile.buffer<global, {dims}x{elem}>"
    s_t = f'!tile.buffer<shared, {bdims}x{elem}, "{lay}", align {align}>'
    if readback == "tma":
        o_t = g_t
    else:
        rows = (box[0] * (2 if multicast else 1),) + box[1:]
        o_t = f"!tile.buffer<global, {'x'.join(map(str, rows))}x{elem}>"
    bar_t = "!tile.buffer<shared, 1xi64>"
    swz = f', swizzle = "{swizzle}"' if swizzle else ""
    nbytes = eb
    for b in box:
        nbytes *= b
    region = (f"dst_offsets = {_arr((0,) * len(box))}, dst_sizes = {_arr(sizes)}, "
              f"src_offsets = {_arr(offset)}, src_sizes = {_arr(sizes)}")
    mc = ", multicast_mask = 3" if multicast else ""
    L = ['"tile.kernel"() ({', f"^bb0(%A: {g_t}, %out: {o_t}):",
         f'  %mA = "tile.tensor_map"(%A) {{box = {_arr(box)}{swz}}} : ({g_t}) -> !tile.tensormap']
    if readback == "tma":
        L.append(f'  %mO = "tile.tensor_map"(%out) {{box = {_arr(box)}{swz}}} : ({o_t}) -> !tile.tensormap')
    L += [f'  %smem = "tile.alloc_shared"() : () -> {s_t}',
          f'  %bar = "tile.alloc_shared"() : () -> {bar_t}',
          '  %tid = "tile.thread_id"() : () -> i32',
          '  %c0 = arith.constant 0 : i32',
          '  %t0 = arith.cmpi eq, %tid, %c0 : i32',
          '  scf.if %t0 {',
          f'    "tile.mbarrier.init"(%bar) {{count = 1}} : ({bar_t}) -> ()',
          '    "tile.fence"() {kind = "mbarrier_init"} : () -> ()',
          f'    "tile.mbarrier.arrive_expect_tx"(%bar) {{bytes = {nbytes}}} : ({bar_t}) -> ()',
          '  }']
    issuer = "%t0"
    if not multicast:  # the initialised barrier before any thread waits on it
        L += ['  "tile.barrier"() : () -> ()']
    else:  # and both CTAs' barriers armed before CTA 0 issues
        L += ['  "tile.barrier"() {scope = "cluster"} : () -> ()',
              '  %rank = "tile.cta_rank"() : () -> i32',
              '  %r0 = arith.cmpi eq, %rank, %c0 : i32',
              '  %issuer = arith.andi %t0, %r0 : i1']
        issuer = "%issuer"
    L += [f'  scf.if {issuer} {{',
          f'    "tile.copy_async"(%smem, %A, %bar) {{{region}{mc}}} : ({s_t}, {g_t}, {bar_t}) -> ()',
          '  }',
          f'  "tile.mbarrier.wait"(%bar) {{phase = 0}} : ({bar_t}) -> ()']
    if readback == "tma":
        store = (f"dst_offsets = {_arr(offset)}, dst_sizes = {_arr(sizes)}, src_offsets = {_arr((0,) * len(box))}, "
                 f"src_sizes = {_arr(sizes)}")
        L += ['  scf.if %t0 {',
              f'    "tile.copy_async"(%out, %smem) {{{store}}} : ({o_t}, {s_t}) -> ()',
              '    "tile.bulk_wait"() {pending = 0} : () -> ()',
              '  }']
    elif multicast:
        for r, branch in ((0, "scf.if %r0 {"), (1, "} else {")):
            dst = f"dst_offsets = {_arr((r * box[0],) + (0,) * (len(box) - 1))}, dst_sizes = {_arr(box)}"
            L += [f"  {branch}", f'    "tile.copy"(%out, %smem) {{{dst}, scope = "cta"}} : ({o_t}, {s_t}) -> ()']
        L += ["  }", '  "tile.barrier"() {scope = "cluster"} : () -> ()']
    else:
        L += [f'  "tile.copy"(%out, %smem) {{scope = "cta"}} : ({o_t}, {s_t}) -> ()']
    L.append('  "tile.return"() : () -> ()')
    launch = ", cluster = array<i32: 2, 1, 1>, grid = array<i32: 2, 1, 1>" if multicast else ""
    L.append(f'}}) {{sym_name = "{name}", block = array<i32: {block}, 1, 1>{launch}}} : () -> ()')
    return "\n".join(L) + "\n"
