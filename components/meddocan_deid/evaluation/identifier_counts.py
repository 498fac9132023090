"""What the identifier recognizers add on unannotated reports: each span of
`doc.spans["identifiers"]` compared with the entities the rest of the pipeline had made
before it ran. Counts per kind, and an optional seeded sample with context for a person to
review (written to a file, never printed)."""

import random
from collections import Counter, defaultdict
from collections.abc import Iterable

from spacy.language import Language

STATUSES = ("new", "changed", "relabelled", "same")


def status_of(span, before: list[tuple[int, int, str]]) -> str:
    """new: no earlier entity overlaps it; same: an earlier entity had its offsets and label;
    relabelled: its offsets, another label; changed: earlier entities overlapped it otherwise."""
    overlapping = [b for b in before if b[0] < span.end_char and span.start_char < b[1]]
    if not overlapping:
        return "new"
    if (span.start_char, span.end_char, span.label_) in overlapping:
        return "same"
    if any((s, e) == (span.start_char, span.end_char) for s, e, _ in overlapping):
        return "relabelled"
    return "changed"


def identifier_additions(
    nlp: Language,
    texts: Iterable[tuple[str, str]],
    *,
    component: str = "identifiers",
    batch_size: int = 32,
) -> tuple[dict[str, Counter], list[tuple[str, str, str, int, int]]]:
    """Run `nlp` without `component`, then `component` alone, on (id, text) pairs.
    Returns kind -> Counter of STATUSES, and every identifier as (doc
    id, kind, status, start, end)."""
    if component not in nlp.pipe_names:
        raise ValueError(
            f"the pipeline has no {component!r} component (pipes: {', '.join(nlp.pipe_names)})"
        )
    recognizer = nlp.get_pipe(component)
    counts: dict[str, Counter] = defaultdict(Counter)
    found: list[tuple[str, str, str, int, int]] = []
    pairs = list(texts)
    docs = nlp.pipe((text for _id, text in pairs), batch_size=batch_size, disable=[component])
    for (doc_id, _text), doc in zip(pairs, docs):
        before = [(e.start_char, e.end_char, e.label_) for e in doc.ents]
        doc = recognizer(doc)
        for span in doc.spans.get(component, []):
            status = status_of(span, before)
            kind = span.kb_id_ or span.label_
            counts[kind][status] += 1
            found.append((doc_id, kind, status, span.start_char, span.end_char))
    return counts, found


def review_sample(
    found, texts: dict[str, str], size: int, seed: int = 0, context: int = 40
) -> list[list[str]]:
    """A seeded sample of the identifiers that change the output (not `same`), each with its
    kind, status, label-free text and `context` characters around it, for a person to judge."""
    changes = [f for f in found if f[2] != "same"]
    picked = random.Random(seed).sample(changes, min(size, len(changes)))
    rows = []
    for doc_id, kind, status, start, end in sorted(picked):
        text = texts[doc_id]
        left = text[max(0, start - context) : start].replace("\n", " ")
        right = text[end : end + context].replace("\n", " ")
        rows.append([doc_id, kind, status, left, text[start:end].replace("\n", " "), right])
    return rows


def counts_table(counts: dict[str, Counter]) -> list[list[str]]:
    rows = []
    total: Counter[str] = Counter()
    for kind in sorted(counts):
        c = counts[kind]
        total.update(c)
        rows.append([kind] + [str(c[s]) for s in STATUSES] + [str(sum(c.values()))])
    rows.append(["total"] + [str(total[s]) for s in STATUSES] + [str(sum(total.values()))])
    return rows
