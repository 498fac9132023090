"""What every table format shares: the `Table` a source reads (whole) and a sink writes back
(`write`, or `result` for tables in memory), the atomic write, the check that a format's library
is installed, and the cell tests. Messages name the file, the line or row and the problem,
never cell values."""

import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import InputError

EXTRA_MODULES = {"xlsx": "openpyxl", "parquet": "pyarrow"}


def need_module(fmt: str) -> None:
    """InputError naming the `tables` extra when the library of `fmt` is not installed."""
    module = EXTRA_MODULES.get(fmt)
    if module is None:
        return
    try:
        __import__(module)
    except ImportError:
        raise InputError(
            f"reading .{fmt} needs the tables extra ({module} is not installed): "
            "pip install 'meddocan-deid[tables]'"
        ) from None


def _write_atomic(path: Path, write) -> None:
    """`write(tmp_path)` then rename into `path`: never a half-written table."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class Table:
    """A table read whole. `columns`: names in order; `n`: rows; `value(i, col)`: the raw
    cell (None when missing); `error(i)`: why row i could not be read, or None; `where(i)`:
    how messages name row i (`line 7`); `write(path, updates, status, status_column)` or
    `result(...)` (in-memory tables) gives the table back with `updates` (column -> new value
    per row, None: empty) and the status column; `keep`: columns a row that could not be read
    keeps where `salvage` can read them (its id). `declare_free_text(columns)` names the
    columns that may hold a delimiter or a line break (the text and PHI columns)."""

    columns: list[str]
    n: int
    name: str = "<table>"

    def value(self, i: int, col: str) -> Any:
        raise NotImplementedError

    def error(self, i: int) -> str | None:
        return None

    def where(self, i: int) -> str:
        return f"row {i + 1}"

    def write(
        self,
        path: Path,
        updates: dict[str, list[str | None]],
        status: list[str],
        status_column: str,
        keep: Sequence[str] = (),
    ) -> None:
        """The sink of a table file: the table in its format at `path`, written atomically."""
        raise NotImplementedError(f"{self.name}: a table in memory is given back, not written")

    def result(
        self, updates: dict[str, list[str | None]], status: list[str], status_column: str
    ) -> Any:
        """The sink of a table in memory: the same kind of table back."""
        raise NotImplementedError(f"{self.name}: a table file is written, not given back")

    def declare_free_text(self, columns: Sequence[str]) -> None:
        """The columns that may hold a delimiter or a line break: formats whose rows can be
        split wrongly read their rows with it (which row may be the rest of another)."""

    def salvage(self, i: int, col: str) -> Any:
        """A cell of row i even when the row could not be read whole, where it can be read
        (formats whose rows can be split wrongly say where); else the cell as `value` gives it."""
        return None if self.error(i) is not None else self.value(i, col)


def _index(columns: list[str], where) -> dict[str, int]:
    index: dict[str, int] = {}
    for j, col in enumerate(columns):
        if col in index:
            raise InputError(f"{where}: the column name {col!r} appears twice in the header")
        index[col] = j
    return index


def _blank(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


def is_missing(v) -> bool:
    """None, NaN, NaT and pandas' NA: an empty cell."""
    if v is None:
        return True
    if isinstance(v, float):
        return math.isnan(v)
    try:
        return bool(v != v)  # NaT
    except TypeError:
        return True  # pandas.NA: its comparisons are NA
    except ValueError:
        return False  # an array: a value
