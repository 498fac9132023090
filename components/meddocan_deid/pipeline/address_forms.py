"""Addresses as the Americas write them: the CALLE and TERRITORIO spans of the third round's
conventions.

Reads `doc.text`, `doc.ents` and the rule entities (`doc.spans[rules_key]`); writes
`doc.spans[spans_key]` and `doc.ents`. The forms are data (`data/americas/address_forms.json`):
a street with its number and parts (`Calle 10 # 5-51`, `calle 7 e/ 40 y 41`, `Mz. 4 Lt. 12`,
`Jr. Huallaga 345`), a unit after a street entity (`Av. Insurgentes Sur 1234 int. 5`), a
postal code after its key (`C.P. [06700]`), and a place after its type word, the type word
outside (`Col. [Roma Norte]`, `alcaldía [Coyoacán]`, `comuna de [Peñalolén]`): capitalised
words after a type word of `any`, a known place only after one of `known` (`estado de
[Jalisco]`, not `estado general`), and only a known place in a report written in lower case.
`colonia` in lower case is a place only after a comma, `en`, `la`, `de`... (not `usa colonia`).
A corregimiento of `corregimientos.tsv` (Panamá's) is a known place after a type word of `any`
(`corregimiento de [Bella Vista]`, in lower case too); written without one, it is a place only
capitalised, where no entity is, and in an address: after a street entity and a comma (`Calle
50, [Betania]`), after an address key and `en`, `de` or a colon (`Vive en [Betania]`,
`Domicilio: [Betania]`), or before a comma and a known place (`[Pueblo Nuevo], Panamá`) with a
comma, `en`, a line start or a `de` after a lower-case word before it; `pueblo nuevo` or `un
Pueblo Nuevo` alone is none.
In a report of Spain (meddocan_deid.country) only postal codes after their key count, and only
where no entity is. Elsewhere the spans replace the entities they overlap, except rule entities
and a longer entity of the same label; a rule CALLE or TERRITORIO that holds them (a header's
`Domicilio:` line) is split into them, a rest that is a known place alone becoming a
TERRITORIO. Never touches tokens or other span groups.
"""

import json
import re
from functools import cache
from pathlib import Path

import numpy
from spacy.attrs import LOWER
from spacy.language import Language
from spacy.tokens import Doc, Span

from ..country import country_of
from ..country_data import (
    SPAIN,
    corregimiento_countries,
    district_countries,
    place_countries,
    spanish_places,
)
from ..errors import PatternFileError
from ..lexicon import lookup_key, words
from .spans import merged_entities, rule_entity_keys

FORMS = Path(__file__).parent / "data" / "americas" / "address_forms.json"
_LINKS = frozenset(words("place_links"))


