"""Token patterns that differ in one literal token are merged at load time; the span ruler
must find exactly the spans it found with the patterns as written."""

from pathlib import Path

import spacy

import meddocan_deid  # noqa: F401  (registers the project's tokenizer)
from meddocan_deid.pipeline.patterns import compact_token_patterns, load_patterns

PATTERNS = Path(__file__).parents[2] / "configs" / "patterns"
FORMATS = Path(__file__).parents[2] / "assets" / "formats"


def _ruler(patterns):
    nlp = spacy.blank(
        "es", config={"nlp": {"tokenizer": {"@tokenizers": "meddocan_deid.tokenizer.v1"}}}
    )
    ruler = nlp.add_pipe("span_ruler", config={"spans_key": "x", "validate": True})
    ruler.add_patterns(patterns)
    return nlp, ruler


def _spans(nlp, ruler, texts):
    found = []
    for text in texts:
        doc = ruler(nlp.make_doc(text))
        found.append([(s.start_char, s.end_char, s.label_, s.id_) for s in doc.spans["x"]])
    return found


def test_literal_variants_become_one_pattern_with_an_in_list():
    patterns = [
        {"label": "INSTITUCION", "pattern": [{"IS_TITLE": True}, {"ORTH": "S.L."}]},
        {"label": "INSTITUCION", "pattern": [{"IS_TITLE": True}, {"ORTH": "S.A."}]},
        {"label": "INSTITUCION", "pattern": [{"IS_TITLE": True}, {"ORTH": {"IN": ["SL", "SA"]}}]},
        # another label, another attribute or an operator keeps its own pattern
        {"label": "OTROS", "pattern": [{"IS_TITLE": True}, {"ORTH": "S.L."}]},
        {"label": "INSTITUCION", "pattern": [{"IS_TITLE": True}, {"LOWER": "slu"}]},
        {"label": "INSTITUCION", "pattern": [{"IS_TITLE": True}, {"ORTH": "SAU", "OP": "?"}]},
        {"label": "INSTITUCION", "pattern": "Talleres Gil"},
    ]
    compacted = compact_token_patterns(patterns)
    assert len(compacted) == 5
    assert compacted[0] == {
        "label": "INSTITUCION",
        "pattern": [{"IS_TITLE": True}, {"ORTH": {"IN": ["S.L.", "S.A.", "SL", "SA"]}}],
    }
    assert {"label": "INSTITUCION", "pattern": "Talleres Gil"} in compacted
    text = ["Trabaja en Gil S.L. y en Pons SA; Rius SAU, Vidal slu, Talleres Gil."]
    assert _spans(*_ruler(compacted), text) == _spans(*_ruler(patterns), text)


def test_merges_at_two_positions_keep_every_combination():
    patterns = [
        {"label": "FECHAS", "pattern": [{"LOWER": day}, {"LOWER": month}]}
        for day in ("lunes", "martes")
        for month in ("enero", "marzo")
    ]
    compacted = compact_token_patterns(patterns)
    assert compacted == [
        {
            "label": "FECHAS",
            "pattern": [
                {"LOWER": {"IN": ["lunes", "martes"]}},
                {"LOWER": {"IN": ["enero", "marzo"]}},
            ],
        }
    ]


def test_shipped_rules_find_the_same_spans_compacted_on_the_layouts_set():
    patterns = load_patterns(PATTERNS / "phi_rules.jsonl") + load_patterns(
        PATTERNS / "institutions.jsonl"
    )
    compacted = compact_token_patterns(patterns)
    token_patterns = sum(isinstance(p["pattern"], list) for p in patterns)
    assert sum(isinstance(p["pattern"], list) for p in compacted) < 0.7 * token_patterns
    texts = [path.read_text(encoding="utf-8") for path in sorted(FORMATS.glob("*.txt"))]
    assert len(texts) >= 60
    before = _spans(*_ruler(patterns), texts)
    assert sum(map(len, before)) > 1000  # the rules do fire on these reports
    assert _spans(*_ruler(compacted), texts) == before
