"""Clinical codes are kept: `meddocan_keep_clinical_codes`.

Reads `doc.text`, `doc.ents`, the keyed field values (`doc.spans[fields_key]`) and the rule
entities (`doc.spans[rules_key]`); writes the clinical codes it finds to `doc.spans[spans_key]`
(the kind in `label_`: `snomed`, `hgvs`, `bed`...; see pipeline/clinical_codes.py) and drops
from `doc.ents` every entity whose letters and digits all lie inside codes (with their cue
words for a lot, a bed or a room: `cama 12`; a model with its product line); an entity that
runs on into a code at its end or start keeps the rest, in whole tokens, if it has two
letters (`Boston Scientific` of `Boston Scientific Resonate OXV00`), else goes. It never adds
an entity, and never touches tokens or other span groups. It runs after every component that sets
entities but `privacy` (which only adds).

An entity stays when a key names its value as PHI: a PHI key (`NHC`, `SIP`, `DNI`...) in the
line before the code (the finder does not find it), or, for a code recognised by its own check
(SNOMED, LOINC, HGVS...), a keyed field value or header rule entity over it (`NHC: 10023456`
is the record number even if it reads as a MedDRA code). A lot, model, bed, room, sanitary
registration or form is named by its own cue, so the fields do not protect it (`Cama: 12` is
a bed, not a person).
Word lists (cues, PHI keys, brands, EHR products) are data per language
(`pipeline/data/<lang>/clinical_codes.json`), saved with the pipeline.
"""

from collections.abc import Sequence
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..lexicon import word_uses
from .clinical_codes import CUE_KINDS, KINDS, CodeFinder, CodeWords
from .serialize import SerializedState

SPANS_KEY = "clinical_codes"
WORD_LIST = "clinical_codes"
# kinds found after a word of their own, which a field key of the same word must not undo
NAMED_BY_CUE = frozenset({*CUE_KINDS, "model", "ehr", "registration", "form"})


def default_words(lang: str = "es") -> list[dict]:
    """The word list of `lang` as rows `{"word": ..., "uses": [...]}` (the serialized form)."""
    return [{"word": word, "uses": uses} for word, uses in word_uses(WORD_LIST, lang).items()]


def code_words(rows: Sequence[dict]) -> CodeWords:
    """The finder's word lists from rows `{"word", "uses"}`."""
    by_use: dict[str, list[str]] = {}
    for row in rows:
        if (
            not isinstance(row, dict)
            or not isinstance(row.get("word"), str)
            or not isinstance(row.get("uses"), list)
        ):
            raise ValueError("clinical code word rows need 'word' (a string) and 'uses' (a list)")
        for use in row["uses"]:
            by_use.setdefault(use, []).append(row["word"])
    cue_uses = (
        "snomed",
        "meddra",
        "icd10",
        "lot",
        "model",
        "bed",
        "room",
        "ehr",
        "registration",
        "form",
    )
    known = {*cue_uses, "phi_key", "brand", "ehr_product", "ehr_product_cued"}
    unknown = set(by_use) - known
    if unknown:
        raise ValueError(
            f"clinical code words: unknown use(s) {sorted(unknown)} (known: {sorted(known)})"
        )
    return CodeWords(
        cues={use: by_use.get(use, []) for use in cue_uses},
        phi_keys=by_use.get("phi_key", []),
        brands=by_use.get("brand", []),
        ehr_products=by_use.get("ehr_product", []),
        ehr_products_cued=by_use.get("ehr_product_cued", []),
    )


@Language.factory(
    "meddocan_keep_clinical_codes",
    default_config={
        "kinds": list(KINDS),
        "cue_window": 40,
        "spans_key": SPANS_KEY,
        "fields_key": "fields",
        "rules_key": "rule_entities",
    },
    assigns=["doc.ents", "doc.spans"],
)
def make_keep_clinical_codes(
    nlp: Language,
    name: str,
    *,
    kinds: list[str],
    cue_window: int,
    spans_key: str,
    fields_key: str,
    rules_key: str,
) -> "KeepClinicalCodes":
    return KeepClinicalCodes(
        nlp,
        name,
        kinds=kinds,
        cue_window=cue_window,
        spans_key=spans_key,
        fields_key=fields_key,
        rules_key=rules_key,
    )


