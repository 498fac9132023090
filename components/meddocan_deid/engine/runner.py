"""`Run`: one de-identification run of a `RunConfig` (see config.py), from any source
(a report file, a document, a folder, a JSONL file or a table: meddocan_deid/formats) to its
sink (the output folder of reports, or the table in its format).

Steps, each a method: `check_inputs` (paths, encoding, the private and review folders; for a
table its checks and its reading, `check_table`: nothing is loaded or written when they fail),
`load_model`, `make_fingerprint`, then under the output folder's lock (engine/output.py
RunLock) `check_resume` (deid/fingerprint.py: resume, replace or refuse), `write_reports`
(each report, its private copy and its review page) and `finish` (the review site, the
annotation-tool export, the run report); a table is written whole (`write_table`). `execute`
runs them in that order and returns the run report as a dict (also written to the config's
report file); `execute_report` returns it as a `RunReport`, whose `exit_code` the CLI uses.

FHIR and HL7 v2 files (alone or in a folder) are items of the same run, written back whole in
their format after the reports (engine/interchange.py): the same counts, resume, lock and
failures by name.

A table (`config.table`, a TableSpec) goes to OUTPUT/<the input's name> in its format, through
a temporary file renamed into place: a killed run leaves the earlier output or none, and a
rerun does the whole table again; an existing output table is replaced only with `overwrite`.
"""

import importlib.util
import logging
import re
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import __version__
from ..annotations import AnnotationError, export_private_dir
from ..audit import AuditError, AuditLog
from ..audit import run as audit_run
from ..audit.chain import AUDIT_NAME
from ..constants import DEFAULT_MODEL
from ..deid import fingerprint as fp
from ..deid.deidentifier import Deidentifier
from ..deid.options import DeidOptions
from ..deid.review import LANGUAGES as REVIEW_LANGUAGES
from ..deid.review import ReviewReport, ReviewSite
from ..deid.tables import (
    TableSettings,
    check_columns,
    deidentify_loaded,
    kept_columns,
    open_table,
)
from ..errors import InputError, OutputFullError, RunError
from ..formats import registry
from ..formats.base import SparkColumns, SparkInput, spark_path
from ..formats.jsonl import KNOWN_COLUMN
from ..formats.scan import Scan
from ..formats.sources import (
    check_paths,
    count_inputs,
    input_kind,
    iter_items,
    load_item,
    resolve_encoding,
)
from ..formats.table import Table
from ..pipeline.fields import add_field_files
from ..pipeline.loading import load_model, loaded_objects_pinned
from ..pipeline.privacy import set_privacy
from ..spark.dataframe import STATUS_COL, deidentify_dataframe, make_session
from . import interchange, output
from .config import EXPORT_FORMATS, REPORT_NAME, RunConfig
from .output import (
    RunLock,
    check_private_dir,
    compact_digests,
    is_disk_full,
    is_done,
    read_digests,
    record_digest,
    remove_temp_files,
    write_json,
    write_private,
)
from .record import Progress, failure_reason, plain_options
from .report import MAX_REPORTED, RunReport
from .scans import DEFAULT_REVIEW_BELOW, ScanLog, write_redacted

# an output folder's own files: outside the output's digest in the run's audit line
OUTPUT_BOOKKEEPING = frozenset(
    {REPORT_NAME, fp.FINGERPRINT_NAME, AUDIT_NAME, output.DIGESTS_NAME, output.LOCK_NAME}
)

logger = logging.getLogger("meddocan_deid.deid")
HADOOP_SCHEME = re.compile(r"^\w+:")  # hdfs://, s3a://, file:...: a path Spark resolves itself
EXCEPTION_LINE = re.compile(r"^\s*\w+(\.\w+)*(Error|Exception): ")


