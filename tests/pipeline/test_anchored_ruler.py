"""The anchored span ruler finds exactly the spans spaCy's span_ruler finds (same labels,
ids, offsets and order), with the shipped patterns and with made-up ones that stress the
windows (operators, runs of tokens, matches at the edges, patterns it cannot anchor).
All texts are invented."""

import random
from pathlib import Path

import pytest
import spacy

import meddocan_deid  # noqa: F401  (registers the project's tokenizer)
from meddocan_deid.pipeline.anchored_ruler import UNBOUNDED, AnchoredSpanRuler, anchors, repetitions
from meddocan_deid.pipeline.patterns import read_pattern_files

PATTERNS = Path(__file__).parents[2] / "configs" / "patterns"

TEXTS = [
    "Nombre: Ana Pérez Gil. Domicilio: C/ Mayor 12, 3º B. Localidad/ Provincia: Soria\n",
    "Paciente de 45 años natural de Villanueva de la Serena, trabaja en Talleres Gil S.L. desde "
    "2010.",
    "Ingresa el 12 de marzo de 2015 en el Hospital Universitario 12 de Octubre (Madrid).",
    "Su madre, Carmen, de 70 años, y sus hijos de 5, 7 y 9 años viven en Cabezón de la Sal.",
    "Remitido por el Centro de Salud San Blas, Área Básica de Salud Norte 2, cama 14-B, hab. 302.",
    "Fecha de nacimiento: 03/04/1950\nNHC: 1234567\nNASS: 28 12345678 90\nTeléfono: 600 123 456",
    "Correo: ana.perez@example.org Fax 91 555 12 34 C.P. 28001 Juzgado de Primera Instancia nº 3 "
    "de Vigo",
    "",
    "   \n\n  ",
    "de",
    "SERVICIO ANDALUZ DE SALUD. Semana Santa de 2019, lunes, 4 de abril; Navidad de 2018.",
]


def _nlp():
    return spacy.blank(
        "es", config={"nlp": {"tokenizer": {"@tokenizers": "meddocan_deid.tokenizer.v1"}}}
    )


def _rulers(patterns, **config):
    """(nlp, span_ruler, anchored ruler), both with the same patterns and config."""
    nlp = _nlp()
    config = {"spans_key": "x", "validate": True, **config}
    plain = nlp.add_pipe("span_ruler", name="plain", config=config)
    anchored = nlp.add_pipe("meddocan_anchored_span_ruler", name="anchored", config=config)
    plain.add_patterns(patterns)
    anchored.add_patterns(patterns)
    return nlp, plain, anchored


def _found(ruler, doc):
    return [(s.start, s.end, s.label_, s.id_) for s in ruler.match(doc)]


def _assert_same(nlp, plain, anchored, texts):
    for text in texts:
        doc = nlp.make_doc(text)
        assert _found(anchored, doc) == _found(plain, doc), text


def test_repetitions_of_each_operator():
    assert repetitions(None) == (1, 1)
    assert repetitions("!") == (1, 1)
    assert repetitions("?") == (0, 1)
    assert repetitions("*") == (0, UNBOUNDED)
    assert repetitions("+") == (1, UNBOUNDED)
    assert repetitions("{2}") == (2, 2)
    assert repetitions("{1,3}") == (1, 3)
    assert repetitions("{2,}") == (2, UNBOUNDED)
    assert repetitions("{,3}") == (0, 3)
    with pytest.raises(ValueError):
        repetitions("??")


def test_anchors_are_runs_of_required_lexeme_tokens():
    pattern = [
        {"LOWER": "en"},
        {"IS_TITLE": True},
        {"LOWER": "de", "OP": "?"},
        {"IS_TITLE": True, "OP": "+"},
        {"ORTH": ","},
        {"TEXT": {"REGEX": "^[0-9]+$"}},
    ]
    assert anchors(pattern) == [
        ([{"LOWER": "en"}, {"IS_TITLE": True}], 0, UNBOUNDED),
        ([{"IS_TITLE": True}], 3, UNBOUNDED),
        ([{"ORTH": ","}, {"TEXT": {"REGEX": "^[0-9]+$"}}], UNBOUNDED, 2),
    ]
    # a token-level attribute (NORM) or a negation gives no anchor
    assert anchors([{"NORM": "x"}]) == []
    assert anchors([{"LOWER": "a"}, {"LOWER": "b", "OP": "!"}]) == []


