"""The MEDDOCAN labels and their facts, read from one table: `data/labels.tsv` (package data).

One row a label, in the guidelines' order: its Presidio entity name (and the more precise
names its value may earn), its surrogate generator, its review colour, whether it is an
identifier (known values match with separators ignored), whether it names a person, the
digit-run exception of its surrogates, whether the default options keep it, and the groups it
belongs to (a place, a person's name, a phone number...: `labels_with`). The modules that use
these facts (constants, presidio_entities, deid.review, deid.surrogates, deid.operators,
deid.known_phi, lexicon, the pipeline's components) read them here; none writes them out.
Reads a file only: no spaCy, no other module of the package.
"""

import csv
from pathlib import Path
from typing import NamedTuple

TABLE = Path(__file__).parent / "data" / "labels.tsv"
COLUMNS = (
    "label",
    "presidio",
    "presidio_by_value",
    "surrogate",
    "colour",
    "identifier",
    "person",
    "digit_rule",
    "kept",
    "groups",
)
YES_NO = {"yes": True, "no": False}


class LabelFacts(NamedTuple):
    label: str
    presidio: str  # Presidio's entity name
    presidio_by_value: tuple[str, ...]  # names a value may earn instead, checked in this order
    surrogate: str  # "module.function" of meddocan_deid.deid.surrogates
    colour: str  # CSS colour of the review pages
    identifier: bool  # a code: known values and deny-list terms match with separators ignored
    person: bool  # names a person: known names match by their parts
    digit_rule: (
        str  # "", "date" or "phone": the exception of the digit-run rule its surrogates follow
    )
    kept: bool  # the default options keep its value
    groups: frozenset[str]  # its groups: `place`, `name`, `phone`... (the table's head)


class LabelTableError(ValueError):
    """The label table is malformed (a packaging or editing mistake)."""


def _flag(value: str, where: str) -> bool:
    if value not in YES_NO:
        raise LabelTableError(f"{where}: expected yes or no, not {value!r}")
    return YES_NO[value]


def read_table(path: Path = TABLE) -> dict[str, LabelFacts]:
    """The table at `path`: label -> LabelFacts, in file order."""
    lines = [
        line
        for line in Path(path).read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    rows = list(csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or tuple(rows[0]) != COLUMNS:
        raise LabelTableError(f"{path}: the header must be {' '.join(COLUMNS)}")
    facts: dict[str, LabelFacts] = {}
    for n, row in enumerate(rows[1:], start=2):
        where = f"{path.name}, row {n}"
        if len(row) != len(COLUMNS):
            raise LabelTableError(f"{where}: {len(row)} columns, expected {len(COLUMNS)}")
        cell = dict(zip(COLUMNS, (c.strip() for c in row)))
        label = cell["label"]
        if label in facts:
            raise LabelTableError(f"{where}: {label} is listed twice")
        if cell["digit_rule"] not in ("-", "date", "phone"):
            raise LabelTableError(f"{where}: digit_rule must be -, date or phone")
        if "." not in cell["surrogate"]:
            raise LabelTableError(f"{where}: surrogate must be module.function")
        facts[label] = LabelFacts(
            label=label,
            presidio=cell["presidio"],
            presidio_by_value=tuple(cell["presidio_by_value"].split())
            if cell["presidio_by_value"] != "-"
            else (),
            surrogate=cell["surrogate"],
            colour=cell["colour"],
            identifier=_flag(cell["identifier"], f"{where}, identifier"),
            person=_flag(cell["person"], f"{where}, person"),
            digit_rule="" if cell["digit_rule"] == "-" else cell["digit_rule"],
            kept=_flag(cell["kept"], f"{where}, kept"),
            groups=frozenset(cell["groups"].split()) if cell["groups"] != "-" else frozenset(),
        )
    return facts


FACTS: dict[str, LabelFacts] = read_table()
LABELS: tuple[str, ...] = tuple(FACTS)
PRESIDIO: dict[str, str] = {label: f.presidio for label, f in FACTS.items()}
PRESIDIO_BY_VALUE: dict[str, tuple[str, ...]] = {
    label: f.presidio_by_value for label, f in FACTS.items() if f.presidio_by_value
}
SURROGATES: dict[str, str] = {label: f.surrogate for label, f in FACTS.items()}
COLOURS: dict[str, str] = {label: f.colour for label, f in FACTS.items()}
PERSON_LABELS: tuple[str, ...] = tuple(label for label, f in FACTS.items() if f.person)
IDENTIFIER_LABELS: tuple[str, ...] = tuple(label for label, f in FACTS.items() if f.identifier)
DIGIT_RULES: dict[str, str] = {label: f.digit_rule for label, f in FACTS.items() if f.digit_rule}
KEPT_LABELS: tuple[str, ...] = tuple(label for label, f in FACTS.items() if f.kept)
GROUPS: frozenset[str] = frozenset(group for f in FACTS.values() for group in f.groups)


def labels_with(*groups: str) -> tuple[str, ...]:
    """The labels that belong to any of `groups`, in the table's order. A group no label of the
    table belongs to is refused (a misspelt name would otherwise select nothing)."""
    unknown = sorted(set(groups) - GROUPS)
    if not groups or unknown:
        raise LabelTableError(
            f"{TABLE.name}: no label is in group {', '.join(unknown) or '(none given)'}; "
            f"the groups are {', '.join(sorted(GROUPS))}"
        )
    return tuple(label for label, f in FACTS.items() if f.groups & set(groups))
