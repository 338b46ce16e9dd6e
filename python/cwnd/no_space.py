"""A write that failed because its disk is full, said as such: which device, which file.

A full disk is the user's to fix (free space, or write elsewhere), not an internal
error: the `cwnd` command reports `NoSpace` in one line with exit code 2 (issue 27: a
full `--out` was "internal error: OSError: [Errno 28] Error writing bytes to file").
"""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

#: The errors that mean "no room for this write", with the words that say so.
_FULL = {errno.ENOSPC: "no space left on", errno.EDQUOT: "disk quota exceeded on"}


class NoSpace(OSError):
    """A write refused for want of space; its message names the device and the file:
    `no space left on /dev/sda1 (/home/u/results/t.parquet)`."""

    def __str__(self) -> str:
        return str(self.strerror)


def no_space(error: OSError, path: Path) -> NoSpace | None:
    """`error`, raised while writing `path`, as a `NoSpace` when it means the disk (or
    the user's quota on it) is full; None otherwise."""
    words = _FULL.get(error.errno or 0)
    if words is None:
        return None
    return NoSpace(error.errno, f"{words} {device_of(path.parent)} ({path})")


def device_of(folder: Path) -> str:
    """The device that holds `folder`, as `/proc/self/mountinfo` names the mount of its
    device number: its source when that is a device file (`/dev/sda1`), else the file
    system and the mount point (`tmpfs at /tmp/x`); "the device" where it cannot be
    told (no such folder, no `/proc`)."""
    try:
        number = os.stat(folder).st_dev
        mounts = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return "the device"
    wanted = f"{os.major(number)}:{os.minor(number)}"
    inside = str(folder.resolve())
    found: tuple[str, str, str] | None = None
    for line in mounts.splitlines():
        # id parent major:minor root mount-point options [tags] - type source options
        fields, _, tail = line.partition(" - ")
        parts, described = fields.split(), tail.split()
        if len(parts) < 5 or len(described) < 2 or parts[2] != wanted:
            continue
        mount = _unescape(parts[4])
        under = inside == mount or inside.startswith(mount.rstrip("/") + "/")
        if found is None or (under and len(mount) > len(found[0])):
            found = (mount, described[0], described[1])
    if found is None:
        return "the device"
    mount, kind, source = found
    return source if source.startswith("/dev/") else f"{kind} at {mount}"


def _unescape(field: str) -> str:
    """A mountinfo path, whose spaces, tabs, newlines and backslashes are octal escapes."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)
