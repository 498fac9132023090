"""Records -> DocBin with the project tokenizer, the alignment checked as `scripts/convert.py`
checks the corpus: counts by label, and each misaligned span by doc id, offsets and character
shapes (never text). Docs carry `user_data` as converted ones do (`meddocan_id`,
`meddocan_gold`), so `scripts/evaluate.py` and the adapt step read them like dev."""

import collections
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from spacy.tokens import DocBin

from ..errors import AnnotationError
from ..evaluation.results import GOLD_KEY, ID_KEY
from ..pipeline.tokenizer import blank_pipeline
from .report import AnnotatedReport

ALIGNMENT = ("strict", "expand")


def shape(text: str) -> str:
    """A non-identifying shape of a snippet: letters X/x, digits d, the rest kept."""
    return re.sub(
        r"\d", "d", re.sub(r"[^\W\d_]", lambda m: "X" if m.group().isupper() else "x", text)
    )


@dataclass
class AlignmentReport:
    total: dict[str, int] = field(default_factory=collections.Counter)
    misaligned: collections.Counter[str] = field(default_factory=collections.Counter)
    examples: dict[str, list[str]] = field(default_factory=lambda: collections.defaultdict(list))
    expanded: int = 0
    n_docs: int = 0

    def lines(self) -> list[str]:
        total, bad = sum(self.total.values()), sum(self.misaligned.values())
        share = 1 - bad / total if total else 1.0
        out = [
            f"{self.n_docs} reports; entities aligned to tokens: {total - bad}/{total} "
            f"({share:.4%})"
            + (f"; expanded to token boundaries: {self.expanded}" if self.expanded else "")
        ]
        for label, count in self.misaligned.most_common():
            out.append(f"  misaligned {label}: {count}")
            out.extend(f"    {example}" for example in self.examples[label][:5])
        return out


def to_docbin(reports: Sequence[AnnotatedReport], nlp=None, alignment: str = "strict"):
    """(DocBin, AlignmentReport). A span that does not fall on token boundaries is an error
    (AnnotationError listing every such span by offsets and shapes) unless alignment is
    "expand": then it grows to the tokens it touches and is counted. Overlapping spans are an
    error naming the report."""
    if alignment not in ALIGNMENT:
        raise AnnotationError(f"alignment must be one of {', '.join(ALIGNMENT)}")
    if nlp is None:
        nlp = blank_pipeline()
    stats = AlignmentReport()
    db = DocBin(store_user_data=True)
    for report in reports:
        doc = nlp.make_doc(report.text)
        ents = []
        for i, (label, start, end) in enumerate(report.spans):
            stats.total[label] += 1
            span = doc.char_span(start, end, label=label)
            if span is None:
                stats.misaligned[label] += 1
                wider = doc.char_span(start, end, label=label, alignment_mode="expand")
                stats.examples[label].append(
                    f"{report.where_of(i)} {start}-{end} span '{shape(report.text[start:end])}' "
                    f"tokens '{shape(wider.text) if wider is not None else ''}'"
                )
                if alignment == "expand" and wider is not None and wider.text.strip():
                    stats.expanded += 1
                    span = wider
            if span is not None:
                ents.append(span)
        ents.sort(key=lambda s: (s.start, s.end))
        for a, b in zip(ents, ents[1:]):
            if b.start < a.end:
                raise AnnotationError(
                    f"{report.where or report.doc_id}: spans {a.start_char}-{a.end_char} "
                    f"({a.label_}) and {b.start_char}-{b.end_char} ({b.label_}) overlap (in tokens)"
                )
        doc.ents = ents
        doc.user_data[ID_KEY] = report.doc_id
        doc.user_data[GOLD_KEY] = [[label, start, end] for label, start, end in report.spans]
        db.add(doc)
        stats.n_docs += 1
    if sum(stats.misaligned.values()) and alignment == "strict":
        raise AnnotationError(
            "\n".join(
                ["spans not on token boundaries (fix them, or --alignment expand):"]
                + stats.lines()[1:]
            )
        )
    return db, stats
