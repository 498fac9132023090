"""De-identification on Apache Spark (`pip install meddocan-deid[spark]`).

    from meddocan_deid.spark import deidentify_dataframe
    out = deidentify_dataframe(df, "surrogate", key, model="es_meddocan_deid",
                               id_col="id", text_col="text", patient_col="patient_id")

`out` has the columns of `df` without the text column, plus `deid_text` (string, null when
the row failed), `phi` (array of struct<label, start, end>, offsets in the ORIGINAL text)
and `status` (`ok` or `failed: <reason>`, never text). One output row per input row.

A binary column of scanned PDFs or images (`text_format="scan"`, e.g. the `content` of
Spark's `binaryFile` reader) is read as the command line reads such a file (OCR with
Tesseract's Spanish model, or a PDF's text layer: formats/scan_bytes.py) and de-identified as
a report; each row also gets its pages' OCR confidence and review flags and its redacted file
(pages as images only, a box over every PHI word) in a binary column, beside its text, so that
Spark's commit writes it with its row (nothing is written outside OUTPUT). A file that
cannot be read fails its row with the reason; without the `ocr` extra on the executors, every
row fails saying what to install.

A column of FHIR JSON or of HL7 v2 messages (`text_format="fhir"` or `"hl7v2"`) is
de-identified by its format's rewriter, the one the CLI's run writes their files with
(formats/fhir.py, formats/hl7v2.py): `deid_text` is the resource or the messages written back,
`phi` is empty (the values replaced are not spans of the input), and a row its format cannot
read fails with the reason. Each row is one file of the CLI: its structured values are the
known PHI of its own texts (a Bundle carries its patient); ids, references and date offsets
are keyed, the same across rows and as the CLI's. A key is needed in every mode.

PHI columns (`phi_cols={"nombre": "NOMBRE_SUJETO_ASISTENCIA"}`) are de-identified in place
(as strings; null when the row failed) with the run's operator, each cell one span of its
label in the row's scope (deid/tables.py `deidentify_cell`), and their values are known
identifiers of the row's text and, with `patient_col`, of the patient's other rows.

The rows go through `mapInPandas`: each executor Python process loads the pipeline once (a
module-level cache; Python workers are reused) and runs a `Deidentifier` of it (the CLI's
one de-identification path), `batch_size` texts per `nlp.pipe` call, so
the detection and the surrogates are exactly those of the single-machine CLI. The key goes
to the executors in a broadcast variable (never in the plan, never logged); the gazetteer
folder resolved on the driver is shipped with `SparkContext.addFile`, so every executor uses
the same lists as the driver whatever its working directory.
"""

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..constants import DEFAULT_MODEL, LABELS
from ..deid.deidentifier import Deidentifier
from ..deid.gazetteer import ENV_GAZETTEER, resolve_folder
from ..deid.keys import as_key
from ..deid.known_phi import KnownPhiError, merge_known, validate_known_phi
from ..deid.options import DeidOptions
from ..deid.policy import PRIVACY_LEVELS, PolicyLike
from ..deid.records import Record
from ..deid.tables import cell_text, deidentify_cell, known_of
from ..errors import InputError
from ..formats import registry
from ..formats.base import DocumentError
from ..formats.scan_bytes import DEFAULT_REVIEW_BELOW, page_entries, read_scan_bytes, redacted_copy
from ..pipeline.loading import load_model, pin_loaded_objects

DEID_TEXT_COL = "deid_text"
PHI_COL = "phi"
STATUS_COL = "status"
PHI_TYPE = "array<struct<label:string,start:int,end:int>>"
# a scan column's (text_format="scan") further output: each page as the run report lists it,
# whether one is to be reviewed, and the redacted file and its media type
OCR_PAGES_COL = "ocr_pages"
OCR_REVIEW_COL = "ocr_review"
REDACTED_COL = "redacted"
REDACTED_TYPE_COL = "redacted_type"
OCR_PAGES_TYPE = (
    "array<struct<page:int,source:string,words:int,confidence:double,unread_ink:double,"
    "layout:string,review:boolean>>"
)
PAGE_FIELDS = ("page", "source", "words", "confidence", "unread_ink", "layout", "review")
SCAN_COLUMNS = (OCR_PAGES_COL, OCR_REVIEW_COL, REDACTED_COL, REDACTED_TYPE_COL)
# a scan that cannot be read fails its row with this column's value (dropped from the output)
_SCAN_ERROR_COL = "_meddocan_scan_error"
# diagnostics: when set to a folder, each model load appends a line to loads-<pid>.txt there
LOAD_LOG_ENV = "MEDDOCAN_DEID_SPARK_LOAD_LOG"
# known identifiers: the row's own known_phi as JSON, and those of all rows of its patient
KNOWN_JSON_COL = "_meddocan_known_json"
KNOWN_POOLED_COL = "_meddocan_known_pooled"
_POOL_KEY = "_meddocan_pool_key"
# the PHI cells of all rows of the row's patient (JSON strings label -> values)
PHI_POOLED_COL = "_meddocan_phi_pooled"
# marks "no gazetteer" on the executors (the driver found none): Faker only, as on the driver
_NO_GAZETTEER = ""

