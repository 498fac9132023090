"""meddocan_ner gives exactly the entities of spaCy's ner with the same weights: random
weights (so that every kind of action wins somewhere) over invented texts with preset
entities, a blocked token, whitespace tokens and sentence starts."""

import numpy
import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from meddocan_deid.pipeline import greedy_ner
from meddocan_deid.pipeline.greedy_ner import GreedyEntityRecognizer, decode_greedy

LABELS = ["NOMBRE_SUJETO_ASISTENCIA", "TERRITORIO", "FECHAS", "HOSPITAL"]
SMALL_MODEL = {
    "@architectures": "spacy.TransitionBasedParser.v2",
    "state_type": "ner",
    "extra_state_tokens": False,
    "hidden_width": 16,
    "maxout_pieces": 2,
    "use_upper": True,
    "nO": None,
    "tok2vec": {
        "@architectures": "spacy.HashEmbedCNN.v2",
        "pretrained_vectors": None,
        "width": 32,
        "depth": 1,
        "embed_size": 500,
        "window_size": 1,
        "maxout_pieces": 2,
        "subword_features": True,
    },
}
WORDS = (
    "el paciente Juan Pérez ingresó en el Hospital de Sant Pau de Barcelona el 3 de marzo , "
    "refiere dolor \n\n y fiebre ; remitido por la Dra. Gómez a Zaragoza"
).split(" ")


def randomize(model, rng):
    for node in model.walk():
        for name in node.param_names:
            if node.has_param(name):
                param = node.get_param(name)
                node.set_param(name, rng.normal(0, 1, param.shape).astype(param.dtype))


def pair(use_upper=True, seed=0, **model):
    nlp = spacy.blank("es")
    config = {"model": dict(SMALL_MODEL, use_upper=use_upper, **model)}
    spacy_ner = nlp.add_pipe("ner", config=config)
    for label in LABELS:
        spacy_ner.add_label(label)
    doc = Doc(nlp.vocab, words=WORDS[:6])
    nlp.initialize(
        lambda: [
            Example.from_dict(
                doc, {"entities": ["O", "O", "B-" + LABELS[0], "L-" + LABELS[0], "O", "O"]}
            )
        ]
    )
    randomize(spacy_ner.model, numpy.random.default_rng(seed))
    ours = nlp.add_pipe("meddocan_ner", name="ours", config=config)
    ours.from_bytes(spacy_ner.to_bytes(exclude=["vocab"]), exclude=["vocab"])
    return nlp, spacy_ner, ours


def invented_docs(vocab, rng, n=40):
    docs = []
    for i in range(n):
        words = [WORDS[j] for j in rng.integers(0, len(WORDS), size=int(rng.integers(1, 60)))]
        doc = Doc(vocab, words=words, spaces=[w != "\n\n" for w in words])
        if i % 3 == 0 and len(doc) > 6:  # preset entities, as the rules set them before the NER
            doc.set_ents(
                [Span(doc, 1, 3, label=LABELS[1]), Span(doc, 5, 6, label=LABELS[2])],
                default="unmodified",
            )
        if i % 5 == 0 and len(doc) > 4:  # a token no entity may take
            doc.set_ents([], blocked=[doc[4:5]], default="unmodified")
        if i % 4 == 0:
            for k in range(0, len(doc), 7):
                doc[k].is_sent_start = True
        docs.append(doc)
    return docs


def copies(docs):
    return [Doc(doc.vocab).from_bytes(doc.to_bytes()) for doc in docs]


def same_annotations(expected, found):
    attrs = ["ENT_IOB", "ENT_TYPE", "ENT_KB_ID"]
    return all(
        numpy.array_equal(a.to_array(attrs), b.to_array(attrs)) for a, b in zip(expected, found)
    )


