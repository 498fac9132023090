"""The table formats of deid/tables.py: read a table whole, give its cells, write it back in
the same format with some columns replaced and a status column added.

CSV and TSV (UTF-8 or the detected or fallback encoding, as reports; written UTF-8 with the
input's line ends and BOM), JSONL (one object a line; other keys kept), Excel `.xlsx`
(openpyxl: one sheet, formatting kept, the other sheets not copied), Parquet (pyarrow: the
replaced columns become strings), and in memory a pandas DataFrame or a pyarrow Table.
Blank lines of CSV, TSV and JSONL are no rows (as pandas reads them) and are not copied; a
line that cannot be read (a CSV row with another number of fields than the header, a line
that is not a JSON object) is a row that fails, written with its cells empty. Messages name
the file, the line or row and the problem, never cell values.
"""
import csv
import io
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

from ..errors import InputError
from .encodings import decode_bytes, encoding_label

# suffix -> format (a .jsonl file is a table only when columns are named: else it holds reports)
TABLE_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".xlsx": "xlsx", ".parquet": "parquet"}
FORMATS = ("csv", "tsv", "xlsx", "parquet", "jsonl")
EXTRA_MODULES = {"xlsx": "openpyxl", "parquet": "pyarrow"}


def need_module(fmt: str) -> None:
    """InputError naming the `tables` extra when the library of `fmt` is not installed."""
    module = EXTRA_MODULES.get(fmt)
    if module is None:
        return
    try:
        __import__(module)
    except ImportError:
        raise InputError(f"reading .{fmt} needs the tables extra ({module} is not installed): "
                         "pip install 'meddocan-deid[tables]'") from None


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
    per row, None: empty) and the status column."""
    columns: List[str]
    n: int
    name: str = "<table>"

    def value(self, i: int, col: str) -> Any:
        raise NotImplementedError

    def error(self, i: int) -> Optional[str]:
        return None

    def where(self, i: int) -> str:
        return f"row {i + 1}"


# -- CSV and TSV ---------------------------------------------------------------------------------

class DelimitedTable(Table):
    def __init__(self, path: Path, fmt: str, encoding: str):
        self.path = Path(path)
        self.name = self.path.name
        self.fmt = fmt
        try:
            data = self.path.read_bytes()
        except OSError as err:
            raise InputError(f"{path}: cannot read ({err.strerror or type(err).__name__})") from None
        try:
            text, self.encoding = decode_bytes(data, encoding)
        except UnicodeDecodeError as err:
            raise InputError(f"{path}: not valid {encoding_label(encoding)} (byte {err.start})") from None
        self.bom = text.startswith("\ufeff")
        text = text[1:] if self.bom else text
        first = text.find("\n")
        self.newline = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
        csv.field_size_limit(2**31 - 1)  # a clinical note is longer than the module's 128 KB default
        reader = csv.reader(io.StringIO(text, newline=""), **self._dialect())
        self.rows: List[List[str]] = []
        self.lines: List[int] = []
        self.errors: Dict[int, str] = {}
        header = None
        start = 1
        try:
            for record in reader:
                line = start
                start = reader.line_num + 1
                if not record or (len(record) == 1 and not record[0].strip() and header is not None):
                    continue  # a blank line: no row
                if header is None:
                    header = record
                    continue
                if len(record) != len(header):
                    self.errors[len(self.rows)] = f"{len(record)} fields, the header has {len(header)}"
                self.rows.append(record)
                self.lines.append(line)
        except csv.Error as err:
            raise InputError(f"{path}: line {reader.line_num}: not readable as {fmt.upper()} ({err})") from None
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

    def write(self, path, updates, status, status_column):
        def write(tmp):
            with open(tmp, "w", encoding="utf-8-sig" if self.bom else "utf-8", newline="") as fh:
                writer = csv.writer(fh, lineterminator=self.newline, **self._dialect())
                writer.writerow(self.columns + [status_column])
                for i, row in enumerate(self.rows):
                    row = [""] * len(self.columns) if i in self.errors else list(row)
                    for col, values in updates.items():
                        row[self.index[col]] = "" if values[i] is None else values[i]
                    try:
                        writer.writerow(row + [status[i]])
                    except csv.Error:
                        raise InputError(f"{self.path}: {self.where(i)}: a de-identified value holds a tab or a line "
                                         "break, which TSV cannot hold") from None

        _write_atomic(path, write)


def _index(columns: List[str], where) -> Dict[str, int]:
    index: Dict[str, int] = {}
    for j, col in enumerate(columns):
        if col in index:
            raise InputError(f"{where}: the column name {col!r} appears twice in the header")
        index[col] = j
    return index


# -- JSONL -----------------------------------------------------------------------------------------

class JsonlTable(Table):
    def __init__(self, path: Path, encoding: str):
        self.path = Path(path)
        self.name = self.path.name
        self.objs: List[Optional[dict]] = []
        self.lines: List[int] = []
        self.errors: Dict[int, str] = {}
        seen: Dict[str, None] = {}
        try:
            fh = open(self.path, "rb")
        except OSError as err:
            raise InputError(f"{path}: cannot read ({err.strerror or type(err).__name__})") from None
        with fh:
            for lineno, raw in enumerate(fh, start=1):
                if not raw.strip():
                    continue
                obj = None
                try:
                    obj = json.loads(decode_bytes(raw, encoding)[0])
                    if not isinstance(obj, dict):
                        self.errors[len(self.objs)] = "not a JSON object"
                        obj = None
                except UnicodeDecodeError as err:
                    self.errors[len(self.objs)] = f"not valid {encoding_label(encoding)} (byte {err.start})"
                except ValueError:
                    self.errors[len(self.objs)] = "not valid JSON"
                for key in obj or ():
                    seen.setdefault(key)
                self.objs.append(obj)
                self.lines.append(lineno)
        if not self.objs:
            raise InputError(f"{path}: empty JSONL file (no line with a JSON object)")
        self.columns = list(seen)
        self.n = len(self.objs)

    def value(self, i, col):
        obj = self.objs[i]
        return None if obj is None else obj.get(col)

    def error(self, i):
        return self.errors.get(i)

    def where(self, i):
        return f"line {self.lines[i]}"

    def write(self, path, updates, status, status_column):
        def write(tmp):
            with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
                for i, obj in enumerate(self.objs):
                    obj = dict(obj or {})
                    for col, values in updates.items():
                        if col in obj:  # a key a line lacks stays absent
                            obj[col] = values[i]
                    obj[status_column] = status[i]
                    fh.write(json.dumps(obj, ensure_ascii=False) + "\n")

        _write_atomic(path, write)


# -- Excel -------------------------------------------------------------------------------------------

class XlsxTable(Table):
    def __init__(self, path: Path, sheet: Optional[str]):
        need_module("xlsx")
        from openpyxl import load_workbook

        self.path = Path(path)
        self.name = self.path.name
        try:
            self.wb = load_workbook(self.path)
        except Exception as err:  # noqa: BLE001 - zipfile, XML and openpyxl errors on a damaged file
            raise InputError(f"{path}: not a readable Excel workbook ({type(err).__name__})") from None
        names = self.wb.sheetnames
        if sheet is not None and sheet not in names:
            # the sheet names are not repeated: a sheet may be named after a patient
            raise InputError(f"{path}: no sheet of that name (the workbook has {len(names)} sheets)")
        self.ws = self.wb[sheet] if sheet is not None else self.wb.worksheets[0]
        header = [c.value for c in next(self.ws.iter_rows(min_row=1, max_row=1), ())]
        while header and _blank(header[-1]):
            header.pop()
        if not header:
            raise InputError(f"{path}: sheet {self.ws.title!r} has no header row (the column names in row 1)")
        for j, h in enumerate(header):
            if _blank(h):
                raise InputError(f"{path}: sheet {self.ws.title!r}: column {j + 1} has no name in row 1")
        self.columns = [str(h).strip() for h in header]
        self.index = _index(self.columns, path)
        last = 1
        for row in self.ws.iter_rows(min_row=2, max_col=len(self.columns)):
            if any(not _blank(c.value) for c in row):
                last = row[0].row
        self.n = last - 1

    def value(self, i, col):
        v = self.ws.cell(row=i + 2, column=self.index[col] + 1).value
        return None if _blank(v) else v

    def where(self, i):
        return f"row {i + 2}"

    def write(self, path, updates, status, status_column):
        ws = self.ws
        for col, values in updates.items():
            j = self.index[col] + 1
            for i, v in enumerate(values):
                cell = ws.cell(row=i + 2, column=j)
                cell.value = v
                cell.hyperlink = None  # a mailto: or a link to a record would keep the value
                cell.comment = None
        # the workbook's own properties may name the author or the patient
        props = self.wb.properties
        for field in ("creator", "lastModifiedBy", "title", "subject", "description", "keywords", "category",
                      "identifier", "contentStatus"):
            setattr(props, field, None)
        ws._pivots = []  # a pivot cache holds the original cells
        j = len(self.columns) + 1
        head = ws.cell(row=1, column=j)
        head.value = status_column
        head._style = ws.cell(row=1, column=j - 1)._style  # the header's look
        for i, s in enumerate(status):
            ws.cell(row=i + 2, column=j).value = s
        for other in list(self.wb.worksheets):  # other sheets are not de-identified: not copied
            if other is not ws:
                self.wb.remove(other)
        _write_atomic(path, self.wb.save)


def _blank(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip())


# -- Parquet and Arrow -------------------------------------------------------------------------------

class ArrowTable(Table):
    def __init__(self, table, name: str = "<table>"):
        self.table = table
        self.name = name
        self.columns = list(table.column_names)
        _index(self.columns, name)
        self.n = table.num_rows
        self._cache: Dict[str, list] = {}

    @classmethod
    def read(cls, path: Path) -> "ArrowTable":
        need_module("parquet")
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
        except Exception as err:  # noqa: BLE001 - pyarrow's errors on a damaged file
            raise InputError(f"{path}: not a readable Parquet file ({type(err).__name__})") from None
        return cls(table, Path(path).name)

    def value(self, i, col):
        values = self._cache.get(col)
        if values is None:
            values = self._cache[col] = self.table.column(col).to_pylist()
        return values[i]

    def result(self, updates, status, status_column):
        import pyarrow as pa

        table = self.table
        for col, values in updates.items():
            j = table.schema.get_field_index(col)
            old = table.schema.field(j)
            table = table.set_column(j, pa.field(col, pa.string(), True, old.metadata), pa.array(values, pa.string()))
        return table.append_column(pa.field(status_column, pa.string(), False), pa.array(status, pa.string()))

    def write(self, path, updates, status, status_column):
        import pyarrow.parquet as pq

        table = self.result(updates, status, status_column)
        _write_atomic(path, lambda tmp: pq.write_table(table, tmp))


class PandasTable(Table):
    def __init__(self, frame):
        self.frame = frame
        self.keys = {str(c): c for c in frame.columns}
        self.columns = list(self.keys)
        _index(self.columns, "the DataFrame")
        self.n = len(frame)
        self._cache: Dict[str, list] = {}

    def value(self, i, col):
        values = self._cache.get(col)
        if values is None:
            values = self._cache[col] = self.frame[self.keys[col]].tolist()
        return values[i]

    def result(self, updates, status, status_column):
        import pandas as pd

        out = self.frame.copy()
        for col, values in updates.items():
            out[self.keys[col]] = pd.Series(values, index=out.index, dtype=object)
        out[status_column] = pd.Series(status, index=out.index, dtype=object)
        return out


class RowsTable(Table):
    """Rows given as JSON objects (the service's table request): the columns are the keys in
    the order first seen; a key a row lacks is a missing cell and stays absent in its row."""

    def __init__(self, rows: List[Dict[str, Any]], name: str = "rows"):
        self.rows = rows
        self.name = name
        self.columns = list(dict.fromkeys(k for row in rows for k in row))
        self.n = len(rows)

    def value(self, i, col):
        return self.rows[i].get(col)

    def result(self, updates, status, status_column):
        out = []
        for i, row in enumerate(self.rows):
            row = dict(row)
            for col, values in updates.items():
                if col in row:
                    row[col] = values[i]
            row[status_column] = status[i]
            out.append(row)
        return out


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
