"""The NER's training mix: MEDDOCAN (with its format-augmented copies), the written corpus
(`assets/corpus`, the training writers only) and seeded copies of both as other writers type
them (lower case, capitals, no accents, hard-wrapped lines: `meddocan_deid.text_variants`,
gold offsets kept by construction).

A share of the corpus (the learning curve) is taken by whole writers in writer order, so
that 25% means the first quarter of the writers, as more writing would add.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import filter_spans

from ..evaluation.corpus_set import read_corpus
from ..evaluation.formats_set import SourceDoc
from ..text_variants import VARIANTS, variant

Entity = tuple[str, int, int]


@dataclass
class MixStats:
    docs: Counter = field(default_factory=Counter)  # origin -> documents
    entities: int = 0
    misaligned: Counter = field(
        default_factory=Counter
    )  # label -> entities that fit no token boundary

    def share_misaligned(self) -> float:
        return sum(self.misaligned.values()) / self.entities if self.entities else 0.0


def writers_share(docs: Sequence[SourceDoc], fraction: float) -> list[SourceDoc]:
    """The documents of the first `fraction` of the writers in writer order (rounded, whole
    writers): 25% of twenty is w01-w05, 50% w01-w10, so each share holds the smaller ones."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be between 0 and 1, got {fraction}")
    writers = sorted({doc.doc_id.split("-", 1)[0] for doc in docs})
    chosen = set(writers[: round(fraction * len(writers))])
    return [doc for doc in docs if doc.doc_id.split("-", 1)[0] in chosen]


def make_doc(nlp: Language, text: str, entities: Iterable[Entity], stats: MixStats) -> Doc:
    """A Doc of `text` with the entities that align to its tokens; the tokens of one that
    does not (counted) are missing values, so that the NER is not taught they are no PHI."""
    doc = nlp.make_doc(text)
    spans, missing = [], []
    for label, start, end in entities:
        stats.entities += 1
        span = doc.char_span(start, end, label=label)
        if span is None:
            stats.misaligned[label] += 1
            wide = doc.char_span(start, end, alignment_mode="expand")
            if wide is not None:
                missing.append(wide)
        else:
            spans.append(span)
    kept = filter_spans(spans)
    taken = {i for span in kept for i in range(span.start, span.end)}
    missing = [
        m for m in filter_spans(missing) if not any(i in taken for i in range(m.start, m.end))
    ]
    doc.set_ents(kept, missing=missing, default="outside")
    return doc


def doc_entities(doc: Doc) -> list[Entity]:
    return [(e.label_, e.start_char, e.end_char) for e in doc.ents]


def training_mix(
    nlp: Language,
    meddocan: Iterable[Doc],
    corpus_root: Path,
    *,
    fraction: float = 1.0,
    variant_copies: int = 1,
    seed: int = 0,
    stats: MixStats,
) -> Iterator[Doc]:
    """The MEDDOCAN docs, the corpus's training documents (a `fraction` of its writers), and
    `variant_copies` copies of each, of distinct kinds (the first drawn with `seed`)."""
    rng = random.Random(seed)
    sources: list[tuple[str, str, list[Entity]]] = []
    for doc in meddocan:
        sources.append(("meddocan", doc.text, doc_entities(doc)))
    if fraction > 0:
        written = writers_share(read_corpus(corpus_root, ["train"]), fraction)
        sources.extend(("written", d.text, list(d.entities)) for d in written)
    for origin, text, entities in sources:
        stats.docs[origin] += 1
        yield make_doc(nlp, text, entities, stats)
        # distinct kinds for the copies of one document (two copies: two of the four kinds)
        first = rng.randrange(len(VARIANTS))
        for i in range(variant_copies):
            kind = VARIANTS[(first + i) % len(VARIANTS)]
            stats.docs[f"{origin}:{kind}"] += 1
            yield make_doc(nlp, variant(text, kind, rng), entities, stats)
