"""Tables as hospitals hold them: an id column, free-text columns and columns of known
identifiers (PHI columns), in CSV, TSV, Excel `.xlsx`, Parquet, JSONL, or a pandas
DataFrame or pyarrow Table in memory (formats: meddocan_deid/formats/).

    from meddocan_deid.deid.tables import TableSpec, deidentify_table
    spec = TableSpec(
        id_column="id",
        text_columns=("nota",),
        patient_column="paciente",
        phi_columns={"nombre": "NOMBRE_SUJETO_ASISTENCIA", "nhc": "ID_SUJETO_ASISTENCIA"},
    )
    result = deidentify_table(
        "notas.csv", columns=spec, mode="surrogate", key=key, output="salida/notas.csv"
    )

The output has the same columns in the same order and the same rows in the same order: the
text columns de-identified by the pipeline, each PHI column cell replaced with the run's
operator as one span covering the cell (the policy applies as to a span of the text), the
other columns untouched, plus a status column (`deid_status`: `ok` or `failed: <reason>`).
A PHI cell's value is a known identifier (`known_phi`) of its row's texts and, with a
patient column, of every row of that patient: found there however it is written (case,
accents, separators, a name by its parts; a date cell also in its usual Spanish forms).
The surrogates of a row's cells and texts share one scope (the patient's, else the row's
id), so a name gets the same surrogate in its column and in the notes.

A row that fails (no id, a text over the size limit, a line that cannot be read, an error
in the pipeline) is kept in its place with its text and PHI cells emptied (never a cell in
clear) and its reason in the status column; the run report names it by file and line. An
empty text cell stays empty and its row is `ok`. A table is held in memory whole: for
tables larger than memory, use `deidentify-spark` (the same operators and PHI columns).
"""

import datetime as dt
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..constants import DEFAULT_MODEL, LABELS
from ..errors import InputError
from ..formats import registry
from ..formats.csv import DelimitedTable
from ..formats.jsonl import JsonlTable
from ..formats.memory import PandasTable
from ..formats.parquet import ArrowTable
from ..formats.table import Table, is_missing
from ..formats.xlsx import XlsxTable
from ..lexicon import words
from .api import load_pipeline
from .deidentifier import Deidentifier
from .known_phi import KnownPhi, merge_known
from .options import DeidOptions
from .records import Record

STATUS_COLUMN = "deid_status"
MONTHS = tuple(words("months", "es"))  # Spanish: `14 de abril de 2024` in identifier columns
DATE_SHAPES = (
    re.compile(r"^(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})$"),
    re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})"),
)


# what a table of a file format and an in-memory table give back (formats/: `write`, `result`)
@runtime_checkable
class WritableTable(Protocol):
    def write(self, path: Path, updates, status, status_column: str, keep=()) -> None: ...


@runtime_checkable
class InMemoryTable(Protocol):
    def result(self, updates, status, status_column: str) -> Any: ...


def table_format(path) -> str | None:
    """The table format of a file by its suffix (any case: csv, tsv, xlsx, parquet); None
    otherwise (a `.jsonl` file is a table only when its columns are named)."""
    return registry.table_format(path)


def parse_phi_column(value: str) -> tuple[str, str]:
    """`COLUMN:LABEL` -> (column, label); the last `:` separates them.
    ValueError naming the value."""
    column, sep, label = str(value).rpartition(":")
    if not sep or not column.strip() or not label.strip():
        raise ValueError(
            f"PHI column {value!r}: expected COLUMN:LABEL, e.g. nombre:NOMBRE_SUJETO_ASISTENCIA"
        )
    label = label.strip()
    if label not in LABELS:
        raise ValueError(
            f"PHI column {value!r}: unknown label {label!r} (one of the MEDDOCAN labels, e.g. "
            "NOMBRE_SUJETO_ASISTENCIA, ID_SUJETO_ASISTENCIA, FECHAS)"
        )
    return column.strip(), label


