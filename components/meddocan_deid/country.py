"""The country a report was written in, for the surrogates of its places, institutions, names
and addresses: Spain or a Spanish-speaking country of the Americas (`country_data.countries`).

`detect_country(text, spans)` scores each country on what the text holds: identifier keys and
shapes (`CURP`, a RUT `12.345.678-5`, `CUIL`, a Dominican cédula `001-1234567-8`, a Spanish DNI
with its letter...), the words of its health system and forms (`derechohabiente`, `obra
social`, `Isapre`, `comuna`, `calle 7 e/ 40 y 41`), its institutions and health-centre heads
(`IMSS`, `CESFAM`: `pipeline/data/americas/`), its dialling codes (`+52`, `(809)`), and the
places only it has (a TERRITORIO span, or capitalised words, that name a city or division of
one country and no Spanish town, first name, surname or Spanish word:
`country_data.detection_places`; places alone never reach MIN_SCORE). The best score wins
when it reaches MIN_SCORE; otherwise Spain, the corpus's country. `DeidOptions.country`
overrides it. A Doc gets `doc._.country` (detected from its text and entities on first read,
or set by the caller).
"""

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from functools import cache, lru_cache
from typing import Any, NamedTuple, cast

from spacy.tokens import Doc

from .country_data import (
    SPAIN,
    centre_heads,
    check_country,
    countries,
    detection_places,
    institution_countries,
    spanish_places,
)
from .lexicon import casefold_per_char, lookup_key, words

MIN_SCORE = 3.0  # below it, the report is Spain's
# places weigh PLACE_WEIGHT each, at most PLACE_CAP per country: a patient may come from
# anywhere, and small places of the Americas share their names with Spanish words and places
PLACE_WEIGHT = 0.75
PLACE_CAP = 2.5
INSTITUTION_WEIGHT = 3.0
CENTRE_WEIGHT = 3.0
PHONE_WEIGHT = 2.0  # a foreign phone number alone does not decide: patients travel