@cache
def address_forms(path: Path = FORMS) -> dict:
    """The forms of `path`, their regular expressions compiled; PatternFileError naming the
    file and the problem."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        patterns = [(p["id"], p["label"], re.compile(p["regex"])) for p in data["patterns"]]
        unit = re.compile(data["unit"])
        types = {kind: set(data["type_words"][kind]) for kind in ("any", "known")}
        colonia_before = set(data["colonia_before"])
        corregimiento_before = set(data["corregimiento_before"])
        address_keys = set(data["address_keys"])
    except FileNotFoundError:
        raise PatternFileError(f"{path}: address forms not found") from None
    except (ValueError, KeyError, TypeError, re.error) as err:
        raise PatternFileError(f"{path}: not valid address forms ({err})") from None
    return {
        "patterns": patterns,
        "unit": unit,
        "types": types,
        "colonia_before": colonia_before,
        "corregimiento_before": corregimiento_before,
        "address_keys": address_keys,
    }


def _known_place(text: str) -> bool:
    key = lookup_key(text)
    return key in place_countries() or key in spanish_places()


def _corregimiento(text: str) -> bool:
    """A corregimiento or a district of `corregimientos.tsv`."""
    key = lookup_key(text)
    return key in corregimiento_countries() or key in district_countries()


@cache
def _corregimiento_firsts() -> frozenset[str]:
    """The folded first words of the corregimientos (where a bare one may start)."""
    return frozenset(k.split()[0] for k in corregimiento_countries())


def _capitalised(span: Span) -> bool:
    """Every word of `span` but its links (`de`, `la`...) starts with a capital or a digit."""
    return all(
        t.text[:1].isupper() or t.is_digit or (t.lower_ in _LINKS and 0 < k < len(span) - 1)
        for k, t in enumerate(span)
    )


@Language.factory(
    "meddocan_address_forms",
    default_config={
        "spans_key": "address_forms",
        "rules_key": "rule_entities",
        "street_label": "CALLE",
        "place_label": "TERRITORIO",
        # words of a place name after its type word, at most
        "max_place_words": 5,
    },
    assigns=["doc.ents", "doc.spans"],
)
class AddressForms:
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        spans_key: str,
        rules_key: str,
        street_label: str,
        place_label: str,
        max_place_words: int,
    ):
        self.name = name
        self.spans_key = spans_key
        self.rules_key = rules_key
        self.street_label = street_label
        self.place_label = place_label
        self.max_place_words = max_place_words
        self.forms = address_forms()

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text  # built from the tokens on each access
        spain = country_of(text) == SPAIN
        found: list[Span] = []
        for _id, label, pattern in self.forms["patterns"]:
            if spain and label != self.place_label:
                continue
            for m in pattern.finditer(text):
                start, end = m.span("value")
                span = doc.char_span(start, end, label=label, alignment_mode="contract")
                if span is not None and len(span):
                    found.append(span)
        protected = rule_entity_keys(doc, self.rules_key)
        if not spain:
            found += self._places(doc, text)
            found += self._units(doc, text, found)
            found += self._bare_corregimientos(doc, found, protected)
        doc.spans[self.spans_key] = found
        if not spain:
            protected = self._split_rule_lines(doc, found, protected)
        doc.ents = merged_entities(doc, found, protected, not spain)
        return doc

    def _split_rule_lines(self, doc: Doc, found: list[Span], protected: set) -> set:
        """A rule CALLE or TERRITORIO that holds spans found here (a header's `Domicilio:
        Calle 10 # 5-51, Col. Roma Norte` line) gives way to them; what is left of it that is
        more than type words and punctuation (`Calle Pino 5` before `Mz. 4 Lt. 12`) stays an
        entity of its label, or a TERRITORIO when it is a known place alone. Returns the rule
        entities still protected."""
        types = self.forms["types"]["any"] | self.forms["types"]["known"]
        ents = list(doc.ents)
        for ent in list(ents):
            key = (ent.start, ent.end, ent.label)
            if key not in protected or ent.label_ not in (self.street_label, self.place_label):
                continue
            inner = [
                s
                for s in found
                if ent.start <= s.start and s.end <= ent.end and (s.start, s.end) != key[:2]
            ]
            if not inner:
                continue
            protected = protected - {key}
            ents.remove(ent)
            covered = {i for s in inner for i in range(s.start, s.end)}
            start = ent.start
            for i in range(ent.start, ent.end + 1):
                if i == ent.end or i in covered:
                    piece = self._leftover(doc, start, i, types, ent.label_)
                    if piece is not None and piece[0].is_title and _known_place(piece.text):
                        # `, Panamá` at the end of a `Domicilio:` line: the place it is
                        piece = Span(doc, piece.start, piece.end, label=self.place_label)
                    if piece is not None:
                        found.append(piece)
                    start = i + 1
        doc.ents = ents
        return protected

    @staticmethod
    def _leftover(doc: Doc, start: int, end: int, types: set, label: str) -> Span | None:
        """Tokens [start, end) without edge punctuation, when they hold more than type words."""
        while start < end and (doc[start].is_punct or doc[start].is_space):
            start += 1
        while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space):
            end -= 1
        words = [t for t in doc[start:end] if not (t.is_punct or t.is_space)]
        if not any(
            t.like_num
            or any(c.isdigit() for c in t.text)
            or (t.is_alpha and t.lower_.rstrip(".") not in types and t.lower_ not in _LINKS)
            for t in words
        ):
            return None
        return Span(doc, start, end, label=label)

    def _units(self, doc: Doc, text: str, found: list[Span]) -> list[Span]:
        """Streets (entities and those found here) with the unit that follows them."""
        out = []
        for street in [*doc.ents, *found]:
            if street.label_ != self.street_label:
                continue
            m = self.forms["unit"].match(text[street.end_char : street.end_char + 40])
            if m:
                end = street.end_char + m.end("value")
                span = doc.char_span(street.start_char, end, label=self.street_label)
                if span is not None:
                    out.append(span)
        return out

    def _places(self, doc: Doc, text: str) -> list[Span]:
        types = self.forms["types"]
        lower_case = not any(c.isupper() for c in text)
        out = []
        for token in self._type_word_tokens(doc):
            word = token.lower_.rstrip(".")
            kind = "any" if word in types["any"] else "known" if word in types["known"] else None
            if kind is None:
                continue
            if word == "colonia" and token.is_lower:
                before = doc[token.i - 1] if token.i else None
                if before is not None and not (
                    before.lower_ in self.forms["colonia_before"] or "\n" in before.text
                ):
                    continue  # `usa colonia Nenuco`: the perfume
            whole = self._known_from(doc, token.i)  # `Ciudad de México` is the place itself
            span = whole or self._place_after(doc, token.i + 1, kind, lower_case)
            if span is not None:
                out.append(span)
        return out

    def _type_word_tokens(self, doc: Doc) -> list:
        """The tokens whose lower-case form, trailing periods aside, is a type word, in
        order: found over the tokens' lower-case ids, without a Token object per token."""
        types = self.forms["types"]
        lowers = doc.to_array(LOWER)
        kept = []
        for lower in numpy.unique(lowers):
            word = doc.vocab.strings[int(lower)].rstrip(".")
            if word in types["any"] or word in types["known"]:
                kept.append(lower)
        if not kept:
            return []
        return [doc[int(i)] for i in numpy.flatnonzero(numpy.isin(lowers, kept))]

    def _known_from(self, doc: Doc, i: int) -> Span | None:
        """The longest known place of two to four words that starts at token i (a
        corregimiento that starts with its type word, `Barrio Norte`, capitalised only)."""
        for n in range(4, 1, -1):
            if i + n <= len(doc) and not any(t.is_space for t in doc[i : i + n]):
                span = doc[i : i + n]
                known = _known_place(span.text) or (
                    _corregimiento(span.text) and _capitalised(span)
                )
                if known and doc[i + n - 1].is_alpha:
                    return Span(doc, i, i + n, label=self.place_label)
        return None

    def _bare_corregimientos(self, doc: Doc, found: list[Span], protected: set) -> list[Span]:
        """Corregimientos without a type word, capitalised, in an address (see the module);
        only where no entity is but a rule's address line (`Hospital Santa Ana` stays whole)."""
        firsts = _corregimiento_firsts()
        taken = {
            i
            for e in doc.ents
            if not (
                (e.start, e.end, e.label) in protected
                and e.label_ in (self.street_label, self.place_label)
            )
            for i in range(e.start, e.end)
        }
        street_ends = {s.end for s in [*doc.ents, *found] if s.label_ == self.street_label}
        out: list[Span] = []
        i = 0
        while i < len(doc):
            if not (doc[i].text[:1].isupper() or doc[i].is_digit) or (
                lookup_key(doc[i].text) not in firsts
            ):
                i += 1
                continue
            end = next(
                (
                    e
                    for e in range(min(len(doc), i + 6), i, -1)
                    if lookup_key(doc[i:e].text) in corregimiento_countries()
                    and _capitalised(doc[i:e])
                    and not any(t.is_space for t in doc[i:e])
                ),
                None,
            )
            if (
                end is None
                or taken.intersection(range(i, end))
                or not self._in_address(doc, i, end, street_ends)
            ):
                i += 1
                continue
            out.append(Span(doc, i, end, label=self.place_label))
            i = end
        return out

    def _in_address(self, doc: Doc, start: int, end: int, street_ends: set[int]) -> bool:
        """Tokens [start, end) stand in an address: after a street and a comma, after an
        address key and `en`, `de` or a colon (`Vive en Betania`), or after an address word and
        before a comma and a known place."""
        before = doc[start - 1] if start else None
        if before is not None and before.text == "," and start - 1 in street_ends:
            return True
        if (
            before is not None
            and start > 1
            and before.lower_ in ("en", "de", ":")
            and doc[start - 2].lower_ in self.forms["address_keys"]
        ):
            return True
        if before is not None and not (
            before.lower_ in self.forms["corregimiento_before"]
            # `vive cerca de Betania`, not `Hospital de Santa Ana`
            and (before.lower_ != "de" or start > 1 and doc[start - 2].is_lower)
            or "\n" in before.text
        ):
            return False
        if end + 1 >= len(doc) or doc[end].text != ",":
            return False
        for n in range(min(4, len(doc) - end - 1), 0, -1):
            after = doc[end + 1 : end + 1 + n]
            if after[0].text[:1].isupper() and (
                _known_place(after.text) or lookup_key(after.text) in district_countries()
            ):
                return True
        return False

    def _place_after(self, doc: Doc, i: int, kind: str, lower_case: bool) -> Span | None:
        """The place after a type word ending at token i (see the module)."""
        while i < len(doc) and (doc[i].text in (".", ":") or doc[i].lower_ in ("de", "del")):
            i += 1
        if i < len(doc) and doc[i].lower_ == "la" and i + 1 < len(doc) and doc[i + 1].is_title:
            i += 1
        start, end, words = i, i, 0
        while i < len(doc) and words < self.max_place_words:
            t = doc[i]
            if t.lower_ in _LINKS and end > start:
                i += 1
                continue
            if not t.is_alpha or not (t.is_title or t.is_upper or lower_case):
                break
            words += 1
            i += 1
            end = i
        if end == start:
            return None
        if lower_case or kind == "known":
            # the longest known place the words start with (a corregimiento after `any` only)
            while end > start and not (
                _known_place(doc[start:end].text)
                or kind == "any"
                and _corregimiento(doc[start:end].text)
            ):
                end -= 1
            if end == start:
                return None
        while end > start and doc[end - 1].lower_ in _LINKS:
            end -= 1
        return Span(doc, start, end, label=self.place_label)
