"""Surrogate output of the invented identifier set (assets/identifiers), detected by the
shipped rules: every planted identifier is gone from the output, and every surrogate of a
checksum-bearing identifier validates (python-stdnum, or the NUSS mod-97 rule)."""

import re
from collections import Counter
from pathlib import Path

from stdnum import iban
from stdnum.es import ccc, dni, nie

from meddocan_deid.deid import apply_operator
from meddocan_deid.deid.surrogates.identifiers import nuss_is_valid
from meddocan_deid.evaluation.identifiers import read_identifier_set

SET_DIR = Path(__file__).resolve().parents[2] / "assets" / "identifiers"
KEY = b"identifier-set-surrogate-key-0123"
COMPACT = re.compile(r"[\s.\-/]")  # separators a DNI, NUSS or IBAN may be written with
VALIDATORS = {
    "dni": dni.is_valid,
    "nie": nie.is_valid,
    "iban": iban.is_valid,
    "ccc": ccc.is_valid,
    "nass": lambda v: nuss_is_valid(COMPACT.sub("", v)),
}


def test_planted_identifiers_are_gone_and_surrogates_validate(rule_nlp):
    docs = read_identifier_set(SET_DIR)
    checked, problems = Counter(), Counter()
    for doc, predicted in zip(docs, rule_nlp.pipe(d.text for d in docs)):
        spans = [(e.label_, e.start_char, e.end_char) for e in predicted.ents]
        res = apply_operator(doc.text, spans, "surrogate", KEY, scope=doc.doc_id)
        new = {(r.start, r.end): res.text[r.new_start : r.new_end] for r in res.replacements}
        for planted in doc.identifiers:
            value = doc.text[planted.start : planted.end]
            if COMPACT.sub("", value) in COMPACT.sub("", res.text):
                problems[("survives", planted.kind)] += 1
            if planted.valid == "1" and planted.kind in VALIDATORS:
                surrogate = new.get((planted.start, planted.end))
                if surrogate is None or not VALIDATORS[planted.kind](COMPACT.sub("", surrogate)):
                    problems[("invalid surrogate", planted.kind)] += 1
                checked[planted.kind] += 1
    assert not problems, dict(problems)
    assert set(checked) == set(VALIDATORS) and min(checked.values()) >= 20, checked
