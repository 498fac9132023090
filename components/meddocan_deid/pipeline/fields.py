"""Fields anywhere: `Key: value` PHI in any section and any layout, keys as data.

Reads `doc.text`, the rule entities (`doc.spans[rules_key]`) and the sections; writes the field
entities to `doc.spans[spans_key]`, adds them to `doc.spans[rules_key]` (so that the later
components treat them as rule entities: the NER predicts around them, the checks keep
them, trusted-PHI propagation trusts them) and to `doc.ents`. It never changes a rule
entity that was already there (MEDDOCAN's header rules win) nor the tokens.

The field keys are data (`configs/patterns/fields.jsonl`, one entry per label and value
kind; entries with a `lang` code hold the Catalan/Valencian (`ca`), Galician (`gl`) and
Basque (`eu`) keys, which count in every report like the Spanish ones). A key counts in
these layouts, in any section:
  `Key: value`, `KEY: VALUE`          a colon after the key, anywhere in a line
  `Key<TAB>value`, `Key | value |`    the key opens a line or a cell (after a tab or pipe)
  `Key    value`                      the key opens a line, two or more blanks after it
  `Key` / `value`                     the key alone on its line, the value on the next one
  `... con DNI 12345678Z ...`         a key phrase (`phrases`) in prose, then within a few
                                      filler words (`nº`, `de`, `es`...) the value
A value ends at the next key on its line, a pipe, a tab, or the end of the line; its kind
(name, id, date, age, sex, place, street, text) says what part of it is the PHI: a name
is its capitalised words (titles left out, guideline N1.1), an identifier needs a digit,
a date stops before a time of day (N6.1), a place is split at commas and brackets.
Signature and salutation cues (`Atentamente,` + the name line, `Estimada Sra. Ruiz:`)
are entries of kind `name` too, with `next_line` and `salutation` layouts.
"""

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from spacy.lang.es.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.pipeline.span_ruler import prioritize_new_ents_filter
from spacy.tokens import Doc
from spacy.util import filter_spans

from .. import LABELS
from ..lexicon import NAME_LABELS, lower_without_accents, tagged_words, words
from .serialize import SerializedState
from .spans import capitals_line, caseless_line

