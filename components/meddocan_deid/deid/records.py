"""What a batch of reports is made of: a `Record` in, a `RecordResult` out."""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .operators import Replacement


@dataclass
class Record:
    id: str
    text: str
    patient_id: Optional[str] = None
    known_phi: Optional[Dict[str, List[str]]] = None  # label -> values known for this report's patient


@dataclass
class RecordResult:
    id: str
    text: Optional[str]  # de-identified text, None when failed
    phi: List[Tuple[str, int, int]]  # (label, start, end) in the original
    status: str  # "ok" or "failed: <reason without document text>"
    replacements: List[Replacement] = field(default_factory=list)  # also the spans in `text`

    @property
    def ok(self) -> bool:
        return self.status == "ok"