_MODELS: dict[tuple[str, str | None], object] = {}
_EMPTY_DIR: list[str] = []


def get_model(name: str, privacy: str | None = None):
    """The pipeline `name` (privacy: its privacy level, None: as saved), loaded once per Python
    process."""
    nlp = _MODELS.get((name, privacy))
    if nlp is None:
        nlp = load_model(name, privacy)  # the CLI's loader: RunError naming the model
        _MODELS[(name, privacy)] = nlp
        # kept for the life of the process: full collections skip it (pipeline/loading.py)
        pin_loaded_objects()
        log = os.environ.get(LOAD_LOG_ENV)
        if log:
            with open(Path(log) / f"loads-{os.getpid()}.txt", "a", encoding="utf-8") as fh:
                fh.write(f"{name}\n")
    return nlp


def _empty_dir() -> str:
    if not _EMPTY_DIR:
        _EMPTY_DIR.append(tempfile.mkdtemp(prefix="meddocan-no-gazetteer-"))
    return _EMPTY_DIR[0]


def _executor_options(options: DeidOptions, gazetteer_file: str | None) -> DeidOptions:
    if gazetteer_file is None:  # no surrogate, or none named: resolved as the CLI does
        return options
    if gazetteer_file == _NO_GAZETTEER:
        return replace(options, gazetteer=Path(_empty_dir()))
    from pyspark import SparkFiles

    return replace(options, gazetteer=Path(SparkFiles.get(gazetteer_file)))


def _missing(value) -> bool:
    if value is None:
        return True
    try:
        import pandas as pd

        return bool(pd.isna(value)) if not isinstance(value, (bytes, str)) else False
    except (TypeError, ValueError):
        return False


def _known(pdf, n: int):
    """Per row: its own known_phi (JSON string or None) and its patient's (a list of JSON
    strings)."""
    own = pdf[KNOWN_JSON_COL].tolist() if KNOWN_JSON_COL in pdf.columns else [None] * n
    pooled = pdf[KNOWN_POOLED_COL].tolist() if KNOWN_POOLED_COL in pdf.columns else [None] * n
    return own, pooled


def _row_known(own, pooled):
    """(known_phi of the row, its problem): its own value must be valid; the values of the
    patient's other rows are used when valid (a bad one fails its own row)."""
    try:
        mine = validate_known_phi(None if _missing(own) else own)
    except KnownPhiError as err:
        return None, str(err)
    others = []
    for value in [] if pooled is None or isinstance(pooled, float) else list(pooled):
        try:
            others.append(validate_known_phi(value))
        except KnownPhiError:
            continue
    return (merge_known(mine, *others) or None), None


@dataclass(frozen=True)
class _Columns:
    """The columns a partition reads: id, text, patient, error (a row fails with its value),
    PHI columns ((column, label) pairs; `phi_to_text`: their values are the texts' known
    identifiers) and the columns dropped from the output."""

    id: str
    text: str
    patient: str | None = None
    error: str | None = None
    phi: tuple[tuple[str, str], ...] = ()
    phi_to_text: bool = True
    drop: tuple[str, ...] = ()
    text_format: str = "text"  # or an interchange format: the text is a FHIR resource, messages;
    # or scan: the text column holds a scanned PDF's or an image's bytes
    review_below: float = DEFAULT_REVIEW_BELOW  # a scanned page below it is to be reviewed


def _phi_cells(pdf, cols: _Columns) -> tuple[list[list[tuple[str, str, str]]], list[str | None]]:
    """Per row its PHI cells (column, label, value as text) and the problem of a cell that is
    no text."""
    n = len(pdf)
    cells: list[list[tuple[str, str, str]]] = [[] for _ in range(n)]
    problems: list[str | None] = [None] * n
    for col, label in cols.phi:
        for i, value in enumerate(pdf[col].tolist()):
            try:
                text = cell_text(value)
            except ValueError as err:
                problems[i] = problems[i] or f"{col}: {err}"
                continue
            if text is not None:
                cells[i].append((col, label, text))
    return cells, problems


