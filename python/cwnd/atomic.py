"""Files written whole or not at all.

Every output (tables, figures, reports, cache entries) is written to a temporary name
in its own folder and then renamed over the final name: rename within one file system
is atomic (POSIX rename(2)), so a reader, or a kill in the middle of writing, never
sees a half-written file at the final path, and a previous file there survives a
failed write.

An output has one temporary name, `.NAME.tmp`, and its writer holds an exclusive
`flock(2)` on it while writing. A writer killed with SIGKILL cannot remove its
temporary, but the kernel drops its lock: the next writer of the same output takes the
name over (issue 27: a killed sweep's hidden temporary stayed for good), and a writer
that finds the lock held waits for the live writer to finish instead.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cwnd.no_space import no_space


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yields a temporary path beside `path` to write to; on success renames it to
    `path`, on an error removes it (a full disk is raised as `NoSpace`, naming the
    device and `path`). The temporary name is hidden and ends in `.tmp`
    (no `*.json` or `*.parquet` glob sees it), so writers that choose a format by the
    file's suffix must be told the format. A temporary left there by a killed writer
    is overwritten; one being written by a live process is waited for. A process
    forked inside the block inherits the lock, and the next writer of `path` waits
    for it too."""
    tmp, fd = _claim(path)
    try:
        yield tmp
        tmp.replace(path)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        full = no_space(e, path) if isinstance(e, OSError) else None
        if full is not None:
            raise full from None
        raise
    finally:
        os.close(fd)


def _claim(path: Path) -> tuple[Path, int]:
    """The temporary name of `path`, emptied, and an open descriptor holding its lock.

    The lock is taken on the file the name held when it was opened; if its writer
    renamed or removed it meanwhile, the name is opened again. Where the file system
    cannot lock (`ENOLCK`: some network file systems), a name of this process and
    thread alone is used, which a kill leaves behind."""
    tmp = path.with_name(f".{path.name}.tmp")
    while True:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = os.fstat(fd)
            there = os.stat(tmp)
        except FileNotFoundError:
            os.close(fd)  # renamed or removed by the writer that held it: open again
            continue
        except OSError:
            os.close(fd)
            own = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            return own, os.open(own, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        except BaseException:
            os.close(fd)
            raise
        if (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino):
            os.ftruncate(fd, 0)
            return tmp, fd
        os.close(fd)


def write_bytes(path: Path, data: bytes) -> None:
    with replacing(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: Path, text: str) -> None:
    with replacing(path) as tmp:
        tmp.write_text(text)
