"""The NER ensemble's snapshot and vote components (configs/pipeline_ensemble.cfg)."""
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Span

import meddocan_deid  # noqa: F401  (registers the factories)

ROOT = Path(__file__).parent.parent
TEXT = "Paciente de Getafe ingresa en Hospital La Paz con su madre"
RULE = (2, 3, "TERRITORIO")  # `Getafe`, found by a rule
HOSP = (5, 8, "HOSPITAL")
HOSP_SHORT = (6, 8, "HOSPITAL")
HOSP_OTHER_LABEL = (5, 8, "INSTITUCION")
MOTHER = (10, 11, "FAMILIARES_SUJETO_ASISTENCIA")


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_ner_snapshot", name="votes_a", config={"spans_key": "votes_a"})
    nlp.add_pipe("meddocan_ner_snapshot", name="votes_b", config={"spans_key": "votes_b"})
    return nlp


def _run(nlp, members, min_votes):
    """Simulate three member NERs: each writes its entities (plus the rule entity)."""
    doc = nlp.make_doc(TEXT)
    doc.spans["rule_entities"] = [Span(doc, *RULE)]
    vote = nlp.create_pipe("meddocan_ner_vote", config={"votes_keys": ["votes_a", "votes_b"], "min_votes": min_votes})
    for i, member in enumerate(members):
        doc.ents = [Span(doc, *RULE)] + [Span(doc, *e) for e in member]
        if i < 2:
            doc = nlp.get_pipe(f"votes_{'ab'[i]}")(doc)
            # the snapshot puts the rule entities back for the next member
            assert [(e.start, e.end, e.label_) for e in doc.ents] == [RULE]
    doc = vote(doc)
    return sorted((e.start, e.end, e.label_) for e in doc.ents)


@pytest.mark.parametrize("members, min_votes, expected", [
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
])
def test_vote(nlp, members, min_votes, expected):
    assert _run(nlp, members, min_votes) == expected


@pytest.mark.parametrize("min_votes", [0, 4])
def test_vote_rejects_impossible_thresholds(nlp, min_votes):
    with pytest.raises(ValueError, match="min_votes must be between 1 and 3"):
        nlp.create_pipe("meddocan_ner_vote", config={"votes_keys": ["votes_a", "votes_b"], "min_votes": min_votes})


def test_ensemble_config_names_the_vote_keys_of_its_snapshots():
    config = spacy.util.load_config(ROOT / "configs" / "pipeline_ensemble.cfg", interpolate=False)
    components = config["components"]
    snapshots = [name for name in config["nlp"]["pipeline"]
                 if components[name].get("factory") == "meddocan_ner_snapshot"]
    assert [components[name]["spans_key"] for name in snapshots] == components["ner_vote"]["votes_keys"]
    # every member NER carries its own tok2vec
    members = [name for name in config["nlp"]["pipeline"] if name.startswith("ner") and "source" in components[name]]
    assert len(members) == len(snapshots) + 1
    assert all(components[name]["replace_listeners"] == ["model.tok2vec"] for name in members)