def test_shipped_phi_rules_find_the_same_spans():
    patterns = read_pattern_files([PATTERNS / "phi_rules.jsonl", PATTERNS / "institutions.jsonl"])
    nlp, plain, anchored = _rulers(patterns)
    _assert_same(nlp, plain, anchored, TEXTS)
    # the per-string cache is kept across docs: a second pass gives the same
    _assert_same(nlp, plain, anchored, TEXTS)


def test_written_spans_are_the_span_rulers():
    patterns = read_pattern_files([PATTERNS / "phi_rules.jsonl", PATTERNS / "institutions.jsonl"])
    nlp, plain, anchored = _rulers(patterns)
    for text in TEXTS:
        first, second = plain(nlp.make_doc(text)), anchored(nlp.make_doc(text))
        assert [(s.start, s.end, s.label_, s.id_) for s in first.spans["x"]] == [
            (s.start, s.end, s.label_, s.id_) for s in second.spans["x"]
        ]


def test_edges_operators_and_patterns_without_anchor():
    patterns = [
        {"label": "A", "pattern": [{"LOWER": "de"}, {"IS_TITLE": True, "OP": "{1,3}"}]},
        {"label": "B", "pattern": [{"IS_TITLE": True, "OP": "*"}, {"ORTH": "."}]},
        {
            "label": "C",
            "pattern": [{"ORTH": "x", "OP": "?"}, {"LOWER": {"IN": ["b", "c"]}, "OP": "+"}],
        },
        {
            "label": "D",
            "pattern": [{"NORM": "a"}, {"NORM": "b", "OP": "?"}],
        },  # no lexeme anchor: whole doc
        {
            "label": "E",
            "pattern": [{"LOWER": "a"}, {"LOWER": "b", "OP": "!"}],
        },  # negation: whole doc
        {
            "label": "F",
            "pattern": [{"TEXT": {"REGEX": "^[0-9]+$"}}, {"LOWER": "de", "OP": "?"}],
            "id": "num",
        },
        {
            "label": "F",
            "pattern": [{"LOWER": "a"}, {"LOWER": "b"}, {"LOWER": "c"}, {"LOWER": "d"}],
            "id": "num",
        },
        {"label": "G", "pattern": "b c"},
    ]
    nlp, plain, anchored = _rulers(patterns)
    _assert_same(
        nlp,
        plain,
        anchored,
        [
            "de Ana",
            "Ana Gil Pérez Roca.",
            "x b b c",
            "a",
            "a b c d",
            "a b",
            "a c",
            "12 de",
            "12",
            "de",
            "b c b c x x b",
            "de Ana Gil Pérez Roca Sanz de Luis. 3 de 4",
            "",
        ],
    )


@pytest.mark.parametrize("seed", [7, 11, 23])
def test_random_patterns_and_texts(seed):
    rng = random.Random(seed)
    words = ["a", "b", "c", "de", "Ana", "Gil", "12", ",", ".", "\n", "X"]
    specs = [
        lambda w: {"LOWER": w.lower()},
        lambda w: {"ORTH": w},
        lambda w: {"LOWER": {"IN": [w.lower(), rng.choice(words).lower()]}},
        lambda w: {"IS_TITLE": True},
        lambda w: {"TEXT": {"REGEX": "^[0-9a]"}},
        lambda w: {"IS_SPACE": True},
        lambda w: {"LENGTH": {">=": 2}},
    ]
    ops = [None, None, None, "?", "*", "+", "{0,2}", "{1,2}", "{2}"]
    patterns = []
    for i in range(60):
        pattern = []
        for _ in range(rng.randint(1, 4)):
            token = rng.choice(specs)(rng.choice(words))
            op = rng.choice(ops)
            if op:
                token["OP"] = op
            pattern.append(token)
        patterns.append({"label": f"L{i % 5}", "pattern": pattern, "id": f"p{i % 3}"})
    nlp, plain, anchored = _rulers(patterns)
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 40))) for _ in range(80)]
    _assert_same(nlp, plain, anchored, texts)


