"""Files written whole or not at all.

Every output (tables, figures, reports, cache entries) is written to a temporary name
in its own folder and then renamed over the final name: rename within one file system
is atomic (POSIX rename(2)), so a reader, or a kill in the middle of writing, never
sees a half-written file at the final path, and a previous file there survives a
failed write.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """Yields a temporary path beside `path` to write to; on success renames it to
    `path`, on an error removes it. The temporary name is hidden and ends in `.tmp`
    (no `*.json` or `*.parquet` glob sees it), so writers that choose a format by the
    file's suffix must be told the format."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_bytes(path: Path, data: bytes) -> None:
    with replacing(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: Path, text: str) -> None:
    with replacing(path) as tmp:
        tmp.write_text(text)
