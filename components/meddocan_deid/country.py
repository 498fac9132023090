"""The country a report was written in, for the surrogates of its places, institutions, names
and addresses: Spain or a Spanish-speaking country of the Americas (`country_data.countries`).

`detect_country(text, spans)` scores each country on what the text holds: identifier keys and
shapes, some with their check (`CURP`, a RUT `12.345.678-5`, `CUIL`, a Dominican cédula
`001-1234567-8`, a DUI with its check digit, a Spanish DNI with its letter...), the words of
its health system and forms (`derechohabiente`, `obra social`, `Isapre`, `comuna`,
`calle 7 e/ 40 y 41`), its currency (`guaraníes`, `S/ 80`), its speech (voseo `tenés`, Guaraní
greetings), national phone numbers valid in its plan alone (after a phone key, with a bracketed
area code, or a phone entity: `(021) 555 1234` is Paraguay's only; counted once; a leading 0
only where the plan dials that number with its trunk 0), US addresses and month-first dates
(the cues: `pipeline/data/americas/country_cues.tsv`), its demonyms (`hondureña`; Spain's not), its
institutions, reference hospitals and health-centre heads (`IMSS`, `Rebagliati`, `CESFAM`:
`pipeline/data/americas/`), its dialling codes (`+52`, `(809)`), and the places only it has (a
TERRITORIO span, or capitalised words, that name a city or division of one country and no
Spanish town, first name, surname or Spanish word: `country_data.detection_places`; places
alone never reach MIN_SCORE). The best score wins when it reaches MIN_SCORE; otherwise Spain,
the corpus's country. `DeidOptions.country` overrides it. A Doc gets `doc._.country` (detected
from its text and entities on first read, or set by the caller).
"""

import hashlib
import re
import threading
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from functools import cache
from typing import Any, NamedTuple, cast

import phonenumbers
from spacy.tokens import Doc

from .country_data import (
    KINDS_NOT_EVIDENCE,
    PHONE_CHECK,
    PHONE_ONE_CHECK,
    SPAIN,
    centre_heads,
    check_country,
    countries,
    country_cues,
    detection_places,
    hospital_names_alone,
    institution_countries,
    reference_hospitals,
    spanish_places,
)
from .id_checks import CHECKS
from .labels import labels_with
from .lexicon import casefold_per_char, lookup_key, words

MIN_SCORE = 3.0  # below it, the report is Spain's
# places weigh PLACE_WEIGHT each, at most PLACE_CAP per country: a patient may come from
# anywhere, and small places of the Americas share their names with Spanish words and places
PLACE_WEIGHT = 0.75
PLACE_CAP = 2.5
INSTITUTION_WEIGHT = 3.0
# a reference hospital named alone does not decide: patients are referred from abroad
HOSPITAL_WEIGHT = 2.0
CENTRE_WEIGHT = 3.0
PHONE_WEIGHT = 2.0  # a foreign phone number alone does not decide: patients travel
# a demonym (`hondureña`) names the country, not always the report's: patients travel
DEMONYM_WEIGHT = 1.0
PHONE_LABELS = labels_with("phone")

_PHONE = re.compile(r"(?:\+\s?|(?<![\w-])00)(\d{1,3})(?:[\s.-]?\(?(\d{3})\)?)?(?=[\s.-])")
_NANP_LOCAL = re.compile(r"\(\s?(809|829|849)\s?\)|\b(809|829|849)-\d{3}-\d{4}\b")
_WORDS = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_LINKS = frozenset(words("place_links"))


class Detection(NamedTuple):
    country: str
    scores: dict[str, float]  # country -> score (only countries with evidence)


def _valid_national(value: str, country: str) -> bool:
    """Whether `value`, written as a national number, is valid in `country`'s plan as written:
    a leading 0 must be the plan's trunk prefix for that number (Peru dials its mobiles
    without one: `0991234567` is Ecuador's or Paraguay's, not Peru's `991 234 567`)."""
    try:
        number = phonenumbers.parse(value, country)
    except phonenumbers.NumberParseException:
        return False
    if not phonenumbers.is_valid_number(number):
        return False
    if value.lstrip("( ").startswith("0"):
        national = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
        return national.lstrip("( ").startswith("0")
    return True


def _valid_in_plan(country: str) -> Callable[[str], bool]:
    def valid(value: str) -> bool:
        return _valid_national(value, country)

    return valid


def _valid_plans(value: str) -> frozenset[str]:
    """The countries in whose plan `value`, written as a national number, is valid."""
    return frozenset(code for code in countries() if _valid_national(value, code))


_Check = Callable[[str], bool]
# the check of a `phone_one` cue: done on the plans a value is valid in (`_valid_plans`),
# computed once per value and not kept (no number stays in memory)
_ONE_PLAN = "one plan"
# the key of a country's `phone_one` evidence among the text's scores (`_cue_scores`)
_ONE_PLAN_KEY = "phone_one:"


