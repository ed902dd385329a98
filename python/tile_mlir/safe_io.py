"""The one way tile_mlir writes files under a directory a user names (Artifact.save, tile-run
--output-dir): nothing written resolves outside that directory.

Names must be single path components (no separator, not `.` or `..`). An existing entry that is a
symbolic link is refused (it may point anywhere); every file is written to a fresh temporary name
(O_CREAT|O_EXCL|O_NOFOLLOW) relative to a descriptor of the directory and renamed into place, so a
link created meanwhile is replaced, never followed, and a reader sees a whole file or none.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import stat

from .errors import ArgumentError

__all__ = ["write_files"]

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NEW_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def write_files(directory: str, files: dict[str, bytes]) -> list[str]:
    """Write each name -> bytes of `files` into `directory` (created if missing); the paths written.
    Raises ArgumentError, before writing anything, for a name that is not a plain file name or
    whose entry is a symbolic link or not a regular file."""
    root = os.path.realpath(directory)
    try:
        os.makedirs(root, exist_ok=True)
    except OSError as e:
        raise ArgumentError(f"{directory}: cannot create the directory ({e.strerror or e})") from None
    for name in files:
        if not name or name in (".", "..") or "/" in name or (os.altsep and os.altsep in name) or "\0" in name:
            raise ArgumentError(f"{name!r} is not a file name: nothing written in {root}")
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
            _replace(dfd, root, name, data)
    finally:
        os.close(dfd)
    return [os.path.join(root, name) for name in files]


def _link_refusal(root: str, name: str) -> str:
    """Why a symbolic link at root/name is not written through (a link may be repointed at any time)."""
    path = os.path.join(root, name)
    if os.path.dirname(os.path.realpath(path)) != root:
        return f"{path} is a symbolic link: it resolves outside {root}: not written"
    return f"{path} is a symbolic link: not written (it could be made to point anywhere)"


def _replace(dfd: int, root: str, name: str, data: bytes) -> None:
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, _NEW_FLAGS, 0o644, dir_fd=dfd)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dfd)
        raise ArgumentError(f"{os.path.join(root, name)}: cannot write ({e.strerror or e})") from None


def _write_by_path(root: str, files: dict[str, bytes]) -> list[str]:
    paths = [os.path.join(root, name) for name in files]
    for path in paths:
        if os.path.dirname(os.path.realpath(path)) != root:
            raise ArgumentError(f"{path} resolves outside {root}: not written")
    for path, data in zip(paths, files.values()):
        with open(path, "wb") as f:
            f.write(data)
    return paths
