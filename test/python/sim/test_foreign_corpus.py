"""The foreign corpus (test/fixtures/foreign: NVIDIA's CuTe DSL examples, bench/foreign/make_corpus.py,
and Triton's tutorial kernels, bench/foreign/triton_corpus.py) runs as shipped on tile-sim and matches
its numpy references: bit for bit, or within the tolerance its manifest derives for approximate
math; the ISA rules a kernel breaks are exactly its listed findings in the default (lenient) mode and
errors in strict mode; a kernel with none runs clean (strict mode would run it the same); our own
kernels run strict. The fast tier (``-m "not slow"``) runs a short kernel of each source and kind
(FAST); the others are marked slow and run in `make test-slow`."""

import json
import os
import re
import sys

import numpy as np
import pytest

from tile_mlir.sim import EmulationError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIX = os.path.join(ROOT, "test", "fixtures", "foreign")
sys.path.insert(0, os.path.join(ROOT, "bench", "foreign"))
import corpus  # noqa: E402

NAMES = corpus.names(FIX)
#: the kernels `make test` runs and assembles: a short one of each source and kind (elementwise,
#: norms, a GEMM of each architecture, TMA, tensor-memory copies, attention): under 8 s each in a
#: --durations run of the fast tier at load 12 on 2 cores; the others (5 to 29 s each in that run,
#: more for the ones slow before; Triton's attention with the proxy rule it breaks among them) run in
#: `make test-slow` (bench/foreign/corpus_table.py times them all)
FAST = {"ampere_elementwise_add", "ampere_elementwise_add_autotune",  # (0.7 s)
        "ampere_elementwise_apply_leaky_relu",
        "ampere_tensorop_gemm", "bw_dense_1cta", "bw_tma_v0_copy",
        "hopper_fmha", "rmsnorm_10", "rmsnorm_90", "triton_dot",
        "triton_gluon_tmem_copy_128x128_w8_10",
        "triton_layer_norm_bwd_dx_90", "triton_matmul_90", "triton_softmax_90",
        "triton_gluon_tma_memcpy_500_90"}  # host TensorDescriptors (bench/foreign/triton_desc.py)
#: the ISA rules each kernel breaks (tile-sim findings, by rule) beyond the tcgen05.ld pattern of
#: test_runs_as_shipped_and_matches; a kernel in neither breaks none
RULES = {"bw_tma_v0_copy": {"ordering"},  # exits with bulk stores not waited for
         "bw_tma_v1_transpose": {"ordering"},
         "hopper_fmha": {"ordering"},  # (measured with sim-approx's models merged)
         "hopper_fmha_causal": {"ordering"},
         # Triton 3.5's attention: its MMAs read K and V tiles that cp.async wrote, with no
         # fence.proxy.async after the copies completed (test_triton_attention_breaks_the_proxy_rule);
         # the sm_100a ones also build tcgen05 descriptors with bits 46-48 = 0b000
         "triton_attention_fwd_90": {"ordering"},
         "triton_attention_fwd_causal_90": {"ordering"},
         "triton_attention_fwd_10": {"ordering", "smem-descriptor-version"},
         "triton_attention_fwd_causal_10": {"ordering", "smem-descriptor-version"},
         # warpgroup 1 is the MMA, TMA and scale-TMA warps (setmaxnreg.dec 96) and an idle warp
         # (setmaxnreg.dec 24): "the same setmaxnreg instruction must be executed by all warps
         # in a warpgroup" (PTX ISA, setmaxnreg)
         "bw_mixed_input_gemm_i8_f16": {"setmaxnreg"},
         "bw_mixed_input_gemm_i4_f16": {"setmaxnreg"},
         # its warpgroup 1: setmaxnreg.dec 96 (warp 4), 80 (warps 5, 6) and 64 (warp 7)
         "bw_grouped_mixed_input_gemm_i8_f16": {"setmaxnreg"},
         "bw_grouped_mixed_input_gemm_i4_acc_scale_f16": {"setmaxnreg"}}  # .dec 80, 72, 64
