"""Numbers in words, as dictation writes them: `meddocan_number_words`.

Reads `doc.text` (numbers in words through meddocan_deid.number_words, with their offsets, in
Spanish and in the language of each passage: Catalan, Galician, Basque; context matched case-
and accent-folded) and `doc.ents`; writes the PHI it finds to
`doc.spans[spans_key]` and to `doc.ents`. What it finds, by context only, in this order:

- e-mail and web addresses said aloud (`ana punto gil setenta arroba gmail punto com`,
  `https dos puntos barra barra ...`: pipeline/spoken_addresses.py);
- dates with a month or a feast (FECHAS): a day, `de`, a month name and an optional year (`el
  tres de marzo de dos mil veintiséis`, with a weekday or `día` before it: `lunes, tres de
  marzo`), a month or a feast and a year (`marzo de dos mil veintiséis`, `Navidad del dos mil
  veinticuatro`); day, month and year as numbers (`doce del tres del ochenta y cinco`, `doce
  barra tres barra dos mil veinte`); the words that link a date's parts are per language
  (`date_link_words.json`: `vint-i-tres d'abril`, `o doce de maio`);
- house numbers in words after a street the NER or the rules found, or after a kind of street
  (`calle Uría cuarenta y tres segundo ce`), and roads (`carretera as diecinueve`), as CALLE
  (pipeline/street_numbers.py);
- codes after their key, said digit by digit, in groups or with letter names (record, episode,
  card, phone, postal, court file, plate... numbers: pipeline/dictated_codes.py), and the codes
  that need no key;
- other dates: a day after `el día` (`el día veintidós`, `día` in the date), after a weekday
  (`el sábado cuatro`), after `desde el`, `la noche del` (`day_leads`), or after `el` at the
  end of a sentence or before `a las`; a year after `año`, a year in words alone (`en dos mil
  diecinueve`, not before a count word);
- ages: a number and a unit (`años`, `meses`, `días`, `semanas`; `de vida` kept; `horas de
  vida` of a newborn) after an age verb (`tiene`, `edad:`), after `a los`, `desde los`, `con`
  (`age_leads`, years only), after a person word (`varón de setenta y nueve años`, `mujer
  sesenta años`), right after a person's name that the NER or the rules found (`doc.ents`; a
  name run into the number counts), or `años` with no word before it that makes a span of time
  (`not_age_before`: `de`, `lleva`...) and no `de`, `en`... after it (`Ana Gil, setenta años,
  fractura`); a bare number after an age verb when a mark, the line's end or a word of
  `bare_age_after` follows it (`tiene setenta y dos.`), after `edad`, after `desde los`, at
  the start of an answer to a question about age (`¿Qué edad tiene? / HIJA: Ochenta y seis`),
  or right after a whole name; after a kinship word in the clause the age is the relative's
  (FAMILIARES_SUJETO_ASISTENCIA, guideline P4.3); never after a duration word (`hace tres
  años`, `durante dos meses`) nor before `de evolución`, `después`... Leading `cero` words
  before a unit are a code's digits, not the age's (`nueve cero sesenta años`). In Basque
  the age's verb or the patient may follow the unit (`hogeita hiru urte ditu`, `hirurogei
  urteko emakumea`), or the unit says it alone (`hamar urtekoa`); a possessive before a word
  for the patient makes the age a relative's (`o seu home, Xosé, de ...`).

Doses and counts (`dos comprimidos`, `tres veces al día`) have no key and no age context, and
a number followed by a count or dose word (`count_words`) is never a date or a code.
A found span enters `doc.ents` where every entity it overlaps is shorter and inside it (those
give way) or sticks out of it on one side (that one is cut back to what lies outside, without
the function words at its cut edge: a name the NER ran into an age, `Gil setenta`); an entity
as long or longer that holds it (what the NER or a rule found) is kept, and so is any
identifier of `doc.spans[identifiers_key]`.
Sits after `identifiers`, where the NER and the rules have written theirs. Word lists are
config (defaults: every language of `pipeline/data/`); no state to save.
"""

