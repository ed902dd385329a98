"""Attention forward TFLOP/s on the GPU: our Hopper kernel (examples/attention_sm90.py, sm_90a cubins compiled
on the development machine) against torch.nn.functional.scaled_dot_product_attention with the cuDNN backend
and with the flash backend, in one process on the same inputs.

    PYTHONPATH=python python bench/attention.py --build DIR      # here: compile the suite's kernels into DIR,
                                                                  # and DIR/check: small kernels, their inputs
                                                                  # and tile-sim's outputs
    PYTHONPATH=python python3 bench/attention.py --artifacts DIR  # on the GPU machine (no MLIR needed)

Suite: fp16 and bf16, head dim 64 and 128, causal and not, sequence 1k / 4k / 16k, batch x heads filling the
GPU as FlashAttention's benchmarks do (16k tokens: batch = 16384 / seq; 2048 / d heads); then grouped-query
heads: bf16, head dim 128, 32 query heads on 8 key / value heads (torch: enable_gqa=True; where a backend
refuses it, the row's note says so and that backend gets K and V repeated per query head). [b * h, s, d]
tensors (torch's [b, h, s, d], contiguous). FLOPs: 4 b h s^2 d (h: query heads), halved with the causal mask.

Method (as bench/gemm.py): clocks warmed first; each pass visits every shape; there each kernel's output is
compared with float32 references of two heads (max |O - O_ref|), then the three are timed interleaved:
--reps rounds, each timing --calls back-to-back launches of every kernel between one pair of CUDA events, the
round's first kernel rotating; median per kernel; a row shows the median over passes. The last line:
`suite: N shapes, min ours/cuDNN R, geomean G, geomean ours/flash F`.

--artifacts also runs DIR/check (if present): each small kernel on its inputs, its output compared bit for
bit with what tile-sim computed for it here ("match" / "MISMATCH").

Variants: `--variant consumers=3` (AttnConfig fields, comma-separated; repeatable) builds (--build) and times
(--artifacts) a second configuration of our kernel beside the default, in the same interleaved rounds, on the
shapes `--variant-only` selects (as --only; default all): a column v1 (TF/s) and v1/cuDNN per variant, and
before the suite line, per variant, its ratios and the suite's figures with it in place of the default there.
A variant whose kernel at a shape is ours' or an earlier variant's (the same name) is not timed there again.

    python bench/attention.py --build DIR --variant consumers=3 --variant-only ", 64, "
    python3 bench/attention.py --artifacts DIR --variant consumers=3 --variant-only ", 64, "
"""
from __future__ import annotations

import argparse
import glob
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "python"))
sys.path.insert(0, os.path.join(HERE, os.pardir, "examples"))

SEQS = (1024, 4096, 16384)
TOKENS = 16384
# small configurations checked bit for bit on the GPU against tile-sim (AttnConfig's keywords)
CHECKS = (
    dict(dtype="bf16", batch=1, heads=2, kv_heads=1, seq_q=200, seq_k=200, head_dim=64, causal=True, lse=True,
         persistent=False),
    dict(dtype="f16", batch=1, heads=2, kv_heads=2, seq_q=256, seq_k=256, head_dim=128),
    dict(dtype="bf16", batch=1, heads=2, kv_heads=1, seq_q=200, seq_k=200, head_dim=64, causal=True, lse=True,
         persistent=True, ctas=3),
    dict(dtype="f16", batch=1, heads=2, kv_heads=1, seq_q=300, seq_k=300, head_dim=64, causal=True,
         persistent=True, ctas=2),  # the causal walk's lone tile and a pair
    # three consumer warpgroups (192-row query tiles, 128-key tiles: two masked visits with the causal mask)
    dict(dtype="bf16", batch=1, heads=2, kv_heads=1, seq_q=200, seq_k=200, head_dim=64, causal=True, lse=True,
         consumers=3),
    dict(dtype="f16", batch=1, heads=2, kv_heads=1, seq_q=400, seq_k=400, head_dim=64, causal=True, lse=True,
         consumers=3, persistent=True, ctas=2),  # a lone tile (2) and a pair (1, 0)
    dict(dtype="bf16", batch=1, heads=3, kv_heads=1, seq_q=300, seq_k=300, head_dim=64, consumers=3, ctas=4),
    dict(dtype="f16", batch=1, heads=1, kv_heads=1, seq_q=200, seq_k=200, head_dim=128, consumers=3),
)


GQA = (32, 8)  # query heads, key / value heads of the grouped-query shapes


