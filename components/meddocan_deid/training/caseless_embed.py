"""A case-blind word embedding: spaCy's `MultiHashEmbed`, with every lexical feature read from
the lower-case form of the token.

`meddocan_deid.CaselessMultiHashEmbed.v1` takes the same settings as `spacy.MultiHashEmbed.v2`.
Its features (NORM, PREFIX, SUFFIX, SHAPE ...) are those of `vocab[token.lower_]`, so `GARCÍA`,
`García` and `garcía` look the same to the NER: `Xxxxx` and `xxxx` are one shape. The static
vectors (the lexicon vectors) are read as usual; they hold every case form already. It is the
case path measured against the case-aware NER with lexicon vectors (the default): a model that
cannot see case cannot lose it in a text typed in lower case or in capitals, at the price of
what case tells in a text that has it.
"""

from collections.abc import Callable
from typing import cast

import numpy
from spacy.attrs import LOWER, NORM, ORTH, PREFIX, SHAPE, SUFFIX, intify_attr
from spacy.ml.staticvectors import StaticVectors
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import (
    HashEmbed,
    Maxout,
    Model,
    chain,
    concatenate,
    list2ragged,
    ragged2list,
    with_array,
)
from thinc.types import Floats2d, Ints2d, Ragged

# the token attributes a MultiHashEmbed may read, by the Lexeme property that holds them
NAMES = {
    ORTH: "orth",
    LOWER: "lower",
    NORM: "norm",
    PREFIX: "prefix",
    SUFFIX: "suffix",
    SHAPE: "shape",
}


# a lower-case form -> the attribute values of its lexeme; lexeme attributes are fixed by the
# language's getters, so the same form gives the same row in every vocab of the pipeline
_ROWS: dict[tuple[int, tuple[str, ...]], numpy.ndarray] = {}
_MAX_ROWS = 500_000


def caseless_features(columns: list[int | str]) -> Model[list[Doc], list[Ints2d]]:
    """One row per token: the attributes `columns` of the lexeme of its lower-case form."""
    names = tuple(NAMES[intify_attr(c) if isinstance(c, str) else c] for c in columns)
    return Model("caseless_features", _features_forward, attrs={"lexeme_attrs": list(names)})


def _features_forward(
    model: Model, docs: list[Doc], is_train: bool
) -> tuple[list[Ints2d], Callable]:
    names = tuple(model.attrs["lexeme_attrs"])
    out: list[Ints2d] = []
    if docs:
        # one look-up per distinct lower-case form of the batch, not per token
        lowers = numpy.concatenate([doc.to_array(LOWER).reshape(-1) for doc in docs]).astype(
            "uint64"
        )
        forms, inverse = numpy.unique(lowers, return_inverse=True)
        table = numpy.empty((len(forms), len(names)), dtype="uint64")
        vocab = docs[0].vocab
        for i, form in enumerate(forms.tolist()):
            row = _ROWS.get((form, names))
            if row is None:
                lexeme = vocab[vocab.strings[form]]
                row = numpy.array([getattr(lexeme, name) for name in names], dtype="uint64")
                if len(_ROWS) < _MAX_ROWS:
                    _ROWS[(form, names)] = row
            table[i] = row
        rows = table[inverse.reshape(-1)]
        start = 0
        for doc in docs:
            # a numpy array is what thinc's Ints2d stands for
            out.append(
                model.ops.asarray2i(cast(Ints2d, rows[start : start + len(doc)]), dtype="uint64")
            )
            start += len(doc)

    def backprop(d_features: list[Ints2d]) -> list[Doc]:
        return []

    return out, backprop


@registry.architectures("meddocan_deid.CaselessMultiHashEmbed.v1")
def caseless_multi_hash_embed(
    width: int, attrs: list[int | str], rows: list[int], include_static_vectors: bool
) -> Model[list[Doc], list[Floats2d]]:
    """spaCy's MultiHashEmbed (same layers, seeds and sizes) over `caseless_features`."""
    if len(rows) != len(attrs):
        raise ValueError(f"Mismatched lengths: {len(rows)} vs {len(attrs)}")
    embeddings: list[Model[Ints2d, Floats2d]] = [
        HashEmbed(width, rows[i], column=i, seed=8 + i, dropout=0.0) for i in range(len(attrs))
    ]
    concat_size = width * (len(embeddings) + include_static_vectors)
    max_out: Model[Ragged, Ragged] = with_array(
        Maxout(width, concat_size, nP=3, dropout=0.0, normalize=True)
    )
    features: Model[list[Doc], Ragged] = chain(
        caseless_features(attrs),
        cast(Model[list[Ints2d], Ragged], list2ragged()),
        with_array(concatenate(*embeddings)),
    )
    if include_static_vectors:
        return chain(
            concatenate(features, StaticVectors(width, dropout=0.0)), max_out, ragged2list()
        )
    return chain(features, max_out, ragged2list())
