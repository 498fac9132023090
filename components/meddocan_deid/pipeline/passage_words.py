"""PHI words of Catalan, Galician and Basque lines, for the rule components: kinship words
written bare (`filla`, `irmá`, `alaba`), weekdays (`dijous`, `mércores`, `astelehenean`),
and what Basque writes with a case suffix: places, countries, known names and kinship words
(`Bilbon`, `Gasteizko`, `Frantziatik`, `Mirenen`, `Osakidetzako`, `senarrarekin`).

Each finder reads only the lines meddocan_deid.passage_language reads in a language the
finder's words belong to, where those words mean what they say (Catalan `pare` is father,
Spanish `pare` a verb); Spanish lines are left to the Spanish rules and the NER. A mention is
always a whole token (a mention never cuts a word), the suffix with it. A stem is a place only
when the caller's place names hold it and it is not a Basque word that is also a place
(`Berak`: he, not Bera; `place_stop_stems.txt`). Reads the doc, returns spans; sets nothing.
"""

from collections.abc import Callable, Collection, Mapping

from spacy.tokens import Doc, Span

from ..basque_suffixes import readings
from ..lexicon import lookup_key
from ..passage_language import DEFAULT, passages

PLACE_KINDS = ("place", "any")
NOUN_KINDS = ("any", "common", "person")
NAME_KINDS = ("place", "person", "any")
BASQUE = "eu"


def token_languages(doc: Doc) -> list[str]:
    """The language of the line of each token."""
    found = passages(doc.text)
    out, k = [], 0
    for token in doc:
        while k < len(found) and found[k].end < token.idx:
            k += 1
        inside = k < len(found) and found[k].start <= token.idx <= found[k].end
        out.append(found[k].lang if inside else DEFAULT)
    return out


def _capitalised(text: str) -> bool:
    return text[:1].isupper() and text.isalpha()


def relatives(doc: Doc, langs: list[str], kinship: Mapping[str, Collection[str]]) -> list[Span]:
    """Tokens that are a kinship word of their line's language (`kinship`: language -> folded
    words), bare or, in Basque, with a case suffix (`alabak`, `amarekin`): FAMILIARES."""
    out = []
    for token in doc:
        words = kinship.get(langs[token.i])
        if not words or not token.is_alpha:
            continue
        key = lookup_key(token.text)
        if key in words or (
            langs[token.i] == BASQUE
            and any(lookup_key(stem) in words for stem, _case in readings(token.text, NOUN_KINDS))
        ):
            out.append(Span(doc, token.i, token.i + 1, label="FAMILIARES_SUJETO_ASISTENCIA"))
    return out


def weekdays(doc: Doc, langs: list[str], names: Mapping[str, Collection[str]]) -> list[Span]:
    """Tokens that are a weekday of their line's language (`names`: language -> folded
    names), or its plural (`els diumenges`): FECHAS (a weekday points to a day)."""
    out = []
    for token in doc:
        words = names.get(langs[token.i])
        if not words or not token.is_alpha:
            continue
        key = lookup_key(token.text)
        if key in words or (key.endswith("s") and key[:-1] in words):
            out.append(Span(doc, token.i, token.i + 1, label="FECHAS"))
    return out


def suffixed_places(
    doc: Doc,
    langs: list[str],
    is_town: Callable[[str], bool],
    countries: Collection[str],
    stop_stems: Collection[str],
) -> list[Span]:
    """Capitalised tokens of Basque lines that are a town (`is_town(stem)`) with a place case
    suffix (`Bilbon`, `Zarauzko`: TERRITORIO), or a country (`countries`, folded), bare or
    with one (`Frantziatik`: PAIS)."""
    out = []
    for token in doc:
        if langs[token.i] != BASQUE or not _capitalised(token.text):
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


def suffixed_names(
    doc: Doc, langs: list[str], known: Mapping[str, str], taken: list[bool]
) -> list[Span]:
    """Capitalised tokens of Basque lines, not `taken`, that are a known name or place of the
    report (`known`: folded word -> label) with a case suffix (`Mirenen`, `Osakidetzako`)."""
    out = []
    for token in doc:
        if taken[token.i] or langs[token.i] != BASQUE or not _capitalised(token.text):
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
