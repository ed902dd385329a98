"""The JIT's compile cache: tile IR -> Artifact once per process (memory) and once per machine (disk).

    art = compile_cached(source, arch="auto", **compile_options)

``source`` is what tile_mlir.frontend.source.read_source takes: IR text, a path, bytes, an MLIR module.

In memory, artifacts are kept by (IR hash, arch, options) for the life of the process. On disk, each
is one file ``<key>.json`` in the cache directory, ``key`` the sha256 of

* the IR text, the arch and the compile options (as sorted JSON) and the entry format; with
  ``line_info`` the PTX carries the source's locations, so the text is keyed with them (a module's
  printed with its locations) and with the file name diagnostics give;
* tile_mlir's version and its Python sources (as Triton hashes its own): a lowering change is a
  new key, not a stale artifact;
* the MLIR bindings' native libraries, each by name, size and modification time, and the
  TILE_MLIR_BINDINGS choice among them, and the ptxas toolchain.find_tool finds (the upstream
  provider runs it for the cubin; cutlass's LLVM, libNVVM and ptxas are built into its library), so
  an upgrade or reinstall is a new key.

None of this imports the bindings: a hit costs no MLIR start-up.

Directory: $TILE_MLIR_CACHE_DIR, else the platform's user cache directory: $XDG_CACHE_HOME/tile_mlir
or ~/.cache/tile_mlir on Linux, ~/Library/Caches/tile_mlir on macOS, %LOCALAPPDATA%\\tile_mlir on
Windows. TILE_MLIR_CACHE=0 (or off, false, no) turns the disk cache off; the memory cache stays.

An entry is written to a temporary file in the directory and renamed into place (os.replace), so a
reader sees a whole entry or none; it carries its key and a digest of its contents. An entry that
cannot be read or does not check out (truncated, damaged, another format) is ignored, logged, and
replaced by the recompiled one; a directory that cannot be written costs only the compile. Entry
names are hex digests, so nothing is written outside the directory.

Trust (docs/trust.md): an entry is code that runs, so the cache is trusted only as a user's
own files are. The directory is created private (0700); one owned by another user, or writable by
group or others, is refused with a warning, as ssh refuses such a ~/.ssh, and jit() compiles without
the cache. Entries are opened without following symlinks and without blocking, must be regular files
of at most MAX_ENTRY_BYTES: a FIFO, a symlink or a device (/dev/zero) is a logged miss, never a hang.
"""
from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import hashlib
import importlib.util
import json
import logging
import os
import stat
import sys
from pathlib import Path

from .. import __version__
from .. import env as _env
from ..artifact import DUMP_DIR_ENV, Artifact
from ..frontend.safe_io import FileReadError, read_file, write_files
from ..frontend.source import read_source
from ..driver.toolchain import find_tool
from .arch import resolve_arch
from .errors import BackendUnavailableError

__all__ = ["compile_cached", "cache_dir", "usable_dir", "disk_key", "MAX_ENTRY_BYTES", "clear", "stats", "DIR_ENV", "SWITCH_ENV"]

log = logging.getLogger("tile_mlir.runtime")

DIR_ENV = "TILE_MLIR_CACHE_DIR"
SWITCH_ENV = "TILE_MLIR_CACHE"
_OFF = frozenset({"0", "off", "false", "no"})
_FORMAT = "tile_mlir compile cache 1"  # bump when the entry layout changes

MAX_ENTRY_BYTES = 64 << 20  # an entry is a manifest, PTX and a base64 cubin: a few hundred KiB

_memory: dict[tuple, Artifact] = {}
_refused: set[str] = set()  # directories warned about once
_stats = {"compiles": 0, "hits": 0, "disk_hits": 0}