@pytest.mark.parametrize("use_upper,seed", [(True, 0), (True, 1), (False, 2)])
def test_the_same_entities_as_spacys_ner(use_upper, seed):
    nlp, spacy_ner, ours = pair(use_upper, seed)
    assert ours.uses_greedy_decoding()
    docs = invented_docs(nlp.vocab, numpy.random.default_rng(seed))
    expected = list(spacy_ner.pipe(copies(docs), batch_size=8))
    found = list(ours.pipe(copies(docs), batch_size=8))
    assert same_annotations(expected, found)
    # the comparison means something: spaCy's decoding found entities of several kinds
    assert sum(len(doc.ents) for doc in expected) > 20
    assert len({ent.label_ for doc in expected for ent in doc.ents}) >= 3
    assert any(len(ent) > 1 for doc in expected for ent in doc.ents)


def test_a_preset_label_the_model_lacks_is_added_as_spacy_adds_it():
    nlp, spacy_ner, ours = pair()
    doc = Doc(nlp.vocab, words=WORDS[:10])
    doc.set_ents([Span(doc, 2, 4, label="PROFESION")])
    a, b = spacy_ner(copies([doc])[0]), ours(copies([doc])[0])
    assert "PROFESION" in ours.labels and "PROFESION" in spacy_ner.labels
    assert [(e.start, e.end, e.label_) for e in a.ents] == [
        (e.start, e.end, e.label_) for e in b.ents
    ]


def test_empty_docs_and_a_beam_keep_spacys_path():
    nlp, _, ours = pair()
    assert isinstance(ours, GreedyEntityRecognizer)
    empty = Doc(nlp.vocab, words=[])
    assert decode_greedy(ours, [empty]) == [[]]
    assert list(ours.pipe([empty, Doc(nlp.vocab, words=["hola"])]))[0].ents == ()
    ours.cfg["beam_width"] = 2
    assert not ours.uses_greedy_decoding()


@pytest.mark.parametrize("model", [{"maxout_pieces": 1}, {"extra_state_tokens": True}])
def test_models_it_does_not_reproduce_keep_spacys_decoding(model):
    """One maxout piece (the step model's Python path adds a ReLU) and six state features
    are left to spaCy's loop, so the entities stay the same."""
    nlp, spacy_ner, ours = pair(seed=3, **model)
    assert not ours.uses_greedy_decoding()
    docs = invented_docs(nlp.vocab, numpy.random.default_rng(3), n=12)
    assert same_annotations(list(spacy_ner.pipe(copies(docs))), list(ours.pipe(copies(docs))))


def test_a_type_set_without_an_iob_is_kept_as_spacy_keeps_it():
    nlp, spacy_ner, ours = pair(seed=4)
    docs = invented_docs(nlp.vocab, numpy.random.default_rng(4), n=12)
    for doc in docs:
        doc[0].ent_type_ = "FECHAS"  # a type on a token whose IOB is still missing
    expected, found = list(spacy_ner.pipe(copies(docs))), list(ours.pipe(copies(docs)))
    assert same_annotations(expected, found)
    assert any(doc[0].ent_iob_ == "O" and doc[0].ent_type_ == "FECHAS" for doc in expected)


def test_each_entity_has_its_probability_and_near_misses_are_kept(monkeypatch):
    """The probabilities are those of the step model's softmax over valid actions: in (0, 1],
    one per entity, kept with the doc; a near miss is an outside token (random weights are
    sure of themselves: any entity probability counts here)."""
    monkeypatch.setattr(greedy_ner, "NEAR_MISS", 1e-9)
    nlp, _, ours = pair(seed=4)
    docs = list(ours.pipe(copies(invented_docs(nlp.vocab, numpy.random.default_rng(4)))))
    probs = [p for doc in docs for p in doc.spans["ours_confidence"].attrs["probs"]]
    assert len(probs) == sum(len(doc.spans["ours_confidence"]) for doc in docs) > 20
    assert all(0 < p <= 1 for p in probs) and min(probs) < 0.9 < max(probs)
    for doc in docs:
        assert [(s.start, s.end, s.label_) for s in doc.spans["ours_confidence"]] == [
            (e.start, e.end, e.label_) for e in doc.ents
        ]
        near = doc.spans["ours_near_misses"]
        assert len(near.attrs["probs"]) == len(near)
        assert all(doc[s.start].ent_iob_ == "O" and s.label_ for s in near)
        assert all(greedy_ner.NEAR_MISS <= p < 1 for p in near.attrs["probs"])
    assert any(len(doc.spans["ours_near_misses"]) for doc in docs)
