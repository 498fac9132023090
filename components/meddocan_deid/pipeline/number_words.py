"""Numbers in words, as dictation writes them: `meddocan_number_words`.

Reads `doc.text` (numbers in words through meddocan_deid.number_words, with their offsets;
context matched case- and accent-folded) and `doc.ents`; writes the PHI it finds to
`doc.spans[spans_key]` and to `doc.ents`. What it finds, by context only:

- ages: a number and a unit (`años`, `meses`, `días`, `semanas`) after an age verb (`tiene`,
  `edad:`) or after `de` with a person word up to three words before it (`varón de setenta y
  nueve años`); after a kinship word the age is the relative's (FAMILIARES_SUJETO_ASISTENCIA,
  guideline P4.3); never after a duration word (`hace tres años`, `durante dos meses`) nor
  before `de evolución`, `después`...;
- dates (FECHAS): a day, `de`, a month name and an optional year (`el tres de marzo de dos
  mil veintiséis`, with a weekday before it: `lunes, tres de marzo`), day, month and year as
  numbers (`doce del tres del ochenta y cinco`, `doce barra tres barra dos mil veinte`), a
  month and a year in words (`marzo de dos mil veintiséis`), a day after `el día` (`el día
  veintidós`), a year after `año`;
- numbers after a key (key phrases tagged with their label: `teléfono`, `fax`, `historia`,
  `NHC`, `DNI`, `episodio`, `código postal`...): a phone or fax (9 digits from 6/7/8/9, or
  after Spain's 34), a postal code (5 digits, province 01-52, TERRITORIO), a record or
  document number (4 digits or more, with a DNI's letter right after it); a phone without a
  key when dictated in three groups or more.

Doses and counts (`dos comprimidos`, `tres veces al día`) have no key and no age context, and
a number followed by a count or dose word (`count_words`) is never a date or a code.
A found span enters `doc.ents` where every entity it overlaps is shorter and inside it
(those give way); an entity as long or longer (what the NER or a rule found) is kept, and so
is any identifier of `doc.spans[identifiers_key]`.
Sits after `identifiers`, where the NER and the rules have written theirs. Word lists are
config (defaults: `pipeline/data/es/`); no state to save.
"""

import re
from collections.abc import Iterable

from spacy.language import Language
from spacy.tokens import Doc
from stdnum.es import dni as std_dni

from ..lexicon import casefold_per_char, tagged_words, words
from ..number_words import NumberRun, number_runs, number_word_set

SPANS_KEY = "number_words"
AGE, RELATIVE, DATE = "EDAD_SUJETO_ASISTENCIA", "FAMILIARES_SUJETO_ASISTENCIA", "FECHAS"
PHONE_LABELS = ("NUMERO_TELEFONO", "NUMERO_FAX")
POSTAL_LABEL = "TERRITORIO"
KEY_USES = (
    "NUMERO_TELEFONO",
    "NUMERO_FAX",
    "ID_SUJETO_ASISTENCIA",
    "ID_CONTACTO_ASISTENCIAL",
    "ID_ASEGURAMIENTO",
    "ID_TITULACION_PERSONAL_SANITARIO",
    "TERRITORIO",
)
# between a key and its number: blanks, `:`, `nº` (folded `no`), `número`, `es el`, `de contacto`...
CONNECTOR = (
    r"(?:[\s:.,#=-]|(?<!\w)(?:es|el|la|al|del|de|su|numero|num|n|no|contacto|paciente|casa|trabajo"
    r"|familiar|clinica)(?!\w))*"
)
GAP = re.compile(r"[ \t]*(?:[,-][ \t]*)?")  # between the groups of a dictated code
WINDOW = 80  # characters of context read before a number


def _default_keys() -> dict[str, list[str]]:
    return {label: tagged_words("number_word_keys", label) for label in KEY_USES}


def _alternation(items: Iterable[str]) -> str:
    phrases = sorted({casefold_per_char(w) for w in items}, key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases) or "(?!)"


