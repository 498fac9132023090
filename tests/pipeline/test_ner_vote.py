"""The NER ensemble's gated member and vote components (configs/pipeline_ensemble.cfg)."""

from pathlib import Path

import pytest
import spacy
from spacy.tokens import Span

import meddocan_deid  # noqa: F401  (registers the factories)
from meddocan_deid.pipeline.ner_vote import entity_windows, window_doc

ROOT = Path(__file__).parent.parent.parent
TEXT = "Paciente de Getafe ingresa en Hospital La Paz con su madre"
RULE = (2, 3, "TERRITORIO")  # `Getafe`, found by a rule
HOSP = (5, 8, "HOSPITAL")
HOSP_SHORT = (6, 8, "HOSPITAL")
HOSP_OTHER_LABEL = (5, 8, "INSTITUCION")
MOTHER = (10, 11, "FAMILIARES_SUJETO_ASISTENCIA")


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("es")


def _run(nlp, members, min_votes, ents_weight=1):
    """Three NERs: two write their entities to span groups, the last one to doc.ents."""
    doc = nlp.make_doc(TEXT)
    doc.spans["rule_entities"] = [Span(doc, *RULE)]
    vote = nlp.create_pipe(
        "meddocan_ner_vote",
        config={
            "votes_keys": ["votes_a", "votes_b"],
            "min_votes": min_votes,
            "ents_weight": ents_weight,
        },
    )
    for key, member in zip(["votes_a", "votes_b"], members):
        doc.spans[key] = [Span(doc, *RULE)] + [Span(doc, *e) for e in member]
    doc.ents = [Span(doc, *RULE)] + [Span(doc, *e) for e in members[2]]
    doc = vote(doc)
    return sorted((e.start, e.end, e.label_) for e in doc.ents)


@pytest.mark.parametrize(
    "members, min_votes, expected",
    [
        # two of three agree: kept; the rule entity always stays
        ([[HOSP], [HOSP], []], 2, [RULE, HOSP]),
        # only one member: dropped by the majority, kept by the union
        ([[HOSP], [], []], 2, [RULE]),
        ([[], [], [MOTHER]], 1, [RULE, MOTHER]),
        # offsets must agree exactly
        ([[HOSP], [HOSP_SHORT], []], 2, [RULE]),
        # and labels too
        ([[HOSP], [HOSP_OTHER_LABEL], [MOTHER]], 2, [RULE]),
        # unanimity
        ([[HOSP, MOTHER], [HOSP, MOTHER], [HOSP]], 3, [RULE, HOSP]),
        # the union keeps the longer of two overlapping entities
        ([[HOSP], [HOSP_SHORT], []], 1, [RULE, HOSP]),
        # and, of two labels for the same tokens, the one with more votes
        ([[HOSP_OTHER_LABEL], [HOSP], [HOSP]], 1, [RULE, HOSP]),
        ([[HOSP], [HOSP_OTHER_LABEL], [HOSP_OTHER_LABEL]], 1, [RULE, HOSP_OTHER_LABEL]),
    ],
)
def test_vote(nlp, members, min_votes, expected):
    assert _run(nlp, members, min_votes) == expected


# the NER on doc.ents (the third list) counting twice, four votes in all
@pytest.mark.parametrize(
    "members, min_votes, expected",
    [
        # it needs one other NER at 3 votes...
        ([[HOSP], [], [HOSP]], 3, [RULE, HOSP]),
        ([[], [], [HOSP]], 3, [RULE]),
        # ...and the two others together do not outvote it
        ([[HOSP], [HOSP], []], 3, [RULE]),
        ([[HOSP], [HOSP], []], 2, [RULE, HOSP]),
        # alone it is enough at 2
        ([[], [], [MOTHER]], 2, [RULE, MOTHER]),
        ([[MOTHER], [MOTHER], [MOTHER]], 4, [RULE, MOTHER]),
    ],
)
def test_vote_with_a_weighted_first_ner(nlp, members, min_votes, expected):
    assert _run(nlp, members, min_votes, ents_weight=2) == expected


@pytest.mark.parametrize(
    "min_votes, ents_weight, message",
    [
        (0, 1, "min_votes must be between 1 and 3"),
        (4, 1, "min_votes must be between 1 and 3"),
        (5, 2, "min_votes must be between 1 and 4"),
        (2, 0, "ents_weight must be 1 or more"),
    ],
)
def test_vote_rejects_impossible_thresholds(nlp, min_votes, ents_weight, message):
    with pytest.raises(ValueError, match=message):
        nlp.create_pipe(
            "meddocan_ner_vote",
            config={
                "votes_keys": ["votes_a", "votes_b"],
                "min_votes": min_votes,
                "ents_weight": ents_weight,
            },
        )


def test_ensemble_config_votes_over_its_disabled_members():
    config = spacy.util.load_config(ROOT / "configs" / "pipeline_ensemble.cfg", interpolate=False)
    components = config["components"]
    members = components["members"]["ners"]
    assert components["members"]["factory"] == "meddocan_ner_members"
    # each member's entities are in the span group of its name
    assert members == components["ner_vote"]["votes_keys"]
    # the members are disabled NERs, each with its own tok2vec
    assert sorted(members) == sorted(config["nlp"]["disabled"])
    assert all(
        components[name]["replace_listeners"] == ["model.tok2vec"] for name in members + ["ner"]
    )


