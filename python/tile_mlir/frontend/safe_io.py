"""The one way tile_mlir reads a file and writes files under a directory on a user's behalf
(docs/trust.md).

Reading (read_file): every file the project opens for a user -- a tile IR input, tile-opt's input
and reproducers, an artifact's manifest, PTX and cubin, a compile cache entry, a .npy argument --
must be a regular file (a FIFO would block forever, a device such as /dev/zero never ends, a
directory is no input); its kind is checked before it is opened (opening some devices has effects)
and again on the descriptor, which is opened without blocking and, where asked (the cache), without
following a symbolic link. At most ``limit`` bytes are read, whatever the file claims; text must be
UTF-8. Every refusal is a FileReadError naming the file and the reason.

Writing (write_files): nothing written resolves outside the directory the user names. Names must be
single path components of at most NAME_MAX bytes (file_stem bounds one made from user input, such as
a kernel name: long or odd names get a readable prefix and a hash of the whole name, stable and
collision-free). An existing entry that is a symbolic link is refused (it may point anywhere); every
file is written to a fresh temporary name (O_CREAT|O_EXCL|O_NOFOLLOW) relative to a descriptor of the
directory and renamed into place, so a link created meanwhile is replaced, never followed, and a
reader sees a whole file or none.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import stat

from ..errors import ArgumentError

__all__ = ["write_files", "read_file", "file_stem", "FileReadError", "NAME_MAX"]

#: the longest file name (bytes) POSIX file systems take (Linux NAME_MAX, macOS and Windows: 255)
NAME_MAX = 255
#: what file_stem leaves for a suffix (".dispatched.mlir", ".llvmir.ll", ".json", ...)
_SUFFIX_ROOM = 32
_PLAIN = re.compile(r"[A-Za-z0-9_$][A-Za-z0-9_.$-]*\Z")

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))


class FileReadError(ArgumentError):
    """A file tile_mlir was asked to read and refused or could not read: ``path``, ``reason``;
    ``missing`` when it does not exist."""

    def __init__(self, path: str, reason: str, *, what: str = "", missing: bool = False):
        super().__init__(f"{what + ': ' if what else ''}{path}: {reason}")
        self.path, self.reason, self.missing = path, reason, missing


# ----------------------------------------------------------------------------- reading


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def read_file(path, *, limit: int, what: str = "", text: bool = False, follow_symlinks: bool = True):
    """The bytes (or, with ``text``, the UTF-8 text) of the regular file ``path``, at most ``limit``
    bytes. Raises FileReadError for anything else: missing, not a regular file, larger than
    ``limit``, unreadable, not UTF-8 (with the byte offset), a symbolic link when not
    ``follow_symlinks``."""
    name = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)

    def refuse(reason: str, missing: bool = False):
        return FileReadError(name, reason, what=what, missing=missing)

    try:
        st = os.stat(path, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        raise refuse("no such file", missing=True) from None
    except (OSError, ValueError) as e:  # (ValueError: a NUL in the path)
        raise refuse(f"cannot read ({getattr(e, 'strerror', None) or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise refuse(f"is {_kind(st.st_mode)}, not a regular file: not read")
    flags = _READ_FLAGS | (0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise refuse("no such file", missing=True) from None
    except OSError as e:
        raise refuse(f"cannot read ({e.strerror or e})") from None
    try:
        st = os.fstat(fd)  # (what was opened, whatever the path names now)
        if not stat.S_ISREG(st.st_mode):
            raise refuse(f"is {_kind(st.st_mode)}, not a regular file: not read")
        if st.st_size > limit:
            raise refuse(f"{st.st_size} bytes, more than the {limit} it may have: not read")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(limit + 1 - size, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise refuse(f"cannot read ({e.strerror or e})") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > limit:
        raise refuse(f"grew past the {limit} bytes it may have while read: not read")
    if not text:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise refuse(f"not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start} (line {line})") from None


# ----------------------------------------------------------------------------- writing


def file_stem(name: str, room: int = _SUFFIX_ROOM) -> str:
    """A file name stem for ``name`` (a kernel name): ``name`` itself when it is plain (letters,
    digits, ``_$.-``, not starting with a dot) and leaves ``room`` bytes of NAME_MAX for a suffix;
    else its plain characters, cut short, then ``-`` and 16 hex digits of its sha256 (the same name
    gives the same stem, different names different stems)."""
    limit = NAME_MAX - room
    if _PLAIN.match(name) and len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    keep = re.sub(r"[^A-Za-z0-9_$.-]", "_", name).lstrip(".")[: limit - len(digest) - 1]
    return f"{keep}-{digest}" if keep else digest


def _bad_name(name: str) -> str | None:
    if not isinstance(name, str) or not name or name in (".", "..") or "/" in name \
            or (os.altsep and os.altsep in name) or "\0" in name:
        return "is not a file name"
    if len(os.fsencode(name)) > NAME_MAX:
        return f"is longer than the {NAME_MAX} bytes a file name may have"
    return None


def write_files(directory: str, files: dict[str, bytes], *, mode: int = 0o644) -> list[str]:
    """Write each name -> bytes of `files` into `directory` (created if missing); the paths written.
    Raises ArgumentError, before writing anything, for a name that is not a plain file name of at most
    NAME_MAX bytes or whose entry is a symbolic link or not a regular file."""
    if not isinstance(directory, str) or not directory or "\0" in directory:
        raise ArgumentError(f"{directory!r} is not a directory name: nothing written")
    root = os.path.realpath(directory)
    for name in files:
        why = _bad_name(name)
        if why:
            raise ArgumentError(f"{name!r} {why}: nothing written in {root}")
    try:
        os.makedirs(root, exist_ok=True)
    except OSError as e:
        raise ArgumentError(f"{directory}: cannot create the directory ({e.strerror or e})") from None
    if not hasattr(os, "O_NOFOLLOW"):  # (Windows) no descriptors of directories: the realpath check
        return _write_by_path(root, files)
    try:
        dfd = os.open(root, _DIR_FLAGS)
    except OSError as e:
        raise ArgumentError(f"{root}: cannot open the directory ({e.strerror or e})") from None
    try:
        for name in files:
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISLNK(st.st_mode):
                raise ArgumentError(_link_refusal(root, name))
            if not stat.S_ISREG(st.st_mode):
                raise ArgumentError(f"{os.path.join(root, name)} exists and is not a regular file: not written")
        for name, data in files.items():
            _replace(dfd, root, name, data, mode)
    finally:
        os.close(dfd)
    return [os.path.join(root, name) for name in files]


def _link_refusal(root: str, name: str) -> str:
    """Why a symbolic link at root/name is not written through (a link may be repointed at any time)."""
    path = os.path.join(root, name)
    if os.path.dirname(os.path.realpath(path)) != root:
        return f"{path} is a symbolic link: it resolves outside {root}: not written"
    return f"{path} is a symbolic link: not written (it could be made to point anywhere)"


def _replace(dfd: int, root: str, name: str, data: bytes, mode: int) -> None:
    tmp = f".tile_mlir-{secrets.token_hex(8)}.tmp"  # (short whatever `name` is: NAME_MAX holds)
    try:
        fd = os.open(tmp, _NEW_FLAGS, mode, dir_fd=dfd)
    except OSError as e:
        raise ArgumentError(f"{os.path.join(root, name)}: cannot write ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException as e:  # (whatever stopped it, no temporary file stays behind)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        if isinstance(e, OSError):
            raise ArgumentError(f"{os.path.join(root, name)}: cannot write ({e.strerror or e})") from None
        raise


def _write_by_path(root: str, files: dict[str, bytes]) -> list[str]:
    paths = [os.path.join(root, name) for name in files]
    for path in paths:
        if os.path.dirname(os.path.realpath(path)) != root:
            raise ArgumentError(f"{path} resolves outside {root}: not written")
    for path, data in zip(paths, files.values()):
        try:
            with open(path, "wb") as f:
                f.write(data)
        except OSError as e:
            raise ArgumentError(f"{path}: cannot write ({e.strerror or e})") from None
    return paths