# (country, weight, pattern): identifier shapes and keys, health-system and address words
CUES: tuple[tuple[str, float, str], ...] = (
    ("MX", 6, r"\b[A-Z][AEIOUX][A-Z]{2}\d{6}[HM][A-Z]{5}[A-Z\d]\d\b"),  # a CURP
    ("MX", 4, r"\bCURP\b"),
    ("MX", 2, r"\bRFC\b"),
    ("MX", 2, r"\bNSS\b"),
    ("MX", 3, r"(?i)\bderechohabiente"),
    ("MX", 2, r"(?i)\balcald[ií]a\b"),
    ("MX", 0.5, r"\bCol\.\s+[A-ZÁÉÍÓÚ]"),
    ("MX", 0.5, r"(?i)\b(?:colonia|fraccionamiento|fracc\.)\s+[A-ZÁÉÍÓÚ]"),
    ("MX", 2, r"(?i)\bMz\.?\s*\d+\s*,?\s*Lt\.?\s*\d+"),
    ("CL", 3, r"\bRU[NT]\b"),
    ("CL", 4, r"\b\d{2}\.\d{3}\.\d{3}-[\dkK]\b"),  # a RUN/RUT
    ("CL", 2, r"\b\d\.\d{3}\.\d{3}-[kK]\b"),
    ("CL", 3, r"(?i)\bisapres?\b"),
    ("CL", 2, r"(?i)\bcomuna\b"),
    ("CL", 1, r"(?i)\bfonasa\b"),  # Chile's and Uruguay's (the institution table has both)
    ("AR", 4, r"\bCUI[LT]\b"),
    ("AR", 4, r"\b(?:20|23|24|27|30|33|34)-\d{8}-\d\b"),  # a CUIL/CUIT
    ("AR", 3, r"(?i)\bobras? sociales?\b"),
    ("AR", 3, r"(?i)\bprepagas?\b"),
    ("AR", 1, r"(?i)\bpartido de\b"),
    ("AR", 1, r"\bDNI\b[^\n\d]{0,12}\d{2}\.\d{3}\.\d{3}\b"),
    ("CO", 4, r"(?i)\bc[ée]dula de ciudadan[ií]a\b"),
    ("CO", 2, r"\bC\.C\.?\s*(?:No\.?\s*)?\d"),
    ("CO", 2, r"\bEPS\b"),
    ("CO", 1, r"\bIPS\b"),
    ("CO", 3, r"(?i)\bsisb[ée]n\b"),
    (
        "CO",
        4,
        r"(?i)\b(?:calle|carrera|cra\.?|cl\.?|kr\.?|diagonal|transversal|avenida|av\.?)\s*\d+\s*[a-z]?\s*(?:bis\s*)?#\s*\d+\s*[a-z]?\s*-\s*\d+",
    ),
    (
        "CO",
        2,
        r"(?i)\b(?:calle|carrera|cra\.?|cl\.?|kr\.?|diagonal|transversal|avenida|av\.?)\s*\d+\s*[a-z]?\s*(?:bis\s*)?No\.\s*\d+\s*[a-z]?\s*-\s*\d+",
    ),
    ("CO", 2, r"\bNIT\b"),
    ("PE", 4, r"(?i)\bessalud\b"),
    ("PE", 2, r"\bSIS\b"),
    ("PE", 2, r"(?i)\b(?:jir[óo]n|jr\.)\s+[A-ZÁÉÍÓÚ]"),
    ("PE", 1, r"\bDNI\b[^\n\d]{0,12}\d{8}(?![\dA-Za-z-])"),
    ("VE", 4, r"\b[VE]-\d{1,2}\.?\d{3}\.?\d{3}\b"),  # a Venezuelan cédula
    ("VE", 3, r"\bRIF\b"),
    ("VE", 3, r"(?i)\bbarrio adentro\b"),
    ("UY", 2, r"\b\d\.\d{3}\.\d{3}-\d\b"),  # a Uruguayan cédula (or an older RUN)
    ("CL", 2, r"\b\d\.\d{3}\.\d{3}-\d\b"),
    ("UY", 3, r"(?i)\bmutualistas?\b"),
    ("CU", 3, r"(?i)\bcarn[ée] de identidad\b"),
    ("CU", 4, r"(?i)\be/\s*\w+\s+y\s+\w+"),  # `calle 7 e/ 40 y 41`
    ("CU", 2, r"(?i)\breparto\s+[A-ZÁÉÍÓÚ]"),
    ("CU", 1, r"(?i)\bpolicl[ií]nico\b"),
    ("DO", 4, r"\b\d{3}-\d{7}-\d\b"),  # a Dominican cédula
    ("DO", 3, r"\bARS\b"),
    ("EC", 2, r"(?i)\bcant[óo]n\s+[A-ZÁÉÍÓÚ]"),
    ("US", 4, r"\bSSN\b"),
    ("US", 2, r"\b\d{3}-\d{2}-\d{4}\b"),
    ("US", 2, r"\bZIP\b"),
    ("ES", 3, r"\b\d{8}-?[TRWAGMYFPDXBNJZSQVHLCKE]\b"),  # a DNI with its letter
    ("ES", 3, r"\b[XYZ]-?\d{7}-?[A-Z]\b"),  # a NIE
    ("ES", 3, r"\bN[AU]SS\b"),
    ("ES", 2, r"(?i)\btarjeta sanitaria\b"),
    ("ES", 2, r"\bTSI\b"),
    ("ES", 1, r"\bCIP\b"),
)
_PHONE = re.compile(r"(?:\+\s?|(?<![\w-])00)(\d{1,3})(?:[\s.-]?\(?(\d{3})\)?)?(?=[\s.-])")
_NANP_LOCAL = re.compile(r"\(\s?(809|829|849)\s?\)|\b(809|829|849)-\d{3}-\d{4}\b")
_WORDS = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_LINKS = frozenset(words("place_links"))


class Detection(NamedTuple):
    country: str
    scores: dict[str, float]  # country -> score (only countries with evidence)


@cache
def _cues() -> tuple[tuple[str, float, re.Pattern], ...]:
    return tuple((c, w, re.compile(p)) for c, w, p in CUES)


@cache
def _institution_pattern() -> re.Pattern:
    names = sorted(institution_countries(), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)")


@cache
def _dialling_table() -> dict[str, str]:
    return {d: c for c, country in countries().items() for d in country.dialling}


def _dialling(code: str, area: str | None) -> str | None:
    table = _dialling_table()
    if code.startswith("1"):
        return table.get(f"1-{area}", "US") if area else "US"
    for n in (3, 2, 1):
        if code[:n] in table:
            return table[code[:n]]
    return None


# a capitalised run of words recurs across reports (`Servicio de Urgencias`)
_lookup_key = lru_cache(maxsize=65536)(lookup_key)


