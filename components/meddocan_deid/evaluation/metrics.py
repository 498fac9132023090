"""MEDDOCAN evaluation metrics in plain Python, written from the task's definitions.

* Subtask 1 (NER): per document, gold and system are sets of (label, start, end).
* Subtask 2 strict (span detection): sets of (start, end), the label ignored.
* Subtask 2 merged: spans separated only by non-alphanumeric characters (", ", " - ",
  nothing at all) are merged, separately for gold and system, before comparing; see
  `merge_spans` and `_merged_counts`.
* Leak: subtask-1 false negatives per sentence of the evaluated reports.

TP, FP and FN are summed over documents (micro average); P, R and F1 are 0.0 when their
denominator is 0. Only documents present on both sides are scored and a document on one
side only is an error (`EvaluationError`, naming the id, never the text).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..errors import EvaluationError  # noqa: F401  (re-exported)

Annotation = tuple[str, int, int]  # (label, start, end), end exclusive
Span = tuple[int, int]


def prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def merge_spans(spans: Iterable[Span], text: str) -> list[Span]:
    """Merge sorted spans whose gap in `text` holds no alphanumeric character.

    The gap is `text[last_end:next_start]`; it is empty (so it merges) when the spans
    touch or when the next span starts before the last kept one ends. As defined by the
    task, the merged span becomes (last start, next end), even if the next end is the
    smaller one.
    """
    merged: list[Span] = []
    for start, end in sorted(set(spans)):
        if merged and not any(ch.isalnum() for ch in text[merged[-1][1] : start]):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _contained(span: Span, containers: Iterable[Span]) -> bool:
    return any(span[0] >= c[0] and span[1] <= c[1] for c in containers)


def _merged_counts(text: str, gold: set[Span], system: set[Span]) -> tuple[int, int, int]:
    """Subtask 2 merged TP/FP/FN of one document."""
    tp = (gold & system) | (set(merge_spans(gold, text)) & set(merge_spans(system, text)))
    fp = sum(1 for s in system - gold if not _contained(s, tp))
    fn = sum(1 for s in gold - system if not _contained(s, tp))
    return len(tp), fp, fn


def _as_annotations(doc_id: str, side: str, entities: Iterable[Sequence]) -> set[Annotation]:
    result: set[Annotation] = set()
    for ent in entities:
        try:
            label, start, end = ent
            result.add((str(label), int(start), int(end)))
        except (TypeError, ValueError):
            raise EvaluationError(
                f"{doc_id}: {side} annotation is not (label, start, end)"
            ) from None
    return result


def _check_ids(gold_ids: Iterable[str], system_ids: Iterable[str]) -> list[str]:
    gold_ids, system_ids = set(gold_ids), set(system_ids)
    missing = sorted(gold_ids - system_ids)
    extra = sorted(system_ids - gold_ids)
    problems = []
    if missing:
        problems.append(
            f"{len(missing)} gold document(s) missing from the system output: "
            f"{', '.join(map(str, missing[:20]))}"
        )
    if extra:
        problems.append(
            f"{len(extra)} system document(s) not in the gold: {', '.join(map(str, extra[:20]))}"
        )
    if problems:
        raise EvaluationError("; ".join(problems))
    return sorted(gold_ids, key=str)


def evaluate(
    gold: Mapping[str, tuple[str, Iterable[Sequence]]],
    system: Mapping[str, Iterable[Sequence]],
    sentences: Mapping[str, int] | None = None,
) -> dict[str, Any]:
    """Score `system` against `gold`.

    gold: doc_id -> (text, iterable of (label, start, end)).
    system: doc_id -> iterable of (label, start, end).
    sentences: doc_id -> number of sentences (the official sentence files); when given it
        must cover every document, and the result has `meddocan_s1_leak`.

    Returns flat keys: meddocan_s1_{p,r,f,leak,tp,fp,fn}, meddocan_s2_strict_{p,r,f,tp,fp,fn},
    meddocan_s2_merged_{p,r,f,tp,fp,fn}, meddocan_n_docs, meddocan_n_sentences (with
    sentences) and meddocan_s1_per_type = {label: {"p", "r", "f", "tp", "fp", "fn", "support"}}
    where support is the number of gold annotations of the label.
    """
    doc_ids = _check_ids(gold, system)
    if sentences is not None:
        lacking = [d for d in doc_ids if d not in sentences]
        if lacking:
            raise EvaluationError(
                f"no sentence count for {len(lacking)} document(s): "
                f"{', '.join(map(str, lacking[:20]))}"
            )
    s1: Counter[str] = Counter()
    s2: Counter[str] = Counter()
    mg: Counter[str] = Counter()
    per_type: dict[str, Counter] = {}
    n_sentences = 0
    for doc_id in doc_ids:
        try:
            text, gold_ents = gold[doc_id]
        except (TypeError, ValueError):
            raise EvaluationError(f"{doc_id}: gold must be (text, annotations)") from None
        g = _as_annotations(doc_id, "gold", gold_ents)
        s = _as_annotations(doc_id, "system", system[doc_id])
        for side, anns in (("gold", g), ("system", s)):
            for _, start, end in anns:
                if not 0 <= start < end <= len(text):
                    raise EvaluationError(
                        f"{doc_id}: {side} offsets {start}-{end} outside the text (length "
                        f"{len(text)})"
                    )
        # subtask 1 and its per-type breakdown
        s1["tp"] += len(g & s)
        s1["fp"] += len(s - g)
        s1["fn"] += len(g - s)
        for key, anns in (("tp", g & s), ("fp", s - g), ("fn", g - s), ("support", g)):
            for label, _, _ in anns:
                per_type.setdefault(label, Counter())[key] += 1
        # subtask 2
        gs = {(a, b) for _, a, b in g}
        ss = {(a, b) for _, a, b in s}
        s2["tp"] += len(gs & ss)
        s2["fp"] += len(ss - gs)
        s2["fn"] += len(gs - ss)
        tp, fp, fn = _merged_counts(text, gs, ss)
        mg["tp"] += tp
        mg["fp"] += fp
        mg["fn"] += fn
        if sentences is not None:
            n_sentences += int(sentences[doc_id])

    result: dict[str, Any] = {"meddocan_n_docs": len(doc_ids)}
    for prefix, counts in (
        ("meddocan_s1", s1),
        ("meddocan_s2_strict", s2),
        ("meddocan_s2_merged", mg),
    ):
        p, r, f = prf(counts["tp"], counts["fp"], counts["fn"])
        result.update({f"{prefix}_p": p, f"{prefix}_r": r, f"{prefix}_f": f})
        result.update({f"{prefix}_{k}": counts[k] for k in ("tp", "fp", "fn")})
    if sentences is not None:
        result["meddocan_s1_leak"] = leak(s1["fn"], n_sentences)
        result["meddocan_n_sentences"] = n_sentences
    table = {}
    for label in sorted(per_type):
        c = per_type[label]
        p, r, f = prf(c["tp"], c["fp"], c["fn"])
        table[label] = {
            "p": p,
            "r": r,
            "f": f,
            "tp": c["tp"],
            "fp": c["fp"],
            "fn": c["fn"],
            "support": c["support"],
        }
    result["meddocan_s1_per_type"] = table
    return result


def leak(false_negatives: int, n_sentences: int) -> float:
    """Subtask-1 false negatives per sentence (0.0 without sentences). Lower is better."""
    return false_negatives / n_sentences if n_sentences else 0.0


def sentence_count(path: Path) -> int:
    """Sentences of one official sentence file: its non-empty lines."""
    with open(path, encoding="utf-8") as fh:
        return sum(1 for line in fh if line.strip())


def count_sentences(folder: Path, doc_ids: Iterable[str]) -> dict[str, int]:
    """Sentence counts from the official sentence files: non-empty lines of `folder/ID.ann`.

    A missing file is an error naming the id (a silent skip would change the leak).
    """
    folder = Path(folder)
    counts: dict[str, int] = {}
    missing = []
    for doc_id in doc_ids:
        path = folder / f"{doc_id}.ann"
        if not path.is_file():
            missing.append(str(doc_id))
            continue
        counts[doc_id] = sentence_count(path)
    if missing:
        raise EvaluationError(
            f"{folder}: no sentence file for {len(missing)} document(s): {', '.join(missing[:20])}"
        )
    return counts


# A word: a maximal run of letters or digits ("C/ Mayor 12" -> "C", "Mayor", "12").
WORD_RE = re.compile(r"[^\W_]+")


def _mask(length: int, spans: Iterable[Sequence]) -> list[bool]:
    mask = [False] * length
    for _label, start, end in spans:
        for i in range(max(0, int(start)), min(length, int(end))):
            mask[i] = True
    return mask


def privacy_counts(
    text: str, gold: Iterable[Sequence], system: Iterable[Sequence]
) -> dict[str, int]:
    """Word counts of what a release leaves, labels ignored.

    A PHI word has a character inside a gold entity; it is covered when every character lies
    inside some predicted entity. It is identifying when capitalised or containing a digit.
    A non-PHI word (no character in gold) is over-redacted when a character lies in a prediction.
    """
    gold_mask, system_mask = _mask(len(text), gold), _mask(len(text), system)
    counts = dict.fromkeys(
        ("phi_n", "phi_tp", "ident_n", "ident_tp", "nonphi_n", "nonphi_removed"), 0
    )
    for match in WORD_RE.finditer(text):
        chars = range(match.start(), match.end())
        word = match.group()
        if any(gold_mask[i] for i in chars):
            covered = all(system_mask[i] for i in chars)
            identifying = word[0].isupper() or any(c.isdigit() for c in word)
            counts["phi_n"] += 1
            counts["phi_tp"] += covered
            counts["ident_n"] += identifying
            counts["ident_tp"] += identifying and covered
        else:
            counts["nonphi_n"] += 1
            counts["nonphi_removed"] += any(system_mask[i] for i in chars)
    return counts


def privacy_scores(
    texts: Mapping[str, str],
    gold: Mapping[str, Iterable[Sequence]],
    system: Mapping[str, Iterable[Sequence]],
) -> dict[str, float]:
    """meddocan_phi_word_recall, meddocan_phi_identifying_word_recall, meddocan_over_redaction
    (see privacy_counts) with their raw counts, summed over the documents."""
    total: dict[str, int] = {}
    for doc_id, text in texts.items():
        for key, value in privacy_counts(
            text, gold.get(doc_id, ()), system.get(doc_id, ())
        ).items():
            total[key] = total.get(key, 0) + value
    ratio = lambda a, b: total.get(a, 0) / total[b] if total.get(b) else 0.0  # noqa: E731
    return {
        "meddocan_phi_word_recall": ratio("phi_tp", "phi_n"),
        "meddocan_phi_word_tp": total.get("phi_tp", 0),
        "meddocan_phi_word_n": total.get("phi_n", 0),
        "meddocan_phi_identifying_word_recall": ratio("ident_tp", "ident_n"),
        "meddocan_phi_identifying_word_tp": total.get("ident_tp", 0),
        "meddocan_phi_identifying_word_n": total.get("ident_n", 0),
        "meddocan_over_redaction": ratio("nonphi_removed", "nonphi_n"),
        "meddocan_over_redaction_removed": total.get("nonphi_removed", 0),
        "meddocan_over_redaction_n": total.get("nonphi_n", 0),
    }