def suite():
    """(dtype, batch, heads, seq, d, causal, kv_heads) of every shape."""
    mha = [(dt, TOKENS // s, 2048 // d, s, d, c, 2048 // d) for dt in ("f16", "bf16") for d in (64, 128)
           for c in (False, True) for s in SEQS]
    return mha + [("bf16", TOKENS // s, GQA[0], s, 128, c, GQA[1]) for c in (False, True) for s in SEQS]


TILING = {}  # block_n / stages of our kernels (--block-n, --stages)
VARIANT_VALUES = {"yes": True, "true": True, "no": False, "false": False}


def parse_variant(text: str) -> dict:
    """`consumers=3,block_n=128` -> AttnConfig keywords (ints; yes / no for booleans; auto: the field left to
    AttnConfig's default)."""
    import dataclasses

    from attention_sm90 import AttnConfig
    fields = {f.name for f in dataclasses.fields(AttnConfig)} - {"dtype", "batch", "heads", "seq_q", "seq_k",
                                                                 "head_dim", "kv_heads", "causal", "lse"}
    out = {}
    for item in text.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in fields:
            raise ValueError(f"variant {text!r}: give key=value pairs of {', '.join(sorted(fields))}")
        value = value.strip().lower()
        if value == "auto":
            continue
        if value in VARIANT_VALUES:
            out[key] = VARIANT_VALUES[value]
        elif value.isdigit():
            out[key] = int(value)
        else:
            raise ValueError(f"variant {text!r}: {key}'s value must be an integer, yes, no or auto")
    return out


def config(dt, batch, heads, seq, d, causal, kv_heads=0, lse=False, **tiling):
    from attention_sm90 import AttnConfig
    return AttnConfig(dt, batch, heads, seq, seq, d, kv_heads=kv_heads, causal=causal, lse=lse,
                      **{**TILING, **tiling})


# ------------------------------------------------------------------------------------------ schedule model
def schedule(ctas: int = 132, fixed: float = 1.0) -> int:
    """The causal walks' balance in a cost model (no GPU): a query tile costs its key tiles plus `fixed`; the
    largest CTA's total over the mean, for the pair walk (examples/attention_sm90.py `_tiles`), the earlier
    round-robin walk (single tiles in rounds of all heads, longest first) and a dynamic dispatch (the grid:
    the next block to the CTA that frees first), at every causal suite shape."""
    import heapq

    def worst(loads):
        return max(loads) / (sum(loads) / len(loads))
    print(f"{'d':>4}{'seq':>7}{'heads':>7}{'pairs':>8}{'rounds':>8}{'grid':>8}")
    for dt, batch, heads, seq, d, causal, kv_heads in suite():
        if not causal or dt != "bf16":
            continue
        cfg = config(dt, batch, heads, seq, d, causal, kv_heads, persistent=True, ctas=ctas)
        q, bh = cfg.q_tiles, batch * heads
        work = lambda qt: min(cfg.k_tiles, qt + 1) + fixed  # noqa: E731
        pairs, rounds, grid = [0.0] * cfg.grid, [0.0] * ctas, [(0.0, i) for i in range(ctas)]
        for u in range(bh * cfg.causal_pairs):
            p = u % cfg.causal_pairs
            tiles = [q - 1 - p] + ([p - q % 2] if p - q % 2 >= 0 else [])
            pairs[u % cfg.grid] += sum(map(work, tiles))
        for t in range(bh * q):
            rounds[t % ctas] += work(q - 1 - t // bh)
            load, i = heapq.heappop(grid)  # (the grid's linear block order: a head's tiles, longest first)
            heapq.heappush(grid, (load + work(q - 1 - t % q), i))
        print(f"{d:>4}{seq:>7}{heads:>7}{worst(pairs):>8.3f}{worst(rounds):>8.3f}{worst([x for x, _ in grid]):>8.3f}")
    return 0


# ------------------------------------------------------------------------------------------ build (here)
def _shapes(only):
    return suite() if not only else [s for s in suite() if any(o in str(s) for o in only)]


def _variants(args):
    """[(label, spec text, AttnConfig keywords, shapes)] of --variant / --variant-only."""
    shapes = set(_shapes(args.variant_only))
    return [(f"v{i + 1}", text, parse_variant(text), shapes) for i, text in enumerate(args.variant or ())]


def build(out: str, args_only=None, checks=True, variants=()) -> int:
    import numpy as np

    import attention_sm90 as A
    import attention_reference as R
    from tile_mlir.driver.compiler import compile as tile_compile

    os.makedirs(os.path.join(out, "check"), exist_ok=True)
    for shape in _shapes(args_only):
        for cfg in [config(*shape)] + [config(*shape, **kw) for _, _, kw, shapes in variants if shape in shapes]:
            if os.path.exists(os.path.join(out, f"{cfg.name}.json")):
                continue  # (a variant the same as the default there)
            tile_compile(A.build(cfg), arch="sm_90a").save(out)
            print("built", cfg.name, flush=True)
    for kw in (CHECKS if checks else ()):
        cfg = A.AttnConfig(**kw)
        art = tile_compile(A.build(cfg), arch="sm_90a")
        art.save(os.path.join(out, "check"))
        o, lse_v, q, k, v = A.run(cfg, backend="sim")
        want, want_lse = R.model(cfg, q, k, v)
        same = np.array_equal(o.view(np.uint16), want.view(np.uint16))
        bits = {"Q": q.view(np.uint16), "K": k.view(np.uint16), "V": v.view(np.uint16)}
        expected = {"O": o.view(np.uint16)}
        if lse_v is not None:
            expected["LSE"] = lse_v
            same = same and np.array_equal(lse_v.view(np.uint32), want_lse.view(np.uint32))
        np.savez(os.path.join(out, "check", f"{cfg.name}.inputs.npz"), **bits)
        np.savez(os.path.join(out, "check", f"{cfg.name}.expected.npz"), **expected)
        print(f"check {cfg.name}: tile-sim {'equals' if same else 'DIFFERS from'} the model", flush=True)
        if not same:
            return 1
    return 0


# ------------------------------------------------------------------------------------------ run (GPU)
class _Ours:
    def __init__(self, folder: str):
        self.folder = folder

    def launcher(self, cfg, q, k, v, o):
        import torch
        from tile_mlir.artifact import Artifact
        from tile_mlir.runtime import jit

        path = os.path.join(self.folder, f"{cfg.name}.json")
        if not os.path.exists(path):
            return None
        kernel = jit(Artifact.load(path), backend="gpu")
        flat = lambda x: x.view(-1, x.shape[-2], x.shape[-1])  # noqa: E731  ([b, h, s, d] -> [b * h, s, d])
        bits = (lambda x: flat(x).view(torch.uint16)) if cfg.dtype == "bf16" else flat  # (DLPack has no bf16)
        args = {"Q": bits(q), "K": bits(k), "V": bits(v), "O": bits(o)}
        ordered = [args[p.name] for p in kernel.artifact.params]
        return lambda: kernel.launch(*ordered)


def _sdpa(backend, q, k, v, causal):
    """torch's SDPA on one backend; grouped-query K / V by enable_gqa, or (the backend refuses it) repeated per
    query head beforehand (outside the timing). Returns (run, note)."""
    import torch
    from torch.nn.attention import sdpa_kernel
    from torch.nn.functional import scaled_dot_product_attention as sdpa

    g = q.shape[1] // k.shape[1]

    def make(k, v, gqa):
        def run():
            with sdpa_kernel(backend):
                return sdpa(q, k, v, is_causal=causal, enable_gqa=gqa)
        return run
    if g == 1:
        return make(k, v, False), ""
    try:
        run = make(k, v, True)
        run()
        torch.cuda.synchronize()
        return run, ""
    except RuntimeError:
        kr, vr = (x.repeat_interleave(g, dim=1).contiguous() for x in (k, v))
        return make(kr, vr, False), f"{backend.name} on K, V repeated {g}x"


def _time_interleaved(fns: dict, warmup: int, reps: int, calls: int) -> dict:
    import torch
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    names, times = list(fns), {name: [] for name in fns}
    for r in range(reps):
        for name in names[r % len(names):] + names[:r % len(names)]:
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                fns[name]()
            end.record()
            end.synchronize()
            times[name].append(start.elapsed_time(end) * 1e-3 / calls)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _one(shape, ours, args, variants=()):
    import torch
    from torch.nn.attention import SDPBackend

    dt, batch, heads, seq, d, causal, kv_heads = shape
    cfg = config(*shape)
    tdt = torch.float16 if dt == "f16" else torch.bfloat16
    gen = torch.Generator(device="cuda").manual_seed(seq + d + causal)
    q = torch.randn((batch, heads, seq, d), device="cuda", dtype=tdt, generator=gen)
    k, v = (torch.randn((batch, kv_heads, seq, d), device="cuda", dtype=tdt, generator=gen) for _ in range(2))
    o = torch.empty_like(q)
    fns, notes = {}, []
    for name, backend in (("cuDNN", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        fns[name], note = _sdpa(backend, q, k, v, causal)
        notes += [note] if note else []
    run = ours.launcher(cfg, q, k, v, o)
    if run is not None:
        fns["ours"] = run
    outs, names = {"ours": o}, {cfg.name}
    for label, _, kw, shapes in variants:
        vcfg = config(*shape, **kw)
        if shape not in shapes or vcfg.name in names:  # (the same kernel as ours or an earlier variant there)
            continue
        names.add(vcfg.name)
        outs[label] = torch.empty_like(q)
        run = ours.launcher(vcfg, q, k, v, outs[label])
        if run is not None:
            fns[label] = run
    # float32 references of query heads 0 and heads - 1 of batch 0 (on key / value heads 0 and kv_heads - 1)
    refs = {}
    for h in (0, heads - 1):
        qf, kf, vf = q[0, h].float(), k[0, h * kv_heads // heads].float(), v[0, h * kv_heads // heads].float()
        s = (qf @ kf.T) / math.sqrt(d)
        if causal:
            s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
        refs[h] = torch.softmax(s, dim=-1) @ vf
        del s
    row = {}
    for name, fn in fns.items():
        out = fn()
        torch.cuda.synchronize()
        out = outs.get(name, out)
        row[name + " err"] = max((out[0, h].float() - ref).abs().max().item() for h, ref in refs.items())
    del refs
    row.update(_time_interleaved(fns, args.warmup, args.reps, args.calls))
    row["flops"] = cfg.flops()
    row["notes"] = notes
    return row


def _check(folder: str) -> bool:
    """The small kernels against tile-sim's outputs, bit for bit."""
    import numpy as np
    import torch
    from tile_mlir.artifact import Artifact
    from tile_mlir.runtime import jit

    ok = True
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        name = os.path.basename(path)[:-5]
        kernel = jit(Artifact.load(path), backend="gpu")
        ins = np.load(os.path.join(folder, f"{name}.inputs.npz"))
        exp = np.load(os.path.join(folder, f"{name}.expected.npz"))
        f16 = "_f16_" in name  # (inputs saved as bits; the runtime takes f16 as float16, bf16 as uint16)
        bufs = {n: torch.from_numpy(ins[n].view(np.float16) if f16 else ins[n]).cuda() for n in ins.files}
        for n in exp.files:
            bufs[n] = torch.zeros_like(torch.from_numpy(exp[n].view(np.float16) if f16 and n == "O" else exp[n])).cuda()
        kernel.launch(*[bufs[p.name] for p in kernel.artifact.params])
        torch.cuda.synchronize()
        got = {n: bufs[n].cpu().numpy() for n in exp.files}
        diff = {n: int((got[n].view(np.uint8) != exp[n].view(np.uint8)).sum()) for n in exp.files}
        same = not any(diff.values())
        print(f"check {name}: {'match (bit for bit tile-sim)' if same else f'MISMATCH {diff}'}")
        ok &= same
    return ok


def run(args) -> int:
    import torch
    props = torch.cuda.get_device_properties(0)
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{props.multi_processor_count} SMs")
    checked = True
    if os.path.isdir(os.path.join(args.artifacts, "check")):
        checked = _check(os.path.join(args.artifacts, "check"))
    warm = torch.randn((8192, 8192), device="cuda", dtype=torch.bfloat16)
    for _ in range(100):
        warm @ warm
    del warm
    torch.cuda.synchronize()
    ours, rows = _Ours(args.artifacts), {}
    shapes, variants = _shapes(args.only), _variants(args)
    for pas in range(args.passes):
        for shape in shapes:
            rows.setdefault(shape, []).append(_one(shape, ours, args, variants))
            torch.cuda.empty_cache()
        print(f"pass {pas + 1} done", flush=True)
    return _report(rows, variants) or (0 if checked else 1)


def _report(rows, variants=()) -> int:
    labels = [label for label, *_ in variants]
    print(f"{'dtype':<5}{'d':>4}{'causal':>7}{'seq':>7}{'b x h':>8}{'cuDNN':>8}{'flash':>8}{'ours':>8}"
          f"{'ours/cuDNN':>11}{'ours/flash':>11}{'err ours':>10}{'err cuDNN':>10}{'err flash':>10}"
          + "".join(f"{v:>8}{v + '/cuDNN':>10}{'err ' + v:>10}" for v in labels) + "  TF/s")
    r_cudnn, r_flash = {}, []  # r_cudnn: shape -> ours/cuDNN
    r_var = {v: {} for v in labels}  # label -> {shape: v/cuDNN} (where ours ran too)
    for key, passes in rows.items():
        dt, batch, heads, seq, d, causal, kv_heads = key
        tf = {c: passes[0]["flops"] / statistics.median(p[c] for p in passes) * 1e-12
              for c in ("cuDNN", "flash", "ours", *labels) if c in passes[0]}
        bh = f"{batch}x{heads}" + (f"/{kv_heads}" if kv_heads != heads else "")
        line = (f"{dt:<5}{d:>4}{'yes' if causal else 'no':>7}{seq:>7}{bh:>8}{tf['cuDNN']:>8.1f}"
                f"{tf['flash']:>8.1f}")
        if "ours" in tf:
            rc, rf = tf["ours"] / tf["cuDNN"], tf["ours"] / tf["flash"]
            r_cudnn[key] = rc
            r_flash.append(rf)
            line += f"{tf['ours']:>8.1f}{rc:>11.2f}{rf:>11.2f}{passes[0]['ours err']:>10.2e}"
        else:
            line += f"{'-':>8}{'-':>11}{'-':>11}{'-':>10}"
        line += f"{passes[0]['cuDNN err']:>10.2e}{passes[0]['flash err']:>10.2e}"
        for v in labels:
            if v in tf:
                rv = tf[v] / tf["cuDNN"]
                if "ours" in tf:
                    r_var[v][key] = rv
                line += f"{tf[v]:>8.1f}{rv:>10.2f}{passes[0][v + ' err']:>10.2e}"
            else:
                line += f"{'-':>8}{'-':>10}{'-':>10}"
        print(line + "".join(f"  ({n})" for n in passes[0]["notes"]))
    if not r_cudnn:
        print("suite: 0 shapes")
        return 1
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
    for label, text, _, _ in variants:
        mine, theirs = list(r_var[label].values()), [r_cudnn[k] for k in r_var[label]]
        if not mine:
            print(f"variant {label} ({text}): 0 shapes")
            continue
        swapped = [r_var[label].get(k, r) for k, r in r_cudnn.items()]
        print(f"variant {label} ({text}): {len(mine)} shapes, min {label}/cuDNN {min(mine):.2f}, geomean "
              f"{geo(mine):.2f} (ours there: min {min(theirs):.2f}, geomean {geo(theirs):.2f}); the suite with "
              f"{label} there: min ours/cuDNN {min(swapped):.2f}, geomean {geo(swapped):.2f}")
    r_cudnn = list(r_cudnn.values())
    print(f"suite: {len(r_cudnn)} shapes, min ours/cuDNN {min(r_cudnn):.2f}, geomean {geo(r_cudnn):.2f}, "
          f"geomean ours/flash {geo(r_flash):.2f}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", metavar="DIR", help="compile the suite (and the check kernels) into DIR")
    p.add_argument("--artifacts", metavar="DIR", help="run the suite from DIR on the GPU")
    p.add_argument("--only", nargs="*", help="shapes whose tuple text contains one of these")
    p.add_argument("--passes", type=int, default=2)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--calls", type=int, default=5)
    p.add_argument("--block-n", type=int, default=0, help="our kernels' key tile (0: the kernel's choice)")
    p.add_argument("--stages", type=int, default=2, help="our kernels' K / V ring stages")
    p.add_argument("--persistent", choices=("auto", "yes", "no"), default="auto",
                   help="our kernels persistent (one CTA per SM), or one CTA per tile; auto: the kernel's choice")
    p.add_argument("--no-checks", action="store_true", help="--build: leave out the check kernels")
    p.add_argument("--variant", action="append", metavar="KEY=VALUE,...",
                   help="also build / time our kernel with these AttnConfig fields (e.g. consumers=3); repeatable")
    p.add_argument("--variant-only", nargs="*", help="the shapes of the variants (as --only; default: all)")
    p.add_argument("--schedule", action="store_true", help="print the causal walks' balance in a cost model")
    args = p.parse_args(argv)
    TILING.update(block_n=args.block_n, stages=args.stages)
    if args.persistent != "auto":
        TILING.update(persistent=args.persistent == "yes")
    if args.schedule:
        return schedule()
    try:
        variants = _variants(args)
    except ValueError as e:
        p.error(str(e))
    if args.build:
        return build(args.build, args.only, not args.no_checks, variants)
    if args.artifacts:
        return run(args)
    p.error("give --build DIR or --artifacts DIR")
    return 2


if __name__ == "__main__":
    sys.exit(main())