def test_saved_and_loaded_like_span_ruler(tmp_path):
    patterns = [
        {"label": "A", "pattern": [{"LOWER": "de"}, {"IS_TITLE": True}]},
        {"label": "B", "pattern": "Ana"},
    ]
    nlp, plain, anchored = _rulers(patterns)
    nlp.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    reloaded = loaded.get_pipe("anchored")
    assert isinstance(reloaded, AnchoredSpanRuler)
    assert reloaded.patterns == plain.patterns
    _assert_same(loaded, loaded.get_pipe("plain"), reloaded, ["Vive de Ana", "de Soria"])
    # patterns added or removed after a call are used
    reloaded.match(loaded.make_doc("de Soria"))
    reloaded.add_patterns([{"label": "C", "pattern": [{"LOWER": "vive"}]}])
    assert [s.label_ for s in reloaded.match(loaded.make_doc("Vive"))] == ["C"]
    reloaded.remove("C")
    assert reloaded.match(loaded.make_doc("Vive")) == []


def test_the_per_string_cache_restarts_when_full(monkeypatch):
    from meddocan_deid.pipeline import anchored_ruler

    monkeypatch.setattr(anchored_ruler, "MAX_CACHED_STRINGS", 5)
    patterns = read_pattern_files([PATTERNS / "phi_rules.jsonl", PATTERNS / "institutions.jsonl"])
    nlp, plain, anchored = _rulers(patterns)
    _assert_same(nlp, plain, anchored, TEXTS + TEXTS)
    assert len(anchored._plan.rows) < sum(len(nlp.make_doc(text)) for text in TEXTS)


class _CountingPipe:
    """A component before the rulers that counts the docs it is given."""

    def __init__(self):
        self.calls = 0

    def __call__(self, doc):
        self.calls += 1
        return doc


@pytest.mark.parametrize("attr", [None, "LOWER"])
def test_phrases_are_made_by_the_tokenizer_alone_with_the_same_matches(attr):
    nlp = _nlp()
    counter = _CountingPipe()
    spacy.language.Language.component("counting_pipe_for_test", func=counter)
    nlp.add_pipe("counting_pipe_for_test")
    config = {"spans_key": "x", "validate": True, "phrase_matcher_attr": attr}
    plain = nlp.add_pipe("span_ruler", name="plain", config=config)
    anchored = nlp.add_pipe("meddocan_anchored_span_ruler", name="anchored", config=config)
    phrases = [
        {"label": "LOC", "pattern": "Villanueva de la Serena"},
        {"label": "LOC", "pattern": "SORIA", "id": "soria"},
        {"label": "LOC", "pattern": "Cabezón de la Sal"},
        {"label": "X", "pattern": [{"LOWER": "hab"}, {"ORTH": "."}, {"IS_DIGIT": True}]},
    ]
    plain.add_patterns(phrases)
    assert counter.calls == 3  # spaCy's ruler ran each phrase through the component
    anchored.add_patterns(phrases)
    assert counter.calls == 3  # this one did not
    assert anchored.patterns == plain.patterns
    _assert_same(nlp, plain, anchored, [*TEXTS, "vive en soria, hab. 302"])


def test_phrases_on_an_attribute_that_components_set_still_run_through_them():
    nlp = _nlp()
    counter = _CountingPipe()
    spacy.language.Language.component("counting_pipe_for_test_norm", func=counter)
    nlp.add_pipe("counting_pipe_for_test_norm")
    ruler = nlp.add_pipe(
        "meddocan_anchored_span_ruler", config={"spans_key": "x", "phrase_matcher_attr": "NORM"}
    )
    ruler.add_patterns([{"label": "X", "pattern": "Ana Pérez"}])
    assert counter.calls == 1
