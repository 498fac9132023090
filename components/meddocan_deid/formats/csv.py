"""CSV tables: a source and a sink. Read in UTF-8 or the detected or fallback encoding, as
reports are; written UTF-8 with the input's line ends and BOM. Blank lines are no rows (as
pandas reads them) and are not copied. A row with another number of fields than the header
cannot be split: it fails, written with its cells empty but its id where the id can be read
(`salvage`); so does a row right after a row cut short, which may be its rest (a line break
in a field). TSV (formats/tsv.py) is this with tabs."""

import csv
import io
from pathlib import Path

from ..errors import InputError
from .base import Format
from .encodings import decode_bytes, encoding_label
from .table import Table, _index, _write_atomic


class DelimitedTable(Table):
    def __init__(self, path: Path, fmt: str, encoding: str):
        self.path = Path(path)
        self.name = self.path.name
        self.fmt = fmt
        try:
            data = self.path.read_bytes()
        except OSError as err:
            raise InputError(
                f"{path}: cannot read ({err.strerror or type(err).__name__})"
            ) from None
        try:
            text, self.encoding = decode_bytes(data, encoding)
        except UnicodeDecodeError as err:
            raise InputError(
                f"{path}: not valid {encoding_label(encoding)} (byte {err.start})"
            ) from None
        self.bom = text.startswith("\ufeff")
        text = text[1:] if self.bom else text
        first = text.find("\n")
        self.newline = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
        csv.field_size_limit(
            2**31 - 1
        )  # a clinical note is longer than the module's 128 KB default
        reader = csv.reader(io.StringIO(text, newline=""), **self._dialect())
        self.rows: list[list[str]] = []
        self.lines: list[int] = []
        self.split_errors: dict[int, str] = {}  # rows with another number of fields
        self.errors: dict[int, str] = {}  # those and the rows that may be the rest of another
        self.free: set[int] = set()  # the positions of the columns that may hold a line break
        header = None
        start = 1
        try:
            for record in reader:
                line = start
                start = reader.line_num + 1
                if not record or (
                    len(record) == 1 and not record[0].strip() and header is not None
                ):
                    continue  # a blank line: no row
                if header is None:
                    header = record
                    continue
                if len(record) != len(header):
                    self.split_errors[len(self.rows)] = (
                        f"{len(record)} fields, the header has {len(header)}"
                    )
                self.rows.append(record)
                self.lines.append(line)
        except csv.Error as err:
            raise InputError(
                f"{path}: line {reader.line_num}: not readable as {fmt.upper()} ({err})"
            ) from None
        if header is None:
            raise InputError(f"{path}: empty file (no header row with the column names)")
        self.columns = [h.strip() for h in header]
        self.index = _index(self.columns, path)
        self.n = len(self.rows)
        self.errors = dict(self.split_errors)

    def _dialect(self) -> dict:
        if self.fmt == "tsv":  # plain TSV: no quoting, a field never holds a tab or a line break
            return {"delimiter": "\t", "quoting": csv.QUOTE_NONE, "quotechar": None}
        return {"delimiter": ","}

    def value(self, i, col):
        if i in self.errors:
            return None
        v = self.rows[i][self.index[col]]
        return v if v != "" else None

    def error(self, i):
        return self.errors.get(i)

    def declare_free_text(self, columns):
        """A row that may be the rest of the row before it fails: the row before is cut short
        (fewer fields than the header) and ends in a column that may hold a line break."""
        self.free = {self.index[c] for c in columns if c in self.index}
        self.errors = dict(self.split_errors)
        for i in range(1, self.n):
            if i not in self.errors and len(self.rows[i - 1]) < len(self.columns):
                if self._may_continue(i):
                    self.errors[i] = f"may be the rest of {self.where(i - 1)}, which is cut short"

    def _may_continue(self, i: int) -> bool:
        """Whether row i may be the rest of row i - 1, cut by a line break in a field: the row
        before ends in a column that may hold one (or has more fields than the header)."""
        if i == 0:
            return False
        before = len(self.rows[i - 1])
        return before > len(self.columns) or before - 1 in self.free

    def salvage(self, i, col):
        """A cell of a row that cannot be split, by its position, where that position can be
        trusted (None otherwise): no column at or before it may hold a delimiter (the text and
        PHI columns, `declare_free_text`: a stray comma in a note or a name cannot have moved
        it), and the row starts a record (it cannot be the rest of the row before, whose first
        field would be a piece of a note)."""
        if i not in self.errors:
            return self.value(i, col)
        j = self.index[col]
        if not self.free or min(self.free) <= j or self._may_continue(i):
            return None
        row = self.rows[i]
        return row[j] if j < len(row) and row[j].strip() else None

    def where(self, i):
        return f"line {self.lines[i]}"

    def write(self, path, updates, status, status_column, keep=()):
        def write(tmp):
            with open(tmp, "w", encoding="utf-8-sig" if self.bom else "utf-8", newline="") as fh:
                writer = csv.writer(fh, lineterminator=self.newline, **self._dialect())
                writer.writerow(self.columns + [status_column])
                for i, row in enumerate(self.rows):
                    if (
                        i in self.errors
                    ):  # a row that could not be split: empty but for `keep`, where readable
                        row = [
                            self.salvage(i, col) or "" if col in keep else ""
                            for col in self.columns
                        ]
                    else:
                        row = list(row)
                    for col, values in updates.items():
                        row[self.index[col]] = "" if values[i] is None else values[i]
                    try:
                        writer.writerow(row + [status[i]])
                    except csv.Error:
                        raise InputError(
                            f"{self.path}: {self.where(i)}: a de-identified value holds a tab or "
                            "a line break, which TSV cannot hold"
                        ) from None

        _write_atomic(path, write)


def open_table(path: Path, *, sheet=None, encoding: str = "utf-8") -> Table:
    return DelimitedTable(path, "csv", encoding)


FORMAT = Format("csv", "table", (".csv",), open_table=open_table)