def _phi_known(cells, pooled) -> dict[str, list[str]]:
    """The known identifiers a row's PHI cells and its patient's give its text."""
    known = known_of((label, v) for _c, label, v in cells)
    for value in [] if pooled is None or isinstance(pooled, float) else list(pooled):
        try:
            obj = json.loads(value) if isinstance(value, str) else {}
        except ValueError:
            continue
        pairs = [
            (label, v)
            for label, vs in obj.items()
            if isinstance(vs, list)
            for v in vs
            if isinstance(v, str)
        ]
        known = merge_known(known, known_of(pairs))
    return known


def _records(
    pdf, cols: _Columns, phi_cells=None, phi_problems=None
) -> tuple[list[Record | None], list[str | None]]:
    """One Record per row (None for a row that fails before the pipeline) and its reason."""
    ids = pdf[cols.id].tolist()
    texts = pdf[cols.text].tolist()
    patients = pdf[cols.patient].tolist() if cols.patient else [None] * len(ids)
    errors = pdf[cols.error].tolist() if cols.error else [None] * len(ids)
    owns, pooleds = _known(pdf, len(ids))
    phi_cells = phi_cells or [[] for _ in ids]
    phi_problems = phi_problems or [None] * len(ids)
    phi_pooled = (
        pdf[PHI_POOLED_COL].tolist() if PHI_POOLED_COL in pdf.columns else [None] * len(ids)
    )
    records: list[Record | None] = []
    reasons: list[str | None] = []
    for rid, text, patient, error, own, pooled, cells, problem, pooled_phi in zip(
        ids, texts, patients, errors, owns, pooleds, phi_cells, phi_problems, phi_pooled
    ):
        reason = None
        known = None
        if not _missing(error):
            reason = str(error)
        elif _missing(rid) or str(rid) == "":
            reason = "no id"
        elif _missing(text):
            reason = "no text"
        elif isinstance(text, (bytes, bytearray)):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as err:
                reason = f"not valid UTF-8 (byte {err.start})"
        elif problem is not None:
            reason = problem
        if reason is None:
            known, reason = _row_known(own, pooled)
        if reason is None and cols.phi and cols.phi_to_text:
            known = merge_known(known, _phi_known(cells, pooled_phi)) or None
        if reason is not None:
            records.append(None)
            reasons.append(reason)
            continue
        rid = str(rid)
        patient = None if _missing(patient) else str(patient)
        records.append(Record(rid, text, patient, known))
        reasons.append(None)
    return records, reasons


def _deid_phi_cells(records, cells, status, deidentifier: Deidentifier) -> dict[str, list]:
    """column -> its new value per row (None where the row failed); a cell that fails
    fails its row (status updated)."""
    n = len(status)
    new: dict[str, list] = {}
    for i in range(n):
        if status[i] != "ok" or not cells[i]:
            continue
        for col, label, value in cells[i]:
            try:
                new.setdefault(col, [None] * n)[i] = deidentify_cell(
                    value,
                    label,
                    deidentifier,
                    row_id=records[i].id,
                    patient_id=records[i].patient_id,
                )[0]
            except Exception as err:  # noqa: BLE001 - one bad cell fails its row, never the batch
                status[i] = (
                    f"failed: {col}: error in the {deidentifier.mode} operator "
                    f"({type(err).__name__})"
                )
                break
    for i in range(n):  # a failed row keeps no PHI cell
        if status[i] != "ok":
            for values in new.values():
                values[i] = None
    return new


def _rewrite_rows(records, status, deid, deidentifier: Deidentifier, key, cols: _Columns):
    """The rows of an interchange column, each rewritten whole by its format's rewriter (a
    fresh one a row: a row is one file; the rules the policy's, else the shipped ones)."""
    interchange = registry.get(cols.text_format).interchange
    assert interchange is not None
    policy = deidentifier.options.policy
    rules = getattr(policy, interchange.policy_key, None) if policy is not None else None
    rules = list(rules) if rules is not None else interchange.load_rules(None)
    for i, record in enumerate(records):
        if record is None:
            continue
        try:
            rewriter = interchange.rewriter(deidentifier, key=key, rules=rules)
            rewriter.collect_text(record.text, cols.text)
            deid[i] = rewriter.rewrite(record.text, cols.text)[0]
            status[i] = "ok"
        except Exception as err:  # noqa: BLE001 - a malformed row fails, never the batch
            # the format's own message names the column and the problem, never a value
            reason = str(err) if isinstance(err, InputError) else type(err).__name__
            status[i] = f"failed: {reason}"