import re
from collections.abc import Iterable

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..labels import labels_with
from ..lexicon import casefold_per_char, tag_uses, tagged_words, words
from ..number_words import NumberRun, number_runs, number_word_set
from .dictated_codes import DictatedCodes
from .spoken_addresses import SpokenAddresses
from .street_numbers import StreetNumbers

SPANS_KEY = "number_words"
AGE = "EDAD_SUJETO_ASISTENCIA"
RELATIVE = "FAMILIARES_SUJETO_ASISTENCIA"
DATE = "FECHAS"
STREET = "CALLE"
PATIENT_NAMES = labels_with("name")
# label choice: the places a postal code may follow with no key: a street and a town (a
# country comes after the code, not before it)
PLACE_LABELS = ("CALLE", "TERRITORIO")
WINDOW = 80  # characters of context read before a number
LAST_YEAR = 2040  # a year in words alone up to this one (`dos mil cien` neutrophils are no year)
# what a patient's name and the age after it may have between them
NAME_GAP = re.compile(r"\s*(?:(?:,|(?<!\w)coma(?!\w))\s*)?(?:(?<!\w)de\s+)?")
# function words that do not end an entity cut back before a number
LEADING_ZEROS = re.compile(r"(?:cero\s+)+")
# the uses of `date_link_words.json`: the words that link a date's parts, per language
LINK_USES = ("day_month", "year", "number", "day_article", "year_word")
CUT_EDGE = {"de", "del", "el", "la", "los", "las", "y", "e", "coma", "con", "a", "al", "en", "es"}


def _default_keys() -> dict[str, list[str]]:
    return {use: tagged_words("number_word_keys", use) for use in tag_uses("number_word_keys")}


def _alternation(items: Iterable[str]) -> str:
    phrases = sorted({casefold_per_char(w) for w in items}, key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases) or "(?!)"


def _links(items: Iterable[str]) -> str:
    """Link words followed by blanks, or glued to the next word when elided (`d'abril`)."""
    words_ = sorted({casefold_per_char(w) for w in items}, key=len, reverse=True)
    return (
        "|".join(re.escape(w) + (r"\s*" if w.endswith(("'", "’")) else r"\s+") for w in words_)
        or "(?!)"
    )


def _default_links() -> dict[str, list[str]]:
    return {use: tagged_words("date_link_words", use) for use in LINK_USES}