SPANS_KEY = "fields"
# up to five lower-case words, then a comma: each word whole and each blank run read once (the
# words before the comma are fixed by the text, so taking them greedily finds the same match)
_ROLE_COMPLEMENT = re.compile(r"(?:[ \t]++[a-záéíóúñüçà·']++){0,5}+[ \t]*+,[ \t]*")
KINDS = ("name", "id", "date", "age", "sex", "place", "street", "text", "contact")
# `Nº` in a key stands for every way Spanish and co-official forms write "number": `Nº`, `N.º`,
# `Nº.`, `No.`, `N.`, `Núm.`, `Número`, `Nro.`, `N°`, each with an optional `de` or `d'` after it
_NUMBER = r"(?:n\s?[.]?\s?[ºo°]\.?|n\.|num\.?|numero|nro\.?)(?:\s*de|\s*d['’´`]\s?)?"
# an apostrophe in a key matches any apostrophe (`d'ingrés`, `d’ingrés`), a middle dot any
# way of writing the Catalan `l·l` (`col·legiat`, `col.legiat`, `collegiat`), a hyphen a
# blank too (`Jaiotze-data`, `Jaiotze data`)
_APOSTROPHE = r"['’´`]\s?"
_MIDDLE_DOT = r"[·.•‧]?"
_HYPHEN = r"(?:\s?-\s?|\s)"
_LINE_END = re.compile(r"[\r\n]")
# titles skipped at the start of a name value, folded as the text is (`Dña.` as `dna.`)
TITLES = frozenset(lower_without_accents(t) for t in tagged_words("titles", "field_name"))
# particles kept inside a name value (`Ana de la Fuente`), and month names and abbreviations of
# a date value, in every language: word lists (pipeline/data/<lang>/)
PARTICLES = set(tagged_words("particles", "field_name"))
MONTHS = tuple(words("date_months"))
_MONTH = "(?:" + "|".join(sorted(set(MONTHS), key=len, reverse=True)) + r")\.?"
_ROMAN = r"(?:XII|XI|X|IX|VIII|VII|VI|V|IV|III|II|I)"
_WEEKDAY = r"(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo),?\s+"
_DATE_FORMS = [
    r"\d{4}[-/]\d{1,2}[-/]\d{1,2}",  # 2024-04-14, 2024/04/14
    r"\d{1,2}\s?[-/.]\s?\d{1,2}\s?[-/.]\s?\d{2,4}",  # 14/04/2024, 14.04.24
    r"\d{1,2}\s?[-/.]\s?" + _ROMAN.lower() + r"\s?[-/.]\s?\d{2,4}",  # 3-iv-2024
    r"\d{1,2}(?:\s+de\s+|\s+d['’]\s?|\s+)"
    + _MONTH
    + r"(?:\s+de)?[\s,.-]*\d{2,4}",  # 14 de abril de 2024, 14 d'abril
    r"\d{1,2}\s?[-/]\s?" + _MONTH + r"\s?[-/]\s?\d{2,4}",  # 14-abr-2024
    _MONTH + r"(?:\s+de)?[\s,-]*\d{4}",  # abril de 2024
    r"\d{1,2}(?:\s+de\s+|\s+d['’]\s?|\s+)" + _MONTH,  # 14 de abril, 14 d'abril
    r"(?:0?[1-9]|1[0-2])\s?[-/]\s?(?:1[89]|20)\d{2}",  # 04/2024 (not a collegiate number `17-4209`)
]
# a date at the start of a value (matched on the folded text: lower case, no accents)
DATE = re.compile("(?:" + _WEEKDAY + ")?(?:" + "|".join(_DATE_FORMS) + r")(?!\w)")
AGE = re.compile(
    r"\d{1,3}(?:[.,]\d)?\s*(?:anos|ano|anys|any|urte|a\.|a(?![\w])|meses|mesos|mes|hilabete|m\.|dias|dia|dies|"
    r"egun|d\.|semanas|setmanes|aste|sem\.)"
    r"(?:\s*(?:y|,|i)\s*\d{1,2}\s*(?:meses|mes|m\.|dias|dias|semanas))?"
    r"|\d{1,3}(?![\w.,/:-])"
)
# Spanish, Catalan (`home`, `dona`, `masculí`), Galician (`muller`, `feminino`) and Basque
# (`gizonezkoa`, `emakumezkoa`, `G`, `E`) values
SEX = re.compile(
    r"(?:varon|mujer|hombre|masculino|femenino|home|dona|masculi|femeni|muller|feminino"
    r"|gizonezkoa|emakumezkoa|gizonezko|emakumezko|gizona|emakumea|[mfhvdge])(?![\w])"
)
# an identifier: digits, or letters and digits, with `-`, `/`, `.` or
# single blanks between digit groups
ID_VALUE = re.compile(
    r"(?:[a-z]{1,6}[-/]){0,2}(?:[a-z]{1,6}[-/]?)?\d[\da-z./-]*(?: \d[\da-z./-]*)*"
)  # `desp-ml-2025-0173`
_TIME_OF_DAY = re.compile(r"(?<![\d/.-])(?:[01]?\d|2[0-3])[:h.][0-5]\d(?::[0-5]\d)?(?![\d/.-])")
# words that end a name typed without capitals: Spanish stop words but the particles of names
CASELESS_STOP = frozenset(STOP_WORDS) - set(tagged_words("particles", "caseless_name"))
_SEPARATORS = re.compile(r"\s*(?:\||\t|\s{2,}|$)")


def key_regex(key: str) -> str:
    """The regex of one key (folded): blanks match any run of blanks, a dot may be left out
    or followed by a blank, and `Nº` stands for every way of writing "number"."""
    parts = []
    for word in lower_without_accents(key).split():
        if word in ("nº", "no", "n.º", "num.", "número", "numero", "n°"):
            parts.append(_NUMBER)
            continue
        # a dot may be left out only where a word ends: `Pac.` matches `pac:`, not `paciente`
        parts.append(
            "".join(
                r"(?:\.\s?|(?!\w))"
                if c == "."
                else _APOSTROPHE
                if c in "'’´`"
                else _MIDDLE_DOT
                if c == "·"
                else _HYPHEN
                if c == "-"
                else re.escape(c)
                for c in word
            )
        )
    # a key ends at a word's end (`Pac.` must not match the start of `Paciente`)
    return r"\s*".join(parts) + (r"(?!\w)" if lower_without_accents(key)[-1].isalnum() else "")


_WORD_START = re.compile(r"(?<![\w])[\w#]")


def _literal_prefix(regex: str, size: int = 2) -> str:
    """The first `size` characters every match of `regex` starts with ("" where unsure)."""
    out, i = "", 0
    while len(out) < size and i < len(regex):
        c = regex[i]
        if c == "\\" and i + 1 < len(regex) and not regex[i + 1].isalnum():
            c, step = regex[i + 1], 2  # an escaped literal: `\ `, `\-`, `\'`
        elif c.isalnum():
            step = 1
        else:
            break
        if regex[i + step : i + step + 1] in ("?", "*", "{"):
            break  # an optional character
        out += c
        i += step
    return out