def _read_scans(pdf, cols: _Columns):
    """The rows of a scan column read by the run's readers (OCR, or a PDF's text layer;
    formats/scan_bytes.py): a copy of `pdf` whose text column holds the text read, the columns
    that then fail a row that cannot be read (its error column, else the problem) and, per
    row, (its bytes, its ScanKind, its Scan) or None."""
    n = len(pdf)
    errors = pdf[cols.error].tolist() if cols.error else [None] * n
    texts: list[str | None] = []
    problems: list[str | None] = []
    reads: list[tuple | None] = []
    for data, error in zip(pdf[cols.text].tolist(), errors):
        problem, text, read = None, None, None
        if not _missing(error):
            problem = str(error)
        elif not _missing(data):
            data = bytes(data)
            try:
                kind, scan = read_scan_bytes(data)
            except DocumentError as err:  # names the problem, never text
                problem = str(err)
            except Exception as err:  # noqa: BLE001 - one file's failure is its row's, never the batch
                problem = f"error in the OCR ({type(err).__name__})"
            else:
                text, read = scan.text, (data, kind, scan)
        texts.append(text)
        problems.append(problem)
        reads.append(read)
    out = pdf.copy()
    out[cols.text] = texts
    out[_SCAN_ERROR_COL] = problems
    return out, replace(cols, error=_SCAN_ERROR_COL, drop=(*cols.drop, _SCAN_ERROR_COL)), reads


def _scan_outputs(reads, status, results_by_row, review_below: float) -> dict[str, list]:
    """The scan columns of each row: its pages (as the run report lists them) wherever it was
    read, whether one is to be reviewed, and, for a row de-identified, its redacted file and
    media type (a file that cannot be redacted fails its row: status updated)."""
    n = len(reads)
    pages: list = [None] * n
    review: list = [None] * n
    redacted: list = [None] * n
    media: list = [None] * n
    for i, read in enumerate(reads):
        if read is None:
            continue
        data, kind, scan = read
        entries = page_entries(scan, review_below)
        # every field of the column's struct, null where the page has none (a text layer)
        pages[i] = [{key: entry.get(key) for key in PAGE_FIELDS} for entry in entries]
        review[i] = any(bool(entry.get("review")) for entry in entries)
        if status[i] != "ok" or i not in results_by_row:
            continue
        try:
            redacted[i] = redacted_copy(data, kind, scan, results_by_row[i].replacements)
            media[i] = kind.media_type
        except DocumentError as err:
            status[i] = f"failed: {err}"
    return {
        OCR_PAGES_COL: pages,
        OCR_REVIEW_COL: review,
        REDACTED_COL: redacted,
        REDACTED_TYPE_COL: media,
    }


def _process(pdf, deidentifier: Deidentifier, batch_size, cols: _Columns, key=None):
    n = len(pdf)
    deid: list[str | None] = [None] * n
    phi: list[list] = [[] for _ in range(n)]
    status: list[str] = ["failed: not processed"] * n
    phi_new: dict[str, list] = {}
    scan_out: dict[str, list] = {}
    reads: list = []
    done: dict[int, object] = {}  # row -> its RecordResult
    try:
        read_pdf = pdf  # a scan column: the text read, in a copy (the output keeps the bytes)
        if cols.text_format == "scan":
            read_pdf, cols, reads = _read_scans(pdf, cols)
        cells, problems = _phi_cells(read_pdf, cols)
        records, reasons = _records(read_pdf, cols, cells, problems)
        todo = [(i, r) for i, r in enumerate(records) if r is not None]
        for i, reason in enumerate(reasons):
            if reason is not None:
                status[i] = f"failed: {reason}"
        if cols.text_format not in ("text", "scan"):
            _rewrite_rows(records, status, deid, deidentifier, key, cols)
            todo = []
        results = deidentifier.deidentify_records((r for _, r in todo), batch_size=batch_size)
        for (i, _r), res in zip(todo, results):  # exactly one result per record, in order
            status[i] = res.status
            done[i] = res
            if res.ok:
                deid[i] = res.text
                phi[i] = [
                    {"label": label, "start": int(s), "end": int(e)} for label, s, e in res.phi
                ]
        if cols.phi:
            phi_new = _deid_phi_cells(records, cells, status, deidentifier)
        if cols.text_format == "scan":
            scan_out = _scan_outputs(reads, status, done, cols.review_below)
        for i in range(n):
            if status[i] != "ok":
                deid[i], phi[i] = None, []
    except Exception as err:  # noqa: BLE001 - a worker error marks the batch, never stops the job
        reason = f"failed: error in the Spark worker ({type(err).__name__})"
        status = [reason if s == "failed: not processed" or s == "ok" else s for s in status]
        deid = [None] * n
        phi = [[] for _ in range(n)]
        phi_new = {}
        scan_out = {}
    out = pdf.drop(columns=[c for c in cols.drop if c in pdf.columns])
    out = out.copy()
    for col, _label in cols.phi:  # never a PHI cell in clear: null unless de-identified
        out[col] = phi_new.get(col, [None] * n)
    out[DEID_TEXT_COL] = deid
    out[PHI_COL] = phi
    out[STATUS_COL] = status
    if cols.text_format == "scan":  # after the status: the order of the schema
        for col in SCAN_COLUMNS:
            out[col] = scan_out.get(col, [None] * n)
    return out


