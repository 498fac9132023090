"""spaCy scorer with the MEDDOCAN metrics, for the `ner` component (`scorer` in the config).

    [components.ner.scorer]
    @scorers = "meddocan_deid.scorer.v1"

Returns spaCy's usual NER scores (`ents_p`, `ents_r`, `ents_f`, `ents_per_type`, the same
numbers as `spacy.ner_scorer.v1`) plus the MEDDOCAN scores, floats in [0, 1] except the
leak (false negatives per sentence: lower is better, 0 when nothing is missed):

* meddocan_s1_p / _r / _f            subtask 1, (label, start, end) exact match
* meddocan_s2_strict_p / _r / _f     subtask 2, (start, end) exact match
* meddocan_s2_merged_p / _r / _f     subtask 2 with adjacent spans merged
* meddocan_s1_per_type               {label: {"p", "r", "f"}}
* meddocan_s1_leak                   only when every reference carries the official
                                     sentence count (user_data["meddocan_n_sentences"])
* meddocan_s1_leak_pipeline          otherwise: the same FN divided by the pipeline's own
                                     sentence count (doc.sents, else non-empty lines); not
                                     comparable with the official leak, hence the other key
* meddocan_phi_word_recall           share of gold PHI words (runs of letters/digits with a
                                     character in a gold entity) fully inside a predicted
                                     entity, any label (counts: evaluate.py JSON)
* meddocan_phi_identifying_word_recall  the same for capitalised or digit-bearing words
* meddocan_over_redaction            share of non-PHI words touched by a prediction;
                                     (floats only here, as for the other keys)

Gold per example: user_data["meddocan_gold"] (all gold entities, including those that do
not align to tokens) when present, else the reference entities. System: predicted ents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from spacy.scorer import get_ner_prf
from spacy.training import Example
from spacy.util import registry

from .results import doc_result, make_unique, score_results


def score_meddocan(examples: Iterable[Example], **kwargs) -> dict[str, Any]:
    examples = list(examples)
    scores: dict[str, Any] = dict(get_ner_prf(examples, **kwargs))
    results = make_unique(
        [doc_result(eg.reference, eg.predicted, str(i)) for i, eg in enumerate(examples)]
    )
    meddocan = score_results(results)
    for key, value in meddocan.items():
        if isinstance(value, float):
            scores[key] = value
    scores["meddocan_s1_per_type"] = {
        label: {k: row[k] for k in ("p", "r", "f")}
        for label, row in meddocan["meddocan_s1_per_type"].items()
    }
    return scores


@registry.scorers("meddocan_deid.scorer.v1")
def make_meddocan_scorer() -> Callable[..., dict[str, Any]]:
    return score_meddocan