TRITON_ATTENTION = [n for n in RULES if n.startswith("triton_attention_fwd")]
#: the kernels bench/foreign/launch_seq.py records (a sequence of launches, or a launch with a
#: preferred cluster) that execute tcgen05.ld: per rule, the number of distinct tcgen05.ld lines
#: it is found at (the backward kernel reads S, dP and dK/dV from TMEM after an mbarrier wait with
#: no tcgen05.fence::after_thread_sync, and reads some destinations before tcgen05.wait::ld, as the
#: CuTe GEMMs do; fp16_gemm_4's fallback-cluster path has one tcgen05.ld, its preferred path
#: another; the MLA decode's split-KV kernel reads S, the correction and O so)
SEQUENCE_RULES = {"bw_fmha_bwd": {"tcgen05.fence::after_thread_sync": 14, "tcgen05.wait::ld": 12},
                  "bw_tutorial_fp16_gemm_4": {"tcgen05.fence::after_thread_sync": 1,
                                              "tcgen05.wait::ld": 1},
                  "bw_mla_decode_fp16": {"tcgen05.fence::after_thread_sync": 10,
                                         "tcgen05.wait::ld": 11},
                  "bw_mla_decode_fp8": {"tcgen05.fence::after_thread_sync": 10,
                                        "tcgen05.wait::ld": 11}}
#: uses per lane of a tcgen05.ld's destinations before a tcgen05.wait::ld as tile-sim counts them
#: (each operation on an unwaited value), where not one per register: the EFC GEMM has no
#: tcgen05.wait::ld at all, packs the 16 registers of its .x16 load into 8 pairs and reads every
#: pair twice, by a mul.f32x2 (its two f32 halves: two uses) for D and a st.shared.v2 for Y: 24;
#: the amax GEMM unpacks its 16 pairs for abs.f32 of all 32 values (32) and st.shared.v2s the
#: 16 pairs for the TMA store of C (16): 48
REREADS = {"bw_efc_custom_epilogue_dense_gemm": 24, "bw_blockscaled_mxf8_amax": 48}
#: kernels tile-sim refuses to run to the end, with the reason: none (docs/emulator.md §11.1)
REFUSED: dict[str, str] = {}


def corpus_params(names):
    return [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in names]


def ld_lines(ptx):
    return [i for i, l in enumerate(ptx.split("\n"), 1) if "tcgen05.ld." in l]


def test_corpus_is_complete_and_its_contracts_are_recorded():
    assert {"bw_dense_1cta", "bw_dense_2cta", "bw_persistent", "bw_blockscaled_mxf8",
            "bw_blockscaled_nvf4", "hopper_dense", "hopper_dense_f16", "tma_transpose",
            "triton_dot"} <= set(NAMES) and len(NAMES) >= 30
    assert {json.load(open(os.path.join(FIX, f"{n}.json")))["arch"] for n in NAMES} == {
        "sm_80", "sm_90a", "sm_100a"}
    for name in NAMES:
        man = json.load(open(os.path.join(FIX, f"{name}.json")))
        bufs = {b["name"] for b in man["buffers"]}
        ptx = open(os.path.join(FIX, f"{name}.ptx")).read()
        for launch in corpus.launches(man):  # one, or a sequence over the same buffers
            maps = [p for p in launch["params"] if p["kind"] == "tensor_map"]
            assert len(maps) == len(launch["descriptor_words"])
            for p in maps:
                assert {"data_type", "rank", "global_dim", "global_strides", "box_dim",
                        "element_strides", "interleave", "swizzle", "l2_promotion",
                        "oob_fill"} <= set(p)
            assert {p["buffer"] for p in launch["params"] if "buffer" in p} <= bufs
            assert {f["buffer"] for p in launch["params"] for f in p.get("pointers", [])} <= bufs
            assert launch["dynamic_smem"] >= 0
            assert len(launch["grid"]) == len(launch["block"]) == len(launch["cluster"]) == 3
            assert f".entry {launch['kernel']}(" in ptx
        assert set(man["inputs"]) | set(man["outputs"]) <= bufs and man["outputs"]
        tol = man.get("tolerance")
        assert man["reference"] and (not tol or tol["why"])
        assert not tol or "outputs" not in tol or set(tol["outputs"]) == set(man["outputs"])
        assert f".target {man['arch']}" in ptx
        for b in man["buffers"]:  # codes of a narrow float: bytes, decoded by corpus.compare
            assert b.get("element") in (None, "e4m3") and (not b.get("element") or
                                                           b["dtype"] == "uint8")
        data = np.load(os.path.join(FIX, f"{name}.npz"))
        assert set(data.files) == set(man["inputs"]) | {f"ref_{n}" for n in man["outputs"]}


