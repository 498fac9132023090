"""House numbers and roads dictated in words, as CALLE: `meddocan_number_words`' street reader.

`StreetNumbers.find(text, folded, runs, taken, streets)` returns CALLE spans (start, end):

- a street that the NER or the rules found (`streets`) runs on through its house number in
  words and what follows it (`house_tail_words`: floors, doors, sides, and a letter after a
  floor: `calle Uría cuarenta y tres segundo ce`, `número ocho puerta cuatro`), with blanks, a
  comma or `número` between them; one that stops inside a number (`... número cuarenta`, of
  `cuarenta y tres`) takes the whole number;
- a kind of street (`street_heads`: `calle`, `barrio`, `avinguda`) that no entity holds, up to
  five words of name (no number, no mark) and a house number in words is a street with its
  tail (`barrio la maza cuatro`);
- a road: a kind of road (`road_heads`) and a road code, letters and a number in words
  (`carretera as diecinueve`), or a road code alone before `a la altura` (`en la a ocho a la
  altura de ...`), as the guidelines annotate road locations as CALLE (P11, note 4).

A number followed by a count word (`calle tres horas`) is no house number, nor is a run that is
already something else (`taken`). Reads strings only; no spaCy object.
"""

import re
from collections.abc import Iterable

from ..lexicon import casefold_per_char
from ..number_words import NumberRun
from .dictated_codes import parse_letter_names

NAME_WORDS = 5  # words of a street's name between its kind and its number
# `\s*(?:,\s*)?`, not `\s*(?:,\s*)?`: two runs of blanks side by side backtrack over every split
NUMBER_KEY = re.compile(r"\s*(?:,\s*)?(?:(?:numero|num|no|n)(?!\w)\s*(?:\.\s*)?)?")
TAIL_GAP = re.compile(r"\s*(?:,\s*)?")
ARTICLE_AFTER = re.compile(r"\s+(?:la|las|el|los|un|una)(?!\w)")
ROAD_AFTER = re.compile(r"\s+a\s+la\s+altura(?!\w)")
ROAD_BEFORE = re.compile(r"(?<!\w)(?:en|por|de)\s+la\s+$")
ROAD_STOP = (
    r"(?:en|la|el|de|al|lo|le|se|su|tu|mi|ya|no|si|ni|yo|es|un|me|te|os|ha|he|va|da|di|ve|oh|eh"
    r"|ah)(?!\w)"
)


def _alternation(items: Iterable[str]) -> str:
    phrases = sorted({casefold_per_char(w) for w in items}, key=len, reverse=True)
    return "|".join(r"\s+".join(map(re.escape, p.split())) for p in phrases) or "(?!)"