@Language.factory(
    "meddocan_number_words",
    default_config={
        "spans_key": SPANS_KEY,
        "identifiers_key": "identifiers",
        "keys": None,
        "month_names": words("month_names"),
        "feast_names": words("feast_names"),
        "weekday_names": words("weekday_names"),
        "day_leads": words("day_leads"),
        "age_units": words("age_unit_words"),
        "age_person_words": words("age_person_words"),
        "age_verbs": words("age_verbs"),
        "age_leads": words("age_leads"),
        "bare_age_after": words("bare_age_after"),
        "duration_words": words("duration_words"),
        "not_age_after": words("not_age_after"),
        "not_age_before": words("not_age_before"),
        "relative_words": tagged_words("kinship_words", "relative_age"),
        "count_words": words("count_words"),
        "letter_names": words("letter_names"),
        "code_separators": words("code_separators"),
        "correction_words": words("correction_words"),
        "street_heads": words("street_heads"),
        "road_heads": words("road_heads"),
        "house_tail_words": words("house_tail_words"),
        "address_joins": words("address_joins"),
        "top_level_domains": words("top_level_domains"),
        # the words that link a date's parts, per language (`de`, `d'`, `do`, `del`, `barra`)
        "date_links": None,
        # Basque says an age after its unit (`hogeita hiru urte ditu`, `hirurogei urteko
        # emakumea`), or in a unit of its own (`hamar urtekoa`)
        "age_after_words": words("age_after_words"),
        "age_unit_forms": words("age_unit_forms"),
        # a possessive before a word for the patient makes it a relative (`o seu home`)
        "possessives": words("possessives"),
    },
    assigns=["doc.ents", "doc.spans"],
)
def make_number_words(
    nlp: Language,
    name: str,
    *,
    spans_key: str,
    identifiers_key: str,
    keys: dict[str, list[str]] | None,
    month_names: list[str],
    feast_names: list[str],
    weekday_names: list[str],
    day_leads: list[str],
    age_units: list[str],
    age_person_words: list[str],
    age_verbs: list[str],
    age_leads: list[str],
    bare_age_after: list[str],
    duration_words: list[str],
    not_age_after: list[str],
    not_age_before: list[str],
    relative_words: list[str],
    count_words: list[str],
    letter_names: list[str],
    code_separators: list[str],
    correction_words: list[str],
    street_heads: list[str],
    road_heads: list[str],
    house_tail_words: list[str],
    address_joins: list[str],
    top_level_domains: list[str],
    date_links: dict[str, list[str]] | None,
    age_after_words: list[str],
    age_unit_forms: list[str],
    possessives: list[str],
) -> "NumberWords":
    return NumberWords(
        nlp,
        name,
        spans_key=spans_key,
        identifiers_key=identifiers_key,
        keys=keys,
        month_names=month_names,
        feast_names=feast_names,
        weekday_names=weekday_names,
        day_leads=day_leads,
        age_units=age_units,
        age_person_words=age_person_words,
        age_verbs=age_verbs,
        age_leads=age_leads,
        bare_age_after=bare_age_after,
        duration_words=duration_words,
        not_age_after=not_age_after,
        not_age_before=not_age_before,
        relative_words=relative_words,
        count_words=count_words,
        letter_names=letter_names,
        code_separators=code_separators,
        correction_words=correction_words,
        street_heads=street_heads,
        road_heads=road_heads,
        house_tail_words=house_tail_words,
        address_joins=address_joins,
        top_level_domains=top_level_domains,
        date_links=date_links,
        age_after_words=age_after_words,
        age_unit_forms=age_unit_forms,
        possessives=possessives,
    )


