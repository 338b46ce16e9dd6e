"""Where `cwnd sweep` writes its files, and never over a file that is not its own.

Issue 27: a sweep file's `out =` named any path, relative to the working directory,
and the sweep wrote its Parquet table over whatever was there (and a `.summary.csv`
beside it). Now:

- Outputs go where the command line says (`--out`), or under the sweep file's own
  folder: its `out` is read relative to that folder and may not leave it (`..`, an
  absolute path elsewhere, a symbolic link out). Neither given: `results/NAME.parquet`
  in the working directory, as `cwnd run` writes `results/NAME/`.
- A sweep writes its table `T`, the per-run tables `T.NAME.parquet` asked for, the
  summary `T.summary.csv` and the figure `T.png`. A file already at one of those names
  is overwritten only if it is an output of the same sweep; otherwise the sweep stops
  before anything runs, in one line, unless `--force`.
- An output "of the same sweep" is recognised by its Parquet metadata: every Parquet
  file a sweep writes carries `cwnd.sweep`, a hash of the sweep file's absolute path
  (a hash, so that a published table does not carry the author's folders). The summary
  and the figure, which have no such metadata, belong to the table they sit beside:
  the table is written first, so they are the sweep's when the table is. With no
  table there, only a Parquet file that names the sweep is taken as its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cwnd.atomic import replacing

if TYPE_CHECKING:
    import pandas as pd

#: The Parquet metadata key that names the sweep a file is an output of.
IDENTITY_KEY = b"cwnd.sweep"


class OutputTaken(ValueError):
    """An output's name is taken by a file that is not this sweep's, or a sweep file's
    `out` leaves its folder; the message is one line naming the file."""


def sweep_identity(sweep_file: Path) -> str:
    """What a sweep's Parquet files carry: a hash of its file's absolute path."""
    return hashlib.sha256(str(sweep_file.resolve()).encode()).hexdigest()[:32]


def table_path(sweep_file: Path, command_line: str | None, in_file: str | None) -> Path:
    """The sweep's table: `--out` as given; else the sweep file's `out`, relative to
    its folder and inside it; else `results/NAME.parquet` in the working directory."""
    if command_line:
        return Path(command_line)
    if in_file is None:
        return Path("results") / f"{sweep_file.stem}.parquet"
    folder = sweep_file.parent.resolve()
    path = (folder / in_file).resolve()
    if not path.is_relative_to(folder):
        raise OutputTaken(
            f"{sweep_file}: out: {in_file!r} is outside the sweep file's folder ({folder}); "
            "name it on the command line (--out) to write there"
        )
    return path


@dataclass(frozen=True)
class SweepOutputs:
    """The files one `cwnd sweep` writes: `table`, and beside it the per-run tables
    named in `tables`, the summary and, for a sweep with swept fields, the figure."""

    table: Path
    sweep_file: Path
    tables: Sequence[str] = ()
    figure: bool = True

    @property
    def summary(self) -> Path:
        return self.table.with_suffix(".summary.csv")

    @property
    def picture(self) -> Path:
        return self.table.with_suffix(".png")

    def per_run(self, name: str) -> Path:
        return self.table.with_name(f"{self.table.stem}.{name}.parquet")

    def check(self, force: bool) -> None:
        """Raises `OutputTaken` for the first output whose name a file holds that is not
        this sweep's (see the module's doc), unless `force`."""
        if force:
            return
        identity = sweep_identity(self.sweep_file)
        ours = self.table.exists() and parquet_sweep(self.table) == identity
        if self.table.exists() and not ours:
            raise self._taken(self.table)
        beside = [self.per_run(name) for name in self.tables] + [self.summary]
        for path in beside + ([self.picture] if self.figure else []):
            if path.exists() and not ours and parquet_sweep(path) != identity:
                raise self._taken(path)

    def _taken(self, path: Path) -> OutputTaken:
        return OutputTaken(
            f"{path}: exists and is not an output of {self.sweep_file}; "
            "use --force to overwrite it, or another --out"
        )

    def write(self, frame: pd.DataFrame, path: Path) -> None:
        """Writes `frame` to `path` as Parquet naming this sweep (atomically)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        metadata = {**(table.schema.metadata or {}), IDENTITY_KEY: sweep_identity(self.sweep_file)}
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path) as tmp:
            pq.write_table(table.replace_schema_metadata(metadata), tmp)


def parquet_sweep(path: Path) -> str | None:
    """The sweep a Parquet file names in its metadata (`IDENTITY_KEY`), or None: it
    names none, or it is no Parquet file (its footer alone is read)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException):
        return None
    value = metadata.get(IDENTITY_KEY)
    return value.decode(errors="replace") if value is not None else None