class KeyTable:
    """Key regexes grouped by the first two characters of their key (by the first one where
    the key starts with `Nº` or a pattern), tried only where a word starts: one alternation
    of 600 keys tried at every character made the component 4 times slower than the NER;
    per word start it costs a few regexes. Where two groups match, the longer key wins, as
    in one alternation of all the keys sorted by length."""

    def __init__(self, table: dict):
        groups: dict = {}
        for order, regex in enumerate(sorted(table, key=len, reverse=True)):  # the longest key wins
            prefix = _literal_prefix(regex)
            if len(prefix) < 2:
                prefix = (
                    "n"
                    if regex.startswith(_NUMBER)
                    else lower_without_accents(regex.lstrip("(?:\\"))[:1]
                )
            groups.setdefault(prefix, []).append((order, regex, table[regex]))
        self.groups = {
            p: (re.compile("|".join(f"({r})" for _, r, _ in items)), [(o, t) for o, _, t in items])
            for p, items in groups.items()
        }

    def __bool__(self) -> bool:
        return bool(self.groups)

    def finditer(self, folded: str):
        """(match, target) of the keys in `folded`, left to right, not overlapping."""
        end = 0
        for w in _WORD_START.finditer(folded):
            pos = w.start()
            if pos < end:
                continue
            best = None
            for prefix in (folded[pos : pos + 2], folded[pos]):
                entry = self.groups.get(prefix)
                if entry is None:
                    continue
                m = entry[0].match(folded, pos)
                if m and m.lastindex is not None:  # the key's group
                    order, target = entry[1][m.lastindex - 1]
                    if best is None or order < best[0]:
                        best = (order, m, target)
            if best:
                end = best[1].end()
                yield best[1], best[2]


@dataclass
class FieldEntry:
    label: str
    kind: str
    keys: tuple[str, ...]
    phrases: tuple[str, ...]
    layouts: tuple[str, ...]  # extra layouts: "next_line" (signature), "salutation"


ENTRY_FIELDS = (
    "label",
    "kind",
    "keys",
    "phrases",
    "layouts",
    "lang",
)  # lang: the language of the keys (ca, gl, eu), a note only


def validate_entries(entries: Iterable[dict], source: str = "field keys") -> list[dict]:
    clean = []
    for i, e in enumerate(entries, start=1):
        if not isinstance(e, dict):
            raise ValueError(
                f"{source}: entry {i}: expected a JSON object with {', '.join(ENTRY_FIELDS)}"
            )
        unknown = sorted(str(k)[:40] for k in e if k not in ENTRY_FIELDS)
        if unknown:
            raise ValueError(
                f"{source}: entry {i}: unknown field {unknown[0]!r} (allowed: "
                f"{', '.join(ENTRY_FIELDS)})"
            )
        if e.get("label") not in LABELS:
            raise ValueError(
                f"{source}: entry {i}: unknown label (expected one of the MEDDOCAN labels)"
            )
        if e.get("kind") not in KINDS:
            raise ValueError(f"{source}: entry {i}: 'kind' must be one of {', '.join(KINDS)}")
        if not e.get("keys") and not e.get("phrases"):
            raise ValueError(f"{source}: entry {i}: needs 'keys' or 'phrases' (lists of strings)")
        for field in ("keys", "phrases", "layouts"):
            if not isinstance(e.get(field, []), list) or not all(
                isinstance(k, str) and k.strip() for k in e.get(field, [])
            ):
                raise ValueError(
                    f"{source}: entry {i}: '{field}' must be a list of non-empty strings"
                )
        if "lang" in e and not (
            isinstance(e["lang"], str) and re.fullmatch(r"[a-z]{2,3}", e["lang"])
        ):
            raise ValueError(
                f"{source}: entry {i}: 'lang' must be a language code such as 'ca', 'gl' or 'eu'"
            )
        entry = {
            "label": e["label"],
            "kind": e["kind"],
            "keys": list(e.get("keys", [])),
            "phrases": list(e.get("phrases", [])),
            "layouts": list(e.get("layouts", [])),
        }
        if "lang" in e:
            entry["lang"] = e["lang"]  # documentation only: every key counts in every report
        clean.append(entry)
    return clean


