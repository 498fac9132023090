"""Training corpus of gold reports plus silver (pipeline-labelled) background reports.

Self-training: the full pipeline labels the unannotated background reports
(`experiments/silver.py`), and the next NER learns from those labels beside the gold
ones. The gold reports are read `gold_copies` times so that they keep weight against
the five-times larger silver set. With no silver path the reader is the plain gold
corpus, so one training config serves both the teacher and the student.
"""

from collections.abc import Callable, Iterable
from pathlib import Path

from spacy.language import Language
from spacy.training import Corpus, Example
from spacy.util import registry


@registry.readers("meddocan_deid.gold_and_silver.v1")
def create_gold_and_silver_corpus(
    path: Path,
    silver_path: Path | None = None,
    gold_copies: int = 1,
    max_length: int = 0,
    limit: int = 0,
) -> Callable[[Language], Iterable[Example]]:
    if gold_copies < 1:
        raise ValueError(f"gold_copies must be at least 1, got {gold_copies}")
    gold = Corpus(path, max_length=max_length, limit=limit)
    silver = Corpus(silver_path, max_length=max_length, limit=limit) if silver_path else None

    def read(nlp: Language) -> Iterable[Example]:
        for _ in range(gold_copies):
            yield from gold(nlp)
        if silver is not None:
            yield from silver(nlp)

    return read