@pytest.mark.parametrize("name", corpus_params(NAMES))
def test_runs_as_shipped_and_matches(name):
    if name in REFUSED:
        with pytest.raises(EmulationError, match=REFUSED[name]):
            corpus.run(FIX, name)
        return
    outs, refs, res = corpus.run(FIX, name)  # run_ptx's default: lenient
    man, _, data = corpus.load(FIX, name)
    for n, ref in refs.items():
        ok, how = corpus.compare(man, name, outs[n], ref, data, n)
        assert ok, f"{name}: {n}: {how}"
    ptx = open(os.path.join(FIX, f"{name}.ptx")).read()
    extra = RULES.get(name, set())
    assert extra <= {f.rule for f in res.findings}, res.findings
    found = {(f.rule, f.line) for f in res.findings if f.rule not in extra}
    fenceless = ("tcgen05.ld." in ptx and "tcgen05.mma" in ptx  # an MMA's result read back
                 and "tcgen05.fence::after_thread_sync" not in ptx)
    if not fenceless:
        assert found == set(), res.findings
    elif name in TRITON_ATTENTION:  # as triton_dot, at every commit and tcgen05.ld it runs
        lines = ptx.split("\n")
        commits = {i for i, l in enumerate(lines, 1) if "tcgen05.commit" in l}
        assert "tcgen05.wait::ld" in ptx and {r for r, _ in found} == {
            "generic-address", "tcgen05.fence::after_thread_sync"}, res.findings
        assert {L for r, L in found if r == "generic-address"} <= commits
        assert {L for r, L in found if r != "generic-address"} <= set(ld_lines(ptx))
    elif name in SEQUENCE_RULES:  # a sequence: the tcgen05 rules at the tcgen05.ld it names
        lds = set(ld_lines(ptx))
        want = SEQUENCE_RULES[name]
        assert {r for r, _ in found} == set(want), res.findings
        for rule, count in want.items():
            lines = {L for r, L in found if r == rule}
            assert lines <= lds and len(lines) == count, (rule, sorted(lines))
    elif name.startswith("bw_fmha"):  # the GEMMs' two rules at the tcgen05.ld of S and O (of
        # the paths this size runs); its row statistics' loads (x2, waited) keep to the rules
        lds = set(ld_lines(ptx))
        fence = {L for r, L in found if r == "tcgen05.fence::after_thread_sync"}
        assert fence and fence == {L for r, L in found if r == "tcgen05.wait::ld"} and \
            fence < lds and {r for r, _ in found} == {"tcgen05.fence::after_thread_sync",
                                                     "tcgen05.wait::ld"}
        lines = ptx.split("\n")
        assert all(".x2." not in lines[L - 1] for L in fence)
    elif name == "triton_dot":  # waits for its tcgen05.ld, but commits to a .shared::cta offset
        commit = [i for i, l in enumerate(ptx.split("\n"), 1) if "tcgen05.commit" in l]
        assert "tcgen05.wait::ld" in ptx and "tcgen05.fence::after_thread_sync" not in ptx
        assert found == {("generic-address", commit[0]),
                         ("tcgen05.fence::after_thread_sync", ld_lines(ptx)[0])}
        assert all(f.source and re.search(r"triton_dot\.py:32:\d+$", f.source) for f in res.findings)
    elif name.startswith("bw_blockwise"):  # no tcgen05.wait::ld at all; its four tcgen05.ld of the
        # MMA's results lack the fence too; the last reads the running sum the epilogue keeps
        # in TMEM with its own tcgen05.st (waited by tcgen05.wait::st: no fence rule there)
        lds = ld_lines(ptx)
        assert "tcgen05.wait::ld" not in ptx and len(lds) == 5
        assert found == {(r, L) for L in lds[:4] for r in ("tcgen05.fence::after_thread_sync",
                                                           "tcgen05.wait::ld")} | {
            ("tcgen05.wait::ld", lds[4])}
        count = {(f.rule, f.line): f.count for f in res.findings}
        assert all(count[("tcgen05.wait::ld", L)] == 32 * 32 * count[
            ("tcgen05.fence::after_thread_sync", L)] for L in lds[:4])  # .x32 each
        assert count[("tcgen05.wait::ld", lds[4])] % (32 * 32) == 0
    else:  # no fence between the commit's mbarrier wait and tcgen05.ld; tcgen05.wait::ld after
        # the registers are read, if at all
        want = {(r, L) for L in ld_lines(ptx)
                for r in ("tcgen05.fence::after_thread_sync", "tcgen05.wait::ld")}
        assert found == want
        # exactly: per warp that executes a tcgen05.ld, one fence finding; per lane and
        # destination register of it (its .xN), one read before the wait
        lines = ptx.split("\n")
        count = {(f.rule, f.line): f.count for f in res.findings}
        for L in ld_lines(ptx):
            n = int(re.search(r"\.32x32b\.x(\d+)\.", lines[L - 1]).group(1))
            assert count[("tcgen05.wait::ld", L)] == 32 * REREADS.get(name, n) * count[
                ("tcgen05.fence::after_thread_sync", L)]
        assert all(re.match(r"tile-sim finding: line \d+( \([^)]*\))?: \[tcgen05\.", str(f))
                   for f in res.findings if f.rule not in extra)