def read_field_files(folder) -> list[tuple[str, list[dict]]]:
    """The validated entries of every `*.jsonl` file of `folder` (a hospital's own keys, in the
    form of configs/patterns/fields.jsonl), by file name. Raises ValueError naming the file and
    the line or entry: a missing folder, a folder without `.jsonl` file, a line that is not a
    JSON object, a bad entry (`validate_entries`; entries count the non-blank lines)."""
    import json
    from pathlib import Path

    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"{folder}: field-key folder not found")
    files = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    if not files:
        raise ValueError(
            f"{folder}: no .jsonl field-key file (one JSON object a line, as "
            "configs/patterns/fields.jsonl)"
        )
    out = []
    for path in files:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as err:
            raise ValueError(f"{path}: not valid UTF-8 (byte {err.start})") from None
        except OSError as err:
            raise ValueError(
                f"{path}: cannot read ({err.strerror or type(err).__name__})"
            ) from None
        entries = []
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                entries.append(json.loads(line))
            except ValueError as err:
                raise ValueError(
                    f"{path}: line {lineno}: not valid JSON ({getattr(err, 'msg', err)}, "
                    f"column {getattr(err, 'colno', '?')})"
                ) from None
        if not entries:
            raise ValueError(f"{path}: no entry")
        out.append((str(path), validate_entries(entries, str(path))))
    return out


def add_field_files(nlp: Language, folder, component: str = "fields") -> list[dict]:
    """Add the keys of every `*.jsonl` file of `folder` (`read_field_files`) to the pipeline's
    fields component; returns the entries added. ValueError when the pipeline has none."""
    if component not in getattr(nlp, "component_names", ()):
        raise ValueError(f"the pipeline has no {component!r} component to add field keys to")
    fields = nlp.get_pipe(component)
    if not isinstance(fields, Fields):
        raise ValueError(f"the pipeline's {component!r} component is not meddocan_fields")
    added = []
    for source, entries in read_field_files(folder):
        fields.add_patterns(entries, source)
        added.extend(entries)
    return added


@Language.factory(
    "meddocan_fields",
    default_config={
        "spans_key": SPANS_KEY,
        "rules_key": "rule_entities",
        "sections_key": "sections",
        "phrase_window": 4,
        # words between a key phrase and its value in prose: `número
        # de historia clínica es el 12345`
        "filler_words": words("field_filler_words"),
        # capitalised words that end a name value: roles, services and section words after a name
        "name_stop_words": words("name_stop_words"),
        # on a line without case, a verb form ends a name (`la paciente sale de alta`: no name)
        "name_end_verbs": words("name_end_verbs"),
        "max_name_words": 7,
        # a title after one of these words names a relative (`su hija Dña. Ana Gil`)
        "kinship_words": tagged_words("kinship_words", "relative_title"),
        # a title after one of these words starts a place's name, not a person's
        "place_heads": words("place_heads"),
        # a key right after one of these words is prose (`del paciente:`), not a field
        "prose_words": words("prose_words"),
    },
    assigns=["doc.ents", "doc.spans"],
)
def make_fields(
    nlp: Language,
    name: str,
    *,
    spans_key: str,
    rules_key: str,
    sections_key: str,
    phrase_window: int,
    filler_words: list[str],
    name_stop_words: list[str],
    name_end_verbs: list[str],
    max_name_words: int,
    prose_words: list[str],
    kinship_words: list[str],
    place_heads: list[str],
) -> "Fields":
    return Fields(
        nlp,
        name,
        spans_key=spans_key,
        rules_key=rules_key,
        sections_key=sections_key,
        phrase_window=phrase_window,
        filler_words=filler_words,
        name_stop_words=name_stop_words,
        name_end_verbs=name_end_verbs,
        max_name_words=max_name_words,
        prose_words=prose_words,
        kinship_words=kinship_words,
        place_heads=place_heads,
    )