@cache
def _cues() -> tuple[tuple[re.Pattern, tuple[tuple[str, float, _Check | str | None], ...]], ...]:
    """The cues of `country_cues.tsv` by expression, in file order: (pattern, its cues as
    (country, weight, check of the value found, `_ONE_PLAN` or None)). An expression several
    cues share (a national phone of each plan) is searched once."""
    groups: dict[str, tuple[re.Pattern, list[tuple[str, float, _Check | str | None]]]] = {}
    for cue in country_cues():
        check: _Check | str | None = None
        if cue.check == PHONE_ONE_CHECK:
            check = _ONE_PLAN
        elif cue.check == PHONE_CHECK:
            check = _valid_in_plan(cue.country)
        elif cue.check is not None:
            check = CHECKS[cue.check]
        groups.setdefault(cue.pattern.pattern, (cue.pattern, []))[1].append(
            (cue.country, cue.weight, check)
        )
    return tuple((pattern, tuple(members)) for pattern, members in groups.values())


def _cue_scores(text: str, scores: defaultdict[str, float]) -> None:
    """Add the weight of each cue found in `text` to its country: its expression found, with a
    value that passes its check where it has one (the named group `value`, else the whole
    match; a `phone_one` cue: a value valid in its country's plan only)."""
    for pattern, members in _cues():
        if all(check is None for _c, _w, check in members):
            if pattern.search(text) is not None:
                for country, weight, _check in members:
                    scores[country] += weight
            continue
        group = "value" if "value" in pattern.groupindex else 0
        values = [m.group(group) for m in pattern.finditer(text)]
        if not values:
            continue
        plans = (
            [_valid_plans(v) for v in values]
            if any(check == _ONE_PLAN for _c, _w, check in members)
            else []
        )
        for country, weight, check in members:
            if check == _ONE_PLAN:
                # kept apart: a phone counts once, whether a cue or a phone span finds it
                if any(p == {country} for p in plans):
                    key = _ONE_PLAN_KEY + country
                    scores[key] = max(scores[key], weight)
                continue
            else:
                found = check is None or any(cast(_Check, check)(v) for v in values)
            if found:
                scores[country] += weight


@cache
def _demonym_patterns() -> tuple[tuple[str, re.Pattern], ...]:
    """(country, its demonyms as a word pattern over folded text), Spain's left out: a report
    of Spain needs no evidence."""
    return tuple(
        (
            code,
            re.compile(
                r"(?<!\w)(?:"
                + "|".join(re.escape(lookup_key(d)) for d in c.demonyms)
                + r")s?(?!\w)"
            ),
        )
        for code, c in countries().items()
        if code != SPAIN and c.demonyms
    )


@cache
def _institution_pattern() -> re.Pattern:
    names = sorted(institution_countries(), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)")


# a hospital's head and the words between it and a person's name (`hospital docente dr.`),
# folded; at most four of them
_HOSPITAL_HEAD = (
    r"(?:hospital|hosp\.|clinica|instituto|policlinico)"
    r"(?:\s+(?:general|docente|nacional|universitario|militar|clinico|quirurgico|provincial"
    r"|pediatrico|regional|materno|infantil|especialidades|de|del|la|el|dr\.?|dra\.?|doctor"
    r"|doctora|comandante|essalud|minsa|iess)){0,4}\s+"
)


@cache
def _hospital_pattern() -> re.Pattern:
    """A reference hospital's name: alone where it names the hospital alone (`HNERM`), a
    person's name only after a hospital's head (group `name`)."""
    alone = hospital_names_alone()
    names = sorted(reference_hospitals(), key=len, reverse=True)
    by_itself = "|".join(re.escape(n) for n in names if n in alone)
    after_head = "|".join(re.escape(n) for n in names if n not in alone)
    return re.compile(
        rf"(?<!\w)(?:{by_itself})(?!\w)|(?<!\w){_HOSPITAL_HEAD}(?P<name>{after_head})(?!\w)"
    )


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
            # not cached: a cache of capitalised runs would keep names in memory
            name = lookup_key(text[part[0].start() : part[-1].end()])
            if name in known:
                found[name] = None
                break
    return tuple(found)


class _TextEvidence(NamedTuple):
    scores: tuple[tuple[str, float], ...]  # (country, score), in the order scored
    places: frozenset[int]  # the detection places its capitalised words name (`_place_ids`)


@cache
def _place_ids() -> dict[str, int]:
    """Folded detection place -> a number: the evidence cache holds numbers, not names."""
    return {name: i for i, name in enumerate(sorted(detection_places()))}


@cache
def _place_owners() -> tuple[str | None, ...]:
    """The one country each detection place (by its number) counts for; None where several
    countries of the Americas have it or Spain has one of the name."""
    spanish = spanish_places()
    places = detection_places()
    owners: list[str | None] = []
    for name in sorted(places):
        countries_of = places[name]
        one = len(countries_of) == 1 and name not in spanish
        owners.append(next(iter(countries_of)) if one else None)
    return tuple(owners)