def _partition_fn(
    model, privacy, mode, key_bc, options, gazetteer_file, batch_size, cols: _Columns
):
    """The function run by mapInPandas (pickled into the plan: it holds no key, only the
    broadcast handle)."""

    def fn(batches: Iterator) -> Iterator:
        key = key_bc.value if key_bc is not None else None
        deidentifier = Deidentifier(
            get_model(model, privacy),
            mode,
            key=key,
            options=_executor_options(options, gazetteer_file),
        )
        for pdf in batches:
            yield _process(pdf, deidentifier, batch_size, cols, key)

    return fn


def _ship_gazetteer(spark, options: DeidOptions) -> tuple[DeidOptions, str | None]:
    """Resolve the gazetteer on the driver (as the CLI does) and ship it to the executors.
    Returns the options without the driver path and the name to look up with SparkFiles;
    None when the user named no folder: the executors then take the pipeline's own table
    first, as the CLI does (see `meddocan_deid.deid.gazetteer.resolve_gazetteer`)."""
    if options.gazetteer is None and not os.environ.get(ENV_GAZETTEER):
        return options, None
    folder = resolve_folder(options.gazetteer)
    if folder is None:
        return replace(options, gazetteer=None), _NO_GAZETTEER
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise ValueError(f"{folder}: gazetteer folder not found")
    sc = spark.sparkContext
    shipped = getattr(sc, "_meddocan_gazetteers", None)
    if shipped is None:
        shipped = {}
        sc._meddocan_gazetteers = shipped
    if str(folder) not in shipped:
        # addFile keeps the folder's base name; two folders with one name would clash
        names = set(shipped.values())
        if folder.name in names:
            raise ValueError(
                f"{folder}: another gazetteer folder named {folder.name!r} was already shipped"
            )
        sc.addFile(str(folder), recursive=True)
        shipped[str(folder)] = folder.name
    return replace(options, gazetteer=None), shipped[str(folder)]


@dataclass(frozen=True)
class FrameRequest:
    """The arguments of one `deidentify_dataframe` call, as given; used on the driver only (it
    holds the key, kept out of `repr`, and is never shipped to the executors).

    id_col: the report id (any type; its string keys the surrogates, as in the CLI);
    patient_col: optional patient id (surrogates then keyed by patient); text_col: string, or
    binary decoded as strict UTF-8 on the executors; error_col: optional string column, a
    row where it is not null fails with that reason (e.g. a malformed input line).
    keep_text: `text_col` stays in the output. policy: a `Policy` or the path of a policy
    file (read on the driver). known_col: optional column of known identifiers (a JSON
    string or a map label -> array of strings), found in the row and in every row of the
    same patient; it never goes to the output (it is PHI). privacy: the pipeline's privacy
    level, "balanced" or "high" (None: the policy's, else the model's). phi_cols: column ->
    MEDDOCAN label of columns of identifiers, de-identified in place (strings) and, with
    `phi_to_text`, known identifiers of the row's text and of the patient's rows. text_format:
    "text" (reports), or "fhir" / "hl7v2": each text is a FHIR resource or Bundle (JSON) or HL7
    v2 messages, rewritten whole by its format's rewriter (a key in every mode; no known or PHI
    columns); "scan": `text_col` is binary, a scanned PDF or a PNG, JPEG or TIFF image a row
    (Spark's `binaryFile` reader's `content`), read as the command line reads such a file (OCR,
    or a PDF's text layer) and de-identified as a report; the output then also has
    `ocr_pages` (each page as the run report lists it; `review`: its OCR confidence is below
    `review_below`, no word was recognised, or ink was left unread), `ocr_review` (a page is to
    be reviewed), `redacted` (the file's pages as images only, a box over every PHI word, in its
    own format) and `redacted_type` (its media type)."""

    mode: str
    key: bytes | None = field(default=None, repr=False)
    model: str = DEFAULT_MODEL
    id_col: str = "id"
    text_col: str = "text"
    patient_col: str | None = None
    batch_size: int = 32
    options: DeidOptions | None = None
    error_col: str | None = None
    keep_text: bool = False
    policy: PolicyLike = None
    known_col: str | None = None
    privacy: str | None = None
    phi_cols: Mapping[str, str] | None = None
    phi_to_text: bool = True
    text_format: str = "text"
    review_below: float = DEFAULT_REVIEW_BELOW


