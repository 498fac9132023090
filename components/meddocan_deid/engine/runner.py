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

A table (`config.table`, a TableSpec) goes to OUTPUT/<the input's name> in its format, through
a temporary file renamed into place: a killed run leaves the earlier output or none, and a
rerun does the whole table again; an existing output table is replaced only with `overwrite`.
"""

import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .. import __version__
from ..annotations import AnnotationError, export_private_dir
from ..constants import DEFAULT_MODEL
from ..deid import fingerprint as fp
from ..deid.deidentifier import Deidentifier
from ..deid.options import DeidOptions
from ..deid.review import ReviewReport, ReviewSite
from ..deid.tables import (
    TableSettings,
    check_columns,
    deidentify_loaded,
    failed_rows,
    format_of,
    kept_columns,
    open_table,
)
from ..errors import InputError, OutputFullError, RunError
from ..formats.sources import (
    check_paths,
    count_inputs,
    input_kind,
    iter_items,
    load_item,
    resolve_encoding,
)
from ..pipeline.fields import add_field_files
from ..pipeline.privacy import set_privacy
from . import output
from .config import EXPORT_FORMATS, RunConfig
from .heap import loaded_objects_pinned
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
from .report import RunReport
from .settings import load_model

logger = logging.getLogger("meddocan_deid.deid")


class Run:
    """One run of `config`; `nlp`: an already loaded pipeline (else `config.model` is loaded).

    Refuses (RunError, nothing written) when OUTPUT holds a run with another fingerprint
    (mode, policy digest, key, model, library version) unless `overwrite`, and when another
    run holds OUTPUT's lock. A full disk or quota raises OutputFullError (the folder, the
    reports written; a rerun resumes)."""

    def __init__(self, config: RunConfig, nlp=None):
        self.config = config
        self.nlp = nlp
        self.output = Path(config.output)
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
        self._items: dict[str, object] = {}  # id -> (stem, where, digest) until the result comes
        self._originals: dict[str, str] = {}  # kept only for the private folder and the review site
        self._digests = None
        self.site = None
        self.bar = None
        self.table = None  # a table input, read whole by check_table
        self.table_settings: TableSettings | None = None

    # -- before the lock -------------------------------------------------------------------
    def check_inputs(self) -> None:
        """The input, the output, the encoding and the private and review folders (RunError)."""
        c = self.config
        try:
            input_kind(c.input)
            check_paths(c.input, c.output)
            self.encoding = resolve_encoding(c.encoding)
            self.n_inputs = count_inputs(
                c.input
            )  # no report to read: an error, before loading the model
            if c.private_dir is not None:
                check_private_dir(c.private_dir, c.output, c.input, "--private-dir")
            if c.export_format is not None and c.private_dir is None:
                raise InputError(
                    "--export-format writes into --private-dir: give --private-dir DIR"
                )
            if c.export_format is not None and c.export_format not in EXPORT_FORMATS:
                raise InputError(
                    f"--export-format: {c.export_format!r} is not brat, labelstudio or doccano"
                )
            if c.review_dir is not None:
                check_private_dir(c.review_dir, c.output, c.input, "--review")
        except InputError as err:
            raise RunError(str(err)) from None

    def check_table(self) -> None:
        """A table input: the output folder and table, the encoding, the table read whole and
        its columns (RunError, nothing written)."""
        c = self.config
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
                    f"{out_dir}: the output table would replace the input; choose another output folder"
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
            self.table = open_table(
                source,
                fmt="jsonl" if source.suffix.lower() == ".jsonl" else None,
                sheet=c.table.sheet,
                encoding=self.encoding,
            )
            check_columns(self.table, c.table)
        except InputError as err:
            raise RunError(str(err)) from None

    def load_model(self) -> None:
        """Load `config.model` at the run's privacy level, or set that level on the given pipeline."""
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

    def make_deidentifier(self) -> None:
        """The run's `Deidentifier` (operators, key and gazetteer settled once, before any
        progress: a notice about a missing gazetteer comes once)."""
        c = self.config
        try:
            self.deidentifier = Deidentifier(self.nlp, c.mode, key=c.key, options=c.options)
        except ValueError as err:
            raise RunError(str(err)) from None
        # the surrogates' source; None when no label uses the surrogate operator
        self.gazetteer = (
            self.deidentifier.gazetteer.source_name if self.deidentifier.needs_key else None
        )

    def make_fingerprint(self) -> None:
        c = self.config
        self.fingerprint = fp.make_fingerprint(
            mode=c.mode,
            key=c.key,
            policy_digest=c.run_policy_digest,
            nlp=self.nlp,
            model=c.model,
            library_version=__version__,
            options=c.options,
            field_keys=self.field_keys,
        )

    # -- the whole run -----------------------------------------------------------------------
    def execute(self) -> dict:
        """Run every step; returns the run report (as written)."""
        return self.execute_report().to_dict()

    def execute_report(self) -> RunReport:
        """Run every step; returns the run report."""
        self.start = time.time()
        if self.config.table is not None:
            self.check_table()
        else:
            self.check_inputs()
        self.load_model()
        self.load_seconds = time.time() - self.start
        self.make_deidentifier()
        self.max_chars = self.deidentifier.max_chars
        self.make_fingerprint()
        with self.holding_output():
            if self.config.table is not None:
                return self.write_table()
            self.check_resume()
            with loaded_objects_pinned():
                return self.execute_locked()

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
        """Before anything is written: a refused run leaves the folder and its run report as they were."""
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
            self.site = ReviewSite(c.review_dir, mode=c.mode)
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
        c = self.config
        keep_originals = c.private_dir is not None or c.review_dir is not None
        try:
            for item in iter_items(c.input, self.encoding):
                if item.not_read is not None:
                    if item.unsupported and not c.skip_unsupported:  # the exit code says so
                        self.counts["read"] += 1
                        self.fail(
                            item.id, f"{item.not_read} (or pass --skip-unsupported)", item.where
                        )
                    else:
                        self.counts["not_read"] += 1
                        self.not_read.append({"file": item.where, "reason": item.not_read})
                    self._tick()
                    continue
                self.counts["read"] += 1
                item = load_item(
                    item, self.max_chars, self.encoding
                )  # reads the bytes and their digest
                if (
                    item.digest is not None
                    and not c.overwrite
                    and is_done(self.output, item.stem, item.digest, self._digests)
                ):
                    self.counts["skipped"] += 1
                    self._tick()
                    continue
                if item.error is not None:
                    self.fail(item.id, item.error, item.where)
                    self._tick()
                    continue
                if (
                    item.path is not None and not item.record.text.strip()
                ):  # an empty file: nothing to remove
                    self.counts["empty"] += 1
                    self.empty.append({"id": item.id, "file": item.where})
                    if self.site is not None:  # listed for the reviewer, as a failure is
                        self.site.add(ReviewReport(item.id, None, None, [], status="empty text"))
                    self._tick()
                    continue
                docx = item.path if item.document == "docx" else None  # its .docx is written too
                self._items[item.id] = (item.stem, item.where, item.digest, docx)
                codec = item.encoding or self.encoding
                self.encodings[codec] = self.encodings.get(codec, 0) + 1
                if keep_originals:
                    self._originals[item.id] = item.record.text
                yield item.record
        except InputError as err:
            raise RunError(str(err)) from None

    def write_result(self, res) -> None:
        """Write one result: the private copy first (a report is done when its shared .txt exists)."""
        c = self.config
        stem, where, digest, docx = self._items.pop(res.id)
        original = self._originals.pop(res.id, None)
        if res.status != "ok":
            self.fail(
                res.id,
                res.status[len("failed: ") :] if res.status.startswith("failed: ") else res.status,
                where,
            )
            return
        try:
            if c.private_dir is not None:
                write_private(c.private_dir, stem, original, res.replacements)
            output.write_report(
                self.output,
                stem,
                res.text,
                res.replacements,
                docx=None if docx is None else (docx, digest),
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
            for res in self.deidentifier.deidentify_records(
                self.records(),
                batch_size=c.batch_size,
                time_limit=c.time_limit,
                n_process=c.n_process,
            ):
                self.write_result(res)
                self._tick()
        finally:
            if self.bar is not None:
                self.bar.close()

    # -- a table ---------------------------------------------------------------------------------
    def write_table(self) -> RunReport:
        """De-identify the table read by check_table and write it whole, in its format, into
        OUTPUT/<the input's name>, then the run report."""
        c, table, spec = self.config, self.table, self.config.table
        target = self.output / Path(c.input).name
        updates, status, per_label = deidentify_loaded(
            table, columns=spec, deidentifier=self.deidentifier, settings=self.table_settings
        )
        table.write(target, updates, status, spec.status_column, keep=kept_columns(spec))
        failed = failed_rows(table, spec, status)
        report = self.report()
        report.kind, report.table, report.format = "table", str(target), format_of(table)
        report.options = c.report_options or {}
        report.columns = {
            "id": spec.id_column,
            "text": list(spec.text_columns),
            "phi": dict(spec.phi_columns),
            "patient": spec.patient_column,
            "status": spec.status_column,
            "phi_to_text": spec.phi_to_text,
            **({"sheet": spec.sheet} if spec.sheet else {}),
        }
        report.rows = {"read": table.n, "ok": table.n - len(failed), "failed": len(failed)}
        report.failed, report.phi_per_label = failed, dict(per_label)
        write_json(c.report_file, report.to_dict())
        return report

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
                self.site.notes.append(
                    f"{counts['skipped']} reports already written by an earlier run were skipped "
                    "and are not on this site (rerun with --overwrite to include them)."
                )
            self.site.close()
        if c.export_format is not None:
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
        write_json(c.report_file, report.to_dict())
        if self.replacing:  # every report of this run is written: a resume may skip them again
            fp.write_fingerprint(self.output, self.fingerprint)
        return report


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
) -> dict:
    """A run as one call: `Run(RunConfig(...), nlp).execute()`; returns the run report.
    `cli_options`: the command-line options recorded in the run report (see RunConfig)."""
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
    )
    return Run(config, nlp=nlp).execute()