# more than the documents of a batch: each component runs over a whole batch in turn
EVIDENCE_CACHE_SIZE = 1024
# keyed by a digest of the text, holding scores and place numbers: no report text stays in
# the memory of a long-running service
_evidence_cache: OrderedDict[bytes, _TextEvidence] = OrderedDict()
_evidence_lock = threading.Lock()


def _text_evidence(text: str) -> _TextEvidence:
    """What the text alone shows (cues, institutions, centre heads, dialling codes; the places
    its capitalised words name). Cached by the text's BLAKE2b digest: the components of a
    pipeline ask for the country of the same text several times (with and without its
    entities)."""
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    with _evidence_lock:
        found = _evidence_cache.get(key)
        if found is not None:
            _evidence_cache.move_to_end(key)
            return found
    text = _without_studies(text)
    found = _TextEvidence(_text_scores(text), _word_places(text))
    with _evidence_lock:
        _evidence_cache[key] = found
        while len(_evidence_cache) > EVIDENCE_CACHE_SIZE:
            _evidence_cache.popitem(last=False)
    return found


@cache
def _studies_pattern() -> re.Pattern | None:
    names = sorted(
        (
            name
            for name, bodies in institution_countries().items()
            if all(body.kind in KINDS_NOT_EVIDENCE for body in bodies)
        ),
        key=len,
        reverse=True,
    )
    if not names:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)")


def _without_studies(text: str) -> str:
    """The text with the names of the bodies that are no evidence (universities: where someone
    studied) blanked, its length kept: neither they nor the places, demonyms and hospitals in
    their names count (`Universidad Peruana Cayetano Heredia`, `Universidad del Zulia`)."""
    pattern = _studies_pattern()
    spans = [m.span() for m in pattern.finditer(casefold_per_char(text))] if pattern else []
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _word_places(text: str) -> frozenset[int]:
    """The numbers of the places that runs of one to four capitalised words of the text (with
    `de`, `la`... inside) name: places of the Americas."""
    ids = _place_ids()
    return frozenset(ids[name] for name in _word_place_names(text))


def _text_scores(text: str) -> tuple[tuple[str, float], ...]:
    """(country, score) of the cues, institutions, reference hospitals, centre heads and
    dialling codes of the text, in the order scored."""
    scores: defaultdict[str, float] = defaultdict(float)
    _cue_scores(text, scores)
    folded = casefold_per_char(text)
    seen_institutions = set()
    for m in _institution_pattern().finditer(folded):
        seen_institutions.add(m.group())
    for name in seen_institutions:
        owners = {
            inst.country
            for inst in institution_countries()[name]
            if inst.kind not in KINDS_NOT_EVIDENCE
        }
        for country in owners:
            scores[country] += INSTITUTION_WEIGHT / len(owners)
    hospitals = {
        reference_hospitals()[m.group("name") or m.group()]
        for m in _hospital_pattern().finditer(folded)
    }
    for country, _name in hospitals:
        scores[country] += HOSPITAL_WEIGHT
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
    for country, pattern in _demonym_patterns():
        if pattern.search(folded):
            scores[country] += DEMONYM_WEIGHT
    return tuple(scores.items())


def detect_country(text: str, spans: Iterable[tuple[str, int, int]] = ()) -> Detection:
    """The report's country and the scores that chose it (see the module docstring);
    `spans`: (label, start, end) of its entities, when known. A place counts once, whether
    a TERRITORIO span or capitalised words name it."""
    evidence = _text_evidence(text)
    scores: defaultdict[str, float] = defaultdict(float, evidence.scores)
    ids = _place_ids()
    places = set(evidence.places)
    only_spanish: set[str] = set()  # TERRITORIO spans that name Spanish places only
    # country -> the weight of the phones valid in its plan alone (text cues and spans)
    phone_plans: dict[str, float] = {}
    for key in [k for k in scores if k.startswith(_ONE_PLAN_KEY)]:
        phone_plans[key.removeprefix(_ONE_PLAN_KEY)] = scores.pop(key)
    for label, start, end in spans:
        if label in PHONE_LABELS:
            plans = _valid_plans(text[start:end])
            if len(plans) == 1:
                (country,) = plans
                phone_plans[country] = max(phone_plans.get(country, 0.0), PHONE_WEIGHT)
            continue
        if label != "TERRITORIO":
            continue
        name = lookup_key(text[start:end].strip())
        if name in ids:
            places.add(ids[name])
        elif name in spanish_places():
            only_spanish.add(name)
    from_places: Counter[str] = Counter()
    if only_spanish:
        from_places[SPAIN] += len(only_spanish)
    owners = _place_owners()
    for place in places:
        owner = owners[place]
        if owner is not None:
            from_places[owner] += 1
    for country, score in from_places.items():
        scores[country] += min(score * PLACE_WEIGHT, PLACE_CAP)
    for country, weight in phone_plans.items():
        scores[country] += weight
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