def deidentify_dataframe(
    df,
    mode: str,
    key: bytes | None = None,
    *,
    model: str = DEFAULT_MODEL,
    id_col: str = "id",
    text_col: str = "text",
    patient_col: str | None = None,
    batch_size: int = 32,
    options: DeidOptions | None = None,
    error_col: str | None = None,
    keep_text: bool = False,
    policy=None,
    known_col: str | None = None,
    privacy: str | None = None,
    phi_cols: Mapping[str, str] | None = None,
    phi_to_text: bool = True,
    text_format: str = "text",
    review_below: float = DEFAULT_REVIEW_BELOW,
):
    """De-identify the `text_col` of every row of `df` (a Spark DataFrame); the arguments are
    those of `FrameRequest`, described there.

    Returns `df` without `text_col` (kept when `keep_text`), `error_col` and `known_col`, plus
    `deid_text`, `phi` and `status` (and a scan's columns); the same number of rows. Raises
    ValueError at once for a bad mode, a bad policy, a bad privacy level, a missing key, a
    missing column, an unknown label, an unknown text format, a scan column that is not binary
    or a name clash."""
    import pyspark.sql.types  # noqa: F401  (no pyspark: ImportError before any other check)

    request = FrameRequest(
        mode=mode,
        key=key,
        model=model,
        id_col=id_col,
        text_col=text_col,
        patient_col=patient_col,
        batch_size=batch_size,
        options=options,
        error_col=error_col,
        keep_text=keep_text,
        policy=policy,
        known_col=known_col,
        privacy=privacy,
        phi_cols=phi_cols,
        phi_to_text=phi_to_text,
        text_format=text_format,
        review_below=review_below,
    )
    return _planned(df, request)


def _planned(df, request: FrameRequest):
    """`df` checked against the request and mapped through the de-identification (the plan:
    nothing runs before an action)."""
    # the mode, the operators and the key settled on the driver, as the executors will
    settled = Deidentifier(
        None, request.mode, key=request.key, options=request.options, policy=request.policy
    )
    privacy = _checked_privacy(request, settled.options)
    _check_format(request)
    phi_cols = dict(request.phi_cols or {})
    _check_columns(df, request, phi_cols)
    drop, kept = _output_fields(df, request, phi_cols)
    df, drop = _with_pooled_columns(df, request, phi_cols, drop)
    key_bc, options, gazetteer_file = _shipped_key(df.sparkSession, settled, request)
    cols = _Columns(
        request.id_col,
        request.text_col,
        request.patient_col,
        request.error_col,
        tuple(phi_cols.items()),
        request.phi_to_text,
        tuple(drop),
        request.text_format,
        request.review_below,
    )
    fn = _partition_fn(
        request.model,
        privacy,
        request.mode,
        key_bc,
        options,
        gazetteer_file,
        request.batch_size,
        cols,
    )
    return df.mapInPandas(fn, _output_schema(kept, request.text_format))


def _checked_privacy(request: FrameRequest, options: DeidOptions) -> str | None:
    """The pipeline's privacy level (the request's, else the policy's); ValueError for a bad
    batch size or an unknown level."""
    if request.batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    privacy = request.privacy
    if privacy is None and options.policy is not None:
        privacy = options.policy.privacy
    if privacy is not None and privacy not in PRIVACY_LEVELS:
        raise ValueError(
            f"unknown privacy level {privacy!r} (expected one of {', '.join(PRIVACY_LEVELS)})"
        )
    return privacy