@pytest.mark.slow  # the four attention kernels again
@pytest.mark.parametrize("name", TRITON_ATTENTION)
def test_triton_attention_breaks_the_proxy_rule(name):
    """Triton 3.5's fused attention (sm_90a and sm_100a) fills its K and V tiles with cp.async,
    waits (cp.async.wait_group, bar.sync) and lets wgmma / tcgen05.mma read them, with no
    fence.proxy.async between the completed copies and the MMA.  The PTX ISA makes that a broken
    rule, not a tile-sim artefact: "cp.async is treated as a weak memory operation performed in the
    generic proxy" (cp.async); wgmma.mma_async and tcgen05.mma read shared memory in the async
    proxy, and "an async proxy fence must be used to establish an ordering between prior writes to
    shared memory matrices and subsequent reads of the same matrices in a wgmma.mma_async
    instruction" (wgmma.fence; tcgen05: "Shared Memory Accesses").  So every ordering finding is
    an MMA's B operand read without the fence, and strict mode stops at the first one."""
    ptx = open(os.path.join(FIX, f"{name}.ptx")).read()
    lines = ptx.split("\n")
    _, _, res = corpus.run(FIX, name)
    order = [f for f in res.findings if f.rule == "ordering"]
    assert order
    for f in order:
        assert re.match(r"(wgmma|tcgen05\.mma) B at line (\d+) \(async proxy\) reads shared byte "
                        r"0x[0-9a-f]+ of CTA \d+ written by a generic-proxy store .* with no "
                        r"fence\.proxy\.async between them", f.message), f.message
        assert re.search(r"\b(wgmma\.mma_async|tcgen05\.mma)\b", lines[f.line - 1])
    if name.endswith("_10"):  # every executed MMA has descriptors without the version bit
        ver = {f.line for f in res.findings if f.rule == "smem-descriptor-version"}
        assert ver and all("tcgen05.mma" in lines[L - 1] for L in ver)
    first = min(f.line for f in res.findings)  # strict: an error at the first broken rule
    with pytest.raises(EmulationError, match=r"no fence\.proxy\.async|bits 46-48 = 0b000|"
                                             r"\.shared::cta offset") as e:
        corpus.run(FIX, name, strict=True)
    assert e.value.line is not None and e.value.line >= first


@pytest.mark.parametrize("name", ["bw_dense_1cta", "bw_dense_2cta", "bw_persistent",
                                  "bw_blockscaled_mxf8", "bw_blockscaled_nvf4"])
def test_fenceless_kernel_fails_strict(name):
    ptx = open(os.path.join(FIX, f"{name}.ptx")).read()
    with pytest.raises(EmulationError, match=r"fence::after_thread_sync.*ISA rule") as e:
        corpus.run(FIX, name, strict=True)
    assert e.value.line in ld_lines(ptx)


def test_our_kernels_run_strict():
    import tile_mlir
    from tile_mlir.runtime.emulator import SimBackend
    art = tile_mlir.compile(open(os.path.join(ROOT, "examples", "demo.mlir")).read(),
                            emit=("ptx",))
    assert SimBackend(art, None).options["strict"] is True  # jit()'s sim backend, unless strict=False
    assert SimBackend(art, None, options={"strict": False}).options["strict"] is False
    assert os.environ.get("TILE_MLIR_SIM_STRICT") == "1"  # test/python/conftest.py


