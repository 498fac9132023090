"""Score a pipeline on the identifier evaluation set (`assets/identifiers/`).

The set is BRAT: `T` lines are gold entities, and `AnnotatorNotes` lines say which of
them are planted identifiers (`kind=dni valid=1 format=dotted section=header`) and
which are look-alikes (label `NO_PHI`, `kind=lookalike type=dose ...`). See the set's
README for the conventions.

Per identifier kind:
* found: a predicted entity has exactly the gold span (any label);
* found_label: ... and the gold label;
* covered: every non-blank character of the gold span lies inside predicted entities
  of any label (what matters for privacy; a split prediction still covers);
* aligned: the span starts and ends on token boundaries of the pipeline's tokenizer (an
  unaligned identifier cannot be found exactly by a token-level NER).
Look-alikes: how many overlap any predicted entity (target 0); those written in an
identifier's own shape with a failing check and no key (`type=failed_check of=<kind>`) are
also counted per kind they imitate. Precision and recall per
label come from `metrics.evaluate` (subtask 1, the same code as `scripts/evaluate.py`)
with the `NO_PHI` entities left out of the gold.

Messages name files, lines and documents, never report text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..brat import Annotation, BratError, read_ann, read_text
from .metrics import EvaluationError, evaluate, prf
from .results import system_annotations

NO_PHI = "NO_PHI"
LOOKALIKE = "lookalike"
FAILED_CHECK = "failed_check"  # a look-alike in an identifier's shape whose check fails


@dataclass
class Planted:
    """A gold identifier or look-alike and the fields of its note."""

    kind: str
    label: str
    start: int
    end: int
    notes: dict[str, str]

    @property
    def section(self) -> str:
        return self.notes.get("section", "")

    @property
    def valid(self) -> str:
        return self.notes.get("valid", "na")


@dataclass
class IdentifierDoc:
    doc_id: str
    text: str
    gold: list[Annotation] = field(default_factory=list)  # every PHI entity, NO_PHI left out
    identifiers: list[Planted] = field(default_factory=list)
    lookalikes: list[Planted] = field(default_factory=list)


def _parse_notes(path: Path) -> tuple[list[str], dict[str, dict[str, str]]]:
    """The T ids in file order, and T id -> note fields from the `#n<TAB>AnnotatorNotes
    Tk<TAB>key=value ...` lines."""
    t_ids = []
    notes: dict[str, dict[str, str]] = {}
    for lineno, line in enumerate(read_text(path).splitlines(), start=1):
        if line.startswith("T"):
            t_ids.append(line.split("\t", 1)[0])
        elif line.startswith("#"):
            parts = line.split("\t")
            ref = parts[1].split(" ") if len(parts) == 3 else []
            if len(ref) != 2 or ref[0] != "AnnotatorNotes":
                raise BratError(
                    f"{path}:{lineno}: expected '#<n>\\tAnnotatorNotes T<k>\\tkey=value ...'"
                )
            if ref[1] not in t_ids:
                raise BratError(
                    f"{path}:{lineno}: note for {ref[1]}, which no earlier T line defines"
                )
            fields = {}
            for item in parts[2].split():
                key, sep, value = item.partition("=")
                if not sep or not key or not value:
                    raise BratError(f"{path}:{lineno}: note field {item!r} is not key=value")
                fields[key] = value
            if "kind" not in fields:
                raise BratError(f"{path}:{lineno}: note without kind=")
            notes[ref[1]] = fields
    return t_ids, notes


def read_identifier_set(folder: Path) -> list[IdentifierDoc]:
    """The documents of the set, sorted by id. Raises BratError naming the file and line."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BratError(
            f"{folder}: the identifier set folder does not exist (run "
            "experiments/make_identifier_set.py)"
        )
    docs = []
    for txt in sorted(folder.glob("*.txt")):
        text = read_text(txt)
        ann = txt.with_suffix(".ann")
        if not ann.is_file():
            raise BratError(f"{ann}: missing (every report of the set has gold)")
        entities = read_ann(ann, text)  # checks the T lines: offsets, surface text
        t_ids, notes = _parse_notes(ann)
        doc = IdentifierDoc(txt.stem, text)
        for t_id, (label, start, end) in zip(t_ids, entities):
            fields = notes.get(t_id)
            if label == NO_PHI:
                if not fields or fields["kind"] != LOOKALIKE:
                    raise BratError(f"{ann}: {t_id} is NO_PHI without a kind=lookalike note")
                doc.lookalikes.append(
                    Planted(fields.get("type", "other"), label, start, end, fields)
                )
                continue
            doc.gold.append((label, start, end))
            if fields:
                if fields["kind"] == LOOKALIKE:
                    raise BratError(f"{ann}: {t_id} is noted as a look-alike but labelled {label}")
                doc.identifiers.append(Planted(fields["kind"], label, start, end, fields))
        docs.append(doc)
    if not docs:
        raise BratError(f"{folder}: no .txt report in the identifier set folder")
    return docs