class Fields(SerializedState):
    """Keyed PHI fields in any section and layout (see the module docstring)."""

    def __init__(
        self,
        nlp: Language,
        name: str,
        *,
        spans_key: str = SPANS_KEY,
        rules_key: str = "rule_entities",
        sections_key: str = "sections",
        phrase_window: int = 4,
        filler_words: Sequence[str] = (),
        name_stop_words: Sequence[str] = (),
        name_end_verbs: Sequence[str] = (),
        max_name_words: int = 7,
        prose_words: Sequence[str] = (),
        kinship_words: Sequence[str] = (),
        place_heads: Sequence[str] = (),
    ):
        self.name = name
        self.spans_key = spans_key
        self.rules_key = rules_key
        self.sections_key = sections_key
        self.phrase_window = phrase_window
        self.filler_words = {lower_without_accents(w) for w in filler_words}
        self.name_stop_words = {lower_without_accents(w) for w in name_stop_words}
        self.name_end_verbs = {lower_without_accents(w) for w in name_end_verbs}
        self.max_name_words = max_name_words
        self.prose_words = {lower_without_accents(w) for w in prose_words}
        self.kinship_words = {lower_without_accents(w) for w in kinship_words}
        self.place_heads = {lower_without_accents(w) for w in place_heads}
        self.entries: list[dict] = []
        self._compile()

    # --- patterns -------------------------------------------------------------------
    def initialize(
        self,
        get_examples: Callable | None = None,
        *,
        nlp: Language | None = None,
        patterns: Iterable[dict] | None = None,
    ) -> None:
        if patterns is not None:
            self.entries = validate_entries(patterns)
            self._compile()

    def add_patterns(self, patterns: Iterable[dict], source: str = "field keys") -> None:
        """Add entries (a hospital's own keys) to those the pipeline was built with."""
        self.entries.extend(validate_entries(patterns, source))
        self._compile()

    def _compile(self) -> None:
        # key regex -> (label, kind), per layout
        keys: dict[str, tuple[str, str]] = {}
        phrases: dict[str, tuple[str, str]] = {}
        next_line: dict[str, tuple[str, str]] = {}
        salutation: dict[str, tuple[str, str]] = {}
        for e in self.entries:
            target = (e["label"], e["kind"])
            for k in e["keys"]:
                keys.setdefault(key_regex(k), target)
            for p in e["phrases"]:
                phrases.setdefault(key_regex(p), target)
            for layout in e["layouts"]:
                for k in e["keys"]:
                    (next_line if layout == "next_line" else salutation).setdefault(
                        key_regex(k), target
                    )

        self._keys = KeyTable(keys)
        self._phrases = KeyTable(phrases)
        self._next_line = KeyTable(next_line)
        self._salutation = KeyTable(salutation)

    # --- finding keys and values ----------------------------------------------------
    def _key_matches(self, folded: str) -> list[tuple[int, int, tuple[str, str], str]]:
        """(key start, value start, target, layout) of every key with a separator."""
        found = []
        for m, target in self._keys.finditer(folded):
            s, e = m.start(), m.end()
            if s > 0 and (folded[s - 1].isalnum() or folded[s - 1] in "/-"):
                continue
            if e < len(folded) and folded[e].isalnum() and folded[e - 1] not in ".:":
                continue
            line_start = folded.rfind("\n", 0, s) + 1
            before = folded[line_start:s]
            cell_start = (
                not before.strip() or before.rstrip().endswith(("|", "\t")) or before.endswith("\t")
            )
            rest = folded[e:]
            # `Nº de acceso (PACS): ...`, `Teléfono (móvil): ...`: a short note in
            # brackets may sit before the colon
            colon = re.match(r"[ \t]*(?:\([^()\n]{1,20}\)[ \t]*)?[:：][ \t]*", rest)
            previous = before.split()[-1] if before.split() else ""
            if colon and previous in self.prose_words:
                continue  # `Informe clínico del paciente:` is prose, not a `Paciente:` field
            if colon:
                found.append((s, e + colon.end(), target, "colon"))
                continue
            if not cell_start:
                continue
            sep = re.match(r"[ \t]*(?:\||\t)[ \t]*|[ ]{2,}", rest)
            if sep and not _LINE_END.match(rest[sep.end() : sep.end() + 1] or "\n"):
                found.append((s, e + sep.end(), target, "cell"))
                continue
            alone = re.match(r"[ \t]*\.?[ \t]*(?:\r?\n)[ \t]*", rest)
            if alone and not before.strip():
                found.append((s, e + alone.end(), target, "next_line"))
        return found

    def _value_end(self, text: str, start: int, key_starts: list[int]) -> int:
        end = len(text)
        m = _LINE_END.search(text, start)
        if m:
            end = m.start()
        for sep in ("|", "\t"):
            i = text.find(sep, start, end)
            if i != -1:
                end = i
        for k in key_starts:
            if start < k < end:
                end = k
                break
        return end

    # --- values by kind -------------------------------------------------------------
    def _value(
        self,
        text: str,
        folded: str,
        start: int,
        end: int,
        label: str,
        kind: str,
        strict_start: bool = False,
    ) -> list[tuple[int, int, str]]:
        while start < end and text[start] in " \t:.-–—=>":
            start += 1
        # (a name keeps the dot of a final initial: `J.R.G.`; `_name` decides)
        while end > start and text[end - 1] in (" \t,;:-–—(" if kind == "name" else " \t.,;:-–—("):
            end -= 1
        if start >= end:
            return []
        value, fvalue = text[start:end], folded[start:end]
        if kind == "name":
            return self._name(text, folded, start, end, label)
        if kind == "id":
            m = ID_VALUE.match(fvalue)
            if (
                not m
                or not any(c.isdigit() for c in m.group())
                or DATE.fullmatch(m.group().strip())
            ):
                return []
            s, e = start + m.start(), start + m.end()
            # `nhc-150679`: the prefix is not part of the identifier (N17.1)
            prefix = re.match(r"[a-z]{2,6}[-/](?=\d)", folded[s:e])
            if prefix and text[s : s + prefix.end()].islower():
                s += prefix.end()
            while e > s and text[e - 1] in "./-":
                e -= 1
            return [(s, e, label)]
        if kind == "date":
            m = DATE.match(fvalue)
            return [(start + m.start(), start + m.end(), label)] if m else []
        if kind == "age":
            m = AGE.match(fvalue)
            if not m:
                return []
            e = start + m.end()
            return [(start, e - (text[e - 1] == ","), label)]
        if kind == "sex":
            m = SEX.match(fvalue)
            return [(start, start + m.end(), label)] if m else []
        if kind == "contact":
            return []  # phones, faxes and e-mails: the identifiers component finds them anywhere
        if kind == "place":
            return self._places(text, start, end, label)
        if kind == "street":
            return self._street(text, start, end, label)
        # text: an institution, a centre, a hospital, a profession: the whole value
        if kind == "text" and not (
            value[0].isupper()
            or value[0].isdigit()
            or label == "PROFESION"
            or caseless_line(text, start, end)
        ):
            return []
        stop = re.search(r"\s[(\[]|\s[-–]\s|;", value)
        if stop:
            end = start + stop.start()
        return [(start, end, label)] if end > start else []

    def _words(self, text: str, start: int, end: int):
        for m in re.finditer(r"[^\s,()\[\]:;/]+|[,()\[\]:;/]", text[start:end]):
            yield start + m.start(), start + m.end(), m.group()

    def _name(
        self, text: str, folded: str, start: int, end: int, label: str
    ) -> list[tuple[int, int, str]]:
        words = list(self._words(text, start, end))
        # a line typed without capitals (`nombre: ana ruiz gil`): any word is a name word up to
        # a Spanish stop word (particles inside a name excepted), a digit or punctuation
        caseless = caseless_line(text, start, end)
        # in a line of capitals the name words are read as in a caseless one: stop words end it
        uncased = caseless or capitals_line(text, start, end)
        i = 0
        while i < len(words) and lower_without_accents(words[i][2]) in TITLES:
            i += 1
        kept: list[tuple[int, int, str]] = []
        for s, e, w in words[i:]:
            f = lower_without_accents(w)
            if w == ",":
                # `RUIZ GIL, ANA`: a comma between surnames and first name stays inside
                if kept and kept[-1][2] != ",":
                    kept.append((s, e, w))
                    continue
                break
            initials = re.fullmatch(r"(?:[A-ZÁÉÍÓÚÑ]\.){1,4}", w)
            if uncased:
                capital = (
                    f not in CASELESS_STOP
                    and f not in self.name_end_verbs
                    and not (f in PARTICLES and not kept)
                )
            else:
                capital = w[0].isupper()
            capital = capital and f.rstrip(".") not in self.name_stop_words
            if initials or (
                capital
                and re.fullmatch(r"[\w'’.-]+", w)
                and any(c.isalpha() for c in w)
                and not any(c.isdigit() for c in w)
            ):
                kept.append((s, e, w))
            elif f in PARTICLES and kept:
                kept.append((s, e, w))
            else:
                break
            # `Dr. Luis Gil. C/ Mayor 5`: a dot after a word (not an initial) ends the name
            if (
                w.endswith(".")
                and not initials
                and len(w) > 2
                and not re.fullmatch(r"[A-ZÁÉÍÓÚÑ][a-záéíóúñ]?\.", w)
            ):
                break
            if len([k for k in kept if k[2] != ","]) >= self.max_name_words:
                break
        while kept and (lower_without_accents(kept[-1][2]) in PARTICLES or kept[-1][2] == ","):
            kept.pop()
        if not kept or not (caseless or any(c.isupper() for c in kept[0][2])):
            return []
        # `RUIZ GIL, ANA`: surnames and first name separated by a comma are two mentions
        # (guideline M1.1: one mention only when separated by blanks or hyphens)
        groups: list[list[tuple[int, int, str]]] = []
        current: list[tuple[int, int, str]] = []
        for word in kept:
            if word[2] == ",":
                groups.append(current)
                current = []
            else:
                current.append(word)
        groups.append(current)
        # the comma form is `SURNAMES, NAME` in capitals, or a value that ends with the name;
        # otherwise what follows a comma is something else (`Dr. Ana Gil, DIAVERUM S.A.`)
        rest = text[groups[-1][-1][1] : end].strip(" .") if groups[-1] else ""
        if len(groups) > 1 and not (all(w[2].isupper() for w in groups[0]) or not rest):
            groups = groups[:1]
        out = []
        for group in groups:
            while group and lower_without_accents(group[-1][2]) in PARTICLES:
                group.pop()
            if not group:
                continue
            e = group[-1][1]
            # a final dot stays only after an initial (`M.`), not after a word (`Gil.`)
            while text[e - 1] == "." and not re.search(
                r"(?:^|[\s.])[A-ZÁÉÍÓÚÑ]\.$", text[group[0][0] : e]
            ):
                e -= 1
            out.append((group[0][0], e, label))
        return out

    def _places(self, text: str, start: int, end: int, label: str) -> list[tuple[int, int, str]]:
        out = []
        for m in re.finditer(r"[^,()/;]+", text[start:end]):
            s, e = start + m.start(), start + m.end()
            chunk = text[s:e]
            for part in re.split(r"\s[-–]\s", chunk):
                offset = chunk.find(part)
                ps, pe = s + offset, s + offset + len(part)
                while ps < pe and text[ps] in " \t.":
                    ps += 1
                while pe > ps and text[pe - 1] in " \t.":
                    pe -= 1
                if pe > ps and (text[ps].isupper() or text[ps].isdigit()):
                    # `28001 Madrid`: a postal code and its town are two places
                    code = re.match(r"\d{5}\s+(?=\D)", text[ps:pe])
                    if code:
                        out.append((ps, ps + 5, label))
                        ps += code.end()
                    out.append((ps, pe, label))
        return out

    def _street(self, text: str, start: int, end: int, label: str) -> list[tuple[int, int, str]]:
        value = text[start:end]
        # `C/ Mayor 5, 3º B, 28001 Madrid`: the street up to a postal code; what follows
        # it (the postal code and the town) are places
        cut = re.search(r",?\s*(?<!\d)(\d{5})(?!\d)", value)
        if cut and cut.start() > 0:
            street_end = start + cut.start()
            return [(start, street_end, label)] + self._places(
                text, start + cut.start(1), end, "TERRITORIO"
            )
        return [(start, end, label)]

    # --- prose, signatures and salutations ----------------------------------------
    def _phrase_values(self, text: str, folded: str) -> list[tuple[int, int, str]]:
        out = []
        for m, target in self._phrases.finditer(folded):
            s, e = m.start(), m.end()
            if (
                s > 0
                and folded[s - 1].isalnum()
                or e < len(folded)
                and folded[e].isalnum()
                and folded[e - 1].isalnum()
            ):
                continue
            label, kind = target
            if (
                kind == "name"
                and set(folded[max(0, s - 20) : s].replace("/", " ").split()[-1:])
                & self.place_heads
            ):
                continue  # `Hospital Dr. Peset`, `Calle Dr. Fleming`: a place named after someone
            if kind == "name" and "\n" in text[s:e]:
                # a cue at a line end (`3 D.` closing an address) names nobody on the next line
                continue
            if kind == "name" and len(text[s:e].strip(" .\t")) == 1:
                # `D.` (Don) only with its dot, not after a number (`3º
                # D.`, a door) or a doctor's title
                if (
                    not text[s:e].rstrip().endswith(".")
                    or re.search(r"\d\S*\s*$", text[max(0, s - 4) : s])
                    or folded[max(0, s - 6) : s].split()[-1:] in (["dr."], ["dra."])
                ):
                    continue
            if kind == "name":
                # a title or cue, then the name itself: no filler words in between (`el Dr. Gil`,
                # `la paciente Ana Ruiz`); a patient cue after a kinship word names a relative
                line_end = _LINE_END.search(text, e)
                vend = line_end.start() if line_end else len(text)
                names = self._name(text, folded, e, vend, label)
                if not names and label == "NOMBRE_PERSONAL_SANITARIO":
                    # `la psicóloga de la unidad, Catalina Vidal`, `la logopeda, Irene Mateos`: a
                    # role, a short lower-case complement and a comma,
                    # then a name of two words or more
                    m = _ROLE_COMPLEMENT.match(text, e, vend)
                    if m:
                        names = [
                            n
                            for n in self._name(text, folded, m.end(), vend, label)[:1]
                            if len(text[n[0] : n[1]].split()) >= 2
                        ]
                before = {
                    w.rstrip(",") for w in folded[max(0, s - 30) : s].split()[-3:]
                }  # `su hija, la Sra. ...`
                if label == "NOMBRE_SUJETO_ASISTENCIA" and before & self.kinship_words:
                    names = [(a, b, "FAMILIARES_SUJETO_ASISTENCIA") for a, b, _ in names]
                out.extend(names)
                continue
            i, skipped = e, 0
            while skipped <= self.phrase_window:
                w = re.match(r"[ \t]*([^\s]+)", folded[i:])
                if not w:
                    break
                word = w.group(1).rstrip(",")
                if word.rstrip(".:") in self.filler_words or word in (":", "-"):
                    i += w.end()
                    skipped += 1
                    continue
                line_end = _LINE_END.search(text, i)
                vend = line_end.start() if line_end else len(text)
                if kind == "name":
                    out.extend(self._name(text, folded, i, vend, label))
                elif kind == "id":
                    # in prose an identifier has four digits or more and is not a date
                    out.extend(
                        v
                        for v in self._value(text, folded, i, vend, label, kind)
                        if sum(c.isdigit() for c in text[v[0] : v[1]]) >= 4
                        and not DATE.fullmatch(folded[v[0] : v[1]])
                    )
                else:
                    out.extend(self._value(text, folded, i, vend, label, kind))
                break
        return out

    def _next_line_values(self, text: str, folded: str) -> list[tuple[int, int, str]]:
        """`Atentamente,` / (blank lines) / `Dra. Ana Ruiz Gil`: the name on the first
        non-blank line after a signature cue."""
        out = []
        for m, target in self._next_line.finditer(folded):
            line_start = folded.rfind("\n", 0, m.start()) + 1
            line_end = folded.find("\n", m.end())
            if (
                line_end == -1
                or folded[line_start : m.start()].strip()
                or folded[m.end() : line_end].strip(" \t,.:")
            ):
                continue
            label, kind = target
            nxt = re.compile(r"\s*\n[ \t]*([^\n]+)").match(text, line_end)
            if nxt:
                out.extend(self._name(text, folded, nxt.start(1), nxt.end(1), label))
        return out

    def _salutation_values(self, text: str, folded: str) -> list[tuple[int, int, str]]:
        """`Estimada Sra. Ruiz:`, `Estimado Dr. Gil,`: the addressee, staff after a
        doctor's title, else the label of the entry (the patient)."""
        out: list[tuple[int, int, str]] = []
        for m, target in self._salutation.finditer(folded):
            label, _kind = target
            line_end = _LINE_END.search(text, m.end())
            vend = line_end.start() if line_end else len(text)
            title = re.match(r"\s*(dr\.?|dra\.?|doctor|doctora)\s", folded[m.end() : vend])
            who = "NOMBRE_PERSONAL_SANITARIO" if title else label
            names = self._name(text, folded, m.end(), vend, who)
            # a salutation ends at its colon or comma: `Estimado compañero:` has no name
            out.extend(n for n in names if text[n[1] : vend].lstrip()[:1] in (":", ",", ""))
        return out

    # --- the component --------------------------------------------------------------
    def find(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, label) character spans of the field values in `text`."""
        folded = lower_without_accents(text)
        keys = self._key_matches(folded)
        key_starts = sorted(k[0] for k in keys)
        out = []
        for _key_start, vstart, (label, kind), layout in keys:
            if layout == "next_line":
                line_end = _LINE_END.search(text, vstart)
                vend = line_end.start() if line_end else len(text)
                if any(vstart <= k < vend and k == vstart for k in key_starts):
                    continue  # the next line is itself a key
            else:
                vend = self._value_end(text, vstart, key_starts)
            out.extend(self._value(text, folded, vstart, vend, label, kind))
        out.extend(self._phrase_values(text, folded))
        out.extend(self._next_line_values(text, folded))
        out.extend(self._salutation_values(text, folded))
        return out

    def __call__(self, doc: Doc) -> Doc:
        rules = list(doc.spans.get(self.rules_key, []))
        taken: set[int] = set()
        for span in rules:
            taken.update(range(span.start, span.end))
        # a referral footer (`Remitido por: Dr. ...`, what the section segmenter calls the
        # footer) is left to the NER for names: on MEDDOCAN dev, names taken there by key
        # ran into the street after them (staff-name F1 0.980 without, 0.915 with)
        footer = next(
            (s for s in doc.spans.get(self.sections_key, []) if s.label_ == "footer"), None
        )
        spans = []
        for start, end, label in self.find(doc.text):
            span = doc.char_span(start, end, label=label, alignment_mode="expand")
            if (
                span is None
                or not span.text.strip()
                or any(i in taken for i in range(span.start, span.end))
            ):
                continue
            if (
                footer is not None
                and label in NAME_LABELS
                and footer.start <= span.start < footer.end
            ):
                continue
            spans.append(span)
        spans = filter_spans(spans)
        doc.spans[self.spans_key] = spans
        if spans:
            doc.spans[self.rules_key] = filter_spans(rules + spans)
            doc.ents = prioritize_new_ents_filter(
                doc.ents, spans
            )  # the field values replace what they overlap
        return doc

    # --- serialization --------------------------------------------------------------
    state_files = {"entries": "fields.jsonl"}

    def get_state(self) -> dict:
        return {"entries": self.entries}

    def set_state(self, state: dict) -> None:
        self.entries = validate_entries(state.get("entries", []))
        self._compile()
