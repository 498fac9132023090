"""The case-blind embedding reads every feature from the word's lower-case form."""

import numpy
import spacy
from spacy.util import registry

from meddocan_deid.training.caseless_embed import caseless_features, caseless_multi_hash_embed

ATTRS = ["NORM", "PREFIX", "SUFFIX", "SHAPE"]


def test_the_case_forms_of_a_word_get_one_row_and_other_words_another():
    nlp = spacy.blank("es")
    doc = nlp("GARCÍA García garcía garcia 1234")
    rows = caseless_features(ATTRS).predict([doc])[0]
    assert (rows[0] == rows[1]).all() and (rows[1] == rows[2]).all()
    assert not (rows[2] == rows[3]).all()  # an accent is not case
    lower = nlp.vocab["garcía"]
    assert list(rows[0]) == [lower.norm, lower.prefix, lower.suffix, lower.shape]
    assert rows[4][3] == nlp.vocab["1234"].shape  # digits keep their shape


def test_spacys_featureextractor_sees_case_where_this_one_does_not():
    nlp = spacy.blank("es")
    doc = nlp("Teruel TERUEL")
    cased = doc.to_array(ATTRS)
    assert not (cased[0] == cased[1]).all()
    rows = caseless_features(ATTRS).predict([doc])[0]
    assert (rows[0] == rows[1]).all()


def test_the_embedding_is_registered_and_gives_one_vector_per_token():
    assert (
        registry.architectures.get("meddocan_deid.CaselessMultiHashEmbed.v1")
        is caseless_multi_hash_embed
    )
    nlp = spacy.blank("es")
    docs = [nlp("Ana vive en TERUEL"), nlp("ana vive en teruel")]
    model = caseless_multi_hash_embed(16, ATTRS, [50, 50, 50, 50], False)
    model.initialize(X=docs)
    out = model.predict(docs)
    assert [o.shape for o in out] == [(4, 16), (4, 16)]
    assert numpy.allclose(out[0], out[1])
    restored = caseless_multi_hash_embed(16, ATTRS, [50, 50, 50, 50], False).from_bytes(
        model.to_bytes()
    )
    assert numpy.allclose(restored.predict(docs)[0], out[0])