@pytest.mark.slow  # block-scaled GEMMs on tile-sim
@pytest.mark.parametrize("kind", ["mxf8", "nvf4"])
def test_blockscaled_reads_every_scale_factor(kind, tmp_path):
    """The stored reference is what the stored buffers decode to (bench/foreign/blockscaled.py
    `reference`: e4m3 / e2m1 codes, low nibble first, scales from the 32x4x4 atoms); doubling one
    scale of A and one of B changes C exactly as that decoding says, on tile-sim as shipped."""
    import shutil
    import blockscaled
    name = f"bw_blockscaled_{kind}"
    man, _, data = corpus.load(FIX, name)
    M, N, K = man["shape"]["M"], man["shape"]["N"], man["shape"]["K"]
    bufs = {n: data[n] for n in man["inputs"]}
    np.testing.assert_array_equal(blockscaled.reference(kind, bufs, M, N, K).astype(np.float32),
                                  data["ref_c"])
    fmt, vec = blockscaled.KINDS[kind][1], blockscaled.KINDS[kind][2]
    for key, mn, (r, k) in (("sfa", M, (M - 3, 1)), ("sfb", N, (37, K // vec - 1))):
        sf = blockscaled.unblocked_scales(bufs[key], mn, K // vec).copy()
        sf[r, k] = blockscaled.codes_of(fmt, [2 * blockscaled.decode(fmt, [sf[r, k]])[0] or 1])[0]
        bufs[key] = blockscaled.blocked_scales(sf, mn, K // vec)
    ref = blockscaled.reference(kind, bufs, M, N, K).astype(np.float32)
    rows, cols = np.nonzero(ref != data["ref_c"])  # in one row and one column of C only
    assert len(rows) > M // 2 and ((rows == M - 3) | (cols == 37)).all()
    for ext in ("ptx", "json"):
        shutil.copy(os.path.join(FIX, f"{name}.{ext}"), tmp_path)
    np.savez(tmp_path / f"{name}.npz", **bufs, ref_c=ref)
    outs, refs, _ = corpus.run(str(tmp_path), name)
    np.testing.assert_array_equal(outs["c"].view(np.uint8), ref.view(np.uint8))


def test_fixtures_are_what_the_manifest_says():
    """MANIFEST.json (bench/foreign/corpus_manifest.py) hashes every fixture file, each kernel's
    source and the generator scripts: a fixture edited by hand, or a generator changed without
    regenerating the corpus, fails here."""
    import hashlib
    man = json.load(open(os.path.join(FIX, "MANIFEST.json")))
    sha = lambda path: hashlib.sha256(open(path, "rb").read()).hexdigest()
    assert set(man["kernels"]) == set(NAMES)
    for name, k in man["kernels"].items():
        assert k["source_sha256"] and k["source"]
        for ext, digest in k["files"].items():
            assert sha(os.path.join(FIX, f"{name}.{ext}")) == digest, f"{name}.{ext}"
    for g, digest in man["generators"].items():
        assert sha(os.path.join(ROOT, "bench", "foreign", g)) == digest, g


def test_a_clean_kernel_runs_strict():
    outs, refs, res = corpus.run(FIX, "ampere_tensorop_gemm", strict=True)
    np.testing.assert_array_equal(outs["c"], refs["c"])
    assert res.findings == []


@pytest.mark.parametrize("name", corpus_params(NAMES))
def test_corpus_assembles(name):
    sys.path.insert(0, os.path.join(ROOT, "test", "python", "sim"))
    from ptxgen import ptxas_check
    man = json.load(open(os.path.join(FIX, f"{name}.json")))
    if ptxas_check(open(os.path.join(FIX, f"{name}.ptx")).read(), man["arch"]) == "skip":
        pytest.skip("no ptxas found")


def test_a_sequence_launch_writes_at_its_pointer_offsets():
    """The first launch of bw_fmha_bwd alone (sum_OdO, bench/foreign/launch_seq.py): its two
    outputs are sub-tensors of the workspace, passed as pointer fields holding byte offsets 0 and
    4 S; D = -rowsum(O dO) lands at the first (O dO products exact in f16, their f32 sum within
    64 f32 roundings) and LSE times the f32 constant -log2 e at the second, bit for bit; the rest
    of the workspace (the dQ accumulator the later launches use) stays zero. Its first CTA only
    (rows 0-15 of its 16-row blocks), to keep it in the fast tier."""
    from tile_mlir.sim import run_ptx
    man, ptx, data = corpus.load(FIX, "bw_fmha_bwd")
    first = corpus.launches(man)[0]
    assert [f["buffer"] for p in first["params"] for f in p.get("pointers", [])].count(
        "workspace") == 2
    bufs = corpus.arrays(man, data)
    assert first["grid"] == [man["shape"]["S"] // 16, 1, 1]
    run_ptx(ptx, first["kernel"], corpus.arguments("bw_fmha_bwd", first, bufs), grid=(1, 1, 1),
            block=first["block"], cluster=first["cluster"], dynamic_smem=first["dynamic_smem"],
            strict=True)
    S, R = man["shape"]["S"], 16
    ws = bufs["workspace"].view(np.float32)
    o, do = (data[n].reshape(S, -1)[:R].astype(np.float64) for n in ("o", "do"))
    terms = o * do
    assert np.abs(terms).sum(1).min() > 0
    err = np.abs(ws[:R] + terms.sum(1))
    assert np.all(err <= 64 * 2.0 ** -24 * np.abs(terms).sum(1))
    lse = data["lse"].reshape(S)[:R]
    np.testing.assert_array_equal(ws[S:S + R], np.float32(-np.log2(np.e)) * lse)
    assert not ws[R:S].any() and not ws[S + R:].any()


@pytest.mark.slow  # 10 s on tile-sim
def test_preferred_cluster_schedule_matches():
    """fp16_gemm_4 is launched with a fallback cluster (2, 1, 1) and a preferred one (2, 4, 1): the
    GPU runs each cluster in the preferred shape where it fits. Every cluster in the preferred shape
    (the kernel's other branch, on %cluster_nctaid) gives the same C bit for bit, with the tcgen05
    findings at that branch's own tcgen05.ld."""
    man, ptx, _ = corpus.load(FIX, "bw_tutorial_fp16_gemm_4")
    (launch,) = corpus.launches(man)
    assert launch["cluster"] == [2, 1, 1] and launch["preferred_cluster"] == [2, 4, 1]
    _, _, fallback = corpus.run(FIX, "bw_tutorial_fp16_gemm_4")
    outs, refs, res = corpus.run(FIX, "bw_tutorial_fp16_gemm_4", preferred=True)
    np.testing.assert_array_equal(outs["c"].view(np.uint16), refs["c"].view(np.uint16))
    lines = {f.line for f in res.findings}
    assert len(lines) == 1 and lines <= set(ld_lines(ptx))
    assert lines.isdisjoint({f.line for f in fallback.findings})


@pytest.mark.slow  # 1 s: the kernel's setup up to its first copy
def test_hopper_grouped_gemm_copies_through_rank3_maps(tmp_path):
    """The Hopper grouped GEMM's own loads are NVVM ``cp.async.bulk.tensor.3d`` ops with
    coordinates (k, m, 0), and the ISA gives a tensor copy the dimensionality ``.dim`` names: the
    host must build rank-3 maps, which the example's does (templates with every mode run-time, the
    L mode kept; the DSL's inline map words carry rank 3 in the same field as its rank-3 GEMM maps,
    bench/foreign/cute_cases.py LAYOUT_8x8x1).  Through the rank-2 maps a static L mode gives,
    tile-sim refuses the first copy rather than guess."""
    import shutil
    name = "hopper_grouped_gemm"
    man, ptx, _ = corpus.load(FIX, name)
    copies = re.findall(r"cp\.async\.bulk\.tensor\.(\d)d", ptx)
    assert copies and set(copies) == {"3"}
    maps = [p for p in man["params"] if p["kind"] == "tensor_map"]
    assert maps and all(p["rank"] == 3 and p["global_dim"][2] == 1 for p in maps)
    for p in maps:  # the same maps without their L mode
        p.update(rank=2, global_dim=p["global_dim"][:2], global_strides=p["global_strides"][:1],
                 box_dim=p["box_dim"][:2], element_strides=p["element_strides"][:2])
    shutil.copy(os.path.join(FIX, f"{name}.npz"), tmp_path)
    shutil.copy(os.path.join(FIX, f"{name}.ptx"), tmp_path)
    with open(tmp_path / f"{name}.json", "w") as f:
        json.dump(man, f)
    with pytest.raises(EmulationError, match=r"\.3d for a tensor map of rank 2"):
        corpus.run(str(tmp_path), name)
