"""The public Python API (issue #10): what compile/jit take, kernel argument names and keywords,
element dtypes through ml_dtypes, one exception hierarchy, read-only outputs, the public surface.
Each test names the reproducer it guards. Kernels run on tile-sim (no GPU needed)."""
import inspect
import os
import pathlib
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import tile_mlir
from tile_mlir import ArgumentError, ArgumentTypeError, TileError, TileMLIRError

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
DEMO = os.path.join(ROOT, "examples", "demo.mlir")
FP6 = os.path.join(ROOT, "examples", "fp6_to_tmem.mlir")


def kernel_text(args: str, name: str = "k") -> str:
    """A tile.kernel with block arguments ``args`` (MLIR syntax) that does nothing."""
    return ('"tile.kernel"() ({\n'
            f"^bb0({args}):\n"
            '  "tile.return"() : () -> ()\n'
            f'}}) {{sym_name = "{name}", block = array<i32: 32, 1, 1>}} : () -> ()\n')


def demo_args():
    a = ((np.arange(512) * 7 + 3) % 256).astype(np.uint8).reshape(32, 16)
    return a, np.zeros((128, 16), np.uint8)


@pytest.fixture(autouse=True)
def compile_cache_dir(monkeypatch, tmp_path):
    from tile_mlir.runtime import cache

    monkeypatch.setenv(cache.DIR_ENV, str(tmp_path / "compile-cache"))


# ----------------------------------------------------------------------------- sources


def test_jit_takes_a_str_path_a_pathlike_text_and_bytes():
    """`jit("k.mlir")` parsed the path as IR; only pathlib.Path worked."""
    text = open(DEMO).read()
    for src in (DEMO, pathlib.Path(DEMO), text, text.encode()):
        a, out = demo_args()
        assert tile_mlir.jit(src, backend="sim")(a, out).backend == "sim"
        assert np.array_equal(out, np.tile(a, (4, 1)))


def test_compile_takes_a_module():
    from tile_mlir.frontend.context import make_context, parse_source

    ctx = make_context()
    module = parse_source(open(DEMO).read(), "demo.mlir", ctx)
    art = tile_mlir.compile(module, emit=("ptx",))
    assert art.kernel_name == "demo"
    assert [p.name for p in art.params] == ["arg0", "arg1"]  # printed IR names them so


def test_missing_path_is_no_such_file_not_a_parse_error(tmp_path):
    for src in ("k.mlir", "nope/k.mlir", str(tmp_path / "k.mlir"), tmp_path / "k.mlir"):
        with pytest.raises(ArgumentError, match="no such file"):
            tile_mlir.compile(src)
    with pytest.raises(ArgumentError, match="is a directory"):
        tile_mlir.jit(str(tmp_path))


def test_one_line_ir_text_is_text():
    with pytest.raises(TileError, match="parsing failed"):
        tile_mlir.compile('"tile.x"(%q) : (i32) -> ()')


def test_file_that_is_not_utf8_names_file_and_position(tmp_path):
    p = tmp_path / "bad.mlir"
    p.write_bytes(b"// ok\n\xff\xfe")
    with pytest.raises(ArgumentError, match=r"bad.mlir:2:1: invalid UTF-8 byte 0xff: tile IR text must be UTF-8"):
        tile_mlir.compile(p)


@pytest.mark.parametrize("src", [None, 3, 2.5, ["x"], object()],  # (ids the same in every xdist worker)
                         ids=["None", "3", "2.5", "list", "object"])
def test_compile_of_a_non_source_is_a_type_error(src):
    """`compile(None | bytes | int)` -> AttributeError."""
    with pytest.raises(ArgumentTypeError, match="must be tile IR text") as e:
        tile_mlir.compile(src)
    assert isinstance(e.value, TypeError)


def test_compile_bytes_are_text():
    with pytest.raises(TileError, match="parsing failed"):
        tile_mlir.compile(b"not ir")