@Language.factory(
    "meddocan_number_words",
    default_config={
        "spans_key": SPANS_KEY,
        "identifiers_key": "identifiers",
        "keys": None,
        "month_names": words("month_names"),
        "weekday_names": words("weekday_names"),
        "age_units": words("age_unit_words"),
        "age_person_words": words("age_person_words"),
        "age_verbs": words("age_verbs"),
        "duration_words": words("duration_words"),
        "not_age_after": words("not_age_after"),
        "relative_words": tagged_words("kinship_words", "relative_age"),
        "count_words": words("count_words"),
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
    weekday_names: list[str],
    age_units: list[str],
    age_person_words: list[str],
    age_verbs: list[str],
    duration_words: list[str],
    not_age_after: list[str],
    relative_words: list[str],
    count_words: list[str],
) -> "NumberWords":
    return NumberWords(
        nlp,
        name,
        spans_key=spans_key,
        identifiers_key=identifiers_key,
        keys=keys,
        month_names=month_names,
        weekday_names=weekday_names,
        age_units=age_units,
        age_person_words=age_person_words,
        age_verbs=age_verbs,
        duration_words=duration_words,
        not_age_after=not_age_after,
        relative_words=relative_words,
        count_words=count_words,
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
        weekday_names: Iterable[str] = (),
        age_units: Iterable[str] = (),
        age_person_words: Iterable[str] = (),
        age_verbs: Iterable[str] = (),
        duration_words: Iterable[str] = (),
        not_age_after: Iterable[str] = (),
        relative_words: Iterable[str] = (),
        count_words: Iterable[str] = (),
    ):
        self.name = name
        self.spans_key = spans_key
        self.identifiers_key = identifiers_key
        keys = keys if keys is not None else _default_keys()
        # one alternation per label, the longest phrase first
        self._keys = [
            (label, re.compile(rf"(?<!\w)(?:{_alternation(phrases)})(?!\w){CONNECTOR}$"))
            for label, phrases in keys.items()
            if phrases
        ]
        month, weekday = _alternation(month_names), _alternation(weekday_names)
        self._day_month = re.compile(rf"\s+de\s+(?:{month})(?!\w)")
        self._year_link = re.compile(r"\s*,?\s+(?:de|del)\s+")
        self._number_link = re.compile(
            r"\s+(?:de|del|barra)\s+"
        )  # `doce del tres del ochenta y cinco`
        self._digit_year = re.compile(r"\s*,?\s+(?:de|del)\s+\d{4}(?!\d)")
        self._weekday_before = re.compile(rf"(?<!\w)(?:{weekday})\s*,?\s*(?:el\s+|dia\s+)?$")
        self._month_before = re.compile(
            rf"(?<!\w)(?:(?:\d{{1,2}}\s+de\s+)?)(?:{month})\s+(?:de|del)\s+$"
        )
        self._day_before = re.compile(
            r"(?<!\w)(?:el|del|al)\s+dia\s+$"
        )  # `el día veintidós`, not `otro día dos`
        self._not_date_after = re.compile(r"\s+(?:de|del|tras|post|en|a)(?!\w)")
        self._year_before = re.compile(r"(?<!\w)ano\s+$")
        self._unit = re.compile(rf"\s+(?:{_alternation(age_units)})(?!\w)")
        self._not_age = re.compile(rf"\s+(?:de\s+|del\s+)?(?:{_alternation(not_age_after)})(?!\w)")
        self._duration = re.compile(rf"(?<!\w)(?:{_alternation(duration_words)})\s+$")
        self._age_verb = re.compile(rf"(?<!\w)(?:{_alternation(age_verbs)})\s*:?\s*(?:de\s+)?$")
        self._person = re.compile(
            rf"(?<!\w)(?:{_alternation(age_person_words)})(?:\s+\S+){{0,3}}?\s+de\s+$"
        )
        # `mujer` is a kinship word too (`su mujer`), but `Mujer de ochenta años` is the patient
        relatives = {casefold_per_char(w) for w in relative_words} - {
            casefold_per_char(w) for w in age_person_words
        }
        self._relative = re.compile(
            rf"(?<!\w)(?:{_alternation(relatives)})(?:\s+\S+){{0,3}}?\s+de\s+$"
        )
        self._count = re.compile(rf"\s+(?:{_alternation(count_words)})(?!\w)")
        self._letter = re.compile(r"\s*-?\s*[a-z](?!\w)")
        self._any_number_word = re.compile(rf"(?<!\w)(?:{_alternation(number_word_set())})")

    # --- what is found -----------------------------------------------------------------
    def find(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, label) of the PHI in words of `text`, not overlapping, in order."""
        folded = casefold_per_char(text)
        if not self._any_number_word.search(folded):
            return []
        runs = number_runs(text, folded)
        found: list[tuple[int, int, str]] = []
        used: set[int] = set()
        for group in self._groups(text, runs):
            hit = self._code(folded, group)
            if hit is not None:
                found.append(hit)
                used.update(id(r) for r in group)
        for run in runs:
            if id(run) in used:
                continue
            hit = self._date(folded, run, runs) or self._age(folded, run)
            if hit is not None:
                found.append(hit)
        found.sort(key=lambda f: (f[0], -(f[1] - f[0])))
        out, last = [], -1
        for hit in found:
            if hit[0] >= last:
                out.append(hit)
                last = hit[1]
        return out

    @staticmethod
    def _groups(text: str, runs: list[NumberRun]) -> list[list[NumberRun]]:
        """Runs that follow each other with only blanks, a comma or a hyphen between them:
        the groups of one dictated code (`seis uno cero, cuarenta y dos`)."""
        groups: list[list[NumberRun]] = []
        for run in runs:
            if run.ordinal:
                continue
            if groups and GAP.fullmatch(text, groups[-1][-1].end, run.start):
                groups[-1].append(run)
            else:
                groups.append([run])
        return groups

    def _code(self, folded: str, group: list[NumberRun]) -> tuple[int, int, str] | None:
        digits = "".join(r.digits for r in group)
        start, end = group[0].start, group[-1].end
        if len(digits) < 4 or self._count.match(
            folded, end
        ):  # no code, phone or postal code is shorter
            return None
        before = folded[max(0, start - WINDOW) : start]
        label = next((label for label, key in self._keys if key.search(before)), None)
        # `más treinta y cuatro seis uno ...`: Spain's prefix, then the number
        phone = (len(digits) == 9 and digits[0] in "6789") or (
            len(digits) == 11 and digits[:2] == "34" and digits[2] in "6789"
        )
        if label is None:
            # dictated in three groups or more, a 9-digit number from 6/7/8/9 is a phone
            return (start, end, "NUMERO_TELEFONO") if phone and len(group) >= 3 else None
        if label in PHONE_LABELS:
            return (start, end, label) if phone else None
        if label == POSTAL_LABEL:
            return (start, end, label) if len(digits) == 5 and 1 <= int(digits[:2]) <= 52 else None
        if len(digits) < 4 or (len(group) == 1 and group[0].value < 1000):
            return None
        letter = self._letter.match(folded, end)
        if (
            letter
            and len(digits) == 8
            and std_dni.is_valid(digits + folded[letter.end() - 1].upper())
        ):
            end = letter.end()  # a DNI's check letter (checked: `y`, `e`, `a` are words too)
        return start, end, label

    def _date(
        self, folded: str, run: NumberRun, runs: list[NumberRun]
    ) -> tuple[int, int, str] | None:
        start, end = run.start, run.end
        if self._count.match(folded, end):
            return None
        before = folded[max(0, start - WINDOW) : start]
        month = self._day_month.match(folded, end)
        if month and 1 <= run.value <= 31:
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
            weekday = self._weekday_before.search(before)
            if weekday:
                start -= len(before) - weekday.start()
            return start, end, DATE
        if run.ordinal:
            return None
        numeric = self._numeric_date(folded, run, runs)
        if numeric is not None:
            return numeric
        month_before = self._month_before.search(before)
        if month_before and (
            1900 <= run.value <= 2100 or (run.value <= 99 and before.endswith("del "))
        ):
            return start - (len(before) - month_before.start()), end, DATE
        if (
            self._day_before.search(before)
            and 1 <= run.value <= 31
            and not self._not_date_after.match(folded, end)
            and not self._unit.match(folded, end)
        ):
            return start, end, DATE
        if self._year_before.search(before) and 1900 <= run.value <= 2100:
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
        # a two-digit year only with `del` or `barra` (`uno de tres de
        # noventa` is a fraction's words)
        if year is not None and (
            1900 <= year.value <= 2100
            or (year.value <= 99 and len(year.digits) <= 2 and {"del", "barra"} & set(links))
        ):
            return day.start, year.end, DATE
        return None

    def _age(self, folded: str, run: NumberRun) -> tuple[int, int, str] | None:
        if run.ordinal or run.value > 125:
            return None
        unit = self._unit.match(folded, run.end)
        if not unit or self._not_age.match(folded, unit.end()):
            return None
        before = folded[max(0, run.start - WINDOW) : run.start]
        if self._duration.search(before):
            return None
        if self._relative.search(before):
            return run.start, unit.end(), RELATIVE
        if self._age_verb.search(before) or self._person.search(before):
            return run.start, unit.end(), AGE
        return None

    # --- the component -------------------------------------------------------------------
    def __call__(self, doc: Doc) -> Doc:
        spans = []
        for start, end, label in self.find(doc.text):
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
            # the NER's or a rule's entity as long or longer stays (and so does one that sticks
            # out); an identifier of `identifiers` always does
            if all(
                span.start <= e.start
                and e.end <= span.end
                and len(e) < len(span)
                and (e.start, e.end) not in identifiers
                for e in overlapping
            ):
                ents = [e for e in ents if e not in overlapping] + [span]
        doc.ents = sorted(ents, key=lambda e: e.start)
        return doc
