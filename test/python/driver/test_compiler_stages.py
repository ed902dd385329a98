"""compile() as stages (stages.py, pipeline.py): one front door, every stage's IR from Python
(Artifact.asm), the dump directory, the PTX made once and assembled once."""
import os

import pytest

import tile_mlir
from tile_mlir.diagnostics import TileError
from tile_mlir.errors import ArgumentError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEMO_PATH = os.path.join(ROOT, "examples", "demo.mlir")
DEMO = open(DEMO_PATH).read()


@pytest.fixture(scope="module")
def kept():
    return tile_mlir.compile(DEMO, keep="all")


def test_artifact_repr_is_short(kept):
    text = repr(kept)
    assert len(text) < 300 and len(str(kept)) < 300
    assert text == ("Artifact('demo', arch='sm_100a', params=(A: uint8[32x16], out: uint8[128x16]), grid=(1, 1, 1), "
                    f"block=(128, 1, 1), ptx={len(kept.ptx)} chars, cubin={len(kept.cubin)} bytes, "
                    "asm=['tile', 'dispatched', 'nvvm', 'llvm', 'llvmir', 'ptx', 'sass'])")


def test_every_stage_ir_from_python(kept):
    asm = kept.asm
    assert list(asm) == ["tile", "dispatched", "nvvm", "llvm", "llvmir", "ptx", "sass"]
    assert '"tile.copy_async"' in asm["tile"] and "tcgen05.cp" not in asm["tile"]
    assert '"tile.copy_async"' not in asm["dispatched"] and "nvvm.tcgen05.cp" in asm["dispatched"]
    assert '"tile.kernel"' in asm["dispatched"]
    assert "gpu.module @tile_kernels" in asm["nvvm"] and "\"tile." not in asm["nvvm"]  # no tile op left
    assert "scf." in asm["nvvm"] and "scf." not in asm["llvm"] and "llvm.func @demo" in asm["llvm"]
    # LLVM IR text, what libNVVM (LLVM's NVPTX backend upstream) is given: the kernel, its intrinsics
    assert "define ptx_kernel void @demo(" in asm["llvmir"] and "@llvm.nvvm.tcgen05.cp" in asm["llvmir"]
    assert asm["ptx"] == kept.ptx and "tcgen05.cp.cta_group::1.32x128b.warpx4" in asm["ptx"]


def test_sass_where_nvdisasm_exists(kept):
    from tile_mlir.runtime.disasm import find_nvdisasm

    if find_nvdisasm() is None:
        pytest.skip("nvdisasm not installed")
    assert ".text.demo" in kept.asm["sass"] and "EXIT" in kept.asm["sass"]


def test_stage_ir_is_kept_only_when_asked():
    art = tile_mlir.compile(DEMO)
    assert list(art.asm) == ["ptx", "sass"] and art.kept == {}
    with pytest.raises(KeyError, match=r"no IR 'nvvm' \(not kept: compile\(\.\.\., keep=\('nvvm',\)\) keeps it\)"):
        art.asm["nvvm"]
    assert list(tile_mlir.compile(DEMO, keep=("dispatched",)).asm) == ["dispatched", "ptx", "sass"]
    with pytest.raises(ArgumentError, match="keep: no stage IR named 'nvmm'"):
        tile_mlir.compile(DEMO, keep=("nvmm",))


def test_cubin_alone_and_with_the_ptx_are_the_same():
    both = tile_mlir.compile(DEMO)
    alone = tile_mlir.compile(DEMO, emit=("cubin",))
    ptx = tile_mlir.compile(DEMO, emit=("ptx",))
    assert alone.cubin == both.cubin and alone.ptx == "" and ptx.cubin == b"" and ptx.ptx == both.ptx


def _binary_runs(monkeypatch):
    import tile_mlir.driver.pipeline as pipeline

    runs = []
    real = pipeline.pass_manager

    def counting(elements, ctx, **kw):
        runs.extend(e.partition("{")[0] for e in elements if "module-to-binary" in e)
        return real(elements, ctx, **kw)

    monkeypatch.setattr(pipeline, "pass_manager", counting)
    return runs