@dataclass(frozen=True)
class TableSpec:
    """The columns of a table. id_column: the row id (names failed rows, keys the
    surrogates of a row without a patient); text_columns: free text for the pipeline;
    phi_columns: column -> MEDDOCAN label of what each cell holds; patient_column: rows of
    one patient share known identifiers and surrogates; status_column: the added column;
    phi_to_text: the PHI cells are known identifiers of the texts (False: the texts get only
    what the pipeline finds); sheet: the `.xlsx` sheet (None: the first).
    Raises ValueError for an unknown label or a column in two roles."""

    id_column: str
    text_columns: tuple[str, ...] = ()
    phi_columns: Mapping[str, str] = field(default_factory=dict)
    patient_column: str | None = None
    status_column: str = STATUS_COLUMN
    phi_to_text: bool = True
    sheet: str | None = None

    def __post_init__(self):
        texts = (
            (self.text_columns,) if isinstance(self.text_columns, str) else tuple(self.text_columns)
        )
        object.__setattr__(self, "text_columns", texts)
        object.__setattr__(self, "phi_columns", dict(self.phi_columns))
        for name in (self.id_column, self.status_column, *texts, *self.phi_columns):
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"column names must be non-empty strings, got {name!r}")
        if not texts and not self.phi_columns:
            raise ValueError("name at least one text column or one PHI column")
        for col, label in self.phi_columns.items():
            if label not in LABELS:
                raise ValueError(
                    f"PHI column {col!r}: unknown label {label!r} (one of the MEDDOCAN labels)"
                )
        roles: dict[str, str] = {}
        for role, cols in (
            ("text", texts),
            ("PHI", tuple(self.phi_columns)),
            ("status", (self.status_column,)),
        ):
            for col in cols:
                if col in roles:
                    raise ValueError(f"column {col!r} is named twice ({roles[col]} and {role})")
                roles[col] = role
        for role, col in (("id", self.id_column), ("patient", self.patient_column)):
            if col is not None and roles.get(col) in ("text", "status"):
                raise ValueError(
                    f"column {col!r} cannot be both the {role} column and a {roles[col]} column"
                )

    def required(self) -> list[str]:
        return [
            self.id_column,
            *self.text_columns,
            *self.phi_columns,
            *([self.patient_column] if self.patient_column else []),
        ]


@dataclass(frozen=True)
class TableSettings:
    """How a table run goes: texts per `nlp.pipe` call, worker processes (forked), seconds
    a text may take (None: no limit), the fallback encoding of CSV, TSV and JSONL."""

    batch_size: int = 32
    n_process: int = 1
    time_limit: float | None = None
    encoding: str = "utf-8"


@dataclass
class TableResult:
    """table: the de-identified DataFrame or pyarrow Table (for an in-memory input), else the
    output path; rows / ok: counts; failed: per failed row {"row", "where", "id", "reason"}
    (no id when the id column is a PHI column); status: per row; phi_per_label: spans replaced."""

    table: Any
    rows: int
    ok: int
    failed: list[dict[str, Any]]
    status: list[str]
    phi_per_label: dict[str, int]
    format: str
    seconds: float = 0.0


# -- cells -------------------------------------------------------------------------------------


def cell_text(value) -> str | None:
    """A cell as text: None when empty; numbers without a spurious `.0`; a date as
    YYYY-MM-DD (a time only when it has one). ValueError for a list, an object or bytes."""
    if is_missing(value):
        return None
    if isinstance(value, str):
        return value if value != "" else None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    if isinstance(value, dt.date):
        return value.isoformat()
    if hasattr(value, "item") and not hasattr(value, "__len__"):  # a numpy scalar
        return cell_text(value.item())
    if hasattr(value, "as_integer_ratio"):  # Decimal and the like
        return str(value)
    raise ValueError(f"not a text value ({type(value).__name__})")


def date_variants(value: str) -> list[str]:
    """A date cell in the forms a note may use: 05/03/1980, 5/3/1980, 05-03-1980,
    05.03.1980, 1980-03-05, 5 de marzo de 1980 (only `value` when it is no date we read)."""
    found: tuple[int, int, int] | None = None
    for i, shape in enumerate(DATE_SHAPES):
        m = shape.match(value.strip())
        if m:
            a, b, c = (int(x) for x in m.groups())
            found = (a, b, c) if i == 0 else (c, b, a)
            break
    if found is None:
        return [value]
    day, month, year = found
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return [value]
    forms = [
        value,
        f"{day:02d}/{month:02d}/{year}",
        f"{day}/{month}/{year}",
        f"{day:02d}-{month:02d}-{year}",
        f"{day:02d}.{month:02d}.{year}",
        f"{year}-{month:02d}-{day:02d}",
        f"{day} de {MONTHS[month - 1]} de {year}",
        f"{day:02d}/{month:02d}/{year % 100:02d}",
    ]
    return list(dict.fromkeys(forms))