def _check_format(request: FrameRequest) -> None:
    """ValueError for an unknown text format, a review threshold out of 0..100, or an
    interchange format without a key or with PHI or known columns."""
    text_format = request.text_format
    if text_format not in ("text", "scan", *registry.interchange_names()):
        raise ValueError(
            f"unknown text format {text_format!r} (expected text, scan, "
            f"{', '.join(registry.interchange_names())})"
        )
    if not 0 <= request.review_below <= 100:
        raise ValueError(
            f"review_below is an OCR confidence, 0 to 100 (got {request.review_below})"
        )
    if text_format not in ("text", "scan"):
        if request.key is None:
            raise ValueError(f"{text_format} needs a key (ids, hashes, date offsets)")
        if request.phi_cols or request.known_col is not None:
            raise ValueError(
                f"a {text_format} column carries its own identifiers: no PHI or known column"
            )


def _check_columns(df, request: FrameRequest, phi_cols: dict[str, str]) -> None:
    """ValueError for a column `df` lacks, a PHI column of an unknown label or that is also
    the id, text, error or known column, or a scan column that is not binary."""
    from pyspark.sql.types import BinaryType

    r = request
    columns = df.columns
    for col in (r.id_col, r.text_col, r.patient_col, r.error_col, r.known_col, *phi_cols):
        if col is not None and col not in columns:
            raise ValueError(f"no column {col!r} in the DataFrame (columns: {', '.join(columns)})")
    for col, label in phi_cols.items():
        if label not in LABELS:
            raise ValueError(
                f"PHI column {col!r}: unknown label {label!r} (one of the MEDDOCAN labels)"
            )
        if col in (r.id_col, r.text_col, r.error_col, r.known_col):
            raise ValueError(
                f"column {col!r} cannot be a PHI column and the id, text, error or known column"
            )
    text_type = df.schema[r.text_col].dataType if r.text_format == "scan" else None
    if text_type is not None and not isinstance(text_type, BinaryType):
        raise ValueError(
            f"a scan column holds the files' bytes: {r.text_col!r} is "
            f"{text_type.simpleString()}, not binary (read the files with "
            "spark.read.format('binaryFile'): its `content` column)"
        )


def _output_fields(df, request: FrameRequest, phi_cols: dict[str, str]):
    """The input columns dropped from the output, and the fields kept (PHI columns as
    strings); ValueError when a kept column has the name of an output column."""
    from pyspark.sql.types import StringType, StructField

    r = request
    dropped = (None if r.keep_text else r.text_col, r.error_col, r.known_col)
    drop = [c for c in dropped if c is not None]
    kept = [
        StructField(f.name, StringType(), True) if f.name in phi_cols else f
        for f in df.schema.fields
        if f.name not in drop
    ]
    added = {DEID_TEXT_COL, PHI_COL, STATUS_COL} | (
        set(SCAN_COLUMNS) if r.text_format == "scan" else set()
    )
    clash = {f.name for f in kept} & added
    if clash:
        raise ValueError(
            f"the DataFrame already has the output column(s) {', '.join(sorted(clash))}"
        )
    return drop, kept


def _with_pooled_columns(df, request: FrameRequest, phi_cols: dict[str, str], drop: list[str]):
    """`df` plus the known identifiers' and the patient's PHI cells' columns the request needs,
    and `drop` plus those columns (they never reach the output)."""
    if request.known_col is not None:
        df = _with_known(df, request.known_col, request.patient_col)
        drop = [*drop, KNOWN_JSON_COL, KNOWN_POOLED_COL]
    if phi_cols and request.phi_to_text and request.patient_col is not None:
        df = _with_phi_pooled(df, phi_cols, request.patient_col)
        drop = [*drop, PHI_POOLED_COL]
    return df, drop


def _shipped_key(spark, settled: Deidentifier, request: FrameRequest):
    """The key's broadcast handle (None: no key needed), the executors' options and the name of
    the shipped gazetteer (None: none shipped); an interchange format is keyed in every mode."""
    options = settled.options
    if settled.needs_key:
        key_bc = spark.sparkContext.broadcast(settled.key)
        options, gazetteer_file = _ship_gazetteer(spark, options)
        return key_bc, options, gazetteer_file
    if request.text_format not in ("text", "scan") and request.key is not None:
        return spark.sparkContext.broadcast(as_key(request.key)), options, None
    return None, options, None


