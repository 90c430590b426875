"""One search per checkpoint: an advisory lock on ``PATH.lock`` held for the whole search.

``fcntl.flock`` (non-blocking, exclusive) on a sidecar file holding the owner's pid. The kernel
drops the lock when its process ends, however it ends (kill -9 included), so the lock file of
a dead process is simply taken over; a live owner makes :func:`hold` raise a one-line
:class:`~.checkpoint.CheckpointError` naming its pid. The file is removed on release, while
still locked; an acquirer that locked a file removed meanwhile notices (another inode at the
path) and tries again. Without ``fcntl`` (Windows) there is no lock.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from .checkpoint import CheckpointError

try:
    import fcntl
except ImportError:     # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

__all__ = ["hold", "lock_path"]


def lock_path(path: str) -> str:
    return f"{path}.lock"


def _owner(fd: int) -> str:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        text = os.read(fd, 64).decode(errors="replace").strip()
    except OSError:
        return "unknown"
    return text if text.isdigit() else "unknown"


def _acquire(path: str) -> int | None:
    """The locked file descriptor of ``PATH.lock`` (None without fcntl)."""
    if fcntl is None:
        return None
    sidecar = lock_path(path)
    folder = os.path.dirname(os.path.abspath(sidecar))
    for _ in range(100):
        try:
            fd = os.open(sidecar, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:
            raise CheckpointError(path, f"cannot be written: folder {folder} does not "
                                  "exist") from None
        except OSError as exc:
            raise CheckpointError(path, f"cannot be locked ({exc.strerror or exc}: "
                                  f"{sidecar})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _owner(fd)
            os.close(fd)
            raise CheckpointError(path, f"is in use by another search (pid {pid}); wait for "
                                  "it or use another --checkpoint path") from None
        except OSError as exc:   # a file system without locks: go on unlocked
            os.close(fd)
            if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP):
                return None
            raise
        try:
            same = os.fstat(fd).st_ino == os.stat(sidecar).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            return fd
        os.close(fd)    # released and removed by its owner meanwhile: lock the new file
    raise CheckpointError(path, f"cannot be locked ({sidecar} keeps changing)")


def _release(path: str, fd: int | None) -> None:
    if fd is None:
        return
    with suppress(OSError):
        os.unlink(lock_path(path))
    os.close(fd)


@contextmanager
def hold(path: str | None) -> Iterator[None]:
    """Hold the lock of checkpoint ``path`` (nothing when None) for the block."""
    if not path:
        yield
        return
    fd = _acquire(path)
    try:
        yield
    finally:
        _release(path, fd)
