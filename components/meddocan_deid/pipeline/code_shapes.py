"""Codes anywhere, recall first (as Philter does): `meddocan_code_shapes`.

A group of characters that looks like an identifier (letters and four digits or more mixed,
six digits or more, digit groups joined by separators with eight digits or more; a day and
month without a year, `14/02`, as a date) is PHI unless
a safe list says it is clinical: dates written as numbers (found as dates elsewhere), ICD-10,
ATC, LOINC, TNM, HGVS and dbSNP variants, karyotypes, trial numbers, doses and values with
their unit, a number followed by a unit, and any code after a cue such as `lote`, `REF`,
`SNOMED`, `CIE-10`, or a scale (`EVA 10/10`, `fuerza 5/5`). An entity of any component that is
wholly a code that identifies no one (`never_phi`: dbSNP ids, HGVS variants, TNM, karyotypes,
ATC) is removed. Shapes (with their label), safe patterns and cues are data
(`configs/patterns/code_shapes.jsonl`,
read at `[initialize]` and saved with the pipeline). A code is added to `doc.ents` as
OTRO_NUMERO_IDENTIF only where no entity overlaps it (the NER and the rules, which know the
cue words, keep their labels), and to `doc.spans[spans_key]`. A value that the identifiers
component rejected (`doc.spans[rejects_key]`: written in an identifier's own shape, its check
failed, no key before it: `BOXW310820HNERXN08`) is not a code either. Reads `doc.text` with
compiled regexes, never the tokens one by one.
"""

import re
from collections.abc import Callable

from spacy.language import Language
from spacy.tokens import Doc

from .serialize import PatternState

SPANS_KEY = "code_shapes"
REJECTS_KEY = "identifier_rejects"  # the identifiers component's rejected look-alikes
LABEL = "OTRO_NUMERO_IDENTIF"
CUE_WINDOW = 24  # characters before a code in which a cue word makes it clinical


def validate_patterns(patterns: list[dict]) -> list[dict]:
    for p in patterns:
        if p.get("kind") not in ("shape", "safe", "safe_after", "safe_cue", "never_phi"):
            raise ValueError(f"code_shapes pattern {p.get('id')!r}: unknown kind {p.get('kind')!r}")
        if p["kind"] == "safe_cue":
            if not p.get("words"):
                raise ValueError(f"code_shapes pattern {p.get('id')!r}: a safe_cue needs words")
        else:
            re.compile(p["regex"])
    return patterns


@Language.factory(
    "meddocan_code_shapes",
    default_config={"spans_key": SPANS_KEY, "label": LABEL, "rejects_key": REJECTS_KEY},
    assigns=["doc.ents", "doc.spans"],
)
def make_code_shapes(
    nlp: Language, name: str, *, spans_key: str, label: str, rejects_key: str
) -> "CodeShapes":
    return CodeShapes(nlp, name, spans_key=spans_key, label=label, rejects_key=rejects_key)


class CodeShapes(PatternState):
    check_patterns = staticmethod(validate_patterns)

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        spans_key: str = SPANS_KEY,
        label: str = LABEL,
        rejects_key: str = REJECTS_KEY,
    ):
        self.name = name
        self.spans_key = spans_key
        self.label = label
        self.rejects_key = rejects_key
        self.patterns: list[dict] = []
        self._compile()

    def _compile(self) -> None:
        by_kind = {
            k: [p for p in self.patterns if p["kind"] == k]
            for k in ("shape", "safe", "safe_after", "safe_cue", "never_phi")
        }
        never = [p["regex"] for p in by_kind["never_phi"]]
        self._never = re.compile("(?:" + "|".join(never) + ")") if never else None
        self._shapes = [
            (
                re.compile(p["regex"]),
                p.get("min_length", 0),
                p.get("min_digits", 0),
                p.get("label", self.label),
            )
            for p in by_kind["shape"]
        ]
        safe = [p["regex"] for p in by_kind["safe"]]
        self._safe = re.compile("(?:" + "|".join(safe) + ")", re.IGNORECASE) if safe else None
        after = [p["regex"] for p in by_kind["safe_after"]]
        self._after = re.compile("(?:" + "|".join(after) + ")") if after else None
        words = sorted(
            {w.lower() for p in by_kind["safe_cue"] for w in p["words"]}, key=len, reverse=True
        )
        self._cue = (
            re.compile(
                r"(?<!\w)(?:"
                + "|".join(map(re.escape, words))
                + r")(?!\w)[\s:.#nº°-]*(?:\S+\s+){0,2}$",
                re.IGNORECASE,
            )
            if words
            else None
        )

    def initialize(
        self,
        get_examples: Callable | None = None,
        *,
        nlp: Language | None = None,
        patterns: list[dict] | None = None,
    ) -> None:
        self.patterns = validate_patterns(list(patterns or []))
        self._compile()

    def clinical(self, text: str, start: int, end: int) -> bool:
        """The code at [start, end) is on the safe list, followed by a unit or preceded by a cue."""
        code = text[start:end]
        if self._safe is not None and self._safe.fullmatch(code):
            return True
        if self._after is not None and self._after.match(text, end):
            return True
        return (
            self._cue is not None
            and self._cue.search(text[max(0, start - CUE_WINDOW) : start]) is not None
        )

    def codes(self, text: str) -> list[tuple]:
        """(start, end, label) of every identifier-shaped group not on the safe
        list, the longest at a place."""
        found = []
        for regex, min_length, min_digits, label in self._shapes:
            for m in regex.finditer(text):
                s, e = m.span()
                if e - s < min_length or sum(c.isdigit() for c in m.group()) < min_digits:
                    continue
                if not self.clinical(text, s, e):
                    found.append((s, e, label))
        found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
        out, last = [], -1
        for s, e, label in found:
            if s >= last:
                out.append((s, e, label))
                last = e
        return out

    def __call__(self, doc: Doc) -> Doc:
        if self._never is not None and any(self._never.fullmatch(e.text) for e in doc.ents):
            # a dbSNP id, an HGVS variant, a TNM stage, a karyotype or an ATC code identifies no one
            doc.ents = [e for e in doc.ents if not self._never.fullmatch(e.text)]
        taken = [(e.start_char, e.end_char) for e in doc.ents]
        taken += [(s.start_char, s.end_char) for s in doc.spans.get(self.rejects_key, [])]
        tokens = {i for e in doc.ents for i in range(e.start, e.end)}
        added = []
        for s, e, label in self.codes(doc.text):
            if any(a < e and s < b for a, b in taken):
                continue
            span = doc.char_span(s, e, label=label, alignment_mode="expand")
            if span is None or any(i in tokens for i in range(span.start, span.end)):
                continue
            tokens.update(range(span.start, span.end))
            added.append(span)
        doc.spans[self.spans_key] = added
        if added:
            doc.ents = sorted(list(doc.ents) + added, key=lambda sp: sp.start)
        return doc