def compile_cached(src, arch: str = "auto", **options) -> Artifact:
    """tile_mlir.driver.compiler.compile(src, arch=arch, **options), once per (IR, arch, options)."""
    source = read_source(src)  # read once: compile takes this Source as it is
    arch = resolve_arch(arch)
    text = _keyed_text(source, options)  # (compile compiles a module itself, never this text)
    mkey = (hashlib.sha256(text.encode()).hexdigest()[:32], arch, _options_text(options))
    if (_env.get(DUMP_DIR_ENV) or "").strip():  # every compile dumps: no cache answers
        return _compile(source, arch, options, source.path)
    art = _memory.get(mkey)
    if art is not None:
        _stats["hits"] += 1
        return art
    # (kept stage IR lives in memory only)
    directory = usable_dir(cache_dir()) if not options.get("keep") else None
    key = disk_key(text, arch, options) if directory else ""
    art = _read(directory, key) if directory else None
    if art is not None:
        _stats["disk_hits"] += 1
    else:
        art = _compile(source, arch, options, source.path)
        if not art.key:
            art = dataclasses.replace(art, key=":".join(mkey[:2]))
        _stats["compiles"] += 1
        if directory:
            _write(directory, key, art)
    _memory[mkey] = art
    return art


def cache_dir() -> str | None:
    """The disk cache's directory, or None when TILE_MLIR_CACHE turns it off."""
    if (_env.get(SWITCH_ENV) or "").strip().lower() in _OFF:
        return None
    chosen = (_env.get(DIR_ENV) or "").strip()
    if chosen:
        return os.path.abspath(os.path.expanduser(chosen))
    if sys.platform == "darwin":
        root = os.path.expanduser("~/Library/Caches")
    elif os.name == "nt":
        root = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        root = xdg if os.path.isabs(xdg) else os.path.expanduser("~/.cache")  # XDG: absolute only
    return os.path.join(root, "tile_mlir")


def usable_dir(directory: str | None) -> str | None:
    """`directory` when the disk cache may use it: created private (0700) if missing; an existing one
    must be a directory owned by this user and not writable by group or others. Else None, with a
    warning (once per directory) saying why: jit() then compiles without the disk cache."""
    if directory is None:
        return None
    try:
        if not os.path.lexists(directory):
            os.makedirs(os.path.dirname(directory) or ".", exist_ok=True)
            with contextlib.suppress(FileExistsError):
                os.mkdir(directory, 0o700)
        st = os.stat(directory)
    except OSError as e:
        why = f"could not write it ({e.strerror or e})"
    else:
        why = _untrusted(st)
    if why is None:
        return directory
    if directory not in _refused:
        _refused.add(directory)
        log.warning("tile_mlir.runtime: not using the compile cache directory %s: %s; compiling without "
                    "the disk cache (fix it with 'chmod 700' and 'chown', or set %s to a private "
                    "directory)", directory, why, DIR_ENV)
    return None