def test_the_backend_runs_once_for_the_ptx_and_the_cubin(monkeypatch):
    import tile_mlir.driver.assemble as assemble

    ref = tile_mlir.compile(DEMO)
    runs = _binary_runs(monkeypatch)
    if assemble._has_one_run_pass():  # the CuTe DSL's bindings: one run makes both
        assert tile_mlir.compile(DEMO).cubin == ref.cubin and runs == ["cute-module-to-binary"]
        runs.clear()
    # else, or with line info: format=isa makes the PTX, and the cubin run only assembles it (an empty
    # gpu.module whose module asm the PTX is)
    monkeypatch.setattr(assemble, "_has_one_run_pass", lambda: False)
    art = tile_mlir.compile(DEMO)
    assert runs == ["gpu-module-to-binary", "gpu-module-to-binary"]
    assert (art.ptx, art.cubin) == (ref.ptx, ref.cubin)
    runs.clear()
    tile_mlir.compile(DEMO, emit=("cubin",))
    assert runs == ["gpu-module-to-binary"]


def test_dump_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_MLIR_DUMP_DIR", str(tmp_path / "dump"))
    art = tile_mlir.compile(DEMO)
    names = sorted(os.listdir(tmp_path / "dump"))
    assert names == ["demo.cubin", "demo.dispatched.mlir", "demo.json", "demo.llvm.mlir", "demo.llvmir.ll",
                     "demo.nvvm.mlir", "demo.ptx", "demo.tile.mlir"]
    assert (tmp_path / "dump" / "demo.ptx").read_text() == art.ptx
    assert (tmp_path / "dump" / "demo.nvvm.mlir").read_text() == art.asm["nvvm"]
    assert tile_mlir.Artifact.load(tmp_path / "dump" / "demo.json").cubin == art.cubin


def test_dump_dir_never_follows_a_symbolic_link(tmp_path, monkeypatch):
    dump = tmp_path / "dump"
    dump.mkdir()
    inside = dump / "victim.txt"
    inside.write_text("keep me")
    (dump / "demo.nvvm.mlir").symlink_to(inside)
    monkeypatch.setenv("TILE_MLIR_DUMP_DIR", str(dump))
    with pytest.raises(ArgumentError, match="demo.nvvm.mlir is a symbolic link: not written"):
        tile_mlir.compile(DEMO)
    assert inside.read_text() == "keep me"
    (dump / "demo.nvvm.mlir").unlink()
    (dump / "demo.ptx").symlink_to(tmp_path / "outside.ptx")
    with pytest.raises(ArgumentError, match="resolves outside"):
        tile_mlir.compile(DEMO)
    assert not (tmp_path / "outside.ptx").exists()


def test_a_module_is_compiled_as_it_is_never_printed_and_parsed(monkeypatch):
    from tile_mlir.frontend.context import make_context, parse_source
    import tile_mlir.frontend.context as context
    import tile_mlir.driver.pipeline as pipeline

    module = parse_source(DEMO, "demo.mlir", make_context())
    before = str(module)
    ref = tile_mlir.compile(DEMO)

    def refuse(*a, **k):
        raise AssertionError("parsed again")

    monkeypatch.setattr(pipeline, "parse_source", refuse)
    monkeypatch.setattr(context, "parse_source", refuse)
    art = tile_mlir.compile(module)
    assert art.cubin == ref.cubin and art.ptx == ref.ptx
    assert str(module) == before  # compiled a clone


def test_a_source_is_read_once_through_jit(monkeypatch, tmp_path):
    import tile_mlir.frontend.source as source

    monkeypatch.setenv("TILE_MLIR_CACHE", "0")
    reads = []
    real = source._read_file
    monkeypatch.setattr(source, "_read_file", lambda path, what: reads.append(path) or real(path, what))
    path = tmp_path / "once.mlir"
    path.write_text(DEMO.replace('sym_name = "demo"', 'sym_name = "once"'))
    k = tile_mlir.jit(path, backend="sim")
    assert k.name == "once" and reads == [str(path)]


def _both(text, tmp_path):
    """(compile's errors, tile-opt's errors) for one input."""
    import io

    from tile_mlir.opt.command import TileOptMain

    with pytest.raises(TileError) as e:
        tile_mlir.compile(text, filename=str(tmp_path / "f.mlir"))
    path = tmp_path / "f.mlir"
    path.write_text(text)
    err = io.StringIO()
    assert TileOptMain([str(path)], io.StringIO(), err).run() == 1
    return [d.format() for d in e.value.diagnostics if d.severity == "error"], err.getvalue().strip().split("\n")