class Run:
    """One run of `config`; `nlp`: an already loaded pipeline (else `config.model` is loaded).

    Refuses (RunError, nothing written) when OUTPUT holds a run with another fingerprint
    (mode, policy digest, key, model, library version) unless `overwrite`, and when another
    run holds OUTPUT's lock. A full disk or quota raises OutputFullError (the folder, the
    reports written; a rerun resumes)."""

    def __init__(self, config: RunConfig, nlp=None, spark=None):
        self.config = config
        self.nlp = nlp
        self.spark = spark  # a Spark run's session (None: the active one, else one made here)
        self.input, self.output = Path(config.input), Path(config.output)
        self.encoding = config.encoding
        self.n_inputs = 0
        self.gazetteer: str | None = None
        self.deidentifier: Deidentifier | None = None
        self.max_chars = 0
        self.fingerprint: dict[str, object] = {}
        self.field_keys: str | None = (
            None  # digest of the run's extra field keys (--extra-patterns)
        )
        self.replacing = False
        self.start = 0.0
        self.load_seconds = 0.0
        self.counts = {
            "read": 0,
            "written": 0,
            "skipped": 0,
            "failed": 0,
            "empty": 0,
            "not_read": 0,
        }
        self.failed: list[dict] = []
        self.not_read: list[
            dict
        ] = []  # files of the input folder that are not reports, with the reason
        self.empty: list[
            dict
        ] = []  # input files with no text: a status of their own, not a failure
        self.per_label: dict[str, int] = {}
        self.encodings: dict[str, int] = {}
        # id -> (stem, where, digest, the .docx to rewrite) until the result comes
        self._items: dict[str, tuple[str, str, str | None, Path | None]] = {}
        self._originals: dict[str, str] = {}  # kept only for the private folder and the review site
        self._digests: dict[str, str] | None = None
        self.site: ReviewSite | None = None
        self.bar: Progress | None = None
        self.table: Table | None = None  # a table input, read whole by check_table
        self.table_settings: TableSettings | None = None
        # FHIR and HL7 v2 files, written back whole after the reports (engine/interchange.py)
        self.interchange: interchange.InterchangeFiles | None = None
        self.keyed = False  # the input holds such files: the fingerprint holds the key's
        # documents read as page images: id -> (source, format, Scan) until written; their pages
        self._scans: dict[str, tuple[Path, str, Scan]] = {}
        self.scans = ScanLog(config.ocr_review_below)
        self.audit: AuditLog | None = None  # the log this run appends its line to

    # -- before the lock -------------------------------------------------------------------
    def check_inputs(self) -> None:
        """The input, the output, the encoding and the private and review folders (RunError)."""
        c = self.config
        try:
            input_kind(self.input, c.input_format)
            check_paths(self.input, self.output)
            self.encoding = resolve_encoding(c.encoding)
            self.n_inputs = count_inputs(
                self.input, c.input_format
            )  # no report to read: an error, before loading the model
            self.check_interchange()
            if c.private_dir is not None:
                check_private_dir(c.private_dir, self.output, self.input, "--private-dir")
            if c.export_format is not None and c.private_dir is None:
                raise InputError(
                    "--export-format writes into --private-dir: give --private-dir DIR"
                )
            if c.export_format is not None and c.export_format not in EXPORT_FORMATS:
                raise InputError(
                    f"--export-format: {c.export_format!r} is not brat, labelstudio or doccano"
                )
            if c.review_dir is not None:
                check_private_dir(c.review_dir, self.output, self.input, "--review")
                if c.review_language not in REVIEW_LANGUAGES:
                    raise RunError(
                        f"--review-language: {c.review_language!r} is not one of "
                        f"{', '.join(REVIEW_LANGUAGES)}"
                    )
        except InputError as err:
            raise RunError(str(err)) from None

    def check_interchange(self) -> None:
        """The FHIR and HL7 v2 rules of the run, and a key when the input holds such files
        (InputError naming the file)."""
        c = self.config
        self.interchange = interchange.InterchangeFiles(self, interchange.load_rules(c))
        item = interchange.first_item(self.input, c.input_format, self.encoding)
        self.keyed = item is not None  # the key shapes their output in every mode
        if c.key is None and item is not None:
            raise InputError(
                f"{item.where}: de-identifying {item.interchange} needs a key (ids, hashes, "
                "date offsets): --key-file, MEDDOCAN_DEID_KEY or --random-key"
            )

    def check_table(self) -> None:
        """A table input: the output folder and table, the encoding, the table read whole and
        its columns (RunError, nothing written)."""
        c, spec = self.config, self.config.table
        if spec is None:
            raise RunError("not a table run (no columns named)")
        source, out_dir = Path(c.input), self.output
        target = out_dir / source.name
        if c.private_dir is not None or c.review_dir is not None or c.export_format is not None:
            raise RunError(
                "--private-dir, --review and --export-format are for reports, not tables"
            )
        try:
            if out_dir.exists() and not out_dir.is_dir():
                raise InputError(f"{out_dir}: output exists and is not a folder")
            if target.resolve() == source.resolve():
                raise InputError(
                    f"{out_dir}: the output table would replace the input; choose another "
                    "output folder"
                )
            if target.exists() and not c.overwrite:
                raise InputError(
                    f"{target}: the output table exists; give --overwrite to replace it"
                )
            self.encoding = resolve_encoding(c.encoding)
            self.table_settings = TableSettings(
                batch_size=c.batch_size,
                n_process=c.n_process,
                time_limit=c.time_limit,
                encoding=self.encoding,
            )
            self.table = table = open_table(
                source,
                fmt="jsonl" if source.suffix.lower() == ".jsonl" else None,
                sheet=spec.sheet,
                encoding=self.encoding,
            )
            check_columns(table, spec)
        except InputError as err:
            raise RunError(str(err)) from None

    def load_model(self) -> None:
        """Load `config.model` at the run's privacy level, or set that level on the given
        pipeline."""
        privacy = self.config.run_privacy
        if self.nlp is None:
            self.nlp = load_model(self.config.model, privacy)
        elif privacy is not None:
            try:
                set_privacy(self.nlp, privacy)
            except ValueError as err:
                raise RunError(str(err)) from None
        extra = self.config.options.extra_patterns
        if (
            extra is not None
        ):  # a hospital's own field keys, for this run (the model on disk is unchanged)
            try:
                self.field_keys = fp.digest_of(add_field_files(self.nlp, extra))
            except ValueError as err:
                raise RunError(f"--extra-patterns: {err}") from None

    def make_deidentifier(self) -> Deidentifier:
        """The run's `Deidentifier` (operators, key and gazetteer settled once, before any
        progress: a notice about a missing gazetteer comes once)."""
        c = self.config
        try:
            self.deidentifier = deidentifier = Deidentifier(
                self.nlp, c.mode, key=c.key, options=c.options
            )
        except ValueError as err:
            raise RunError(str(err)) from None
        # the surrogates' source; None when no label uses the surrogate operator
        gazetteer = deidentifier.gazetteer
        self.gazetteer = (
            gazetteer.source_name if deidentifier.needs_key and gazetteer is not None else None
        )
        self.max_chars = deidentifier.max_chars
        return deidentifier

    def settled(self) -> Deidentifier:
        """The run's Deidentifier, made by `make_deidentifier`."""
        if self.deidentifier is None:
            raise RunError("the run's Deidentifier is made after the model is loaded")
        return self.deidentifier

    def make_fingerprint(self) -> None:
        c = self.config
        self.fingerprint = fp.make_fingerprint(
            mode=c.mode,
            key=c.key,
            policy_digest=interchange.policy_digest(c, self.interchange.rules)
            if self.interchange is not None
            else c.run_policy_digest,
            nlp=self.nlp,
            model=c.model,
            library_version=__version__,
            options=c.options,
            field_keys=self.field_keys,
            keyed=self.keyed,
        )

    # -- the whole run -----------------------------------------------------------------------
    def execute(self) -> dict:
        """Run every step; returns the run report (as written)."""
        return self.execute_report().to_dict()

    def execute_report(self) -> RunReport:
        """Run every step; returns the run report."""
        self.start = time.time()
        if self.config.spark is not None:
            self.check_spark()
            self.check_audit()
            with self.spark_session() as spark, self.audited_errors():
                return self.write_spark(spark)
        if self.config.table is not None:
            self.check_table()
        else:
            self.check_inputs()
        self.check_audit()
        self.load_model()
        self.load_seconds = time.time() - self.start
        self.make_deidentifier()
        self.make_fingerprint()
        with self.holding_output():
            if self.config.table is not None:
                with self.audited_errors():
                    return self.write_table()
            self.check_resume()
            with loaded_objects_pinned(), self.audited_errors():
                return self.execute_locked()

    def check_audit(self) -> None:
        """The run's audit log (meddocan_deid.audit) can be written (RunError, nothing written)."""
        self.audit = audit_run.run_log(self.config)
        if self.audit is not None:
            try:
                self.audit.check()
            except AuditError as err:
                raise RunError(str(err)) from None

    def record_audit(self, report: RunReport) -> None:
        """Append the run's line to its audit log and record where it is in the run report
        (before the report is written; RunError when the log cannot be written)."""
        if self.audit is None:
            return
        try:
            entry = audit_run.run_entry(
                self,
                report,
                bookkeeping=OUTPUT_BOOKKEEPING,
                input_digests=read_digests(Path(self.config.output))
                if report.kind == "reports"
                else {},
            )
            report.audit = self.audit.append(entry)
        except AuditError as err:
            self.audit = None  # no second line about it
            raise RunError(str(err)) from None

    @contextmanager
    def audited_errors(self):
        """A run stopped by an error once it writes leaves its line, with the error's class."""
        try:
            yield
        except BaseException as err:
            if self.audit is not None:
                try:
                    self.audit.append(audit_run.error_entry(self, err))
                except AuditError as audit_err:
                    logger.warning("%s", audit_err)
            raise

    @contextmanager
    def holding_output(self):
        """The output folder, made if needed, under its lock (one run at a time into a folder:
        the lock first, before the fingerprint is read); a refused run leaves no folder behind.
        A full disk raises OutputFullError (the reports written so far; a rerun resumes)."""
        output = self.output
        try:
            existed = output.is_dir()
            output.mkdir(parents=True, exist_ok=True)
            lock = RunLock(output, warn=lambda msg: logger.warning("%s", msg)).acquire()
        except InputError as err:
            raise RunError(str(err)) from None
        except OSError as err:
            if is_disk_full(err):
                raise OutputFullError(output, 0, err) from None
            raise
        try:
            yield
        except OSError as err:
            if is_disk_full(err):  # every later write would fail too: stop, and say how to go on
                raise OutputFullError(output, self.counts["written"], err) from None
            raise
        finally:
            lock.release()
            try:
                if not existed and not any(output.iterdir()):
                    output.rmdir()
            except OSError:
                pass

    def check_resume(self) -> None:
        """Before anything is written: a refused run leaves the folder and its run report as
        they were."""
        try:
            self.replacing = fp.check_resume(
                self.output,
                self.fingerprint,
                overwrite=self.config.overwrite,
                random_key=self.config.random_key,
            )
        except fp.FingerprintMismatch as err:
            raise RunError(str(err)) from None

    def execute_locked(self) -> RunReport:
        """The part of the run that writes, under the output folder's lock."""
        c = self.config
        fp.write_fingerprint(self.output, self.fingerprint, unfinished=self.replacing)
        removed = remove_temp_files(self.output) + (
            remove_temp_files(c.private_dir) if c.private_dir is not None else 0
        )
        if removed:
            logger.info("removed %d temporary files left by an interrupted run", removed)
        self._digests = read_digests(self.output)
        if c.review_dir is not None:
            self.site = ReviewSite(c.review_dir, mode=c.mode, language=c.review_language)
        self.write_reports()
        return self.finish()

    # -- the reports -------------------------------------------------------------------------
    def fail(self, rid: str, reason: str, where: str = "") -> None:
        self.counts["failed"] += 1
        reason = failure_reason(where, reason)
        self.failed.append({"id": rid, **({"file": where} if where else {}), "reason": reason})
        if self.site is not None:
            self.site.add(ReviewReport(rid, None, None, [], status=f"failed: {reason}"))

    def _tick(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def records(self) -> Iterator:
        """The records still to de-identify: reports already written (same input digest) are
        skipped, unreadable ones fail."""
        try:
            for item in iter_items(self.input, self.encoding, self.config.input_format):
                if item.not_read is not None:
                    self._note_not_read(item)
                    continue
                self.counts["read"] += 1
                item = self._loaded(item)
                if self._set_aside(item):
                    continue
                if item.scan is not None:  # its pages' OCR confidence, a blank page's too
                    self.scans.add(item.id, item.where, item.scan)
                if self._empty(item):
                    continue
                self._note_taken(item)
                yield item.record
        except InputError as err:
            raise RunError(str(err)) from None

    def _note_not_read(self, item) -> None:
        """A file not read: a failure when it is unsupported and not to be skipped (the exit
        code says so), else listed as not read."""
        if item.unsupported and not self.config.skip_unsupported:
            self.counts["read"] += 1
            self.fail(item.id, f"{item.not_read} (or pass --skip-unsupported)", item.where)
        else:
            self.counts["not_read"] += 1
            self.not_read.append({"file": item.where, "reason": item.not_read})
        self._tick()

    def _loaded(self, item):
        """The item with its bytes read and their digest; a report written by an earlier run is
        not read again (no OCR); an interchange file resumes in engine/interchange.py."""
        c = self.config
        return load_item(
            item,
            self.max_chars,
            self.encoding,
            skip=None
            if c.overwrite or item.interchange is not None
            else lambda digest, stem=item.stem: is_done(self.output, stem, digest, self._digests),
            text_layer=c.redacted_pdf,
        )

    def _set_aside(self, item) -> bool:
        """Whether a loaded item goes no further here: an interchange file (written back whole,
        after the reports), a report already written, or one that failed or gave no record."""
        if item.interchange is not None and self.interchange is not None:
            self.interchange.take(item)
            return True
        if (
            item.digest is not None
            and not self.config.overwrite
            and is_done(self.output, item.stem, item.digest, self._digests)
        ):
            self.counts["skipped"] += 1
        elif item.error is not None:
            self.fail(item.id, item.error, item.where)
        elif item.record is None:  # a source gives a record or an error
            self.fail(item.id, "not read", item.where)
        else:
            return False
        self._tick()
        return True

    def _empty(self, item) -> bool:
        """Whether a file's text is empty (nothing to remove): counted, listed and, with a
        review site, listed for the reviewer as a failure is."""
        if item.path is None or item.record.text.strip():
            return False
        self.counts["empty"] += 1
        self.empty.append({"id": item.id, "file": item.where})
        if self.site is not None:
            self.site.add(ReviewReport(item.id, None, None, [], status="empty text"))
        self._tick()
        return True

    def _note_taken(self, item) -> None:
        """A record to de-identify: where it is written (a .docx's copy too), its scan's pages,
        its codec counted, and its original kept for the private folder or the review site."""
        c = self.config
        docx = item.path if item.document == "docx" else None  # its .docx is written too
        self._items[item.id] = (item.stem, item.where, item.digest, docx)
        if item.scan is not None and item.path is not None and item.document is not None:
            self._scans[item.id] = (item.path, item.document, item.scan)
        codec = item.encoding or self.encoding
        self.encodings[codec] = self.encodings.get(codec, 0) + 1
        if c.private_dir is not None or c.review_dir is not None:
            self._originals[item.id] = item.record.text

    def write_result(self, res) -> None:
        """Write one result: the private copy first (a report is done when its shared .txt
        exists)."""
        c = self.config
        stem, where, digest, docx = self._items.pop(res.id)
        original = self._originals.pop(res.id, None)
        scan = self._scans.pop(res.id, None)
        if res.status != "ok":
            self.fail(
                res.id,
                res.status[len("failed: ") :] if res.status.startswith("failed: ") else res.status,
                where,
            )
            return
        try:
            if c.private_dir is not None and original is not None:
                write_private(c.private_dir, stem, original, res.replacements)
            if scan is not None and digest is not None:  # before its .txt, which marks it done
                source, document, read = scan
                write_redacted(self.output, stem, source, document, digest, read, res.replacements)
            output.write_report(
                self.output,
                stem,
                res.text,
                res.replacements,
                docx=(docx, digest) if docx is not None and digest is not None else None,
            )
            if digest is not None:
                record_digest(self.output, stem, digest)
            if self.site is not None:
                self.site.add(ReviewReport(res.id, original, res.text, res.replacements))
        except OSError as err:
            if is_disk_full(err):
                raise
            self.fail(
                res.id, f"cannot write the output ({err.strerror or type(err).__name__})", where
            )
            return
        self.counts["written"] += 1
        for label, _s, _e in res.phi:
            self.per_label[label] = self.per_label.get(label, 0) + 1

    def write_reports(self) -> None:
        c = self.config
        show = sys.stderr.isatty() if c.progress is None else c.progress
        if show:
            self.bar = Progress(self.n_inputs)
        try:
            for res in self.settled().deidentify_records(
                self.records(),
                batch_size=c.batch_size,
                time_limit=c.time_limit,
                n_process=c.n_process,
            ):
                self.write_result(res)
                self._tick()
            if self.interchange is not None:
                self.interchange.write_all()
        finally:
            if self.bar is not None:
                self.bar.close()

    # -- a table ---------------------------------------------------------------------------------
    def write_table(self) -> RunReport:
        """De-identify the table read by check_table and write it whole, in its format, into
        OUTPUT/<the input's name>, then the run report."""
        c, table, spec = self.config, self.table, self.config.table
        if table is None or spec is None or self.table_settings is None:
            raise RunError("the table is read by check_table first")
        target = self.output / Path(c.input).name
        updates, status, per_label = deidentify_loaded(
            table, columns=spec, deidentifier=self.settled(), settings=self.table_settings
        )
        table.write(target, updates, status, spec.status_column, keep=kept_columns(spec))
        report = self.report()
        report.options = c.report_options or {}
        report.add_table(table, spec, status, per_label, str(target))
        self.record_audit(report)
        write_json(c.report_file, report.to_dict())
        return report

    # -- on Spark --------------------------------------------------------------------------------
    def check_spark(self) -> None:
        """A Spark run, before Spark starts (RunError, nothing started): pyspark installed, the
        formats and columns, no options Spark does not take, and the paths that are local: an
        OUTPUT that exists (without `overwrite`), an INPUT that does not."""
        c, job = self.config, self.config.spark
        if job is None:
            raise RunError("not a Spark run (no SparkJob)")
        missing = [m for m in ("pyspark", "pyarrow") if importlib.util.find_spec(m) is None]
        if missing:
            raise RunError(
                "deidentify-spark needs the spark extra: pip install 'meddocan-deid[spark]'"
            )
        if c.private_dir is not None or c.review_dir is not None or c.export_format is not None:
            raise RunError("--private-dir, --review and --export-format are not for Spark runs")
        if c.options.extra_patterns is not None:
            raise RunError(
                "the policy's field_keys are not read by deidentify-spark: save a pipeline with "
                "them (meddocan-deid add-patterns) and give it as --model"
            )
        sources, sinks = registry.spark_formats("source"), registry.spark_formats("sink")
        if job.output_format not in sinks:
            raise RunError(
                f"unknown --format {job.output_format!r} (expected {' or '.join(sinks)})"
            )
        if job.input_format != "auto" and job.input_format not in sources:
            raise RunError(
                f"unknown --input-format {job.input_format!r} (expected auto, {', '.join(sources)})"
            )
        spec = c.table
        if spec is None or len(spec.text_columns) != 1:
            raise RunError("a Spark run reads one text column (--text-column)")
        if job.text_format not in ("text", "scan", *registry.interchange_names()):
            raise RunError(
                f"unknown --text-format {job.text_format!r} (expected text, scan, "
                f"{', '.join(registry.interchange_names())})"
            )
        if job.text_format not in ("text", "scan") and (spec.phi_columns or c.key is None):
            raise RunError(
                f"--text-format {job.text_format} needs a key (--key-file, MEDDOCAN_DEID_KEY or "
                "--random-key) and takes no --phi-column (the records carry their identifiers)"
            )
        if spec.phi_columns and job.input_format == "txt":
            raise RunError(
                "--phi-column needs a table input (parquet or jsonl), not a folder of .txt files"
            )
        output, source = str(c.output), str(c.input)
        if not HADOOP_SCHEME.match(output) and Path(output).exists() and not c.overwrite:
            raise RunError(
                f"{output}: output exists; give --overwrite to replace it (runs are never mixed)"
            )
        if not HADOOP_SCHEME.match(source) and not Path(source).exists():
            raise RunError(f"{source}: input not found")

    @contextmanager
    def spark_session(self):
        """The run's session: the one given, else the active one, else one made from the job's
        master and settings (stopped at the end)."""
        if self.spark is not None:
            yield self.spark
            return
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        job = self.config.spark
        spark = make_session(job.master, app_name="meddocan-deid", conf=dict(job.conf))
        try:
            yield spark
        finally:
            if active is None:
                spark.stop()

    def write_spark(self, spark) -> RunReport:
        """Read INPUT with its format's Spark source, de-identify every row on the executors
        (the CLI's Deidentifier in each Python worker) and write OUTPUT with the output
        format's Spark sink; the run report counts the rows read back from OUTPUT."""
        c, job, spec = self.config, self.config.spark, self.config.table
        if job is None or spec is None:
            raise RunError("a Spark run has its SparkJob and its columns (check_spark)")
        self.check_spark_paths(spark)
        name = (
            job.input_format if job.input_format != "auto" else registry.spark_input(str(c.input))
        )
        if name is None:
            raise RunError(
                f"{c.input}: cannot tell the input format; give --input-format "
                f"{'|'.join(registry.spark_formats('source'))}"
            )
        text_format = job.text_format
        if name == "scans":  # a folder of scans: its files' bytes, read by OCR on the executors
            if text_format not in ("text", "scan"):
                raise RunError(f"{c.input}: scanned documents, not {text_format} (--text-format)")
            text_format = "scan"
        read_source = registry.get(name).spark_source
        sink = registry.get(job.output_format).spark_sink
        if sink is None or read_source is None:
            raise RunError(f"Spark reads no {name} or writes no {job.output_format}")
        columns = SparkColumns(
            spec.id_column, spec.text_columns[0], spec.patient_column, tuple(spec.phi_columns)
        )
        try:
            read = read_source(spark, str(c.input), columns)
            for col in (read.id, read.text, *spec.phi_columns):
                if col not in read.frame.columns:
                    raise RunError(
                        f"{c.input}: no column {col!r} (columns: {', '.join(read.frame.columns)})"
                    )
            rows_in = read.frame.count()
            out = self.deidentify_frame(spark, read, text_format)
        except ValueError as err:
            raise RunError(str(err)) from None
        try:
            sink.write(out, str(c.output), overwrite=c.overwrite)
        except Exception as err:  # noqa: BLE001 - py4j / analysis / worker errors: one line
            raise RunError(spark_job_error(err)) from None
        written = sink.read(spark, str(c.output), read.id, STATUS_COL)
        report = self.spark_report(written, read.id, rows_in)
        report.format, report.output_format = name, job.output_format
        report.master, report.partitions = spark.sparkContext.master, out.rdd.getNumPartitions()
        self.record_audit(report)
        if c.report_path is not None:  # Spark's OUTPUT holds only what Spark wrote
            write_json(Path(c.report_path), report.to_dict())
        return report

    def check_spark_paths(self, spark) -> None:
        """INPUT and OUTPUT as Spark's file systems see them: apart, OUTPUT new (unless
        `overwrite`), INPUT there (RunError)."""
        c = self.config
        source, output = str(c.input), str(c.output)
        fs_out, out_path = spark_path(spark, output)
        fs_in, in_path = spark_path(spark, source)
        out_s, in_s = out_path.toString().rstrip("/"), in_path.toString().rstrip("/")
        if out_s == in_s or out_s.startswith(in_s + "/") or in_s.startswith(out_s + "/"):
            raise RunError(f"{output}: the output must not be, contain or be inside the input")
        if fs_out.exists(out_path) and not c.overwrite:
            raise RunError(
                f"{output}: output exists; give --overwrite to replace it (runs are never mixed)"
            )
        if not fs_in.exists(in_path):
            raise RunError(f"{source}: input not found")

    def deidentify_frame(self, spark, read: SparkInput, text_format: str | None = None):
        """The input's rows cut into the job's tasks (0: at least 4 per core) and de-identified
        by `deidentify_dataframe` (ValueError for a bad setting or column); `text_format`: what
        the text column holds (None: the job's)."""
        c, job, spec = self.config, self.config.spark, self.config.table
        if job is None or spec is None:
            raise RunError("a Spark run has its SparkJob and its columns (check_spark)")
        text_format = text_format or job.text_format
        frame = read.frame
        target = job.partitions or 4 * spark.sparkContext.defaultParallelism
        if job.partitions or frame.rdd.getNumPartitions() < target:
            frame = frame.repartition(target)
        return deidentify_dataframe(
            frame,
            c.mode,
            c.key,
            model=c.model,
            id_col=read.id,
            text_col=read.text,
            patient_col=read.patient,
            batch_size=c.batch_size,
            options=c.options,
            error_col=read.error,
            # a FHIR or HL7 v2 record carries its own identifiers (a JSONL source's known_phi
            # column is for reports)
            known_col=KNOWN_COLUMN
            if KNOWN_COLUMN in frame.columns and text_format in ("text", "scan")
            else None,
            privacy=c.privacy,
            phi_cols=spec.phi_columns,
            text_format=text_format,
            review_below=c.ocr_review_below,
        )

    def spark_report(self, written, id_column: str, rows_in: int) -> RunReport:
        """The run report of a Spark run from what its sink wrote: the rows by status, the
        first failed rows by id and reason, the reasons counted."""
        c = self.config
        statuses = {
            r[STATUS_COL]: r["n"]
            for r in written.groupBy(STATUS_COL).count().withColumnRenamed("count", "n").collect()
        }
        failed = [
            {"id": r[0], "reason": r[1].removeprefix("failed: ")}
            for r in written.filter(f"`{STATUS_COL}` != 'ok'")
            .select(id_column, STATUS_COL)
            .limit(MAX_REPORTED)
            .collect()
        ]
        reasons: dict[str, int] = {}
        for status, n in statuses.items():
            if status != "ok":
                reason = status.removeprefix("failed: ")
                reasons[reason] = reasons.get(reason, 0) + n
        rows_out, ok = sum(statuses.values()), statuses.get("ok", 0)
        return RunReport(
            mode=c.mode,
            input=str(c.input),
            output=str(c.output),
            model={"name": c.model, "version": None},  # loaded on the executors
            library_version=__version__,
            fingerprint={},
            options=c.report_options or {},
            kind="spark",
            batch_size=c.batch_size,
            rows={"in": rows_in, "out": rows_out, "ok": ok, "failed": rows_out - ok},
            failure_reasons=dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
            failed=failed,
            seconds=time.time() - self.start,
        )

    # -- the end -------------------------------------------------------------------------------
    def report(self) -> RunReport:
        """The run report (counts, failures, labels, timings; never a key or text)."""
        c = self.config
        meta = getattr(self.nlp, "meta", {}) or {}
        return RunReport(
            mode=c.mode,
            input=str(c.input),
            output=str(self.output),
            model={
                "name": f"{meta.get('lang', '')}_{meta.get('name', '')}".strip("_") or c.model,
                "version": meta.get("version"),
            },
            library_version=__version__,
            fingerprint=self.fingerprint,
            options=c.report_options
            if c.report_options is not None
            else {
                "mode": c.mode,
                "model": c.model,
                "n_process": c.n_process,
                "batch_size": c.batch_size,
                "time_limit": c.time_limit,
                "skip_unsupported": c.skip_unsupported,
                "overwrite": c.overwrite,
                "encoding": self.encoding,
                **plain_options(vars(c.options)),
            },
            encoding=self.encoding,
            encodings=dict(self.encodings),
            gazetteer=self.gazetteer,
            n_process=c.n_process,
            batch_size=c.batch_size,
            counts=dict(self.counts),
            failed=self.failed,
            not_read=self.not_read,
            empty=self.empty,
            phi_per_label=dict(self.per_label),
            seconds=time.time() - self.start,
            model_load_seconds=self.load_seconds,
            scanned=self.scans.to_dict() if self.scans.documents else None,
        )

    def finish(self) -> RunReport:
        """Close the review site, export the private folder, write the run report; the
        fingerprint of a replacing run is marked finished last."""
        c = self.config
        compact_digests(self.output)
        report = self.report()
        counts = self.counts
        assert (
            counts["read"]
            == counts["written"] + counts["skipped"] + counts["failed"] + counts["empty"]
        )
        assert counts["not_read"] == len(self.not_read)
        if self.site is not None:
            if counts["skipped"]:
                self.site.add_note("note_skipped", n=counts["skipped"])
            self.site.close()
        if c.export_format is not None and c.private_dir is not None:
            try:
                report.export = {
                    "format": c.export_format,
                    "path": str(
                        export_private_dir(
                            c.private_dir,
                            c.export_format,
                            f"{report.model['name']}-{report.model['version']}",
                        )
                    ),
                }
            except AnnotationError as err:
                report.export = {"format": c.export_format, "error": str(err)}
        self.record_audit(report)
        write_json(c.report_file, report.to_dict())
        if self.replacing:  # every report of this run is written: a resume may skip them again
            fp.write_fingerprint(self.output, self.fingerprint)
        return report


def spark_job_error(err: BaseException) -> str:
    """One line about a failed Spark job: the exception class and, for a Python worker, the
    last exception line of its traceback (e.g. a model that cannot be loaded)."""
    msg = str(err)
    lines = [ln.strip() for ln in msg.splitlines() if EXCEPTION_LINE.match(ln)]
    first = msg.strip().splitlines()[0][:200] if msg.strip() else ""
    detail = lines[-1][:200] if lines else first
    return f"the Spark job failed ({type(err).__name__}{': ' + detail if detail else ''})"


def run(
    input_path: Path,
    output: Path,
    mode: str,
    key: bytes | None,
    *,
    model: str = DEFAULT_MODEL,
    n_process: int = 1,
    batch_size: int = 32,
    overwrite: bool = False,
    options: DeidOptions | None = None,
    report_path: Path | None = None,
    nlp=None,
    progress: bool | None = None,
    private_dir: Path | None = None,
    review_dir: Path | None = None,
    policy_digest: str | None = None,
    encoding: str = "utf-8",
    cli_options: dict | None = None,
    privacy: str | None = None,
    export_format: str | None = None,
    redacted_pdf: bool = False,
    ocr_review_below: float = DEFAULT_REVIEW_BELOW,
) -> dict:
    """A run as one call: `Run(RunConfig(...), nlp).execute()`; returns the run report.
    `cli_options`: the command-line options recorded in the run report (see RunConfig);
    `redacted_pdf`, `ocr_review_below`: scanned documents (RunConfig)."""
    config = RunConfig(
        input=input_path,
        output=output,
        mode=mode,
        key=key,
        model=model,
        n_process=n_process,
        batch_size=batch_size,
        overwrite=overwrite,
        options=options or DeidOptions(),
        report_path=report_path,
        private_dir=private_dir,
        review_dir=review_dir,
        policy_digest=policy_digest,
        encoding=encoding,
        privacy=privacy,
        export_format=export_format,
        report_options=cli_options,
        random_key=bool((cli_options or {}).get("random_key")),
        progress=progress,
        redacted_pdf=redacted_pdf,
        ocr_review_below=ocr_review_below,
    )
    return Run(config, nlp=nlp).execute()