def _untrusted(st: os.stat_result) -> str | None:
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    if os.name == "nt":
        return None
    if st.st_uid != os.getuid():
        return f"it is owned by uid {st.st_uid}, not by this user (uid {os.getuid()})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"it is writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def disk_key(text: str, arch: str, options: dict) -> str:
    """The disk cache key of IR text compiled for arch with options (sha256, hex)."""
    h = hashlib.sha256()
    for part in (_FORMAT, text, arch, _options_text(options), _toolchain()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def clear() -> None:
    """Forget the artifacts kept in memory (the disk cache stays)."""
    _memory.clear()


def stats() -> dict:
    return {**_stats, "artifacts": len(_memory), "dir": cache_dir()}


# ----------------------------------------------------------------------------- key parts


def _options_text(options: dict) -> str:
    return json.dumps(options, sort_keys=True, default=repr)


@functools.cache
def _toolchain() -> str:
    """What besides the IR, arch and options decides an artifact (computed once per process: about
    2 ms, for the package's sources)."""
    h = hashlib.sha256(__version__.encode())
    pkg = Path(__file__).resolve().parent.parent
    for path in sorted(pkg.rglob("*.py")):
        h.update(path.relative_to(pkg).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
    h.update((_env.get("TILE_MLIR_BINDINGS") or "").encode())  # mlir.py picks the provider by it
    ptxas = find_tool("ptxas")  # the upstream provider runs it for the cubin (cutlass's is built in)
    for lib in _binding_libraries() + ([Path(ptxas)] if ptxas else []):
        st = lib.stat()
        h.update(f"\0{lib.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return h.hexdigest()


def _binding_libraries() -> list[Path]:
    """The native libraries of both providers mlir.py can load (found, not imported)."""
    libs = []
    for top, sub in (("cutlass", ("_mlir", "_mlir_libs")), ("mlir", ("_mlir_libs",))):
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            spec = None
        for root in (spec.submodule_search_locations or ()) if spec else ():
            d = Path(root, *sub)
            if d.is_dir():
                libs += sorted(p for p in d.iterdir()
                               if p.is_file() and p.suffix in (".so", ".pyd", ".dylib"))
    return libs


# ----------------------------------------------------------------------------- entries


def _keyed_text(source, options: dict) -> str:
    """The IR text that keys ``source``'s artifact: with line_info, its `.file` / `.loc` come from
    the locations and the file name, which the plain text lacks (a module built with unknown
    locations prints as the text of a file, and was answered with that file's lines)."""
    text = source.ir_text  # (a module is printed once)
    if not options.get("line_info"):
        return text
    if source.module is not None:
        op = getattr(source.module, "operation", source.module)
        text = op.get_asm(enable_debug_info=True)
    name = options.get("filename") or source.path or ""
    return f"// line info: {name}\n{text}"


def _compile(src, arch: str, options: dict, path: str | None) -> Artifact:
    try:
        import tile_mlir.driver.compiler as compiler  # lazy: needs the MLIR bindings
    except ImportError as e:
        raise BackendUnavailableError(
            f"cannot compile: tile_mlir.driver.compiler is unavailable ({e}); pass a saved Artifact "
            "(Artifact.load(manifest)) instead") from e
    if path is not None and "filename" not in options:  # diagnostics name the file
        options = {**options, "filename": path}
    return compiler.compile(src, arch=arch, **options)


def _digest(manifest: dict, ptx: str, cubin: bytes) -> str:
    h = hashlib.sha256(json.dumps(manifest, sort_keys=True).encode())
    h.update(b"\0" + ptx.encode() + b"\0")
    h.update(cubin)
    return h.hexdigest()


def _read(directory: str, key: str) -> Artifact | None:
    path = os.path.join(directory, key + ".json")
    try:
        # (safe_io: a regular file of at most MAX_ENTRY_BYTES, no symlink followed, no FIFO waited on)
        entry = json.loads(read_file(path, limit=MAX_ENTRY_BYTES, follow_symlinks=False))
        manifest, ptx = entry["manifest"], entry["ptx"]
        cubin = base64.b64decode(entry["cubin"], validate=True)
        if entry["key"] != key or entry["digest"] != _digest(manifest, ptx, cubin):
            raise ValueError("key or digest does not match")
        return Artifact.from_manifest(manifest, ptx, cubin)
    except FileReadError as e:
        if not e.missing:
            log.warning("tile_mlir.runtime: ignoring compile cache entry %s (%s); recompiling", path, e.reason)
        return None
    except Exception as e:  # noqa: BLE001 - whatever a damaged entry raises, it is only a miss
        log.warning("tile_mlir.runtime: ignoring compile cache entry %s (%s: %s); recompiling",
                    path, type(e).__name__, e)
        return None


def _write(directory: str, key: str, art: Artifact) -> None:
    try:
        manifest = art.manifest()
        data = json.dumps({"format": _FORMAT, "key": key, "manifest": manifest, "ptx": art.ptx,
                           "cubin": base64.b64encode(art.cubin).decode(),
                           "digest": _digest(manifest, art.ptx, art.cubin)}).encode()
        write_files(directory, {key + ".json": data}, mode=0o600)  # (safe_io: temp file, renamed)
    except (OSError, TypeError, ValueError) as e:  # unwritable directory, full disk, odd meta
        log.warning("tile_mlir.runtime: could not write the compile cache entry of %s in %s (%s: %s)",
                    art.kernel_name, directory, type(e).__name__, e)
