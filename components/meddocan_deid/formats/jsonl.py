"""JSONL: one JSON object a line. As reports (a source): `id`, `text`, optional `patient_id` and
`known_phi` (pooled per patient in a first pass); each line's digest is that of its bytes. As a
table, when its columns are named (a source and a sink): other keys kept, a line that is not a
JSON object is a row that fails. Blank lines are no rows or reports. On Spark, JSON lines are
a source (id, text, patient_id, known_phi and the PHI columns as strings; a line that is not
valid JSON is a row that fails) and a sink (every field written, nulls too)."""

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from ..deid.known_phi import pooled_known_phi, record_known_phi
from ..deid.records import Record
from ..errors import InputError
from .base import Format, Item, SparkColumns, SparkInput, SparkSink, safe_stem
from .encodings import decode_bytes, encoding_label
from .table import Table, _write_atomic

SPARK_ERROR_COLUMN = "_meddocan_input_error"
SPARK_CORRUPT_COLUMN = "_meddocan_corrupt_record"
KNOWN_COLUMN = "known_phi"


def items(path: Path, encoding: str = "utf-8", find=None) -> Iterator[Item]:
    """The reports of a JSONL file, one a line (blank lines skipped); a bad line is an item
    that fails."""
    pooled = pooled_known_phi(path, encoding)  # a first pass: the known identifiers of each patient
    lines = _Lines(path, encoding, pooled)
    try:
        fh = open(path, "rb")
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or type(err).__name__})") from None
    with fh:
        for lineno, raw in enumerate(fh, start=1):
            if raw.strip():
                yield lines.item(lineno, raw)


class _Lines:
    """The reading of one JSONL file's lines: its path and codec, the known identifiers pooled
    by patient, and the ids and file stems taken so far."""

    def __init__(self, path: Path, encoding: str, pooled):
        self.path = path
        self.encoding = encoding
        self.pooled = pooled
        self.seen_ids: set[str] = set()
        self.seen_stems: set[str] = set()

    def item(self, lineno: int, raw: bytes) -> Item:
        """The item of a line that is not blank: its report, or a failure naming the line (not
        valid in the codec, not JSON, no id)."""
        where = f"line-{lineno}"
        loc = f"{self.path.name}:{lineno}"
        digest = hashlib.sha256(raw.rstrip(b"\r\n")).hexdigest()
        try:
            line, used = decode_bytes(raw, self.encoding)
        except UnicodeDecodeError as err:
            return Item(
                where,
                where,
                error=f"{loc}: not valid {encoding_label(self.encoding)} (byte {err.start})",
                where=loc,
            )
        try:
            obj = json.loads(line)
        except ValueError:
            return Item(where, where, error=f"{loc}: not valid JSON", where=loc)
        if (
            not isinstance(obj, dict)
            or not isinstance(obj.get("id"), (str, int))
            or isinstance(obj.get("id"), bool)
        ):
            return Item(where, where, error=f"{loc}: no 'id' (string or integer)", where=loc)
        return self.report(obj, loc, digest, used)

    def report(self, obj: dict, loc: str, digest: str, used) -> Item:
        """The item of a line's object with an id: its record, or a failure for a duplicate id,
        no text, a patient id that is no string or integer, or bad known identifiers."""
        rid = str(obj["id"])
        stem = safe_stem(rid)
        if rid in self.seen_ids:
            return Item(rid, stem, error=f"{loc}: duplicate id", where=loc)
        self.seen_ids.add(rid)
        if stem.casefold() in self.seen_stems:  # two ids that differ only by case
            stem = f"{stem}-{hashlib.sha256(rid.encode('utf-8')).hexdigest()[:10]}"
        self.seen_stems.add(stem.casefold())
        text = obj.get("text")
        if not isinstance(text, str):
            return Item(rid, stem, error=f"{loc}: no 'text' string", where=loc)
        patient = obj.get("patient_id")
        if patient is not None and not isinstance(patient, (str, int)):
            return Item(rid, stem, error=f"{loc}: 'patient_id' is not a string", where=loc)
        patient = None if patient is None else str(patient)
        known, problem = record_known_phi(obj.get("known_phi"), patient, self.pooled, loc)
        if problem is not None:
            return Item(rid, stem, error=problem, where=loc)
        record = Record(rid, text, patient, known)
        return Item(rid, stem, record=record, where=loc, digest=digest, encoding=used)


class JsonlTable(Table):
    def __init__(self, path: Path, encoding: str):
        self.path = Path(path)
        self.name = self.path.name
        self.objs: list[dict | None] = []
        self.lines: list[int] = []
        self.errors: dict[int, str] = {}
        seen: dict[str, None] = {}
        try:
            fh = open(self.path, "rb")
        except OSError as err:
            raise InputError(
                f"{path}: cannot read ({err.strerror or type(err).__name__})"
            ) from None
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
                    self.errors[len(self.objs)] = (
                        f"not valid {encoding_label(encoding)} (byte {err.start})"
                    )
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

    def write(self, path, updates, status, status_column, keep=()):
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


def open_table(path: Path, *, sheet=None, encoding: str = "utf-8") -> Table:
    return JsonlTable(path, encoding)


def spark_source(spark, path: str, columns: SparkColumns) -> SparkInput:
    """The lines as rows of the columns named (strings; known_phi, an object, as its JSON
    text); a line that is not valid JSON fails, and goes no further than its reason."""
    from pyspark.sql import functions as F

    patient = columns.patient or "patient_id"
    named = (columns.id, columns.text, patient, KNOWN_COLUMN)
    extra = "".join(f", `{c}` string" for c in columns.phi if c not in named)
    schema = (
        f"`{columns.id}` string, `{columns.text}` string, `{patient}` string, "
        f"`{KNOWN_COLUMN}` string{extra}, `{SPARK_CORRUPT_COLUMN}` string"
    )
    frame = (
        spark.read.schema(schema)
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", SPARK_CORRUPT_COLUMN)
        .json(path)
    )
    # the corrupt line itself (which may hold text) never goes further than this
    frame = frame.withColumn(
        SPARK_ERROR_COLUMN,
        F.when(F.col(SPARK_CORRUPT_COLUMN).isNotNull(), F.lit("not valid JSON")),
    ).drop(SPARK_CORRUPT_COLUMN)
    return SparkInput(frame, columns.id, columns.text, patient, SPARK_ERROR_COLUMN)


def spark_write(frame, path: str, *, overwrite: bool) -> None:
    writer = frame.write.mode("overwrite" if overwrite else "errorifexists")
    writer.format("json").option("ignoreNullFields", "false").save(path)


def spark_read(spark, path: str, id_column: str, status_column: str):
    return spark.read.schema(f"`{id_column}` string, `{status_column}` string").json(path)


FORMAT = Format(
    "jsonl",
    "reports",
    (".jsonl",),
    items=items,
    open_table=open_table,
    spark_source=spark_source,
    spark_sink=SparkSink(spark_write, spark_read),
)