class StreetNumbers:
    """CALLE spans with a house number or a road number in words (see the module)."""

    def __init__(
        self,
        *,
        street_heads: Iterable[str],
        road_heads: Iterable[str],
        tail_words: Iterable[str],
        letter_names: Iterable[str],
        count_words: Iterable[str],
    ):
        tails = [w.split() for w in tail_words]
        plain = [w[0] for w in tails if w[-1] != "+"]
        numbered = [w[0] for w in tails if w[-1] == "+"]
        names = parse_letter_names(letter_names)
        letters = list(names)
        self._weak = {name for name, (_letter, weak) in names.items() if weak} | set("aeiou")
        letter = rf"(?:{_alternation(letters)}|[a-h])(?!\w)"
        self._floor = re.compile(
            rf"(?:{_alternation(plain)})(?!\w)(?:\s+{letter}(?!\s+(?:la|las|el|los|un|una)(?!\w)))?"
        )
        self._unit = re.compile(rf"(?:{_alternation(numbered)})(?!\w)")
        self._floor_before = re.compile(rf"(?<!\w)(?:{_alternation(plain)})$")
        self._unit_before = re.compile(rf"(?<!\w)(?:{_alternation(numbered)})\s*$")
        self._letter = re.compile(letter)
        self._street_head = re.compile(rf"(?<!\w)(?:{_alternation(street_heads)})(?!\w)")
        self._road_head = re.compile(rf"(?<!\w)(?:{_alternation(road_heads)})\s+$")
        # a road code's letters: letter names or two letters that are no common word
        self._road_letters = re.compile(
            rf"(?<!\w)(?:(?:{_alternation(letters)}|(?!{ROAD_STOP})[a-z]{{2}})\s+){{1,3}}$"
        )
        self._count = re.compile(rf"\s+(?:{_alternation(count_words)})(?!\w)")
        self._name_word = re.compile(r"[^\W\d_][\w'-]*|\.")

    def find(
        self,
        text: str,
        folded: str,
        runs: list[NumberRun],
        taken: set[int],
        streets: Iterable[tuple[int, int]] = (),
    ) -> list[tuple[int, int]]:
        """(start, end) of the streets and roads with a number in words of `text`."""
        free = [r for i, r in enumerate(runs) if i not in taken and not r.ordinal]
        free = [r for r in free if not self._count.match(folded, r.end)]
        found = []
        for start, end in streets:
            tail = self._tail(folded, end, free, inside=start)
            if tail > end:
                found.append((start, tail))
        held = list(streets) + found
        for head in self._street_head.finditer(folded):
            if any(s <= head.start() < e for s, e in held):
                continue
            run = self._number_after_name(folded, head.end(), free)
            if run is not None:
                found.append((head.start(), self._tail(folded, run.end, free)))
        for run in free:
            road = self._road(folded, run)
            if road is not None and not any(s < road[1] and road[0] < e for s, e in found):
                found.append(road)
        return sorted(found)

    def _tail(self, folded: str, end: int, runs: list[NumberRun], inside: int = -1) -> int:
        """Where a street ending at `end` ends with its house number and floors."""
        cut = next((r for r in runs if inside <= r.start < end < r.end), None)
        if cut is not None:
            end = cut.end  # the street stopped inside its number
        has_number = cut is not None or any(inside <= r.start < end for r in runs)
        if not has_number:
            key_end = _key_end(folded, end)
            run = next((r for r in runs if r.start == key_end), None)
            if run is None:
                return end
            end = run.end
        while True:
            gap_end = _gap_end(folded, end)
            floor = self._floor.match(folded, gap_end) or self._unit.match(folded, gap_end)
            if floor is None:
                # the street already holds its floor (`quinto`) or unit (`puerta`): a letter or a
                # number after it is still the address
                number = next((r for r in runs if r.start == gap_end), None)
                if self._unit_before.search(folded, 0, end) and number is not None:
                    return self._tail_letter(folded, number.end)
                after_floor = self._floor_before.search(folded, 0, end)
                if after_floor or self._number_before(end, runs):
                    letter = self._letter.match(folded, gap_end)
                    if (
                        letter is not None
                        and not folded[end:gap_end].strip(" \t")
                        and self._door_letter(folded, letter, after_floor is not None)
                    ):
                        return letter.end()
                return end
            end = floor.end()
            number = next((r for r in runs if r.start == _gap_end(folded, end)), None)
            if self._unit.fullmatch(floor.group()) and number is not None:
                end = self._tail_letter(folded, number.end)

    def _tail_letter(self, folded: str, end: int) -> int:
        """`puerta cuatro be`: a letter right after a door's or a floor's number."""
        letter = self._letter.match(folded, _gap_end(folded, end))
        return letter.end() if letter and not folded[end : letter.start()].strip(" \t") else end

    def _door_letter(self, folded: str, letter: re.Match, after_floor: bool) -> bool:
        """A door's letter: after a number a name that is no common word (`doce be`, not `doce
        de Soria`); after a floor any, unless an article follows a weak one (`tercero a las`)."""
        if letter.group() not in self._weak:
            return True
        return after_floor and not ARTICLE_AFTER.match(folded, letter.end())

    @staticmethod
    def _number_before(end: int, runs: list[NumberRun]) -> bool:
        return any(r.end == end for r in runs)

    def _number_after_name(
        self, folded: str, start: int, runs: list[NumberRun]
    ) -> NumberRun | None:
        """The house number after a street's kind and its name (up to five words, no mark)."""
        pos, words = start, 0
        while words <= NAME_WORDS:
            key_end = _key_end(folded, pos)
            run = next((r for r in runs if r.start == key_end), None)
            if run is not None and words > 0:
                return run
            gap = re.compile(r"[ \t]+").match(folded, pos)
            if gap is None:
                return None
            word = self._name_word.match(folded, gap.end())
            if word is None or word.group() == ".":
                return None
            pos, words = word.end(), words + 1
        return None

    def _road(self, folded: str, run: NumberRun) -> tuple[int, int] | None:
        """A road code: letters and a number after a kind of road, or before `a la altura`."""
        before = folded[max(0, run.start - 40) : run.start]
        letters = self._road_letters.search(before)
        if letters is None:
            return None
        start = run.start - (len(before) - letters.start())
        head = self._road_head.search(before[: letters.start()])
        if head is not None:
            return start - (letters.start() - head.start()), run.end
        if ROAD_AFTER.match(folded, run.end) and ROAD_BEFORE.search(before[: letters.start()]):
            return start, run.end
        return None


def _gap_end(folded: str, pos: int) -> int:
    """Where the blanks and comma after `pos` end."""
    gap = TAIL_GAP.match(folded, pos)
    return gap.end() if gap else pos


def _key_end(folded: str, pos: int) -> int:
    """Where the blanks, comma and `número` after `pos` end."""
    key = NUMBER_KEY.match(folded, pos)
    return key.end() if key else pos
