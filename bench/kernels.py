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