def test_compile_and_tile_opt_refuse_a_foreign_op_alike(tmp_path):
    """One rule (pipeline.refuse_unregistered): the verifier's explanation of an unknown op that uses
    tile buffers, else mlir-opt's unregistered-dialect error."""
    foreign = DEMO.replace('  %tid = "tile.thread_id"', '  "foo.bar"() : () -> ()\n  %tid = "tile.thread_id"')
    ours, opt = _both(foreign, tmp_path)
    assert ours == opt and len(ours) == 1 and "operation 'foo.bar' belongs to an unregistered dialect" in ours[0]
    misspelt = DEMO.replace('"tile.copy"(%smem, %A)', '"tiel.copy"(%smem, %A)')
    ours, opt = _both(misspelt, tmp_path)
    assert ours == opt and len(ours) == 1
    assert "op 'tiel.copy' of an unknown dialect uses tile buffers; did you mean 'tile.copy'?" in ours[0]


def test_line_info_in_the_ptx_and_the_same_cubin(tmp_path):
    import re
    import shutil
    import subprocess

    from tile_mlir.driver.line_info import without_line_info

    plain = tile_mlir.compile(DEMO, filename="k.mlir")
    art = tile_mlir.compile(DEMO, filename="k.mlir", line_info=True)
    assert re.search(r'^\t\.file\t1 "k\.mlir"$', art.ptx, re.M)
    line = next(i for i, s in enumerate(DEMO.split("\n"), 1) if '"tile.copy_async"' in s)
    # the tcgen05.cp comes after a .loc naming the copy_async's line
    cp = art.ptx.index("tcgen05.cp.cta_group::1")
    assert re.findall(r"\.loc\t1 (\d+) \d+", art.ptx[:cp])[-1] == str(line)
    assert without_line_info(art.ptx) == plain.ptx and art.cubin == plain.cubin
    # no DWARF: directives only (LLVM 22 prints an empty .debug_macinfo section, nothing in it)
    assert re.search(r"^\.target sm_100a$", art.ptx, re.M)
    assert not re.search(r"\.section\s+\.debug_\w+\s*\{\s*[^\s}]", art.ptx)
    ptxas = shutil.which("ptxas")
    if ptxas:
        (tmp_path / "k.ptx").write_text(art.ptx)
        run = subprocess.run([ptxas, "-arch=sm_100a", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr


def test_line_info_names_a_plain_file_name_only():
    art = tile_mlir.compile(DEMO, filename='we"ird\nname.mlir', line_info=True)
    assert '\t.file\t1 "<tile>"' in art.ptx


def test_jit_for_tile_sim_asks_for_line_info(monkeypatch):
    monkeypatch.setenv("TILE_MLIR_CACHE", "0")
    assert "\t.loc\t1 " in tile_mlir.jit(DEMO, backend="sim").artifact.ptx
    assert "\t.loc\t" not in tile_mlir.jit(DEMO, backend="sim", line_info=False).artifact.ptx


def test_dump_dir_through_jit_bypasses_the_caches(tmp_path, monkeypatch):
    tile_mlir.jit(DEMO, backend="sim")  # (now in the memory cache)
    monkeypatch.setenv("TILE_MLIR_DUMP_DIR", str(tmp_path / "d"))
    k = tile_mlir.jit(DEMO, backend="sim")
    assert (tmp_path / "d" / "demo.ptx").read_text() == k.artifact.ptx
    assert (tmp_path / "d" / "demo.dispatched.mlir").exists()


def test_a_kernel_op_given_alone_is_compiled_in_a_module():
    from tile_mlir.frontend.context import make_context, parse_source

    module = parse_source(DEMO, "demo.mlir", make_context())
    kernel = module.regions[0].blocks[0].operations[0]
    assert kernel.operation.name == "tile.kernel"
    assert tile_mlir.compile(kernel).cubin == tile_mlir.compile(DEMO).cubin


def test_compiles_of_text_share_their_threads_context_for_a_while(monkeypatch):
    """context.compile_context: a thread's compiles of text share one context (making one costs ~1.2 ms of
    a demo compile), a fresh one every _REUSES; another thread has its own; what an earlier compile left
    in the context changes nothing."""
    import threading

    import tile_mlir.frontend.context as context

    made = []
    real = context.make_context
    monkeypatch.setattr(context, "make_context", lambda: made.append(real()) or made[-1])
    monkeypatch.setattr(context, "_REUSES", 2)
    monkeypatch.setattr(context, "_thread", context._ThreadContext())
    tile_mlir.compile(open(os.path.join(ROOT, "examples", "fill_tmem.mlir")).read())
    after_fill = tile_mlir.compile(DEMO)
    assert len(made) == 1
    fresh = tile_mlir.compile(DEMO)
    assert len(made) == 2 and (after_fill.ptx, after_fill.cubin) == (fresh.ptx, fresh.cubin)
    t = threading.Thread(target=tile_mlir.compile, args=(DEMO,))
    t.start()
    t.join()
    assert len(made) == 3