@pytest.mark.parametrize("kw,error,msg", [
    ({"arch": 100}, ArgumentTypeError, "arch must be a str"),
    ({"arch": "sm_1"}, ArgumentError, "unknown GPU architecture"),
    ({"emit": "ptx"}, ArgumentTypeError, "emit must be a tuple"),
    ({"emit": ("sass",)}, ArgumentError, "emit must name"),
    ({"kernel": 1}, ArgumentTypeError, "kernel must be a str"),
    ({"filename": b"x"}, ArgumentTypeError, "filename must be a str"),
])
def test_compile_parameters_are_checked(kw, error, msg):
    with pytest.raises(error, match=msg):
        tile_mlir.compile(DEMO, **kw)


def test_jit_parameters_are_checked():
    with pytest.raises(ArgumentError, match="backend must be one of"):
        tile_mlir.jit(DEMO, backend="cuda")
    with pytest.raises(ArgumentTypeError, match="arch must be a str"):
        tile_mlir.jit(DEMO, arch=90)


# ----------------------------------------------------------------------------- argument names


def test_arguments_keep_the_names_the_program_gives():
    """Arguments were named arg0/arg1, not as the kernel names them."""
    art = tile_mlir.compile(DEMO, emit=("ptx",))
    assert [p.name for p in art.params] == ["A", "out"] and art.outputs == ("out",)
    k = tile_mlir.jit(art, backend="sim")
    assert str(inspect.signature(k)) == "(A, out, *, grid=None, block=None, stream=None)" \
        " -> tile_mlir.runtime.backend.LaunchResult"
    a, out = demo_args()
    res = k(out=out, A=a)
    assert list(res.outputs) == ["out"] and list(res.buffers) == ["A", "out"] and np.array_equal(out, np.tile(a, (4, 1)))
    with pytest.raises(ArgumentTypeError, match=r"demo\(\) missing argument\(s\) 'A'"):
        k(out=out)
    with pytest.raises(ArgumentTypeError, match=r"unexpected keyword argument\(s\) 'B'"):
        k(a, out, B=1)
    with pytest.raises(ArgumentError, match=r"argument 0 \('A'\): expected uint8 buffer"):
        k(np.zeros(3, np.float32), out)


@pytest.mark.parametrize("spelled,names", [
    ("%x: i32, %y_1: i32", ["x", "y_1"]),
    ("%0: i32, %y: i32", ["arg0", "y"]),  # numeric SSA names are no identifiers
    ("%in: i32, %y: i32", ["arg0", "y"]),  # keyword
    ("%grid: i32, %n: i32", ["arg0", "n"]),  # a kernel call's own keyword
    ("%a.b: i32, %c$: i32", ["arg0", "arg1"]),
    ("%arg1: i32, %in: i32", ["arg0", "arg1"]),  # a fallback would repeat a name: all fall back
    ("%_k: i32, %__r: i32", ["_k", "__r"]),
])
def test_argument_name_fallbacks(spelled, names):
    art = tile_mlir.compile(kernel_text(spelled), emit=("ptx",))
    assert [p.name for p in art.params] == names
    k = tile_mlir.jit(art, backend="sim")
    assert list(inspect.signature(k).parameters)[:2] == names
    assert k(**{names[0]: 1, names[1]: 2}).backend == "sim"


@pytest.mark.parametrize("given,names", [(["x", "y_1"], ["x", "y_1"]), (["grid", "n"], ["arg0", "n"])])
def test_builder_kernels_name_arguments_by_arg_names(given, names):
    """A module built in Python has no text to read names from: the kernel's arg_names name its
    parameters; one that is no parameter name is arg<i>, as for names read from the text."""
    from tile_mlir.frontend.context import make_context
    from tile_mlir.dialect import builders as tb
    from tile_mlir.mlir import ir

    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        with tb.kernel(module, "k", {n: i32 for n in given}, block=(32, 1, 1)):
            tb.ret()
    art = tile_mlir.compile(module, emit=("ptx",))
    assert [p.name for p in art.params] == names
    assert list(inspect.signature(tile_mlir.jit(art, backend="sim")).parameters)[:2] == names


