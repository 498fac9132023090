"""Rule and gazetteer spans as input features of the tok2vec.

`meddocan_deid.SpanFeatureEmbed.v1` is spaCy's `MultiHashEmbed` plus one feature column
per span group: for each token, the label of the span of `doc.spans[key]` that covers it
(with B/I, or O when none does), hashed and embedded, then mixed with the word features
by a Maxout layer of the usual width. The NER thus sees what the components before it
found (the report section, the rule entities, gazetteer matches) and learns how far to
trust each one, instead of only having rule entities preset on `doc.ents` at inference.
The span groups must be written by components that run before the tok2vec, in training
too (`[training] annotating_components`).
"""

from collections.abc import Callable
from typing import cast

import numpy
from spacy.ml.models.tok2vec import MultiHashEmbed
from spacy.strings import hash_string  # type: ignore[attr-defined]  # in strings.pyx, not its .pyi
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import HashEmbed, Maxout, Model, chain, concatenate, with_array
from thinc.types import Floats2d, Ints2d


def feature(key: str, tag: str, label: str) -> int:
    return hash_string(f"{key}|{tag}|{label}")


def span_feature_ids(span_keys: list[str]) -> Model[list[Doc], list[Ints2d]]:
    """One uint64 column per span group: hash of (group, B/I/O, label)."""
    return Model("span_feature_ids", _ids_forward, attrs={"span_keys": list(span_keys)})


def _ids_forward(model: Model, docs: list[Doc], is_train: bool) -> tuple[list[Ints2d], Callable]:
    keys: list[str] = model.attrs["span_keys"]
    outputs: list[Ints2d] = []
    for doc in docs:
        ids = numpy.empty((len(doc), len(keys)), dtype="uint64")
        for column, key in enumerate(keys):
            ids[:, column] = feature(key, "O", "")
            # longer spans first, so that a shorter span nested in a longer one shows
            spans = (
                sorted(doc.spans[key], key=lambda s: s.start - s.end) if key in doc.spans else []
            )
            for span in spans:
                ids[span.start, column] = feature(key, "B", span.label_)
                if span.end > span.start + 1:
                    ids[span.start + 1 : span.end, column] = feature(key, "I", span.label_)
        # a numpy array is what thinc's Ints2d stands for
        outputs.append(model.ops.asarray2i(cast(Ints2d, ids), dtype="uint64"))

    def backprop(d_outputs: list[Floats2d]) -> list[Doc]:
        return []

    return outputs, backprop


@registry.architectures("meddocan_deid.SpanFeatureEmbed.v1")
def span_feature_embed(
    width: int,
    attrs: list[str],
    rows: list[int],
    include_static_vectors: bool,
    span_keys: list[str],
    feature_width: int = 16,
    feature_rows: int = 256,
) -> Model[list[Doc], list[Floats2d]]:
    words = MultiHashEmbed(
        width=width, attrs=attrs, rows=rows, include_static_vectors=include_static_vectors
    )
    if not span_keys:
        return words
    columns: list[Model[Ints2d, Floats2d]] = [
        HashEmbed(feature_width, feature_rows, column=i, seed=7 + i) for i in range(len(span_keys))
    ]
    spans: Model[list[Doc], list[Floats2d]] = chain(
        span_feature_ids(span_keys), with_array(concatenate(*columns))
    )
    mix = Maxout(width, width + feature_width * len(span_keys), nP=3, normalize=True, dropout=0.0)
    model: Model[list[Doc], list[Floats2d]] = chain(concatenate(words, spans), with_array(mix))
    model.set_dim("nO", width)
    model.attrs["span_keys"] = list(span_keys)
    return model
