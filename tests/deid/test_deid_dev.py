"""The operators over the 250 REAL dev reports (detected by the rule pipeline, and the gold
annotations for a wider range of PHI shapes): no PHI string survives surrogate, mask or
redact, and the non-PHI text is kept character for character. Nothing is printed: failures
show labels, shapes and counts only."""

import re
from collections import Counter
from pathlib import Path

import pytest

from meddocan_deid.brat import read_brat_dir
from meddocan_deid.deid import apply_operator
from meddocan_deid.deid.surrogates import POLICY_KEPT
from meddocan_deid.deid.surrogates.common import bounded_find
from meddocan_deid.deid.surrogates.names import kinship_kept

ROOT = Path(__file__).parent.parent.parent
CANDIDATES = [
    ROOT.parent / "shared" / "meddocan" / "corpus" / "dev" / "brat",
    ROOT / "assets" / "meddocan" / "corpus" / "dev" / "brat",
]
DEV = next((p for p in CANDIDATES if p.is_dir()), None)
KEY = b"dev-test-key-0123456789abcdef"

pytestmark = pytest.mark.skipif(DEV is None, reason="MEDDOCAN dev corpus not found")


def shape(text):
    return re.sub(r"[^\W\d_]", "a", re.sub(r"\d", "9", text))


@pytest.fixture(scope="module")
def dev(rule_nlp):
    docs = list(read_brat_dir(DEV))
    detected = [
        [(e.label_, e.start_char, e.end_char) for e in d.ents]
        for d in rule_nlp.pipe(x.text for x in docs)
    ]
    return docs, detected


def check(text, spans, mode, scope):
    """Problems (label, shape) of one report; empty when all is well."""
    spans = sorted(spans, key=lambda x: (x[1], x[2]))
    res = apply_operator(text, spans, mode, KEY, scope=scope)
    problems = []
    pos = npos = 0
    for (label, s, e), r in zip(spans, res.replacements):
        if res.text[npos : r.new_start] != text[pos:s]:
            problems.append(("non-PHI text changed", label))
        pos, npos = e, r.new_end
    if res.text[npos:] != text[pos:]:
        problems.append(("non-PHI text changed", "end"))
    non_phi = "\x00".join(
        text[a:b]
        for a, b in zip([0] + [e for _, _, e in spans], [s for _, s, _ in spans] + [len(text)])
    )
    for (label, s, e), r in zip(spans, res.replacements):
        value = text[s:e]
        if mode == "surrogate" and label in POLICY_KEPT:
            continue
        # kinship words alone (`madre`, `su pareja`) stay by default in every mode (keep_kinship)
        if label == "FAMILIARES_SUJETO_ASISTENCIA" and kinship_kept(value):
            continue
        if res.text[r.new_start : r.new_end] == value:
            problems.append(("unchanged", label, shape(value)))
        elif bounded_find(res.text, value) and not bounded_find(non_phi, value):
            problems.append(("survives", label, shape(value)))
    return problems


@pytest.mark.parametrize("mode", ["surrogate", "mask", "redact"])
def test_detected_phi_never_survives(dev, mode):
    docs, detected = dev
    assert len(docs) == 250 and sum(map(len, detected)) > 3000
    problems = Counter()
    for doc, spans in zip(docs, detected):
        problems.update(check(doc.text, spans, mode, doc.doc_id))
    assert not problems, dict(problems)


def test_gold_phi_never_survives_surrogate(dev):
    docs, _ = dev
    problems = Counter()
    labels = Counter()
    for doc in docs:
        labels.update(label for label, _, _ in doc.entities)
        problems.update(check(doc.text, doc.entities, "surrogate", doc.doc_id))
    assert len(labels) >= 18
    assert not problems, dict(problems)


@pytest.mark.parametrize("mode", ["tag", "mask", "redact", "surrogate"])
def test_output_ann_lines_up_on_every_dev_report(dev, mode):
    """The .ann written beside the output quotes, at its offsets, exactly the output text."""
    from meddocan_deid.brat import format_output_ann, validate_ann

    docs, _ = dev
    entities = 0
    for doc in docs:
        spans = sorted(doc.entities, key=lambda x: (x[1], x[2]))
        res = apply_operator(doc.text, spans, mode, KEY, scope=doc.doc_id)
        entities += validate_ann(res.text, format_output_ann(res.text, res.replacements))
    if mode == "redact":
        # nothing is left to annotate but the kinship words alone, kept in every mode
        assert entities == sum(
            label == "FAMILIARES_SUJETO_ASISTENCIA" and kinship_kept(doc.text[s:e])
            for doc in docs
            for label, s, e in doc.entities
        )
    else:
        assert entities == sum(len(d.entities) for d in docs)


def test_policy_changes_exactly_what_it_says_on_dev(dev):
    """A per-label operator (FECHAS kept) and an allow list (a town) change only those spans."""
    from meddocan_deid.deid import DeidOptions
    from meddocan_deid.deid.policy import parse_policy, prepare_spans

    docs, detected = dev
    towns = Counter(
        doc.text[s:e]
        for doc, spans in zip(docs, detected)
        for label, s, e in spans
        if label == "TERRITORIO"
    )
    town = towns.most_common(1)[0][0]
    # the allow list drops the string under any label (a surname that is also a town, say)
    strings = Counter(doc.text[s:e] for doc, spans in zip(docs, detected) for _label, s, e in spans)
    options = parse_policy({"operators": {"FECHAS": "keep"}, "allow": {"strings": [town]}}).apply(
        DeidOptions()
    )
    kept = dropped = 0
    for doc, spans in zip(docs, detected):
        spans = sorted(spans, key=lambda x: (x[1], x[2]))
        base = apply_operator(doc.text, spans, "tag", None, scope=doc.doc_id)
        allowed = [sp for sp in spans if doc.text[sp[1] : sp[2]] == town]
        prepared = prepare_spans(doc.text, spans, options)
        assert prepared == [sp for sp in spans if sp not in allowed]
        res = apply_operator(doc.text, prepared, "tag", None, scope=doc.doc_id, options=options)
        for r in res.replacements:
            if r.label == "FECHAS":
                assert res.text[r.new_start : r.new_end] == doc.text[r.start : r.end]
                kept += 1
            elif r.label == "FAMILIARES_SUJETO_ASISTENCIA" and kinship_kept(
                doc.text[r.start : r.end]
            ):
                assert (
                    res.text[r.new_start : r.new_end] == doc.text[r.start : r.end]
                )  # kept in every mode
            else:
                assert res.text[r.new_start : r.new_end] == f"[{r.label}]"
        dropped += len(allowed)
        assert len(res.replacements) == len(base.replacements) - len(allowed)
    assert kept == sum(label == "FECHAS" for spans in detected for label, _s, _e in spans) > 100
    assert dropped == strings[town] >= towns[town] > 0
