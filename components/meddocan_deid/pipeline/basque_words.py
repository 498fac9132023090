"""PHI that Basque writes with a case suffix, for the rule components: places, countries and
known names with a suffix (`Bilbon`, `Gasteizko`, `Frantziatik`, `Mirenen`, `Osakidetzako`)
and kinship words, bare or with a suffix (`alaba`, `senarrarekin`, `Amaren`).

Only in the lines meddocan_deid.passage_language reads as Basque, where these forms are
Basque words; a mention is always the whole token (a mention never cuts a word), the suffix
with it. A stem is a place only when the caller's place names hold it and it is not a Basque
word that is also a place (`Berak`: he, not Bera; `place_stop_stems.txt`). Reads the doc,
returns spans; sets nothing.
"""

from collections.abc import Callable, Collection, Mapping

from spacy.tokens import Doc, Span

from ..basque_suffixes import readings
from ..lexicon import lookup_key
from ..passage_language import passages

PLACE_KINDS = ("place", "any")
NOUN_KINDS = ("any", "common", "person")
NAME_KINDS = ("place", "person", "any")


def basque_tokens(doc: Doc) -> list[bool]:
    """Whether each token lies in a line read as Basque."""
    found = [p for p in passages(doc.text) if p.lang == "eu"]
    if not found:
        return [False] * len(doc)
    out, k = [], 0
    for token in doc:
        while k < len(found) and found[k].end < token.idx:
            k += 1
        out.append(k < len(found) and found[k].start <= token.idx <= found[k].end)
    return out


def _capitalised(text: str) -> bool:
    return text[:1].isupper() and text.isalpha()


def suffixed_places(
    doc: Doc,
    basque: list[bool],
    is_town: Callable[[str], bool],
    countries: Collection[str],
    stop_stems: Collection[str],
) -> list[Span]:
    """Capitalised tokens of Basque lines that are a town (`is_town(stem)`) with a place case
    suffix (`Bilbon`, `Zarauzko`: TERRITORIO), or a country (`countries`, folded), bare or
    with one (`Frantziatik`: PAIS)."""
    out = []
    for token in doc:
        if not basque[token.i] or not _capitalised(token.text):
            continue
        if lookup_key(token.text) in countries:
            out.append(Span(doc, token.i, token.i + 1, label="PAIS"))
            continue
        for stem, _case in readings(token.text, PLACE_KINDS):
            key = lookup_key(stem)
            if key in stop_stems:
                break
            if key in countries:
                out.append(Span(doc, token.i, token.i + 1, label="PAIS"))
                break
            if is_town(stem):
                out.append(Span(doc, token.i, token.i + 1, label="TERRITORIO"))
                break
    return out


def relatives(doc: Doc, basque: list[bool], kinship: Collection[str]) -> list[Span]:
    """Tokens of Basque lines that are a kinship word (`kinship`, folded), bare or with a case
    suffix (`alabak`, `amarekin`): FAMILIARES_SUJETO_ASISTENCIA."""
    out = []
    for token in doc:
        if not basque[token.i] or not token.is_alpha:
            continue
        if lookup_key(token.text) in kinship or any(
            lookup_key(stem) in kinship for stem, _case in readings(token.text, NOUN_KINDS)
        ):
            out.append(Span(doc, token.i, token.i + 1, label="FAMILIARES_SUJETO_ASISTENCIA"))
    return out


def suffixed_names(
    doc: Doc, basque: list[bool], known: Mapping[str, str], taken: list[bool]
) -> list[Span]:
    """Capitalised tokens of Basque lines, not `taken`, that are a known name or place of the
    report (`known`: folded word -> label) with a case suffix (`Mirenen`, `Osakidetzako`)."""
    out = []
    for token in doc:
        if taken[token.i] or not basque[token.i] or not _capitalised(token.text):
            continue
        label = next(
            (
                known[lookup_key(stem)]
                for stem, _case in readings(token.text, NAME_KINDS)
                if lookup_key(stem) in known
            ),
            None,
        )
        if label is not None:
            out.append(Span(doc, token.i, token.i + 1, label=label))
    return out
