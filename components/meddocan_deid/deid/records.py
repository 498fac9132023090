"""What a batch of reports is made of: a `Record` in, a `RecordResult` out."""

from dataclasses import dataclass, field

from .operators import Replacement


@dataclass
class Record:
    id: str
    text: str
    patient_id: str | None = None
    # label -> values known for this report's patient
    known_phi: dict[str, list[str]] | None = None


@dataclass
class RecordResult:
    id: str
    text: str | None  # de-identified text, None when failed
    phi: list[tuple[str, int, int]]  # (label, start, end) in the original
    status: str  # "ok" or "failed: <reason without document text>"
    replacements: list[Replacement] = field(default_factory=list)  # also the spans in `text`

    @property
    def ok(self) -> bool:
        return self.status == "ok"
