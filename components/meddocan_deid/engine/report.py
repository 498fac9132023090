"""`RunReport`: the one report of a run, whatever its source (reports of a file, a folder or a
JSONL file; a table): what was asked, what was read, written, skipped and failed (each failure
by name: its file, line or row and id, and its reason; never text), the PHI per label and the
timings. `to_dict` is the JSON written as the run report; `exit_code` is the command line's
(0: everything done, 1: something failed; 2, a run that could not start, never has a report).
"""

from dataclasses import dataclass, field
from typing import Any

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
    kind: str = "reports"  # or "table"
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

    @property
    def n_failed(self) -> int:
        return self.rows["failed"] if self.kind == "table" else self.counts.get("failed", 0)

    @property
    def exit_code(self) -> int:
        return 1 if self.n_failed else 0

    @property
    def written_per_second(self) -> float | None:
        """Reports de-identified and written per second, model loading excluded."""
        busy = self.seconds - self.model_load_seconds
        return round(self.counts.get("written", 0) / busy, 2) if busy > 0 else None

    def to_dict(self) -> dict[str, Any]:
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
                rows=dict(self.rows),
                failed=self.failed[:MAX_REPORTED],
                phi_per_label=dict(sorted(self.phi_per_label.items())),
                seconds=round(self.seconds, 3),
                model_load_seconds=round(self.model_load_seconds, 3),
            )
        else:
            out.update(
                encoding=self.encoding,
                # the codec each report read in this run was decoded with (UTF-8 first, then detection,
                # then --encoding)
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
        return out