# entity_windows: (NER entities, rule entities, margin) -> windows, on a 20-token Doc
@pytest.mark.parametrize(
    "ner, rules, margin, expected",
    [
        ([(5, 7)], [], 2, [(3, 9)]),
        ([(5, 7)], [], 0, [(5, 7)]),
        # clipped to the Doc
        ([(0, 1)], [], 5, [(0, 6)]),
        ([(18, 20)], [], 5, [(13, 20)]),
        # two windows apart, then merged when they touch
        ([(5, 7), (12, 13)], [], 2, [(3, 9), (10, 15)]),
        ([(5, 7), (12, 13)], [], 3, [(2, 16)]),
        # an edge inside a rule entity is widened to take it whole
        ([(5, 7)], [(0, 2)], 4, [(0, 11)]),
        ([(5, 7)], [(8, 12)], 2, [(3, 12)]),
        # rule entities alone open no window: the first NER found nothing
        ([], [(0, 2)], 5, []),
        ([], [], 5, []),
    ],
)
def test_entity_windows(nlp, ner, rules, margin, expected):
    doc = nlp.make_doc(" ".join(f"w{i}" for i in range(20)))
    doc.spans["rule_entities"] = [Span(doc, start, end, label="FECHAS") for start, end in rules]
    doc.ents = [Span(doc, start, end, label="FECHAS") for start, end in rules + ner]
    assert entity_windows(doc, "rule_entities", margin) == expected


def test_window_doc_keeps_rule_entities_and_clips_span_groups(nlp):
    doc = nlp.make_doc(TEXT)
    doc.spans["rule_entities"] = [Span(doc, *RULE)]
    doc.spans["sections"] = [Span(doc, 0, len(doc), label="body")]
    doc.spans["other"] = [Span(doc, 10, 11, label="X")]
    sub = window_doc(doc, 1, 6, "rule_entities")
    assert [t.text for t in sub] == [t.text for t in doc[1:6]]
    assert [(e.start, e.end, e.label_) for e in sub.ents] == [(1, 2, "TERRITORIO")]
    assert [(s.start, s.end, s.label_) for s in sub.spans["sections"]] == [(0, 5, "body")]
    assert list(sub.spans["other"]) == []


def test_members_reject_a_negative_margin(nlp):
    with pytest.raises(ValueError, match="margin must be 0 or more"):
        nlp.create_pipe("meddocan_ner_members", config={"ners": ["ner_b"], "margin": -1})


def test_members_need_disabled_ners():
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_ner_members", name="members", config={"ners": ["ner_b"]})
    with pytest.raises(ValueError, match="no component 'ner_b'"):
        nlp("Paciente de Getafe.")
    nlp.add_pipe("ner", name="ner_b", first=True)
    nlp.initialize()
    with pytest.raises(ValueError, match="'ner_b' must be disabled"):
        nlp("Paciente de Getafe.")
    nlp.disable_pipe("ner_b")
    doc = nlp("Paciente de Getafe.")
    assert list(doc.spans["ner_b"]) == []  # no entity on doc.ents: no window, nothing run


def test_members_run_only_around_the_first_ner_entities():
    """Two stand-in members (entity rulers) as the disabled NERs: they see only the window
    around the first NER's entity, each starts from the rule entities, and their entities
    come back at their offsets in the whole Doc."""
    nlp = spacy.blank("es")
    towns = nlp.add_pipe("entity_ruler", name="ner_b")
    towns.add_patterns([{"label": "TERRITORIO", "pattern": town} for town in ("Getafe", "Leganés")])
    # the second one gives way to preset entities: it finds its match only if it does not
    # see the first member's `Getafe`
    polite = nlp.add_pipe("entity_ruler", name="ner_c")
    polite.add_patterns([{"label": "HOSPITAL", "pattern": "Getafe con"}])
    nlp.add_pipe(
        "meddocan_ner_members", name="members", config={"ners": ["ner_b", "ner_c"], "margin": 3}
    )
    nlp.disable_pipe("ner_b")
    nlp.disable_pipe("ner_c")
    doc = nlp.make_doc(
        "Vive en Getafe con su madre . " + "Sin interés . " * 10 + "Trabaja en Leganés ."
    )
    mother = Span(doc, 5, 6, label="FAMILIARES_SUJETO_ASISTENCIA")
    doc.spans["rule_entities"] = []
    doc.ents = [mother]  # what the first NER found
    doc = nlp.get_pipe("members")(doc)
    # the members start from the rule entities only (none here), not from the first NER's
    assert [(s.start, s.end, s.label_) for s in doc.spans["ner_b"]] == [(2, 3, "TERRITORIO")]
    assert [e.text for e in doc.spans["ner_b"]] == ["Getafe"]
    assert [(s.start, s.end, s.label_) for s in doc.spans["ner_c"]] == [(2, 4, "HOSPITAL")]
    # the whole Doc is left as it was: the members wrote only their span groups
    assert list(doc.ents) == [mother]