def known_of(cells: Iterable[tuple[str, str]]) -> KnownPhi:
    """(label, value) pairs of PHI cells -> known_phi (a date also in its usual forms)."""
    known: KnownPhi = {}
    for label, value in cells:
        if not value.strip():
            continue
        values = date_variants(value) if label == "FECHAS" else [value]
        bucket = known.setdefault(label, [])
        bucket.extend(v for v in values if v not in bucket)
    return known


def deidentify_cell(
    value: str, label: str, deidentifier: Deidentifier, *, row_id: str, patient_id: str | None
) -> tuple[str, list[tuple[str, int, int]]]:
    """A whole-cell value replaced as one span of `label` covering it, in the scope of its row
    (its patient's, else its id's, as the row's texts), with the policy applied as to a span of
    the text; (new value, the spans replaced). A blank cell is returned as it is."""
    if not value.strip():
        return value, []
    spans, result = deidentifier.replace(
        value, [(label, 0, len(value))], scope=row_id, patient_id=patient_id
    )
    return result.text, spans


# -- reading ---------------------------------------------------------------------------------------


def open_table(
    source, *, fmt: str | None = None, sheet: str | None = None, encoding: str = "utf-8"
) -> Table:
    """The table of `source`: a path (its format from `fmt` or its suffix), a pandas
    DataFrame, a pyarrow Table, or an object with `to_pandas()`. InputError naming the file."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        found = (
            registry.get(fmt) if fmt in registry.FORMATS else None if fmt else registry.find(path)
        )
        if found is None or found.open_table is None:
            tables = ", ".join(
                f.suffixes[0] for f in registry.FORMATS.values() if f.open_table is not None
            )
            raise InputError(
                f"{path}: not a table ({path.suffix or 'no extension'}; expected {tables})"
            )
        if not path.is_file():
            raise InputError(f"{path}: input not found")
        return found.open_table(path, sheet=sheet, encoding=encoding)
    kind = f"{type(source).__module__}.{type(source).__name__}"
    if kind.startswith("pyarrow") and hasattr(source, "column_names"):
        return ArrowTable(source, "the Arrow table")
    if kind.startswith("pandas") and hasattr(source, "columns"):
        return PandasTable(source)
    if hasattr(source, "to_pandas"):
        return PandasTable(source.to_pandas())
    raise TypeError(
        f"a table is a path, a pandas DataFrame or a pyarrow Table, not {type(source).__name__}"
    )


def check_columns(table: Table, spec: TableSpec) -> None:
    """Every named column is in the table and the status column is not (InputError naming both)."""
    missing = [c for c in spec.required() if c not in table.columns]
    if missing:
        shown = ", ".join(repr(c) for c in table.columns[:40]) + (
            " ..." if len(table.columns) > 40 else ""
        )
        raise InputError(
            f"{table.name}: no column {', '.join(repr(c) for c in missing)} (columns: {shown})"
        )
    if spec.status_column in table.columns:
        raise InputError(
            f"{table.name}: the table already has a column {spec.status_column!r}; name another "
            "status column (--status-column)"
        )
    table.declare_free_text((*spec.text_columns, *spec.phi_columns))


# -- the run ---------------------------------------------------------------------------------------


@dataclass
class _Row:
    id: str | None = None
    patient: str | None = None
    reason: str | None = None  # why the row failed
    phi: list[tuple[str, str, str]] = field(default_factory=list)  # (column, label, value)


def _rows(table: Table, spec: TableSpec) -> list[_Row]:
    rows = []
    for i in range(table.n):
        row = _Row()
        rows.append(row)
        row.reason = table.error(i)
        if row.reason is not None:
            continue
        if all(is_missing(table.value(i, c)) for c in spec.required()):
            continue  # an empty row: nothing to de-identify
        try:
            row.id = cell_text(table.value(i, spec.id_column))
            if spec.patient_column:
                row.patient = cell_text(table.value(i, spec.patient_column))
            for col, label in spec.phi_columns.items():
                value = cell_text(table.value(i, col))
                if value is not None:
                    row.phi.append((col, label, value))
        except ValueError as err:
            row.reason = str(err)
            continue
        if row.id is None or not row.id.strip():
            row.reason = f"no id (column {spec.id_column!r} is empty)"
    return rows


def _known(rows: list[_Row], spec: TableSpec) -> list[KnownPhi | None]:
    """Per row, the known identifiers its texts get: its PHI cells and its patient's."""
    if not spec.phi_to_text:
        return [None] * len(rows)
    own = [known_of((label, v) for _c, label, v in row.phi) for row in rows]
    pooled: dict[str, KnownPhi] = {}
    for row, known in zip(rows, own):  # a row without an id still says what its patient is called
        if row.patient is not None and known:
            pooled[row.patient] = merge_known(pooled.get(row.patient), known)
    return [
        merge_known(k, pooled.get(r.patient) if r.patient is not None else None) or None
        for r, k in zip(rows, own)
    ]


