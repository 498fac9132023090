"""CSV tables: a source and a sink. Read in UTF-8 or the detected or fallback encoding, as
reports are; written UTF-8 with the input's line ends and BOM. Blank lines are no rows (as
pandas reads them) and are not copied; a row with another number of fields than the header is
a row that fails, written with its cells empty. TSV (formats/tsv.py) is this with tabs."""

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
        self.errors: dict[int, str] = {}
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
                    self.errors[len(self.rows)] = (
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
                            f"{self.path}: {self.where(i)}: a de-identified value holds a tab or a line "
                            "break, which TSV cannot hold"
                        ) from None

        _write_atomic(path, write)


def open_table(path: Path, *, sheet=None, encoding: str = "utf-8") -> Table:
    return DelimitedTable(path, "csv", encoding)


FORMAT = Format("csv", "table", (".csv",), open_table=open_table)
