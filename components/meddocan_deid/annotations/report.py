"""The common record of the annotation formats (`AnnotatedReport`: doc id, text, spans in the
text's character offsets, end exclusive) and its checks; the format modules read and write it."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from .. import LABELS
from ..errors import AnnotationError  # noqa: F401  (re-exported)

FORMATS = ("brat", "labelstudio", "doccano")
Span = tuple[str, int, int]  # (label, start, end), as meddocan_deid.brat.Annotation


@dataclass
class AnnotatedReport:
    doc_id: str
    text: str
    spans: list[Span] = field(default_factory=list)
    where: str = ""  # where the record came from, for messages: "file:line", "file: task 3"
    span_where: list[str] = field(
        default_factory=list
    )  # per span, when the format has one (BRAT: "file:line")

    def where_of(self, i: int) -> str:
        """Where span i came from: its own line when known, else the record's place."""
        return self.span_where[i] if i < len(self.span_where) else (self.where or self.doc_id)


def check_spans(report: AnnotatedReport, labels: Iterable[str] = LABELS) -> None:
    """Offsets inside the text and known labels; raises AnnotationError naming `where`."""
    known = set(labels)
    for i, (label, start, end) in enumerate(report.spans):
        where = report.where_of(i)
        if (
            not (isinstance(start, int) and isinstance(end, int))
            or isinstance(start, bool)
            or isinstance(end, bool)
        ):
            raise AnnotationError(f"{where}: offsets must be integers")
        if not 0 <= start < end <= len(report.text):
            raise AnnotationError(
                f"{where}: span {start}-{end} empty or outside the text (length {len(report.text)})"
            )
        if label not in known:
            raise AnnotationError(
                f"{where}: unknown label {label!r} at {start}-{end} (not a MEDDOCAN label)"
            )