def test_names_on_wrapped_and_multiline_sources():
    two = kernel_text("%p: i32,\n    %q: i32", "k1") + kernel_text("%r: i32", "k2")
    art = tile_mlir.compile(two, kernel="k1", emit=("ptx",))
    assert [p.name for p in art.params] == ["p", "q"]


def test_tile_run_input_by_name(tmp_path, capsys):
    """`tile-run -i A=...` failed."""
    from tile_mlir.runtime.tile_run import main

    a, _ = demo_args()
    np.save(tmp_path / "a.npy", a)
    rc = main([DEMO, "-i", f"A={tmp_path / 'a.npy'}", "--backend", "sim", "--output-dir",
               str(tmp_path), "--print", "none"])
    assert rc == 0, capsys.readouterr().err
    assert np.array_equal(np.load(tmp_path / "out.npy"), np.tile(a, (4, 1)))


# ----------------------------------------------------------------------------- dtypes


def test_element_dtypes_map_through_ml_dtypes():
    """bf16 mapped to uint16 views (undocumented)."""
    types = ["bf16", "f16", "f8E4M3FN", "f8E5M2", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN"]
    spelled = ", ".join(f"%x{i}: !tile.buffer<global, 4x16x{t}>" for i, t in enumerate(types))
    art = tile_mlir.compile(kernel_text(spelled), emit=("ptx",))
    assert [p.dtype for p in art.params] == ["bfloat16", "float16", "float8_e4m3fn",
                                             "float8_e5m2", "float6_e2m3fn", "float6_e3m2fn",
                                             "float4_e2m1fn"]
    assert [p.bits for p in art.params] == [0, 0, 0, 0, 6, 6, 4]
    assert [p.packed_shape for p in art.params][4:] == [(4, 12), (4, 12), (4, 8)]
    k = tile_mlir.jit(art, backend="sim")
    arrays = [np.zeros((4, 16), getattr(ml_dtypes, p.dtype, p.dtype)) for p in art.params]
    assert k(*arrays).backend == "sim"
    # the old bit-pattern views still work; the packed bytes of sub-byte elements too
    k(np.zeros((4, 16), np.uint16), *arrays[1:6], np.zeros((4, 8), np.uint8))
    with pytest.raises(ArgumentTypeError, match=r"argument 0 \('x0'\): expected bfloat16 buffer "
                                                r"of shape \(4, 16\) \(or its uint16 bit "
                                                r"patterns\), got float16"):
        k(np.zeros((4, 16), np.float16), *arrays[1:])


def test_f16_arrays_for_f16_kernels():
    """fp16 arrays were refused for f16 kernels."""
    k = tile_mlir.jit(kernel_text("%h: !tile.buffer<global, 32x16xf16>"), backend="sim")
    assert k(np.zeros((32, 16), np.float16)).backend == "sim"


def test_fp6_elements_are_packed_for_the_kernel_and_match_its_packed_bytes():
    k = tile_mlir.jit(FP6, backend="sim")
    v = np.random.default_rng(6).integers(0, 64, (32, 128)).astype(np.uint8)
    want = np.tile(v, (4, 1))
    w = v.astype(np.uint32).reshape(-1, 4)
    w = w[:, 0] | w[:, 1] << 6 | w[:, 2] << 12 | w[:, 3] << 18
    packed = np.stack([w & 255, (w >> 8) & 255, w >> 16], 1).astype(np.uint8).reshape(32, 96)
    for a in (v.view(ml_dtypes.float6_e3m2fn), packed, v):
        out = np.zeros((128, 128), np.uint8)
        k(a, out)
        assert np.array_equal(out, want)


# ----------------------------------------------------------------------------- arrays


def test_fortran_order_and_strided_arrays_run_through_copies():
    """A Fortran-order array raised the emulator's EmulationError naming a PTX parameter."""
    k = tile_mlir.jit(DEMO, backend="sim")
    a, _ = demo_args()
    out = np.zeros((16, 128), np.uint8).T  # Fortran order
    k(np.asfortranarray(a), out)
    assert np.array_equal(out, np.tile(a, (4, 1)))
    big = np.zeros((128, 32), np.uint8)
    k(a, big[:, ::2])
    assert np.array_equal(big[:, ::2], np.tile(a, (4, 1))) and not big[:, 1::2].any()


def test_read_only_output_is_refused():
    """jit with a read-only output array silently left it unwritten."""
    k = tile_mlir.jit(DEMO, backend="sim")
    a, out = demo_args()
    out.flags.writeable = False
    with pytest.raises(ArgumentError, match=r"demo: argument 1 \('out'\): the array is read-only, "
                                            r"but the kernel writes it"):
        k(a, out)
    a.flags.writeable = False  # an input may be read-only
    out = np.zeros((128, 16), np.uint8)
    k(a, out)
    assert np.array_equal(out, np.tile(a, (4, 1)))


# ----------------------------------------------------------------------------- surface


def test_exception_hierarchy():
    from tile_mlir.runtime import (BackendUnavailableError, ContextLostError, CudaError,
                                   IncompatibleDeviceError, TileRuntimeError)
    from tile_mlir.runtime import ArgumentError as RuntimeArgumentError

    assert RuntimeArgumentError is ArgumentError
    for cls in (ArgumentError, TileError, TileRuntimeError, CudaError, IncompatibleDeviceError,
                BackendUnavailableError, ContextLostError):
        assert issubclass(cls, TileMLIRError), cls
    assert issubclass(ArgumentError, ValueError) and not issubclass(ArgumentError, TypeError)
    assert issubclass(ArgumentTypeError, ArgumentError) and issubclass(ArgumentTypeError, TypeError)
    assert issubclass(TileRuntimeError, RuntimeError)


def test_public_surface():
    """`JitKernel` had no docstring and its signature showed `(a0=<object ...>)`; dir(tile_mlir)
    was empty."""
    assert set(tile_mlir.__all__) <= set(dir(tile_mlir)) and "jit" in dir(tile_mlir)
    for name in tile_mlir.__all__:
        obj = getattr(tile_mlir, name)
        assert obj.__doc__ and obj.__doc__.strip(), name
    assert "keyword" in tile_mlir.JitKernel.__doc__
    code = "import sys, tile_mlir; dir(tile_mlir); assert list(sys.modules).count('tile_mlir') " \
           "and not [m for m in sys.modules if m.startswith(('tile_mlir.', 'cutlass', 'mlir'))]"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})