def _word_place_names(text: str) -> tuple[str, ...]:
    """Folded names of the places that runs of one to four capitalised words of the text
    (with `de`, `la`... inside) name: places of the Americas, in the order found."""
    known = detection_places()
    found: dict[str, None] = {}
    words = list(_WORDS.finditer(text))
    for i, m in enumerate(words):
        if not m.group()[:1].isupper():
            continue
        for n in range(4, 0, -1):
            part = words[i : i + n]
            if len(part) < n or not part[-1].group()[:1].isupper():
                continue
            if any(not (w.group()[:1].isupper() or w.group().lower() in _LINKS) for w in part):
                continue
            name = _lookup_key(text[part[0].start() : part[-1].end()])
            if name in known:
                found[name] = None
                break
    return tuple(found)


def _place_names(text: str, spans: Iterable[tuple[str, int, int]]) -> set[str]:
    """Folded names of the places the text names: its TERRITORIO spans, and runs of one to
    four capitalised words (with `de`, `la`... inside) that name a place of the Americas."""
    found = {lookup_key(text[s:e].strip()) for label, s, e in spans if label == "TERRITORIO"}
    found.update(_text_evidence(text)[1])
    return found


# more than the documents of a batch: each component runs over a whole batch in turn
@lru_cache(maxsize=1024)
def _text_evidence(text: str) -> tuple[tuple[tuple[str, float], ...], tuple[str, ...]]:
    """What the text alone shows, in the order it is scored: (country, score) of the cues,
    institutions, centre heads and dialling codes, and the places its capitalised words
    name. Cached: the components of a pipeline ask for the country of the same text
    several times (with and without its entities)."""
    scores: defaultdict[str, float] = defaultdict(float)
    for country, weight, pattern in _cues():
        if pattern.search(text):
            scores[country] += weight
    folded = casefold_per_char(text)
    seen_institutions = set()
    for m in _institution_pattern().finditer(folded):
        seen_institutions.add(m.group())
    for name in seen_institutions:
        owners = {inst.country for inst in institution_countries()[name]}
        for country in owners:
            scores[country] += INSTITUTION_WEIGHT / len(owners)
    for head in centre_heads():
        if head.anywhere and head.pattern.search(folded):
            for country in head.countries:
                scores[country] += CENTRE_WEIGHT / len(head.countries)
    for m in _PHONE.finditer(text):
        dialled = _dialling(m.group(1), m.group(2))
        if dialled:
            scores[dialled] += PHONE_WEIGHT
    if _NANP_LOCAL.search(text):
        scores["DO"] += 2
    return tuple(scores.items()), _word_place_names(text)


def detect_country(text: str, spans: Iterable[tuple[str, int, int]] = ()) -> Detection:
    """The report's country and the scores that chose it (see the module docstring);
    `spans`: (label, start, end) of its entities, when known."""
    spans = list(spans)
    scores: defaultdict[str, float] = defaultdict(float, _text_evidence(text)[0])
    spanish = spanish_places()
    from_places: Counter[str] = Counter()
    for name in _place_names(text, spans):
        place_owners = detection_places().get(name, frozenset())
        if name in spanish or len(place_owners) != 1:
            if name in spanish and not place_owners:
                from_places[SPAIN] += 1
            continue
        from_places[next(iter(place_owners))] += 1
    for country, score in from_places.items():
        scores[country] += min(score * PLACE_WEIGHT, PLACE_CAP)
    order = list(countries())
    best = max(scores, key=lambda c: (scores[c], -order.index(c)), default=SPAIN)
    if scores[best] < MIN_SCORE:
        best = SPAIN
    return Detection(best, {c: float(s) for c, s in scores.items() if s})


def country_of(text: str, spans: Iterable[tuple[str, int, int]] = ()) -> str:
    return detect_country(text, spans).country


_KEY = ("meddocan_deid", "country")


def _user_data(doc: Doc) -> dict[Any, Any]:
    # spaCy's doc.pyi types user_data as dict[str, Any]; it takes any key (spaCy's own
    # extension values sit under tuple keys)
    return cast(dict[Any, Any], doc.user_data)


def _get_doc_country(doc: Doc) -> str:
    data = _user_data(doc)
    if _KEY not in data:
        spans = [(e.label_, e.start_char, e.end_char) for e in doc.ents]
        data[_KEY] = country_of(doc.text, spans)
    return data[_KEY]


def _set_doc_country(doc: Doc, value: str) -> None:
    _user_data(doc)[_KEY] = check_country(value)


if not Doc.has_extension("country"):
    Doc.set_extension("country", getter=_get_doc_country, setter=_set_doc_country)
