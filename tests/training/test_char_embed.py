"""The tok2vec embedding with character features (meddocan_deid.HashCharEmbed.v1)."""

import subprocess
import sys

import numpy
import pytest
import spacy

from meddocan_deid.training.char_embed import hash_char_embed


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("es")


@pytest.mark.parametrize(
    "first, second, same",
    [
        # the same shape (the only hashed attribute here): only the bytes tell them apart
        ("Ibáñez", "Iváñez", False),
        ("Olmedilla", "Olmedillo", False),
        # the same word gives the same vector
        ("Gómez", "Gómez", True),
    ],
)
def test_characters_tell_apart_what_the_hashed_attributes_do_not(nlp, first, second, same):
    model = hash_char_embed(24, ["SHAPE"], [64], False, nM=8, nC=8)
    docs = [nlp(f"vive {first}"), nlp(f"vive {second}")]
    model.initialize(X=docs)
    # spaCy starts the byte table at zero; give it the values a training would
    chars = next(layer for layer in model.walk() if layer.name == "charembed")
    table = chars.get_param("E")
    chars.set_param(
        "E", numpy.random.default_rng(0).uniform(-0.1, 0.1, table.shape).astype(table.dtype)
    )
    out_first, out_second = model.predict(docs)
    assert out_first.shape == out_second.shape == (2, 24)
    assert numpy.allclose(out_first[0], out_second[0])
    assert numpy.allclose(out_first[1], out_second[1]) == same


def test_hash_char_embed_backpropagates(nlp):
    model = hash_char_embed(16, ["NORM", "SHAPE"], [50, 50], False)
    docs = [nlp("Consulta en Villanueva"), nlp("hoy")]
    model.initialize(X=docs)
    outputs, backprop = model.begin_update(docs)
    assert [o.shape for o in outputs] == [(3, 16), (1, 16)]
    backprop([model.ops.alloc2f(*o.shape) + 1.0 for o in outputs])


def test_hash_char_embed_is_registered_by_entry_point():
    """spacy.load and spacy train find it without importing meddocan_deid."""
    code = (
        "from spacy.util import registry; "
        "print(registry.architectures.get('meddocan_deid.HashCharEmbed.v1').__module__)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert proc.stdout.strip() == "meddocan_deid.training.char_embed"