def _covered(start: int, end: int, text: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Every non-blank character of text[start:end] lies inside one of `spans`."""
    inside = [False] * (end - start)
    for s, e in spans:
        for i in range(max(s, start), min(e, end)):
            inside[i - start] = True
    return all(flag or text[start + i].isspace() for i, flag in enumerate(inside))


def _rate(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def score_identifiers(
    docs: Sequence[IdentifierDoc],
    system: Mapping[str, Iterable[Annotation]],
    token_bounds: Mapping[str, tuple[set, set]] | None = None,
) -> dict[str, Any]:
    """Scores of `system` (doc_id -> [(label, start, end)]) on the set.

    token_bounds: doc_id -> (token start offsets, token end offsets) of the pipeline's
    tokenization, for the `aligned` counts (left out when None).
    Returns {"kinds": {kind: counts}, "sections": {...}, "invalid_checksum": {...},
    "overall": {...}, "lookalikes": {... "failed_check": {kind: counts}}, "labels": {label:
    p/r/f...}, "meddocan_s1": {...}}.
    """
    counters: dict[str, Counter] = {}
    sections: dict[str, Counter] = {}
    invalid: Counter[str] = Counter()
    look: Counter[str] = Counter()
    look_types: dict[str, Counter] = {}
    failed: dict[str, Counter] = {}  # kind imitated -> counts of its failing-check look-alikes
    for doc in docs:
        if doc.doc_id not in system:
            raise EvaluationError(f"{doc.doc_id}: no prediction for this document")
        predicted = [(str(lab), int(s), int(e)) for lab, s, e in system[doc.doc_id]]
        exact = {(s, e) for _, s, e in predicted}
        spans = [(s, e) for _, s, e in predicted]
        for ident in doc.identifiers:
            found = (ident.start, ident.end) in exact
            hits = {
                "n": 1,
                "found": int(found),
                "found_label": int((ident.label, ident.start, ident.end) in predicted),
                "covered": int(_covered(ident.start, ident.end, doc.text, spans)),
            }
            if token_bounds is not None:
                starts, ends = token_bounds[doc.doc_id]
                hits["aligned"] = int(ident.start in starts and ident.end in ends)
            counters.setdefault(ident.kind, Counter()).update(hits)
            sections.setdefault(ident.section or "unknown", Counter()).update(hits)
            if ident.valid == "0":
                invalid.update(hits)
        for item in doc.lookalikes:
            hit = any(s < item.end and item.start < e for s, e in spans)
            look["n"] += 1
            look["hit"] += int(hit)
            look_types.setdefault(item.kind, Counter()).update({"n": 1, "hit": int(hit)})
            if item.kind == FAILED_CHECK:
                of = item.notes.get("of", "unknown")
                failed.setdefault(of, Counter()).update({"n": 1, "hit": int(hit)})

    def finish(c: Counter) -> dict[str, Any]:
        row: dict[str, Any] = dict(c)
        for key in ("n", "found", "found_label", "covered"):
            row.setdefault(key, 0)
        row["recall"] = _rate(row["found"], row["n"])
        row["recall_label"] = _rate(row["found_label"], row["n"])
        row["covered_rate"] = _rate(row["covered"], row["n"])
        return row

    total: Counter[str] = Counter()
    for c in counters.values():
        total.update(c)
    identifier_labels = sorted({i.label for d in docs for i in d.identifiers})
    # subtask-1 counts from the same code as `evaluate`; NO_PHI is not gold
    s1 = evaluate(
        {d.doc_id: (d.text, d.gold) for d in docs}, {d.doc_id: system[d.doc_id] for d in docs}
    )
    per_type = s1["meddocan_s1_per_type"]
    labels = {}
    for label in identifier_labels:
        row = per_type.get(label, {"tp": 0, "fp": 0, "fn": 0, "support": 0})
        p, r, f = prf(row["tp"], row["fp"], row["fn"])
        labels[label] = {
            "p": p,
            "r": r,
            "f": f,
            "tp": row["tp"],
            "fp": row["fp"],
            "fn": row["fn"],
            "support": row["support"],
        }
    return {
        "n_docs": len(docs),
        "kinds": {kind: finish(counters[kind]) for kind in sorted(counters)},
        "sections": {name: finish(sections[name]) for name in sorted(sections)},
        "invalid_checksum": finish(invalid),
        "overall": finish(total),
        "lookalikes": {
            "n": look["n"],
            "hit": look["hit"],
            "types": {t: dict(c) for t, c in sorted(look_types.items())},
            "failed_check": {k: dict(c) for k, c in sorted(failed.items())},
        },
        "labels": labels,
        "meddocan_s1": {k: s1[f"meddocan_s1_{k}"] for k in ("p", "r", "f", "tp", "fp", "fn")},
    }


def evaluate_identifiers(nlp, folder: Path, *, batch_size: int = 32) -> dict[str, Any]:
    """Run `nlp` over the set's reports and score its `doc.ents`."""
    docs = read_identifier_set(folder)
    system, bounds = {}, {}
    for doc, predicted in zip(docs, nlp.pipe((d.text for d in docs), batch_size=batch_size)):
        if predicted.text != doc.text:
            raise EvaluationError(f"{doc.doc_id}: the pipeline changed the text")
        system[doc.doc_id] = system_annotations(predicted)
        bounds[doc.doc_id] = ({t.idx for t in predicted}, {t.idx + len(t.text) for t in predicted})
    return score_identifiers(docs, system, bounds)


def table_rows(scores: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """(kind, n, found, covered, recall, covered %) rows, then the overall row."""
    rows: list[tuple[str, ...]] = []
    for kind, row in list(scores["kinds"].items()) + [("overall", scores["overall"])]:
        rows.append(
            (
                kind,
                str(row["n"]),
                str(row["found"]),
                str(row["covered"]),
                f"{100 * row['recall']:.1f}",
                f"{100 * row['covered_rate']:.1f}",
            )
        )
    return rows
