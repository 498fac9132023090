"""meddocan_deid.evaluation.identifier_counts: what the identifier recognizers add, compared
with the entities made before them. Invented texts."""

from pathlib import Path

import pytest

from meddocan_deid.evaluation.identifier_counts import (
    counts_table,
    identifier_additions,
    review_sample,
    status_of,
)
from meddocan_deid.pipeline.patterns import read_identifier_patterns
from meddocan_deid.pipeline.tokenizer import blank_pipeline

PATTERNS = Path(__file__).resolve().parents[2] / "configs" / "patterns" / "identifiers.jsonl"


@pytest.fixture(scope="module")
def nlp():
    nlp = blank_pipeline()
    ruler = nlp.add_pipe("entity_ruler")  # stands in for the NER and the rules
    nlp.add_pipe(
        "meddocan_identifiers",
        name="identifiers",
        config={"spans_key": "identifiers", "rules_key": "rule_entities"},
    )
    nlp.initialize()
    ruler.add_patterns(
        [
            {"label": "NOMBRE_SUJETO_ASISTENCIA", "pattern": [{"LOWER": "ana"}, {"LOWER": "ruiz"}]},
            {"label": "FECHAS", "pattern": [{"TEXT": t} for t in "612 34 56 78".split()]},
        ]
    )
    nlp.get_pipe("identifiers").add_patterns(read_identifier_patterns(PATTERNS))
    return nlp


class _Span:
    def __init__(self, start, end, label):
        self.start_char, self.end_char, self.label_ = start, end, label


@pytest.mark.parametrize(
    "before,expected",
    [
        ([], "new"),
        ([(20, 30, "X")], "new"),
        ([(0, 9, "ID_SUJETO_ASISTENCIA")], "same"),
        ([(0, 9, "TERRITORIO")], "relabelled"),
        ([(0, 15, "CALLE")], "changed"),
    ],
)
def test_status_of(before, expected):
    assert status_of(_Span(0, 9, "ID_SUJETO_ASISTENCIA"), before) == expected


def test_additions_are_counted_by_kind_and_status(nlp):
    texts = {"a": "Paciente Ana Ruiz con DNI 45873912K y móvil 612 34 56 78.", "b": "Sin datos."}
    counts, found = identifier_additions(nlp, texts.items())
    assert counts["dni"]["new"] == 1
    phone_kind = next(k for k in counts if k.startswith("phone"))
    assert counts[phone_kind]["relabelled"] == 1  # the stand-in called it a date
    assert {f[0] for f in found} == {"a"}
    assert counts_table(counts)[-1][0] == "total"
    rows = review_sample(found, texts, 10)
    assert len(rows) == 2 and {r[4] for r in rows} == {"45873912K", "612 34 56 78"}


def test_a_pipeline_without_the_component_is_refused():
    with pytest.raises(ValueError, match="no 'identifiers' component"):
        identifier_additions(blank_pipeline(), [("a", "x")])
