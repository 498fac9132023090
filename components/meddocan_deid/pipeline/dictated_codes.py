"""Codes dictated in words: number words and letter names in a row, read with their key.

`DictatedCodes.find(text, folded, runs, taken)` reads the codes that dictation spells out
(`historia cuatro cinco ocho dos uno nueve`, `tarjeta sanitaria a ese te cero uno ...`,
`atestado cuatro cero nueve uno barra veintiséis`, `matrícula dos uno ocho tres ka ka jota`,
`teléfono seis uno tres coma veintiuno coma ...`). The parts of a code are numbers in words
(the runs of meddocan_deid.number_words that are not in `taken` nor followed by a unit or a
count word: `sesenta y dos años` ends a code), letter names (`letter_names`: `ese`, `uve
doble`) and capitals of a line that is not all in capitals (`QX`), joined by blanks or a
separator (`code_separators`: `barra`, `guion`, `dos puntos`; `coma` only in a phone, `punto`
only in an IP address, `del` only in a court file number). A weak letter name, one that is
also a common word (`a`, `de`, `o`), starts a code only after its key and ends one only
where it makes a DNI's, a NIE's check letter or a plate's letters.

The label is the key's (phrases tagged with their use: `number_word_keys.json`), right
before the code (`historia número`, `NHC:`, `teléfono es el`) or up to four words before a
long one (`número de historia para el informe es ...`); a code said again after a correction
(`perdón`) keeps the label of the one it corrects. Each use has its shape: a phone 9 to 13
digits (9 from 6/7/8/9), an extension 2 to 5, a postal code 5 of a province (01-52), any other
code 4 digits or more, or a letter and 2 digits or more (4 characters at least; one number
under 1000 or a year is no code). Without a key, six digits said one by one, or a letter name
that is no common word with three digits in a row, make an OTRO_NUMERO_IDENTIF; nine digits
from 6/7/8/9 in three groups or more a phone; four numbers up to 255 joined by `punto` an IP
address (IDENTIF_DISPOSITIVOS_NRSERIE). Reads strings only; no spaCy object.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from stdnum.es import dni as std_dni
from stdnum.es import nie as std_nie

from ..labels import labels_with
from ..lexicon import casefold_per_char
from ..number_words import NumberRun

PHONE_LABELS = labels_with("phone")
POSTAL_LABEL = "TERRITORIO"
EXTENSION_USE, EXTENSION_LABEL = "extension", "NUMERO_TELEFONO"
DEVICE_LABEL = "IDENTIF_DISPOSITIVOS_NRSERIE"
OTHER_LABEL = "OTRO_NUMERO_IDENTIF"
# between a key and its code: blanks, `:`, `nº` (folded `no`), `número`, `es el`, `de contacto`...
# (Catalan `d'`, `seu`, `contacte`; Galician `do`, `da`, `súa`; Basque `zk`, `zenbakia`)
CONNECTOR = (
    r"(?:[\s:.,#='-]|(?<!\w)(?:es|el|la|al|del|de|d|su|numero|num|n|no|contacto|paciente|casa"
    r"|trabajo|familiar|clinica|provisional|seu|seva|do|da|sua|contacte|pacient|zk|zenbakia)(?!\w))*"
)
LOOSE_WORDS = 6  # words (not counting function words) a key may stand before a long code
FUNCTION_WORDS = {"de", "del", "la", "el", "los", "las", "al", "a", "y", "en", "es", "su", "que"}
SENTENCE_END = re.compile(r"[.;]|(?<!\w)punto(?!\w)")
WINDOW = 80  # characters of context read before a code
PLATE_LETTERS = set("bcdfghjklmnprstvwxyz")
CAPITALS = re.compile(r"(?<![^\W\d_])[A-ZÑ]{1,3}(?![^\W\d_])")
WORD = re.compile(r"[^\W\d_]+")
PLACE_GAP = re.compile(r"\s*(?:,\s*)?")  # between a town or a street and its postal code


@dataclass(frozen=True)
class Part:
    start: int
    end: int
    kind: str  # "digits", "letter" or "sep"
    value: str  # the digits, the letter or the sign
    weak: bool = False  # a letter name that is also a common word
    labels: frozenset = field(default_factory=frozenset)  # a separator's labels (empty: any)


@dataclass
class Code:
    parts: list[Part]
    label: str | None = None

    @property
    def start(self) -> int:
        return self.parts[0].start

    @property
    def end(self) -> int:
        return self.parts[-1].end

    def of(self, kind: str) -> list[Part]:
        return [p for p in self.parts if p.kind == kind]

    @property
    def digits(self) -> str:
        return "".join(p.value for p in self.of("digits"))

    @property
    def letters(self) -> str:
        return "".join(p.value for p in self.of("letter"))

    def digit_stretch(self) -> int:
        """The most digits in a row, with no letter between them."""
        best = now = 0
        for part in self.parts:
            if part.kind == "digits":
                now += len(part.value)
                best = max(best, now)
            elif part.kind == "letter":
                now = 0
        return best


def _alternation(items: Iterable[str]) -> str:
    phrases = sorted({casefold_per_char(w) for w in items}, key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases) or "(?!)"


def parse_letter_names(lines: Iterable[str]) -> dict[str, tuple[str, bool]]:
    """Folded letter name -> (letter, weak), from `name letter [weak]` lines."""
    letters = {}
    for line in lines:
        fields = line.split()
        if len(fields) < 2 or len(fields) > 4:
            raise ValueError(f"letter_names: {line!r} is not `name letter [weak]`")
        weak = fields[-1] == "weak"
        name = " ".join(fields[: -2 if weak else -1])
        letters[casefold_per_char(name)] = (fields[-2 if weak else -1], weak)
    return letters


def _parse_separators(lines: Iterable[str]) -> dict[str, tuple[str, frozenset]]:
    separators = {}
    for line in lines:
        fields = line.split("\t")
        if len(fields) != 3:
            raise ValueError(f"code_separators: {line!r} is not `words<TAB>sign<TAB>labels`")
        words, sign, labels = fields
        separators[casefold_per_char(words.strip())] = (
            sign,
            frozenset() if labels.strip() == "*" else frozenset(labels.split()),
        )
    return separators


class DictatedCodes:
    """The codes of a text dictated in words (see the module's docstring)."""

    def __init__(
        self,
        *,
        keys: dict[str, list[str]],
        letter_names: Iterable[str],
        separators: Iterable[str],
        corrections: Iterable[str],
        stop_after: Iterable[str],
    ):
        self._uses = list(keys)
        self._labels_of: dict[str, list[str]] = {}
        for use, phrases in keys.items():
            for phrase in phrases:
                self._labels_of.setdefault(casefold_per_char(phrase), []).append(use)
        keys_alt = _alternation(self._labels_of)
        self._key = re.compile(rf"(?<!\w)({keys_alt})(?!\w)")
        self._strict = re.compile(rf"(?<!\w)({keys_alt}){CONNECTOR}$")
        self._letters = parse_letter_names(letter_names)
        self._letter = re.compile(rf"(?<!\w)(?:{_alternation(self._letters)})(?!\w)")
        self._separators = _parse_separators(separators)
        self._separator = re.compile(
            "|".join(
                rf"(?<!\w){re.escape(s)}(?!\w)" if s[0].isalpha() else re.escape(s)
                for s in sorted(self._separators, key=len, reverse=True)
            )
            or "(?!)"
        )
        self._correction = re.compile(rf"^\W*(?:{_alternation(corrections)})\W*$")
        # matched where a run of number words ends (after a letter): the lookbehinds keep a
        # scan of a long run of blanks linear
        self._stop_after = re.compile(rf"(?<!\s)\s+(?:{_alternation(stop_after)})(?!\w)")
        self._single_keys = {k for k in self._labels_of if " " not in k}
        self._dni_letter = re.compile(r"(?<!\s)\s*(?:-\s*)?(?:letra\s+)?([a-z])(?!\w)")

    # --- the parts of the codes ------------------------------------------------------------
    def _parts(self, text: str, folded: str, runs: list[NumberRun], taken: set[int]) -> list[Part]:
        parts: list[Part] = []
        busy = [False] * (len(text) + 1)
        for i, run in enumerate(runs):
            if run.ordinal or i in taken:
                continue
            if self._stop_after.match(folded, run.end):
                continue  # `sesenta y dos años`, `dos comprimidos`: no code's
            parts.append(Part(run.start, run.end, "digits", run.digits))
            for k in range(run.start, run.end):
                busy[k] = True
        for m in self._letter.finditer(folded):
            if any(busy[m.start() : m.end()]):
                continue
            letter, weak = self._letters[re.sub(r"\s+", " ", m.group())]
            parts.append(Part(m.start(), m.end(), "letter", letter, weak))
            for k in range(m.start(), m.end()):
                busy[k] = True
        for m in CAPITALS.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            line = text[line_start : None if line_end < 0 else line_end]
            if any(busy[m.start() : m.end()]) or not any(c.islower() for c in line):
                continue
            if folded[m.start() : m.end()] in self._single_keys:
                continue
            parts.append(Part(m.start(), m.end(), "letter", m.group().lower()))
        for m in self._separator.finditer(folded):
            if any(busy[m.start() : m.end()]):
                continue
            sign, labels = self._separators[re.sub(r"\s+", " ", m.group())]
            parts.append(Part(m.start(), m.end(), "sep", sign, labels=labels))
        parts.sort(key=lambda p: (p.start, -p.end))
        out: list[Part] = []
        for part in parts:
            if not out or part.start >= out[-1].end:
                out.append(part)
        return out

    @staticmethod
    def _chains(text: str, parts: list[Part]) -> list[list[Part]]:
        """Parts with only blanks (no line break) between them."""
        chains: list[list[Part]] = []
        for part in parts:
            gap = text[chains[-1][-1].end : part.start] if chains else "x"
            if gap.strip(" \t") == "":
                chains[-1].append(part)
            else:
                chains.append([part])
        return chains

    # --- the key before a code -------------------------------------------------------------
    def _key_labels(self, folded: str, start: int, parts: list[Part]) -> tuple[list[str], bool]:
        """The uses of the key before `start` and whether it is right before it (strict)."""
        before = folded[max(0, start - WINDOW) : start]
        strict = self._strict.search(before)
        if strict:
            return self._labels_of[re.sub(r"\s+", " ", strict.group(1))], True
        last = None
        for m in self._key.finditer(before):
            last = m
        if last is None:
            return [], False
        between = before[last.end() :]
        offset = start - len(before) + last.end()
        content = [w for w in WORD.findall(between) if w not in FUNCTION_WORDS]
        if (
            len(content) > LOOSE_WORDS
            or SENTENCE_END.search(between)
            or between.count("\n") > 1
            or any(offset <= p.start < start and p.kind == "digits" for p in parts)
        ):
            return [], False
        return self._labels_of[re.sub(r"\s+", " ", last.group(1))], False

    # --- the shape of a code ---------------------------------------------------------------
    @staticmethod
    def _cut(chain: list[Part], label: str | None) -> list[Part]:
        """Up to the first separator the label's codes do not take; no separator at the edges
        (a phone keeps a leading `más`)."""
        out = []
        for part in chain:
            if part.kind == "sep" and part.labels and label not in part.labels:
                break
            out.append(part)
        while out and out[0].kind == "sep" and not (out[0].value == "+" and out[0].labels):
            out.pop(0)
        while out and out[-1].kind == "sep":
            out.pop()
        return out

    @staticmethod
    def _trim_weak(parts: list[Part], keyed: bool) -> list[Part]:
        """No weak letter at the start (unless after its key) nor at the end (unless it is a
        DNI's, a NIE's check letter or a plate's letter)."""
        parts = list(parts)
        if not keyed:
            while parts and parts[0].kind == "letter" and parts[0].weak:
                parts.pop(0)
        digits = "".join(p.value for p in parts if p.kind == "digits")
        letters = [p for p in parts if p.kind == "letter"]
        tail: list[Part] = []
        for part in reversed(parts):
            if part.kind != "letter":
                break
            tail.insert(0, part)
        plate = (
            len(digits) == 4
            and len(tail) == 3
            and len(letters) == 3
            and all(p.value in PLATE_LETTERS for p in tail)
        )
        check = len(tail) == 1 and (
            std_dni.is_valid(digits + tail[0].value.upper())
            or std_nie.is_valid("".join(p.value for p in parts if p.kind != "sep").upper())
        )
        if not (plate or check):
            while parts and parts[-1].kind == "letter" and parts[-1].weak:
                parts.pop()
        while parts and parts[-1].kind == "sep":
            parts.pop()
        return parts

    @staticmethod
    def _fits(code: Code, use: str) -> bool:
        digits, letters = code.digits, code.letters
        if use in PHONE_LABELS:
            return not letters and (
                (len(digits) == 9 and digits[0] in "6789") or 10 <= len(digits) <= 13
            )
        if use == EXTENSION_USE:
            return not letters and 2 <= len(digits) <= 5
        if use == POSTAL_LABEL:
            return not letters and len(digits) == 5 and 1 <= int(digits[:2]) <= 52
        if any(p.value == "." for p in code.of("sep")):
            return _ip(code)
        numbers = code.of("digits")
        if not letters:
            one = len(numbers) == 1 and (
                int(digits) < 1000 or (1900 <= int(digits) <= 2100 and len(digits) == 4)
            )
            return len(digits) >= 4 and not one
        return len(digits) >= 2 and len(digits) + len(letters) >= 4

    @staticmethod
    def _unkeyed(code: Code, after_place: bool) -> str | None:
        digits = code.digits
        numbers = code.of("digits")
        strong = [p for p in code.of("letter") if not p.weak]
        if _ip(code):
            return DEVICE_LABEL
        if not code.letters:
            if len(digits) == 9 and digits[0] in "6789" and len(numbers) >= 3:
                return "NUMERO_TELEFONO"
            if code.parts[0].value == "+" and 10 <= len(digits) <= 13:
                return "NUMERO_TELEFONO"
            if after_place and len(digits) == 5 and 1 <= int(digits[:2]) <= 52:
                return POSTAL_LABEL  # `Alcalá, veintiocho ocho cero uno`
        if strong and code.digit_stretch() >= 3 and len(digits) + len(code.letters) >= 5:
            return OTHER_LABEL
        # digits said one by one (`cero uno` is read as one number, `01`)
        said = sum(1 for p in numbers if len(p.value) == 1 or p.value.startswith("0"))
        if said >= 5 and len(digits) >= 6:
            return OTHER_LABEL
        return None

    # --- what is found ---------------------------------------------------------------------
    def find(
        self,
        text: str,
        folded: str,
        runs: list[NumberRun],
        taken: set[int],
        place_ends: Iterable[int] = (),
    ) -> list[tuple[int, int, str]]:
        """(start, end, label) of the codes of `text`, in order; `folded` is
        casefold_per_char(text), `runs` its number runs, `taken` the indexes of the runs that
        are something else already (a date), `place_ends` where a street or a town ends (a
        postal code may follow it with no key)."""
        parts = self._parts(text, folded, runs, taken)
        place_ends = sorted(place_ends)
        found: list[tuple[int, int, str]] = []
        for chain in self._chains(text, parts):
            if not any(p.kind == "digits" for p in chain):
                continue
            while chain and chain[0].kind == "sep" and chain[0].value != "+":
                chain = chain[1:]
            if not chain:
                continue
            uses, strict = self._key_labels(folded, chain[0].start, parts)
            if not uses and found and self._correction.match(folded[found[-1][1] : chain[0].start]):
                uses, strict = [found[-1][2]], True
            hit = self._keyed(chain, uses, strict) or self._without_key(folded, chain, place_ends)
            if hit is None:
                continue
            start, end, label = hit
            letter = self._dni_letter.match(folded, end)
            digits = "".join(
                p.value for p in parts if start <= p.start < end and p.kind == "digits"
            )
            if letter and len(digits) == 8 and std_dni.is_valid(digits + letter.group(1).upper()):
                end = letter.end()  # a DNI's check letter (checked: `y`, `e`, `a` are words too)
            found.append((start, end, label))
        return found

    def _keyed(
        self, chain: list[Part], uses: list[str], strict: bool
    ) -> tuple[int, int, str] | None:
        for use in uses:
            label = EXTENSION_LABEL if use == EXTENSION_USE else use
            cut = self._trim_weak(self._cut(chain, use), keyed=True)
            if not any(p.kind == "digits" for p in cut):
                continue
            code = Code(cut, label)
            long_enough = (
                len(code.digits) >= 5
                or (code.letters and code.digit_stretch() >= 3)
                or (len(code.digits) >= 3 and any(p.value in "/-" for p in code.of("sep")))
            )
            if self._fits(code, use) and (strict or long_enough):
                return code.start, code.end, label
        return None

    def _without_key(
        self, folded: str, chain: list[Part], place_ends: list[int]
    ) -> tuple[int, int, str] | None:
        # cut as any code, then as a phone (`más`, `coma`), then as an IP address (`punto`)
        for cut_label in (None, "NUMERO_TELEFONO", DEVICE_LABEL):
            cut = self._trim_weak(self._cut(chain, cut_label), keyed=False)
            if not any(p.kind == "digits" for p in cut):
                continue
            code = Code(cut)
            after_place = any(
                PLACE_GAP.fullmatch(folded, end, code.start)
                for end in place_ends
                if end <= code.start
            )
            label = self._unkeyed(code, after_place)
            if label is not None and cut_label in (None, label):
                return code.start, code.end, label
        return None


def _ip(code: Code) -> bool:
    """Four numbers up to 255 joined by three `punto` (each said whole or digit by digit): an
    IP address."""
    groups, digits_only = [""], True
    for part in code.parts:
        if part.kind == "sep":
            if part.value != ".":
                return False
            groups.append("")
        elif part.kind == "digits":
            groups[-1] += part.value
        else:
            digits_only = False
    return (
        digits_only
        and len(groups) == 4
        and all(g and len(g) <= 3 and int(g) <= 255 for g in groups)
    )
