"""`RunReport`: the one report of a run, whatever its source (reports of a file, a folder or a
JSONL file; a table, a file or rows in memory; a Spark input): what was asked, what was read,
written, skipped and failed (each failure by name: its file, line or row and id, and its reason;
never text), the PHI per label and the timings. `to_dict` is the JSON written as the run report;
`exit_code` is the command line's (0: everything done, 1: something failed, or a Spark run wrote
another number of rows than it read; 2, a run that could not start, never has a report);
`summary_lines` are the lines the command line prints about it.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..deid.tables import TableSpec, failed_rows, format_of
from ..formats.table import Table
from .record import failure_lines, not_read_lines, table_failure_lines
from .scans import review_lines

MAX_REPORTED = 1000  # failed rows of a table listed in the run report (all are counted)


@dataclass
class RunReport:
    mode: str
    input: str
    output: str
    model: dict[str, Any]
    library_version: str
    fingerprint: dict[str, Any]
    options: dict[str, Any]
    kind: str = "reports"  # or "table", or "spark"
    counts: dict[str, int] = field(
        default_factory=dict
    )  # reports: read, written, skipped, failed, empty, not_read
    failed: list[dict[str, Any]] = field(default_factory=list)
    not_read: list[dict[str, Any]] = field(default_factory=list)
    empty: list[dict[str, Any]] = field(
        default_factory=list
    )  # input files without text (id, file): not failures
    phi_per_label: dict[str, int] = field(default_factory=dict)
    encoding: str | None = None
    encodings: dict[str, int] = field(default_factory=dict)
    gazetteer: str | None = None
    n_process: int = 1
    batch_size: int = 32
    table: str | None = None  # a table run: the table written, its format, columns and rows
    format: str | None = None
    columns: dict[str, Any] | None = None
    rows: dict[str, int] | None = None
    seconds: float = 0.0
    model_load_seconds: float = 0.0
    export: dict[str, Any] | None = None
    # a Spark run: the output's format, the master it ran on, its tasks and the failed rows'
    # reasons counted (`rows`: in, out, ok, failed; `failed`: the first rows by id)
    output_format: str | None = None
    master: str | None = None
    partitions: int | None = None
    failure_reasons: dict[str, int] = field(default_factory=dict)
    # documents read as page images: each page's source and OCR confidence, those to review
    # (engine/scans.py ScanLog)
    scanned: dict[str, Any] | None = None
    audit: dict[str, Any] | None = None  # the run's audit line: its log, seq and digest

    @property
    def n_failed(self) -> int:
        if self.kind in ("table", "spark"):
            return (self.rows or {}).get("failed", 0)
        return self.counts.get("failed", 0)

    @property
    def rows_lost(self) -> bool:
        """A Spark run whose output holds another number of rows than its input."""
        return (
            self.kind == "spark" and self.rows is not None and self.rows["in"] != self.rows["out"]
        )

    @property
    def exit_code(self) -> int:
        return 1 if self.n_failed or self.rows_lost else 0

    @property
    def written_per_second(self) -> float | None:
        """Reports de-identified and written per second, model loading excluded."""
        busy = self.seconds - self.model_load_seconds
        return round(self.counts.get("written", 0) / busy, 2) if busy > 0 else None

    def to_dict(self) -> dict[str, Any]:
        if self.kind == "spark":
            return self._spark_dict()
        out: dict[str, Any] = {"mode": self.mode, "input": self.input, "output": self.output}
        if self.kind == "table":
            out.update(table=self.table, format=self.format)
        out.update(
            model=self.model,
            library_version=self.library_version,
            fingerprint=self.fingerprint,
            options=self.options,
        )
        if self.kind == "table":
            out.update(
                columns=self.columns,
                rows=dict(self.rows or {}),
                failed=self.failed[:MAX_REPORTED],
                phi_per_label=dict(sorted(self.phi_per_label.items())),
                seconds=round(self.seconds, 3),
                model_load_seconds=round(self.model_load_seconds, 3),
            )
        else:
            out.update(
                encoding=self.encoding,
                # the codec each report read in this run was decoded with (UTF-8 first, then
                # detection, then --encoding)
                encodings=dict(sorted(self.encodings.items())),
                # surrogates drawn from: "pipeline", a folder, "faker-only" (None: not surrogate)
                gazetteer=self.gazetteer,
                n_process=self.n_process,
                batch_size=self.batch_size,
                reports=dict(self.counts),
                failed=self.failed,
                empty=self.empty,
                not_read=self.not_read,
                phi_per_label=dict(sorted(self.phi_per_label.items())),
                seconds=round(self.seconds, 3),
                model_load_seconds=round(self.model_load_seconds, 3),
                written_per_second=self.written_per_second,
            )
        if self.export is not None:
            out["export"] = self.export
        if self.scanned is not None:
            out["scanned"] = self.scanned
        if self.audit is not None:
            out["audit"] = self.audit
        return out

    def add_table(
        self, table: Table, spec: TableSpec, status: list[str], per_label: dict[str, int], name: str
    ) -> None:
        """Make this the report of a table de-identified (a file by the Run, rows by the
        service), `name` the table written: its format and columns, its rows read, ok and
        failed, each failed row by name, the spans replaced per label."""
        failed = failed_rows(table, spec, status)
        self.kind, self.table, self.format = "table", name, format_of(table)
        self.columns = {
            "id": spec.id_column,
            "text": list(spec.text_columns),
            "phi": dict(spec.phi_columns),
            "patient": spec.patient_column,
            "status": spec.status_column,
            "phi_to_text": spec.phi_to_text,
            **({"sheet": spec.sheet} if spec.sheet else {}),
        }
        self.rows = {"read": table.n, "ok": table.n - len(failed), "failed": len(failed)}
        self.failed, self.phi_per_label = failed, dict(per_label)

    def _spark_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "input": self.input,
            "input_format": self.format,
            "output": self.output,
            "output_format": self.output_format,
            "model": self.model,
            "library_version": self.library_version,
            "options": self.options,
            "master": self.master,
            "batch_size": self.batch_size,
            "partitions": self.partitions,
            "rows": dict(self.rows or {}),
            "failure_reasons": dict(self.failure_reasons),
            "failed": self.failed[:MAX_REPORTED],  # the first rows (id and reason)
            "seconds": round(self.seconds, 3),
            **({"audit": self.audit} if self.audit is not None else {}),
        }

    def summary_lines(self, report_file: Path | None, encoding: str = "utf-8") -> list[str]:
        """What the command line prints about the run: a line per problem (failed reports or
        rows by name, files not read, rows lost; at most a few of each), then the counts."""
        out = self.to_dict()
        if self.kind == "spark":
            rows = self.rows or {}
            reasons = ", ".join(f"{n} {r}" for r, n in list(self.failure_reasons.items())[:5])
            return [
                *(["row count out differs from row count in"] if self.rows_lost else []),
                f"rows in {rows['in']}, out {rows['out']}, ok {rows['ok']}, failed "
                f"{rows['failed']}{' (' + reasons + ')' if reasons else ''} in "
                f"{self.seconds:.1f}s on {self.master} -> {self.output}",
            ]
        if self.kind == "table":
            rows = self.rows or {}
            return [
                *table_failure_lines(out),
                f"rows read {rows['read']}, ok {rows['ok']}, failed {rows['failed']} in "
                f"{self.seconds:.1f}s -> {self.table} (report {report_file})",
            ]
        c = self.counts
        return [
            *failure_lines(out, encoding),
            *not_read_lines(out),
            *review_lines(out),
            f"reports read {c['read']}, written {c['written']}, skipped {c['skipped']}, failed "
            f"{c['failed']}, empty {c['empty']}, files not read {c['not_read']} in "
            f"{self.seconds:.1f}s -> {report_file}",
        ]