def _output_schema(kept: list, text_format: str):
    """The output's schema: the kept fields, then deid_text, phi, status and a scan's
    columns."""
    from pyspark.sql.types import (
        BinaryType,
        BooleanType,
        StringType,
        StructField,
        StructType,
        _parse_datatype_string,
    )

    added = [
        StructField(DEID_TEXT_COL, _parse_datatype_string("string"), True),
        StructField(PHI_COL, _parse_datatype_string(PHI_TYPE), False),
        StructField(STATUS_COL, _parse_datatype_string("string"), False),
    ]
    if text_format == "scan":
        added += [
            StructField(OCR_PAGES_COL, _parse_datatype_string(OCR_PAGES_TYPE), True),
            StructField(OCR_REVIEW_COL, BooleanType(), True),
            StructField(REDACTED_COL, BinaryType(), True),
            StructField(REDACTED_TYPE_COL, StringType(), True),
        ]
    return StructType(kept + added)


def _with_known(df, known_col: str, patient_col: str | None):
    """`df` plus the row's known_phi as a JSON string and, per patient, the list of the
    known_phi of all its rows (a group-by and a left join; the input columns keep their order)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    col = F.col(known_col)
    if not isinstance(df.schema[known_col].dataType, StringType):
        col = F.to_json(col)
    df = df.withColumn(KNOWN_JSON_COL, col)
    if patient_col is None:
        return df.withColumn(KNOWN_POOLED_COL, F.lit(None).cast("array<string>"))
    key = F.col(patient_col).cast("string")
    pooled = (
        df.where(key.isNotNull() & F.col(KNOWN_JSON_COL).isNotNull())
        .groupBy(key.alias(_POOL_KEY))
        .agg(F.collect_list(KNOWN_JSON_COL).alias(KNOWN_POOLED_COL))
    )
    return df.join(pooled, key == pooled[_POOL_KEY], "left").drop(_POOL_KEY)


def _with_phi_pooled(df, phi_cols: Mapping[str, str], patient_col: str):
    """`df` plus, per row, the PHI cells of all the rows of its patient (a list of JSON
    objects label -> values; a group-by and a left join, as `_with_known`)."""
    from pyspark.sql import functions as F

    by_label: dict[str, list[str]] = {}
    for col, label in phi_cols.items():
        by_label.setdefault(label, []).append(col)
    cells = F.to_json(
        F.struct(
            *[
                F.filter(
                    F.array(*[F.col(c).cast("string") for c in cols]),
                    lambda v: v.isNotNull() & (F.trim(v) != ""),
                ).alias(label)
                for label, cols in by_label.items()
            ]
        )
    )
    key = F.col(patient_col).cast("string")
    pooled = (
        df.where(key.isNotNull())
        .groupBy(key.alias(_POOL_KEY))
        .agg(F.collect_list(cells).alias(PHI_POOLED_COL))
    )
    return df.join(pooled, key == pooled[_POOL_KEY], "left").drop(_POOL_KEY)


def make_session(
    master: str | None = None,
    app_name: str = "meddocan-deid",
    conf: dict[str, str] | None = None,
):
    """A SparkSession for a de-identification run (or the active one when there is one, e.g.
    under spark-submit or in tests; its settings are then left as they are).

    master: None takes the one given by spark-submit, else `local[*]`. In local mode the
    Python workers run this interpreter (PYSPARK_PYTHON, unless set) and local disk I/O
    (shuffle, spills, broadcast blocks: texts and the key) is encrypted. The UI and the
    console progress bar are off; Spark logs at WARN."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    submitted = (
        "PYSPARK_GATEWAY_PORT" in os.environ
    )  # started by spark-submit: its master and python
    if not submitted and (master is None or master.startswith("local")):
        import sys

        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    elif not submitted:
        builder = builder.master("local[*]")
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.python.worker.reuse": "true",
    }
    if not submitted and (master is None or master.startswith("local")):
        # local mode: the shuffle and broadcast files under spark.local.dir hold texts and the
        # key; encrypt them (Spark makes the secret itself in local mode). A cluster keeps its
        # own security settings (see the README).
        settings.update(
            {
                "spark.authenticate": "true",
                "spark.network.crypto.enabled": "true",
                "spark.io.encryption.enabled": "true",
            }
        )
    settings.update(conf or {})
    for k, v in settings.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def load_models(spark, model: str, n_tasks: int | None = None) -> int:
    """Load `model` in the executors' Python workers before a timed run (a small job of
    `n_tasks` tasks, default the default parallelism). Returns the number of distinct worker
    processes that answered."""
    n_tasks = n_tasks or spark.sparkContext.defaultParallelism
    df = spark.range(n_tasks, numPartitions=n_tasks)

    def fn(batches):
        import pandas as pd

        get_model(model)
        for pdf in batches:
            yield pd.DataFrame({"pid": [os.getpid()] * len(pdf)})

    return len({r.pid for r in df.mapInPandas(fn, "pid long").collect()})
