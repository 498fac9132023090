"""What known identifiers add to recall, measured on a converted DocBin (gold in user_data).

For every report, the gold values of the patient found in its HEADER (the section that the
pipeline's `doc.spans["sections"]` names `header`) with labels NOMBRE_SUJETO_ASISTENCIA,
ID_SUJETO_ASISTENCIA and ID_ASEGURAMIENTO are given as `known_phi`, as a hospital would
give them from its admission system. The gold mentions of those labels in the BODY and
FOOTER are then checked against the predicted entities, before and after the known values
are added (`meddocan_deid.deid.known_phi.add_known`). Counts only, never text.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spacy.tokens import Doc

from ..deid.known_phi import add_known, find_known
from ..pipeline.sections import SECTIONS_KEY
from .results import gold_annotations, read_docbin

NAME = "NOMBRE_SUJETO_ASISTENCIA"
# label choice: the identifiers a hospital's admission system gives with the name (the patient's
# record number or ID, the insurance number): the known values this measure adds
KNOWN_IDS = ("ID_SUJETO_ASISTENCIA", "ID_ASEGURAMIENTO")
GROUPS = {"name": (NAME,), "id": KNOWN_IDS}
KNOWN_LABELS = tuple(label for labels in GROUPS.values() for label in labels)
Span = tuple[str, int, int]


@dataclass
class Counts:
    mentions: int = 0  # gold mentions in body and footer
    findable: int = (
        0  # of those, covered by the known values' matches alone (the same value as the header's)
    )
    covered_before: int = 0  # every character inside predicted entities (any label)
    covered_after: int = 0
    exact_before: int = 0  # a predicted entity with the same label and offsets
    exact_after: int = 0


@dataclass
class KnownPhiReport:
    reports: int = 0
    reports_with_known: int = 0  # reports whose header holds a gold name or ID
    groups: dict[str, Counts] = field(default_factory=lambda: {g: Counts() for g in GROUPS})
    added_spans: int = 0  # spans that known_phi added or changed
    added_off_gold: int = 0  # of those, overlapping no gold entity at all (new false positives)


def section_of(doc: Doc, start: int, end: int) -> str:
    for span in doc.spans.get(SECTIONS_KEY, []):
        if span.start_char <= start < span.end_char:
            return span.label_
    return "body"


def covered(spans: Sequence[Span], start: int, end: int) -> bool:
    chars: set[int] = set()
    for _label, s, e in spans:
        if s < end and start < e:
            chars.update(range(max(s, start), min(e, end)))
    return len(chars) == end - start


def header_known(doc: Doc, gold: Iterable[Span]) -> dict[str, list[str]]:
    known: dict[str, list[str]] = {}
    for label, s, e in gold:
        if label in KNOWN_LABELS and section_of(doc, s, e) == "header":
            value = doc.text[s:e]
            if value not in known.setdefault(label, []):
                known[label].append(value)
    return known


def measure_doc(doc: Doc, gold: Sequence[Span], report: KnownPhiReport) -> None:
    before = [(e.label_, e.start_char, e.end_char) for e in doc.ents]
    known = header_known(doc, gold)
    after = add_known(doc.text, before, known) if known else before
    matches = find_known(doc.text, known)
    report.reports += 1
    report.reports_with_known += bool(known)
    new = set(after) - set(before)
    report.added_spans += len(new)
    report.added_off_gold += sum(
        1 for _l, s, e in new if not any(gs < e and s < ge for _gl, gs, ge in gold)
    )
    exact_before, exact_after = set(before), set(after)
    for group, labels in GROUPS.items():
        counts = report.groups[group]
        for label, s, e in gold:
            if label not in labels or section_of(doc, s, e) == "header":
                continue
            counts.mentions += 1
            counts.findable += covered(matches, s, e)
            counts.covered_before += covered(before, s, e)
            counts.covered_after += covered(after, s, e)
            counts.exact_before += (label, s, e) in exact_before
            counts.exact_after += (label, s, e) in exact_after


def measure(nlp, data_path: Path, batch_size: int = 32) -> KnownPhiReport:
    """Run `nlp` over the texts of the DocBin at `data_path` and count (see the module doc)."""
    references = read_docbin(nlp, Path(data_path))
    report = KnownPhiReport()
    docs = nlp.pipe((ref.text for ref in references), batch_size=batch_size)
    for ref, doc in zip(references, docs):
        measure_doc(doc, gold_annotations(ref), report)
    return report


def format_report(report: KnownPhiReport) -> str:
    def share(n, d):
        return f"{n / d:.4f}" if d else "-"

    lines = [
        f"reports {report.reports}, with a gold name or ID in the header "
        f"{report.reports_with_known}",
        f"{'body+footer':<12}{'mentions':>9}{'findable':>9}{'covered before':>16}{'after':>14}"
        f"{'exact before':>16}{'after':>14}",
    ]
    total = Counts()
    for c in report.groups.values():
        for k in vars(total):
            setattr(total, k, getattr(total, k) + getattr(c, k))
    for group, c in list(report.groups.items()) + [("all", total)]:
        lines.append(
            f"{group:<12}{c.mentions:>9}{c.findable:>9}"
            f"{f'{c.covered_before} ({share(c.covered_before, c.mentions)})':>16}"
            f"{f'{c.covered_after} ({share(c.covered_after, c.mentions)})':>14}"
            f"{f'{c.exact_before} ({share(c.exact_before, c.mentions)})':>16}"
            f"{f'{c.exact_after} ({share(c.exact_after, c.mentions)})':>14}"
        )
    lines.append(
        "findable: mentions that the header's known values match (same value); covered: every "
        "character inside predicted entities (any label); exact: same label and offsets"
    )
    lines.append(
        f"spans added or changed by known_phi: {report.added_spans}, "
        f"of which overlapping no gold entity: {report.added_off_gold}"
    )
    return "\n".join(lines)