def test_runtime_runs_without_ml_dtypes():
    """The GPU machine may lack ml_dtypes: kernels of other element types still load and run, and
    narrow floats go in as bit patterns."""
    code = ("import sys; sys.modules['ml_dtypes'] = None\n"
            "import numpy as np, tile_mlir\n"
            f"k = tile_mlir.jit({DEMO!r}, backend='sim')\n"
            "a = np.arange(512, dtype=np.uint8).reshape(32, 16); out = np.zeros((128, 16), np.uint8)\n"
            "k(a, out); assert (out == np.tile(a, (4, 1))).all()\n"
            f"k = tile_mlir.jit({kernel_text('%b: !tile.buffer<global, 4x16xbf16>')!r}, backend='sim')\n"
            "k(np.zeros((4, 16), np.uint16))\n"
            "assert 'ml_dtypes' not in [m for m in sys.modules if sys.modules[m] is not None]\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})


def test_compile_refuses_an_unregistered_dialect():
    import tile_mlir
    from tile_mlir.diagnostics import TileError

    text = ('"tile.kernel"() ({\n  "foo.bar"() : () -> ()\n  "tile.return"() : () -> ()\n'
            '}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()\n')
    with pytest.raises(TileError, match=r"<tile>:2:3: error: operation 'foo.bar' belongs to an unregistered dialect; if this is intended"):
        tile_mlir.compile(text)


def test_artifact_names_the_canonical_arch():
    import tile_mlir

    text = '"tile.kernel"() ({\n  "tile.return"() : () -> ()\n}) {sym_name = "k", block = array<i32: 32, 1, 1>} : () -> ()\n'
    assert tile_mlir.compile(text, arch=" sm_90a ", emit=("ptx",)).arch == "sm_90a"