class KeepClinicalCodes(SerializedState):
    state_files = {"words": "words.jsonl"}

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        kinds: Sequence[str] = KINDS,
        cue_window: int = 40,
        spans_key: str = SPANS_KEY,
        fields_key: str = "fields",
        rules_key: str = "rule_entities",
        words: Sequence[dict] | None = None,
    ):
        self.name = name
        self.kinds = list(kinds)
        self.cue_window = cue_window
        self.spans_key = spans_key
        self.fields_key = fields_key
        self.rules_key = rules_key
        # a pipeline without a language gets the default list (Spanish)
        self.words = list(words) if words is not None else default_words(nlp.lang or "es")
        self._compile()

    def _compile(self) -> None:
        self.finder = CodeFinder(
            code_words(self.words), kinds=self.kinds, cue_window=self.cue_window
        )

    def initialize(
        self,
        get_examples=None,
        *,
        nlp: Language | None = None,
        words: Sequence[dict] | None = None,
    ) -> None:
        if words is not None:
            self.words = list(words)
            self._compile()

    def get_state(self) -> dict[str, list[Any]]:
        return {"words": self.words}

    def set_state(self, state: dict[str, list[Any]]) -> None:
        if "words" in state:
            self.words = list(state["words"])
        self._compile()

    def __call__(self, doc: Doc) -> Doc:
        if not doc.ents:
            doc.spans[self.spans_key] = []
            return doc
        text = doc.text
        codes = self.finder.find(text)
        spans = [
            doc.char_span(c.start, c.end, label=c.kind, alignment_mode="expand") for c in codes
        ]
        doc.spans[self.spans_key] = [s for s in spans if s is not None]
        if not codes:
            return doc
        keyed = [
            (s.start_char, s.end_char)
            for key in (self.fields_key, self.rules_key)
            for s in doc.spans.get(key, [])
        ]
        kept_chars: set[int] = set()
        for code in codes:
            if code.kind not in NAMED_BY_CUE and any(
                a < code.end and code.start < b for a, b in keyed
            ):
                continue
            kept_chars.update(range(code.cue_start, code.end))
        ents, changed = [], False
        for ent in doc.ents:
            kept = self._outside(ent, text, kept_chars)
            if kept is None or kept is ent:
                ents.append(ent)
                continue
            changed = True
            if len(kept):
                ents.append(kept)
        if changed:
            doc.ents = ents
        return doc

    @staticmethod
    def _outside(ent: Span, text: str, chars: set) -> Span | None:
        """What is left of the entity outside the codes: None when no letter or digit of it is a
        code's (or its cue's), an empty span when all are, the rest when the codes are a head or
        a tail of it and the rest has two letters in whole tokens (`Boston Scientific` of
        `Boston Scientific Resonate OXV00`); the entity itself otherwise (a code in its middle)."""
        alnum = [i for i in range(ent.start_char, ent.end_char) if text[i].isalnum()]
        inside = [i in chars for i in alnum]
        if not any(inside):
            return None
        if all(inside):
            return ent.doc[ent.start : ent.start]
        head = next(k for k, flag in enumerate(inside) if not flag)
        tail = next(k for k, flag in enumerate(reversed(inside)) if not flag)
        if head + tail != sum(inside):
            return ent
        start = alnum[head] if head else ent.start_char
        end = alnum[len(alnum) - tail - 1] + 1 if tail else ent.end_char
        piece = ent.doc.char_span(start, end, label=ent.label, alignment_mode="contract")
        if piece is None or sum(c.isalpha() for c in piece.text) < 2:
            return ent
        return piece