def deidentify_loaded(
    table: Table, *, columns: TableSpec, deidentifier: Deidentifier, settings: TableSettings
) -> tuple[dict[str, list[str | None]], list[str], dict[str, int]]:
    """(column -> new values, status per row, spans per label) of a table already read.
    Never raises for a bad row: its status says why."""
    spec = columns
    check_columns(table, spec)
    rows = _rows(table, spec)
    work = _TableWork(table, spec, rows, deidentifier)
    todo, records = work.text_records(_known(rows, spec))
    if records:
        work.deidentify_texts(todo, records, settings)
    work.deidentify_phi_cells()
    return work.updates, work.status(), work.per_label


class _TableWork:
    """One table's de-identification under way: its rows, the new values of its text and PHI
    columns, and the spans per label found so far; a row whose cell fails gets its reason."""

    def __init__(self, table: Table, spec: TableSpec, rows: list[_Row], deidentifier: Deidentifier):
        self.table, self.spec, self.rows, self.deidentifier = table, spec, rows, deidentifier
        n = table.n
        self.updates: dict[str, list[str | None]] = {
            c: [None] * n for c in (*spec.text_columns, *spec.phi_columns)
        }
        self.per_label: dict[str, int] = {}

    def text_records(
        self, known: list[KnownPhi | None]
    ) -> tuple[list[tuple[int, str]], list[Record]]:
        """The (row, column) of each text cell to de-identify and its record; an empty cell is
        kept as it is, one that is no text fails its row."""
        todo: list[tuple[int, str]] = []
        records = []
        for i, row in enumerate(self.rows):
            if row.reason is not None or row.id is None:  # failed, or empty
                continue
            for col in self.spec.text_columns:
                try:
                    text = cell_text(self.table.value(i, col))
                except ValueError as err:
                    row.reason = f"{col}: {err}"
                    break
                if text is None or not text.strip():
                    self.updates[col][i] = text  # nothing to de-identify: kept as it is
                    continue
                todo.append((i, col))
                records.append(Record(row.id, text, row.patient, known[i]))
        return todo, records

    def deidentify_texts(self, todo, records: list[Record], settings: TableSettings) -> None:
        """The text cells de-identified; a failed one fails its row (its first failure)."""
        # forked workers and batches as in a report run; one result per record, in order
        results = self.deidentifier.deidentify_records(
            records,
            batch_size=settings.batch_size,
            time_limit=settings.time_limit,
            n_process=settings.n_process,
        )
        for (i, col), res in zip(todo, results):
            if res.ok:
                self.updates[col][i] = res.text
                for label, _s, _e in res.phi:
                    self.per_label[label] = self.per_label.get(label, 0) + 1
            elif self.rows[i].reason is None:
                self.rows[i].reason = f"{col}: {res.status[len('failed: ') :]}"

    def deidentify_phi_cells(self) -> None:
        """The PHI cells of the rows still ok de-identified, each one span of its label; a cell
        whose operator fails fails its row, never the table."""
        deidentifier = self.deidentifier
        for i, row in enumerate(self.rows):
            if row.reason is not None or row.id is None:
                continue
            for col, label, value in row.phi:
                try:
                    self.updates[col][i], spans = deidentify_cell(
                        value, label, deidentifier, row_id=row.id, patient_id=row.patient
                    )
                except Exception as err:  # noqa: BLE001 - one bad cell fails its row
                    row.reason = (
                        f"{col}: error in the {deidentifier.mode} operator ({type(err).__name__})"
                    )
                    break
                for lab, _s, _e in spans:
                    self.per_label[lab] = self.per_label.get(lab, 0) + 1

    def status(self) -> list[str]:
        """Each row's status, `ok` or `failed: <reason>`; a failed row keeps no text and no PHI."""
        status = []
        for i, row in enumerate(self.rows):
            if row.reason is None:
                status.append("ok")
                continue
            status.append(f"failed: {row.reason}")
            for values in self.updates.values():
                values[i] = None
        return status