class NumberWords:
    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        spans_key: str = SPANS_KEY,
        identifiers_key: str = "identifiers",
        keys: dict[str, list[str]] | None = None,
        month_names: Iterable[str] = (),
        feast_names: Iterable[str] = (),
        weekday_names: Iterable[str] = (),
        day_leads: Iterable[str] = (),
        age_units: Iterable[str] = (),
        age_person_words: Iterable[str] = (),
        age_verbs: Iterable[str] = (),
        age_leads: Iterable[str] = (),
        bare_age_after: Iterable[str] = (),
        duration_words: Iterable[str] = (),
        not_age_after: Iterable[str] = (),
        not_age_before: Iterable[str] = (),
        relative_words: Iterable[str] = (),
        count_words: Iterable[str] = (),
        letter_names: Iterable[str] | None = None,
        code_separators: Iterable[str] | None = None,
        correction_words: Iterable[str] | None = None,
        street_heads: Iterable[str] | None = None,
        road_heads: Iterable[str] | None = None,
        house_tail_words: Iterable[str] | None = None,
        address_joins: Iterable[str] | None = None,
        top_level_domains: Iterable[str] | None = None,
        date_links: dict[str, list[str]] | None = None,
        age_after_words: Iterable[str] = (),
        age_unit_forms: Iterable[str] = (),
        possessives: Iterable[str] = (),
    ):
        self.name = name
        self.spans_key = spans_key
        self.identifiers_key = identifiers_key
        units, counts = list(age_units), list(count_words)
        self._codes = DictatedCodes(
            keys=keys if keys is not None else _default_keys(),
            letter_names=words("letter_names") if letter_names is None else letter_names,
            separators=words("code_separators") if code_separators is None else code_separators,
            corrections=words("correction_words") if correction_words is None else correction_words,
            stop_after=units + counts,
        )
        self._streets = StreetNumbers(
            street_heads=words("street_heads") if street_heads is None else street_heads,
            road_heads=words("road_heads") if road_heads is None else road_heads,
            tail_words=words("house_tail_words") if house_tail_words is None else house_tail_words,
            letter_names=words("letter_names") if letter_names is None else letter_names,
            count_words=counts,
        )
        self._addresses = SpokenAddresses(
            joins=words("address_joins") if address_joins is None else address_joins,
            top_level_domains=(
                words("top_level_domains") if top_level_domains is None else top_level_domains
            ),
        )
        month, weekday = _alternation(month_names), _alternation(weekday_names)
        feast = _alternation(feast_names)
        links = date_links if date_links is not None else _default_links()
        day_month, year_link = _links(links["day_month"]), _links(links["year"])
        number_link, day_article = _links(links["number"]), _links(links["day_article"])
        # the links that make a two-digit year a year (`del ochenta y cinco`), not a fraction's
        self._year_links = {casefold_per_char(w) for w in links["number"]} - {
            casefold_per_char(w) for w in links["day_month"]
        }
        self._day_month = re.compile(rf"\s+(?:{day_month})(?:{month})(?!\w)")
        self._year_link = re.compile(rf"(?:\s*,\s+|\s+)(?:{year_link})")
        # `doce del tres del ochenta y cinco`
        self._number_link = re.compile(rf"\s+(?:{number_link})")
        self._digit_year = re.compile(rf"(?:\s*,\s+|\s+)(?:{year_link})\d{{4}}(?!\d)")
        self._weekday_before = re.compile(
            rf"(?<!\w)(?:{weekday})\s*(?:,\s*)?(?:(?:{day_article})|dia\s+)?$"
        )
        self._weekday_right_before = re.compile(rf"(?<!\w)(?:{weekday})\s*(?:,\s*)?$")
        self._dia_before = re.compile(r"(?<!\w)dia\s+$")
        self._month_before = re.compile(
            rf"(?<!\w)(?:(?:\d{{1,2}}\s+(?:{day_month}))?)(?:{month}|{feast})\s+(?:{year_link})$"
        )
        self._day_before = re.compile(
            rf"(?<!\w)(?:{day_article})dia\s+$"
        )  # `el día veintidós`, not `otro día dos`
        self._day_lead = re.compile(rf"(?<!\w)(?:{_alternation(day_leads)})\s+$")
        self._the_day = re.compile(r"(?<!\w)(?:el|del)\s+$")
        self._day_end = re.compile(
            rf"\s*(?:[.?!;]|$)|\s+a\s+las(?!\w)|\s+y\s+(?:el\s+)?\w+(?:\s+y\s+\w+)?\s+de\s+(?:{month})(?!\w)"
        )
        self._not_date_after = re.compile(r"\s+(?:de|del|do|tras|post|en|a)(?!\w)")
        self._not_day_after = re.compile(r"\s+(?:de|del|tras|post)(?!\w)")
        self._year_before = re.compile(rf"(?<!\w)(?:{_alternation(links['year_word'])})\s+$")
        self._code_link = re.compile(r"\s*(?:[-/]|(?<!\w)(?:guion|barra)(?!\w))")
        self._unit = re.compile(rf"\s+(?:{_alternation(units)})(?!\w)")
        self._years = re.compile(r"\s+anos?(?!\w)")
        self._of_life = re.compile(r"\s+de\s+vida(?!\w)")
        self._not_age = re.compile(rf"\s+(?:de\s+|del\s+)?(?:{_alternation(not_age_after)})(?!\w)")
        self._not_age_of = re.compile(rf"\s+(?:de|del)\s+(?:{_alternation(not_age_after)})(?!\w)")
        self._weak_end = re.compile(
            r"\s*(?:$|[\n.;:,?!)]|(?<!\w)(?:coma|punto)(?!\w))|\s+(?!(?:de|en|a|y|con|por|que)(?!\w))\w"
        )
        self._duration = re.compile(rf"(?<!\w)(?:{_alternation(duration_words)})\s+$")
        self._not_age_before = re.compile(rf"(?<!\w)(?:{_alternation(not_age_before)})\s+$")
        self._hours_of_life = re.compile(r"\s+horas\s+de\s+vida(?!\w)")
        self._edad = re.compile(r"(?<!\w)edad(?:\s+actual)?\s*(?:[:,]\s*)?$")
        self._lead = re.compile(rf"(?<!\w)(?:{_alternation(age_leads)})\s+$")
        # with no unit, only the leads that end in an article (`desde los veinte`, not `con dos`)
        articled = [w for w in age_leads if w.split()[-1] in ("los", "las")]
        self._bare_lead = re.compile(rf"(?<!\w)(?:{_alternation(articled)})\s+$")
        self._age_verb = re.compile(
            rf"(?<!\w)(?:{_alternation(age_verbs)})(?:\s+(?:usted|ahora|ya))?\s*(?::\s*)?(?:de\s+)?$"
        )
        self._bare_verb = re.compile(
            rf"(?<!\w)(?:{_alternation(age_verbs)})(?:\s+(?:usted|ahora|ya))?\s*(?:[:,]\s*)?$"
        )
        self._bare_end = re.compile(
            rf"\s*(?:[\n.;,?!)]|$)|\s+(?:{_alternation(bare_age_after)})(?!\w)"
        )
        persons = _alternation(age_person_words)
        self._person = re.compile(rf"(?<!\w)(?:{persons})(?!\w)[^\w\s]*(?:\s+\S+){{0,3}}?\s+de\s+$")
        self._person_right = re.compile(rf"(?<!\w)(?:{persons})\s*(?:,\s*)?$")
        # `mujer` is a kinship word too (`su mujer`), but `Mujer de ochenta años` is the patient
        relatives = {casefold_per_char(w) for w in relative_words} - {
            casefold_per_char(w) for w in age_person_words
        }
        # after a possessive (`o seu home, Xosé, de ...`) a word for the patient is a relative;
        # a comma may follow the relative (`su madre, Ana, de ...`)
        self._relative = re.compile(
            rf"(?<!\w)(?:{_alternation(relatives)}|(?:{_alternation(possessives)})\s+(?:{persons}))"
            rf"(?!\w)[^\w\s]*(?:\s+\S+){{0,3}}?\s+de\s+$"
        )
        # Basque: the age's verb or the patient after the unit, a relative before the number
        self._age_after = re.compile(rf"\s*(?:,\s*)?(?:{_alternation(age_after_words)})(?!\w)")
        self._age_unit_form = re.compile(rf"\s+(?:{_alternation(age_unit_forms)})(?!\w)")
        self._relative_before = re.compile(
            rf"(?<!\w)(?:{_alternation(relatives)})(?!\w)[^\w\s]*(?:\s+\S+){{0,3}}?\s+$"
        )
        self._relative_in_clause = re.compile(
            rf"(?<!\w)(?:{_alternation(relatives)})(?!\w)[^.;\n?!]*$"
        )
        self._age_question = re.compile(
            r"(?<!\w)(?:edad|cuantos\s+anos|tiene\s+(?:usted\s+)?ahora)(?!\w)"
        )
        self._turn_start = re.compile(
            r"\n[^\n:]{1,40}:\s*(?:(?:si|pues|unos|ya|bueno)\s*(?:,\s*)?)?$"
        )
        self._count = re.compile(rf"\s+(?:{_alternation(counts)})(?!\w)")
        self._any_number_word = re.compile(rf"(?<!\w)(?:{_alternation(number_word_set())})")

    # --- what is found -----------------------------------------------------------------
    def find(
        self,
        text: str,
        names: Iterable[tuple[int, int]] = (),
        places: Iterable[tuple[int, int]] = (),
        streets: Iterable[tuple[int, int]] = (),
    ) -> list[tuple[int, int, str]]:
        """(start, end, label) of the PHI in words of `text`, not overlapping, in order;
        `names`: the character spans of the people's names found in it (the patient's, the
        staff's), whose age may follow them; `places`: those of its streets and towns, whose
        postal code may follow them; `streets`: those of its streets, whose house number may
        follow them."""
        folded = casefold_per_char(text)
        if not self._any_number_word.search(folded):
            return []
        runs = self._zeros_apart(folded, number_runs(text, folded))
        found: list[tuple[int, int, str]] = []
        taken: set[int] = set()

        def take(hit: tuple[int, int, str]) -> None:
            found.append(hit)
            taken.update(i for i, r in enumerate(runs) if hit[0] <= r.start < hit[1])

        for address in self._addresses.find(folded):
            take(address)
        for i, run in enumerate(runs):
            if i in taken:
                continue
            hit = (
                self._month_date(folded, run, runs)
                or self._month_year(folded, run)
                or (None if run.ordinal else self._numeric_date(folded, run, runs))
            )
            if hit is not None:
                take(hit)
        for start, end in self._streets.find(text, folded, runs, taken, streets):
            take((start, end, STREET))
        codes = self._codes.find(text, folded, runs, taken, [end for _s, end in places])
        for code in codes:
            take(code)
        names = sorted(names)
        for i, run in enumerate(runs):
            if i in taken:
                continue
            hit = self._date(folded, run, runs) or self._age(folded, run, names)
            if hit is not None:
                take(hit)
        found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
        out, last = [], -1
        for hit in found:
            if hit[0] >= last:
                out.append(hit)
                last = hit[1]
        return out

    def _zeros_apart(self, folded: str, runs: list[NumberRun]) -> list[NumberRun]:
        """`nueve cero sesenta y dos años` is read as `9`, `062`: before a unit or a count word
        the leading `cero` words are a code's last digits, and the rest the age or the count."""
        out = []
        for run in runs:
            zeros = LEADING_ZEROS.match(folded, run.start, run.end)
            if (
                zeros is None
                or zeros.end() >= run.end
                or not (self._unit.match(folded, run.end) or self._count.match(folded, run.end))
            ):
                out.append(run)
                continue
            count = len(zeros.group().split())
            zeros_end = run.start + len(zeros.group().rstrip())
            out.append(NumberRun(run.start, zeros_end, "0" * count, 0, False))
            out.append(NumberRun(zeros.end(), run.end, run.digits[count:], run.value, run.ordinal))
        return out

    def _month_date(
        self, folded: str, run: NumberRun, runs: list[NumberRun]
    ) -> tuple[int, int, str] | None:
        start, end = run.start, run.end
        month = self._day_month.match(folded, end)
        if not month or not 1 <= run.value <= 31 or self._count.match(folded, end):
            return None
        end = month.end()
        link = self._year_link.match(folded, end)
        year = next(
            (
                r
                for r in runs
                if link
                and r.start == link.end()
                and not r.ordinal
                and (1900 <= r.value <= 2100 or r.value <= 99)
            ),
            None,
        )
        if year is not None:
            end = year.end
        else:
            digit_year = self._digit_year.match(folded, end)
            end = digit_year.end() if digit_year else end
        before = folded[max(0, start - WINDOW) : start]
        weekday = self._weekday_before.search(before)
        if weekday:
            start -= len(before) - weekday.start()
        else:
            dia = self._dia_before.search(before)
            if dia:
                start -= len(before) - dia.start()
        return start, end, DATE

    def _month_year(self, folded: str, run: NumberRun) -> tuple[int, int, str] | None:
        """A year after a month or a feast: `marzo de dos mil veintiséis`, `Navidad del
        noventa`."""
        if run.ordinal or self._count.match(folded, run.end):
            return None
        before = folded[max(0, run.start - WINDOW) : run.start]
        month_before = self._month_before.search(before)
        if month_before and (
            1900 <= run.value <= 2100 or (run.value <= 99 and before.endswith("del "))
        ):
            return run.start - (len(before) - month_before.start()), run.end, DATE
        return None

    def _date(
        self, folded: str, run: NumberRun, runs: list[NumberRun]
    ) -> tuple[int, int, str] | None:
        start, end = run.start, run.end
        if run.ordinal or self._count.match(folded, end):
            return None
        before = folded[max(0, start - WINDOW) : start]
        if 1 <= run.value <= 31 and not self._unit.match(folded, end):
            dia = self._dia_before.search(before)
            if (
                self._day_before.search(before)
                and dia
                and not self._not_day_after.match(folded, end)
            ):
                return start - (len(before) - dia.start()), end, DATE
            weekday = self._weekday_right_before.search(before)
            if weekday and not self._not_date_after.match(folded, end):
                return start - (len(before) - weekday.start()), end, DATE
            if self._day_lead.search(before):
                return start, end, DATE
            if self._the_day.search(before) and self._day_end.match(folded, end):
                return start, end, DATE
        if self._year_before.search(before) and 1900 <= run.value <= 2100:
            return start, end, DATE
        # a year in words alone: `en dos mil diecinueve`, `desde mil novecientos noventa y ocho`
        if (
            1900 <= run.value <= LAST_YEAR
            and "mil" in folded[start:end]
            and len(run.digits) == 4
            and not self._code_link.match(folded, end)
        ):
            return start, end, DATE
        return None

    def _numeric_date(
        self, folded: str, day: NumberRun, runs: list[NumberRun]
    ) -> tuple[int, int, str] | None:
        """Day, month and year as three numbers: `doce del tres del ochenta y cinco`, `doce barra
        tres barra dos mil veinte` (a day and a month alone are too often something else)."""
        links = []

        def after(run: NumberRun) -> NumberRun | None:
            link = self._number_link.match(folded, run.end)
            if link:
                links.append(link.group().split()[0])
            return next((r for r in runs if link and r.start == link.end() and not r.ordinal), None)

        month = after(day) if 1 <= day.value <= 31 else None
        year = after(month) if month is not None and 1 <= month.value <= 12 else None
        # a two-digit year only with `del` or `barra` (`uno de tres de noventa`: a fraction's words)
        if year is not None and (
            1900 <= year.value <= 2100
            or (year.value <= 99 and len(year.digits) <= 2 and self._year_links & set(links))
        ):
            return day.start, year.end, DATE
        return None

    def _age(
        self,
        folded: str,
        run: NumberRun,
        names: list[tuple[int, int]],
    ) -> tuple[int, int, str] | None:
        if run.ordinal or run.value > 125:
            return None
        before = folded[max(0, run.start - WINDOW) : run.start]
        clause = re.split(r"[.;\n?!]", before)[-1]
        after_name = self._after_name(folded, run, names)
        hours = self._hours_of_life.match(folded, run.end)
        if hours:
            return run.start, hours.end(), AGE  # a newborn
        unit = self._unit.match(folded, run.end)
        if unit is None:
            whole_name = self._after_name(folded, run, names, bare=True)
            return self._bare_age(folded, run, before, whole_name)
        end = unit.end()
        of_life = self._of_life.match(folded, end)
        end = of_life.end() if of_life else end
        if self._not_age_of.match(folded, unit.end()):
            return None  # `tres meses de evolución`
        # right after a name, `ingreso` starts the next item (`Ana Gil setenta años ingreso ...`)
        if self._not_age.match(folded, unit.end()) and not after_name:
            return None
        label = RELATIVE if self._relative_in_clause.search(clause) else AGE
        if self._lead.search(before) and self._years.match(folded, run.end):
            return run.start, end, label
        if self._duration.search(before):
            return None
        if self._relative.search(before):
            return run.start, end, RELATIVE
        if (
            self._age_verb.search(before)
            or self._person.search(before)
            or self._person_right.search(before)
            or after_name
        ):
            return run.start, end, AGE
        # Basque: `hogeita hiru urte ditu`, `hirurogei urteko emakumea`, `hamar urtekoa`
        if self._age_after.match(folded, unit.end()) or self._age_unit_form.match(folded, run.end):
            return run.start, end, RELATIVE if self._relative_before.search(before) else AGE
        # `años` only, with no word before it that makes a span of time (`de`, `lleva`) and no
        # `de`, `en`... after it: `Ana Gil setenta años fractura de cadera`
        if (
            self._years.match(folded, run.end)
            and self._weak_end.match(folded, end)
            and not self._not_age_before.search(before)
        ):
            return run.start, end, label
        return None

    @staticmethod
    def _after_name(
        folded: str, run: NumberRun, names: list[tuple[int, int]], bare: bool = False
    ) -> bool:
        """Whether a name ends right before the number (`Ana Gil, setenta`, `Ana Gil de
        setenta`) or runs into it (`Ana Gil setenta` found as one name)."""
        for start, end in names:
            words_before = folded[start : min(end, run.start)].split()
            if bare and (
                len(words_before) < 2
                or "de" in words_before + folded[end : run.start].split()
                or any(w in number_word_set() for w in words_before)
            ):
                continue  # a bare number only after a whole name (no `de`, no number in it)
            if start < run.start < end:
                return True
            if end <= run.start and NAME_GAP.fullmatch(folded, end, run.start):
                return True
        return False

    def _bare_age(
        self, folded: str, run: NumberRun, before: str, after_name: bool
    ) -> tuple[int, int, str] | None:
        """A number with no unit: after an age verb, as the answer to a question about age,
        or after a name (`residente Ana Gil treinta y seis`)."""
        if not 10 <= run.value <= 120 or self._count.match(folded, run.end):
            return None
        clause = re.split(r"[.;\n?!]", before)[-1]
        label = RELATIVE if self._relative_in_clause.search(clause) else AGE
        ends_well = self._bare_end.match(folded, run.end)
        if self._bare_verb.search(before) and ends_well:
            return run.start, run.end, label
        if self._bare_lead.search(before) and not self._not_date_after.match(folded, run.end):
            return run.start, run.end, label  # `consumo de cocaína desde los veinte`
        if self._edad.search(before):
            return run.start, run.end, AGE
        turn = self._turn_start.search(before)
        if turn and self._age_question.search(before[: turn.start()][-120:]):
            return run.start, run.end, AGE
        if after_name and not self._not_date_after.match(folded, run.end):
            return run.start, run.end, AGE
        return None

    # --- the component -------------------------------------------------------------------
    def __call__(self, doc: Doc) -> Doc:
        names = [(e.start_char, e.end_char) for e in doc.ents if e.label_ in PATIENT_NAMES]
        places = [(e.start_char, e.end_char) for e in doc.ents if e.label_ in PLACE_LABELS]
        streets = [(e.start_char, e.end_char) for e in doc.ents if e.label_ == STREET]
        spans = []
        for start, end, label in self.find(doc.text, names, places, streets):
            # a DNI's letter glued to a period (`Z.`) is one token: the span stops before it
            span = (
                doc.char_span(start, end, label=label)
                or doc.char_span(start, end, label=label, alignment_mode="contract")
                or doc.char_span(start, end, label=label, alignment_mode="expand")
            )
            if span is not None and len(span):
                spans.append(span)
        doc.spans[self.spans_key] = spans
        if not spans:
            return doc
        ents = list(doc.ents)
        identifiers = {(s.start, s.end) for s in doc.spans.get(self.identifiers_key, [])}
        for span in spans:
            overlapping = [e for e in ents if e.start < span.end and span.start < e.end]
            if any((e.start, e.end) in identifiers for e in overlapping):
                continue  # an identifier of `identifiers` stays
            # the NER's or a rule's entity as long or longer that holds it stays
            if any(e.start <= span.start and span.end <= e.end for e in overlapping):
                continue
            kept = [cut for e in overlapping if (cut := _cut_back(e, span)) is not None]
            ents = [e for e in ents if e not in overlapping] + kept + [span]
        doc.ents = sorted(ents, key=lambda e: e.start)
        return doc


def _cut_back(ent: Span, span: Span) -> Span | None:
    """What of `ent` lies outside `span` on one side, without function words at the cut."""
    doc = ent.doc
    if ent.start < span.start and ent.end <= span.end:
        start, end = ent.start, span.start
        while end > start and casefold_per_char(doc[end - 1].text) in CUT_EDGE | {","}:
            end -= 1
    elif span.end < ent.end and span.start <= ent.start:
        start, end = span.end, ent.end
        while start < end and casefold_per_char(doc[start].text) in CUT_EDGE | {","}:
            start += 1
    else:
        return None
    return Span(doc, start, end, label=ent.label_) if end > start else None
