"""Clinical codes recognised by their own rules: terminology ids, trial numbers, variants,
karyotypes, and the numbers of things (a lot, a device model, a bed, a room, an EHR product,
a drug's sanitary registration, a form).

None of them identifies a person, and a researcher needs them. Pure functions over a string;
no spaCy object. `find_codes(text, words)` returns every code in a text as `Code(start, end,
kind, cue_start)` (`cue_start`: where the cue word that made it a code starts, for a lot, a bed
or a room; where a model's product line starts, after its brand; else `start`).

How each kind is recognised (decided once, here):

* `snomed`: 6 to 18 digits, a valid Verhoeff check digit over the whole id and a partition
  identifier (the two digits before the check digit) of a concept, description or relationship
  id: 00/01/02 (short ids), 10/11/12 (extension ids). A random number passes both checks one
  time in 333, so a phone, a record or an account number would pass too often: a SNOMED id also
  needs a cue (`SNOMED`, `SCTID`...) before it on its line, or to follow one in a list.
* `meddra`: eight digits from 10000000 to 10099999 (the range MedDRA's LLT/PT codes use) after
  a cue (`MedDRA`, `PT`, `LLT`, `HLT`, `HLGT`, `SOC`) or in a list that follows one: no check
  digit, so never alone.
* `loinc`: `NNNNN-C` whose check digit is the Luhn (mod 10) digit of the number: alone.
* `eudract` (`YYYY-NNNNNN-CC`, a year from 2004), `euct` (`YYYY-5NNNNN-NN-NN`, the EU CTR
  numbers from 2019), `nct` (`NCT` + 8 digits): alone.
* `icd10`: a letter, two digits, a dot and one to four characters (`C34.1`, `S72.001A`) alone;
  without the dot (`C61`, three characters that a door or a bed could be) only after a cue
  (`CIE-10`, `ICD`, `diagnóstico`...) or in a list that follows one.
* `atc`: the full seven characters (`C10AA05`): anatomical group, two digits, two letters, two
  digits: alone.
* `hgvs`: a c., g., m., n., r. or p. variant, optionally after its reference sequence
  (`NM_000546.6:c.524G>A`): substitutions, `del`, `dup`, `ins`, `delins`, `inv`, `fs`, intron
  offsets, with or without parentheses, one- or three-letter amino acids; `rs` ids of dbSNP.
* `karyotype`: a chromosome count from 44 to 49, the sex chromosomes and any number of
  changes (`47,XY,+21`, `46,XX,t(9;22)(q34;q11)`).
* `registration`: a drug's or device's sanitary registration (`INVIMA 2019M-0012345`, `ISP
  F-12345/19`) after its cue (`registro sanitario`, the agency's name); `form`: the number of
  an administrative form after `formato` or `formulario` (`formato 4-30-8`).
* `lot` after `Lote`/`Lot`/`L.`; `model` after a device brand (word list) or `modelo`; `bed`
  and `room` after `cama`, `llit`, `hab.`, `habitación`, `box`, with or without a key's colon
  (`Cama: 412-B`: a bed number identifies no one outside the ward, and the guidelines name no
  bed or room among the PHI); `ehr`: an EHR product's name (word list; names that are also
  people's names, `Selene`, only after an EHR cue).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from stdnum import luhn, verhoeff

SNOMED_PARTITIONS = frozenset({"00", "01", "02", "10", "11", "12"})
MEDDRA_RANGE = (10000000, 10099999)
EUDRACT_FIRST_YEAR = 2004  # the EudraCT database opened in May 2004
EUCT_FIRST_YEAR = 2019
SENTENCE_END = re.compile(r"[.;](?=\s)")
LIST_GAP = 80  # characters between two codes of one list (a term in brackets between them)

# --- the checks, one per kind ---------------------------------------------------------------


def snomed_id(value: str) -> bool:
    """A SNOMED CT id: 6 to 18 digits, no leading zero, the partition identifier of a short
    or extension id and a valid Verhoeff check digit."""
    return (
        value.isdigit()
        and 6 <= len(value) <= 18
        and value[0] != "0"
        and value[-3:-1] in SNOMED_PARTITIONS
        and verhoeff.is_valid(value)
    )


def meddra_code(value: str) -> bool:
    """An eight-digit MedDRA LLT/PT/HLT code (no check digit: only the range)."""
    return value.isdigit() and len(value) == 8 and MEDDRA_RANGE[0] <= int(value) <= MEDDRA_RANGE[1]


def loinc_code(value: str) -> bool:
    """A LOINC code `NNNNN-C`: the check digit is the Luhn (mod 10) digit of the number."""
    m = re.fullmatch(r"(\d{1,5})-(\d)", value)
    return m is not None and luhn.calc_check_digit(m.group(1)) == m.group(2)


def eudract_number(value: str) -> bool:
    """A EudraCT number `YYYY-NNNNNN-CC` (a year the database was open)."""
    m = re.fullmatch(r"(\d{4})-\d{6}-\d{2}", value)
    return m is not None and EUDRACT_FIRST_YEAR <= int(m.group(1)) <= 2039


def euct_number(value: str) -> bool:
    """An EU CT number (Regulation 536/2014, CTIS) `YYYY-5NNNNN-NN-NN`."""
    m = re.fullmatch(r"(\d{4})-5\d{5}-\d{2}-\d{2}", value)
    return m is not None and EUCT_FIRST_YEAR <= int(m.group(1)) <= 2039


def nct_number(value: str) -> bool:
    """A ClinicalTrials.gov id: `NCT` and eight digits."""
    return re.fullmatch(r"NCT\d{8}", value) is not None


ICD10 = re.compile(r"[A-Z]\d{2}(?:\.[0-9A-Z]{1,4})?")
ICD10_DOTTED = re.compile(r"[A-Z]\d[0-9A-Z]\.[0-9A-Z]{1,4}")


def icd10_code(value: str, cued: bool = False) -> bool:
    """An ICD-10 / CIE-10 code; the three-character category only after a cue."""
    if ICD10_DOTTED.fullmatch(value):
        return not value[-1].isalpha() or any(c.isdigit() for c in value.split(".")[1])
    return cued and ICD10.fullmatch(value) is not None


ATC = re.compile(r"[ABCDGHJLMNPRSV]\d{2}[A-Z]{2}\d{2}")


def atc_code(value: str) -> bool:
    """A full (fifth-level) ATC code: `C10AA05`."""
    return ATC.fullmatch(value) is not None


AMINO3 = (
    "Ala|Arg|Asn|Asp|Cys|Gln|Glu|Gly|His|Ile|Leu|Lys|Met|Phe|Pro|Ser|Thr|Trp|Tyr|Val"
    "|Sec|Pyl|Ter|Xaa"
)
AMINO = f"(?:{AMINO3}|[ACDEFGHIKLMNPQRSTVWY*])"
_PROTEIN_CHANGE = (
    f"(?:{AMINO}\\d+(?:_{AMINO}\\d+)?"
    f"(?:delins{AMINO}+|del|dup|ins{AMINO}+|fs(?:Ter|\\*)?\\d*|ext(?:Ter|\\*)?-?\\d*|{AMINO}(?:fs(?:Ter|\\*)?\\d*)?|=|\\?)"
    f"|=|\\?|0)"
)
PROTEIN = f"p\\.(?:\\({_PROTEIN_CHANGE}\\)|{_PROTEIN_CHANGE})"
_POSITION = r"[*-]?\d+(?:[+-]\d+)?"
_NUCLEOTIDE_CHANGE = (
    f"\\(?{_POSITION}(?:_{_POSITION})?\\)?"
    r"(?:[ACGTUacgtu]>[ACGTUacgtu]|delins[ACGTUacgtu]+|del[ACGTUacgtu]*|dup[ACGTUacgtu]*"
    r"|ins[ACGTUacgtu]+|inv|=|\[\d+\])"
)
NUCLEOTIDE = f"[cgmnr]\\.(?:\\({_NUCLEOTIDE_CHANGE}\\)|{_NUCLEOTIDE_CHANGE})"
HGVS = re.compile(
    f"(?:(?:N[CGMRP]|X[MRP]|ENST|LRG)_?\\d+(?:\\.\\d+)?(?:\\([A-Z0-9]+\\))?:)?(?:{PROTEIN}|{NUCLEOTIDE})"
    r"|rs\d{3,}"
)


def hgvs_variant(value: str) -> bool:
    """An HGVS variant (c., g., m., n., r., p.; `p.(Arg175His)`, `p.R175H`, `c.68_69delAG`,
    `c.88+1G>T`, `NM_000546.6:c.524G>A`) or a dbSNP id (`rs121913529`)."""
    return HGVS.fullmatch(value) is not None


_SEX = r"(?:X{1,4}Y{0,3}|Y{1,2})"
_CHANGE = (
    r"(?:[+-](?:\d{1,2}|[XY])(?:\[\d+\])?"
    r"|(?:t|del|dup|inv|ins|i|r|der|add|rob|idic|dic|mar|fra)\([\dXY;]+\)(?:\([pq\d.;pq-]+\))?"
    r"|mar\d?|\d{1,2}[pq][+-]?)"
)
KARYOTYPE = re.compile(f"(?:4[4-9]|6[89]|9[0-2]),{_SEX}(?:,{_CHANGE})*(?:\\[\\d+\\])?")


def karyotype(value: str) -> bool:
    """An ISCN karyotype: `46,XX`, `47,XY,+21`, `45,X`, `46,XX,t(9;22)(q34;q11)`."""
    return KARYOTYPE.fullmatch(value) is not None


CHECKS = {
    "snomed": snomed_id,
    "meddra": meddra_code,
    "loinc": loinc_code,
    "eudract": eudract_number,
    "euct": euct_number,
    "nct": nct_number,
    "icd10": icd10_code,
    "atc": atc_code,
    "hgvs": hgvs_variant,
    "karyotype": karyotype,
}

# --- finding them in a text ------------------------------------------------------------------

KINDS = (
    "snomed",
    "meddra",
    "loinc",
    "eudract",
    "euct",
    "nct",
    "icd10",
    "atc",
    "hgvs",
    "karyotype",
    "lot",
    "model",
    "bed",
    "room",
    "ehr",
    "registration",
    "form",
)
# kinds read after a cue word of their own: the cue is part of what is kept (`cama 12`)
CUE_KINDS = ("lot", "bed", "room")
# kinds recognised by their check alone, and those that need a cue or a list
ALONE = ("loinc", "eudract", "euct", "nct", "atc", "hgvs", "karyotype")
LISTED = ("snomed", "meddra", "icd10")
NEED_CUE = ("snomed", "meddra", "icd10_category")

_B = r"(?<![\w.,/+-])"  # not glued to a word, a number or a sign before
_E = r"(?![\w]|[.,/-][\w])"  # nor after (a sentence's final period is fine)
CANDIDATES = {
    "digits": re.compile(f"{_B}\\d{{6,18}}{_E}"),
    "loinc": re.compile(f"{_B}\\d{{1,5}}-\\d{_E}"),
    "eudract": re.compile(f"{_B}\\d{{4}}-\\d{{6}}-\\d{{2}}{_E}"),
    "euct": re.compile(f"{_B}\\d{{4}}-\\d{{6}}-\\d{{2}}-\\d{{2}}{_E}"),
    "nct": re.compile(f"{_B}NCT\\d{{8}}{_E}"),
    "icd10": re.compile(f"{_B}[A-Z]\\d[0-9A-Z](?:\\.[0-9A-Z]{{1,4}})?{_E}"),
    "atc": re.compile(f"{_B}{ATC.pattern}{_E}"),
    "hgvs": re.compile(f"(?<![\\w.])(?:{HGVS.pattern})(?![\\w>]|[.,][\\w])"),
    "karyotype": re.compile(f"(?<![\\w.,]){KARYOTYPE.pattern}(?![\\w(]|[,.][\\w+-])"),
}
_VALUE = r"[A-Z0-9][A-Za-z0-9]*(?:[-/.][A-Za-z0-9]+)*"


class Code(NamedTuple):
    start: int
    end: int
    kind: str
    cue_start: int


class CodeWords(NamedTuple):
    """The word lists a language gives the finder
    (meddocan_deid/pipeline/data/<lang>/clinical_codes.json)."""

    cues: dict[
        str, Sequence[str]
    ]  # kind -> cue words (snomed, meddra, icd10, lot, model, bed, room, ehr)
    phi_keys: Sequence[str]  # keys that name a PHI value: `NHC`, `SIP`, `DNI`...
    brands: Sequence[str]  # device makers and brands, before a model number
    ehr_products: Sequence[str]  # EHR product names that name nothing else
    ehr_products_cued: Sequence[str]  # ... that are also people's names: after an EHR cue only


def _words_regex(words: Iterable[str], flags: int = re.IGNORECASE) -> re.Pattern | None:
    words = sorted(set(words), key=len, reverse=True)
    if not words:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, words)) + r")(?!\w)", flags)


class CodeFinder:
    """Finds the clinical codes of `kinds` in a text (see the module docstring)."""

    def __init__(self, words: CodeWords, kinds: Sequence[str] = KINDS, cue_window: int = 40):
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(
                f"unknown clinical code kind(s) {sorted(unknown)} (known: {list(KINDS)})"
            )
        self.kinds = tuple(kinds)
        self.cue_window = cue_window
        self._cues = {kind: _words_regex(words.cues.get(kind, ())) for kind in KINDS}
        self._phi_keys = _words_regex(words.phi_keys)
        # `L.` is a lot only with its capital and period (`L. 4521B`), `Lote`/`lot` in any case
        lot = self._cues["lot"]
        lot_cue = f"(?:{lot.pattern}|(?<!\\w)L\\.)" if lot is not None else r"(?<!\w)L\."
        # one blank run between any two parts (runs side by side backtrack: quadratic on a
        # cue and thousands of spaces)
        connector = r"[ \t]*(?:(?:n[º°o]\.?|núm\.?|número)[ \t]*)?(?:[:#][ \t]*)?"
        self._after_cue = {
            kind: re.compile(
                f"(?P<cue>{cue}){connector}(?P<value>{_VALUE})(?![\\w-])",
                re.IGNORECASE if kind != "lot" else 0,
            )
            for kind, cue in (
                ("lot", lot_cue),
                ("bed", self._pattern("bed")),
                ("room", self._pattern("room")),
                ("model", self._pattern("model")),
                ("registration", self._pattern("registration")),
                ("form", self._pattern("form")),
            )
            if cue is not None
        }
        brands = _words_regex(words.brands, 0)
        # a brand, up to three words of its product line, then the model number (a digit in it)
        self._brand_model = (
            re.compile(
                f"(?P<cue>{brands.pattern})"
                r"(?:[ \t]+(?:[A-Z][\w+®™-]*|[ivxIVX]+)){0,3}?"
                "[ \t]+(?P<value>"
                r"(?=[A-Za-z0-9/.-]*\d)[A-Z0-9][A-Za-z0-9]*(?:[-/.][A-Za-z0-9]+)*)(?![\w-])"
            )
            if brands is not None
            else None
        )
        self._ehr = _words_regex(words.ehr_products, 0)
        self._ehr_cued = _words_regex(words.ehr_products_cued, 0)

    def _pattern(self, kind: str) -> str | None:
        regex = self._cues.get(kind)
        return regex.pattern if regex is not None else None

    def _cue_before(self, kind: str, text: str, start: int) -> int | None:
        """Where the last cue of `kind` starts in the line before `start` (at most cue_window
        characters back), unless a PHI key stands between it and the code."""
        regex = self._cues.get(kind)
        if regex is None:
            return None
        line_start = text.rfind("\n", 0, start) + 1
        window_start = max(line_start, start - self.cue_window)
        last = None
        for m in regex.finditer(text, window_start, start):
            last = m
        # a sentence end between them, or a PHI key after the cue, and the cue is another's
        if (
            last is None
            or SENTENCE_END.search(text, last.end(), start)
            or self.keyed(text, start, after=last.end())
        ):
            return None
        return last.start()

    def keyed(self, text: str, start: int, after: int = -1) -> bool:
        """A key that names a PHI value (`NHC`, `SIP`...) in the line before `start` (within
        cue_window characters), after offset `after`: the value is the
        patient's, whatever it looks like."""
        if self._phi_keys is None:
            return False
        line_start = text.rfind("\n", 0, start) + 1
        window_start = max(line_start, start - self.cue_window, after)
        # a key of an earlier sentence names another value (`Historia en Diraya. EudraCT ...`)
        return any(
            not SENTENCE_END.search(text, m.end(), start)
            for m in self._phi_keys.finditer(text, window_start, start)
        )

    def find(self, text: str) -> list[Code]:
        """Every code of the finder's kinds, by start (the longest at a place)."""
        found: list[Code] = []
        kinds = set(self.kinds)
        for m in CANDIDATES["digits"].finditer(text):
            value = m.group()
            if "snomed" in kinds and snomed_id(value):
                found.append(Code(m.start(), m.end(), "snomed", m.start()))
            if "meddra" in kinds and meddra_code(value):
                found.append(Code(m.start(), m.end(), "meddra", m.start()))
        for kind in ("loinc", "eudract", "euct", "nct", "atc", "hgvs", "karyotype", "icd10"):
            if kind not in kinds:
                continue
            for m in CANDIDATES[kind].finditer(text):
                value = m.group()
                if kind == "icd10":
                    if self.keyed(text, m.start()):
                        continue
                    if ICD10_DOTTED.fullmatch(value) and icd10_code(value):
                        found.append(Code(m.start(), m.end(), kind, m.start()))
                    elif ICD10.fullmatch(value):
                        found.append(Code(m.start(), m.end(), "icd10_category", m.start()))
                elif CHECKS[kind](value) and not self.keyed(text, m.start()):
                    found.append(Code(m.start(), m.end(), kind, m.start()))
        found = self._listed(text, found)
        for kind, regex in self._after_cue.items():
            if kind not in kinds:
                continue
            for m in regex.finditer(text):
                value = m.group("value")
                if kind in ("bed", "room") and not re.fullmatch(
                    r"\d{1,4}(?:-?[A-Za-z])?(?:[-/]\d{1,3}[A-Za-z]?)?", value
                ):
                    continue
                if kind in ("lot", "model", "registration", "form") and not any(
                    c.isdigit() for c in value
                ):
                    continue
                if self.keyed(text, m.start("value"), after=m.end("cue")):
                    continue
                cue_start = m.start("cue") if kind in CUE_KINDS else m.start("value")
                found.append(Code(m.start("value"), m.end("value"), kind, cue_start))
        if "model" in kinds and self._brand_model is not None:
            for m in self._brand_model.finditer(text):
                if not self.keyed(text, m.start("value"), after=m.end("cue")):
                    # the product line goes with the model (`Resonate
                    # OXV00`), the maker stays a maker
                    line_start = (
                        m.end("cue")
                        + len(text[m.end("cue") : m.start("value")])
                        - len(text[m.end("cue") : m.start("value")].lstrip())
                    )
                    found.append(Code(m.start("value"), m.end("value"), "model", line_start))
        if "ehr" in kinds:
            for ehr, cued in ((self._ehr, False), (self._ehr_cued, True)):
                for m in ehr.finditer(text) if ehr is not None else ():
                    if not cued or self._cue_before("ehr", text, m.start()) is not None:
                        found.append(Code(m.start(), m.end(), "ehr", m.start()))
        found.sort(key=lambda c: (c.start, -(c.end - c.start)))
        out: list[Code] = []
        for code in found:
            if not out or code.start >= out[-1].end:
                out.append(code)
        return out

    def _listed(self, text: str, found: list[Code]) -> list[Code]:
        """Keep the kinds that need a cue (snomed, meddra, a three-character ICD-10 category)
        when one is before them on their line, or when they follow a kept code of their kind in
        a list (no sentence end, line break or PHI key between the two)."""
        out: list[Code] = []
        last_end: dict[str, int] = {}
        for code in sorted(found, key=lambda c: c.start):
            kind = "icd10" if code.kind == "icd10_category" else code.kind
            if code.kind not in NEED_CUE:
                out.append(code)
                if kind in LISTED:
                    last_end[kind] = code.end
                continue
            cue = self._cue_before(kind, text, code.start)
            previous = last_end.get(kind)
            listed = (
                previous is not None
                and code.start - previous <= LIST_GAP
                and not re.search(r"\n", text[previous : code.start])
                and not SENTENCE_END.search(text, previous, code.start)
                and not self.keyed(text, code.start, after=previous)
            )
            if cue is not None or listed:
                out.append(Code(code.start, code.end, kind, cue if cue is not None else code.start))
                last_end[kind] = code.end
        return out