def kept_columns(spec: TableSpec) -> tuple[str, ...]:
    """The columns a row that could not be read keeps in the output where they can be read:
    its id, unless the id is a PHI column."""
    return () if spec.id_column in spec.phi_columns else (spec.id_column,)


def failed_rows(table: Table, spec: TableSpec, status: list[str]) -> list[dict[str, Any]]:
    """The failed rows as the run report lists them: row number, file and line, id (unless
    the id column is a PHI column) and reason."""
    id_is_phi = spec.id_column in spec.phi_columns
    failed = []
    for i, s in enumerate(status):
        if s == "ok":
            continue
        entry: dict[str, Any] = {"row": i + 1, "where": f"{table.name}: {table.where(i)}"}
        try:  # a row that could not be split is still named where its id can be read
            rid = (
                cell_text(table.salvage(i, spec.id_column))
                if spec.id_column in table.columns
                else None
            )
        except ValueError:
            rid = None
        if rid is not None and not id_is_phi:
            entry["id"] = rid
        entry["reason"] = s[len("failed: ") :]
        failed.append(entry)
    return failed


def deidentify_table(
    source,
    *,
    columns: TableSpec,
    mode: str = "tag",
    key=None,
    output: None | str | Path = None,
    nlp=None,
    model: str = DEFAULT_MODEL,
    policy=None,
    options: DeidOptions | None = None,
    settings: TableSettings | None = None,
) -> TableResult:
    """De-identify a table (see the module's docstring): `source` is a path (.csv, .tsv,
    .xlsx, .parquet, .jsonl) written to `output` in the same format, or a pandas DataFrame
    or pyarrow Table returned as one. nlp: a loaded pipeline (default: `load_pipeline(model)`);
    policy: a `Policy`, a dict or a policy file; options: `DeidOptions`. Raises InputError for
    a table that cannot be read or lacks a named column, ValueError for a bad mode or a
    missing key; a bad row is reported in the result, never raised."""
    start = time.time()
    settings = settings or TableSettings()
    # mode and key checked now
    deidentifier = Deidentifier(nlp, mode, key=key, options=options, policy=policy)
    target = _output_file(source, output)  # None: a table returned in memory
    table = open_table(source, sheet=columns.sheet, encoding=settings.encoding)
    check_columns(table, columns)
    if nlp is None and columns.text_columns:
        deidentifier = Deidentifier(
            load_pipeline(model), mode, key=deidentifier.key, options=deidentifier.options
        )
    updates, status, per_label = deidentify_loaded(
        table, columns=columns, deidentifier=deidentifier, settings=settings
    )
    out = _written(table, target, columns, updates, status)
    failed = failed_rows(table, columns, status)
    return TableResult(
        out,
        table.n,
        table.n - len(failed),
        failed,
        status,
        dict(sorted(per_label.items())),
        format_of(table),
        round(time.time() - start, 3),
    )


def _output_file(source, output: None | str | Path) -> Path | None:
    """The file a table read from a file is written to (None: a table in memory); ValueError
    without one, InputError for the input itself or another suffix than the input's."""
    if not isinstance(source, (str, Path)):
        return None
    if output is None:
        raise ValueError("a table read from a file needs output=, the file to write")
    target = Path(output)
    if target.resolve() == Path(source).resolve():
        raise InputError(f"{output}: the output would replace the input table")
    if target.suffix.lower() != Path(source).suffix.lower():
        raise InputError(
            f"{output}: the output is written in the input's format: give it the suffix "
            f"{Path(source).suffix}"
        )
    return target


def _written(table: Table, target: Path | None, columns: TableSpec, updates, status: list[str]):
    """The table with its new values: written to `target` (returned), else a table in memory
    of the input's kind; InputError for a format that cannot be written or returned."""
    if target is not None:
        if not isinstance(table, WritableTable):
            raise InputError(f"{target}: tables of this format cannot be written")
        table.write(target, updates, status, columns.status_column, keep=kept_columns(columns))
        return target
    if not isinstance(table, InMemoryTable):
        raise InputError(f"{table.name}: this table cannot be returned in memory")
    return table.result(updates, status, columns.status_column)


def format_of(table: Table) -> str:
    if isinstance(table, DelimitedTable):
        return table.fmt
    if isinstance(table, JsonlTable):
        return "jsonl"
    if isinstance(table, XlsxTable):
        return "xlsx"
    if isinstance(table, ArrowTable):
        return "parquet" if table.name.lower().endswith(".parquet") else "arrow"
    return "pandas"
