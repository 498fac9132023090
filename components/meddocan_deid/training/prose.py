"""Invented sentences for the augmented copies: PHI in prose, with surrogate values.

MEDDOCAN's train reports name towns in address blocks, relatives mostly as a kinship
word, and hardly any profession, employer, health centre or episode number (train counts:
PROFESION 24, OTROS_SUJETO_ASISTENCIA 9, CENTRO_SALUD 6), so an NER trained on them misses
these in other reports' prose. A `ProseMaker` writes sentences from templates
(`configs/augment/prose.jsonl`) whose slots draw invented values: names, towns, provinces,
hospitals, streets and professions from the task gazetteer (Faker es_ES when there is
none), companies from Faker, dates in the forms Spanish reports use, identifiers of the
usual shapes. A slot's label is fixed by the slot (`SLOTS`), so the offsets of the
entities are known by construction, as in the rest of the augmentation.

Contract: `sentence(kind, rng)` returns segments `(text, label-or-None)`; the same rng
state gives the same sentence. Templates and word lists are data; a bad file gets an
`AugmentError` naming the file and line.
"""

from __future__ import annotations

import collections
import datetime as dt
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import srsly

from ..deid.gazetteer import Gazetteer
from ..deid.surrogates.common import seeded_faker, smart_title
from ..errors import AugmentError

Segment = tuple[str, str | None]
_PLACEHOLDER = re.compile(r"(\{\w+\})")
_FAMILY = "FAMILIARES_SUJETO_ASISTENCIA"

# slot -> label of the value it draws
SLOTS: dict[str, str] = {
    "kin": _FAMILY,
    "relname": _FAMILY,
    "relage": _FAMILY,
    "town": "TERRITORIO",
    "province": "TERRITORIO",
    "cp": "TERRITORIO",
    "street": "CALLE",
    "country": "PAIS",
    "profession": "PROFESION",
    "employer": "OTROS_SUJETO_ASISTENCIA",
    "institution": "INSTITUCION",
    "centre": "CENTRO_SALUD",
    "hospital": "HOSPITAL",
    "date": "FECHAS",
    "age": "EDAD_SUJETO_ASISTENCIA",
    "episode": "ID_CONTACTO_ASISTENCIAL",
    "nhc": "ID_SUJETO_ASISTENCIA",
    "phone": "NUMERO_TELEFONO",
    "staff": "NOMBRE_PERSONAL_SANITARIO",
    "ncol": "ID_TITULACION_PERSONAL_SANITARIO",
}
# word lists the values file must give (slot helpers, not slots)
LISTS = (
    "kin",
    "institution",
    "centre_type",
    "street_type",
    "country",
    "month",
    "month_short",
    "weekday",
)
_ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")


@dataclass
class ProseResources:
    """Templates by kind (prose.jsonl) and word lists by name (prose_values.jsonl)."""

    templates: dict[str, list[str]]
    lists: dict[str, list[str]]

    @classmethod
    def from_dir(cls, directory: Path) -> ProseResources:
        templates_path, values_path = (
            Path(directory) / "prose.jsonl",
            Path(directory) / "prose_values.jsonl",
        )
        for path in (templates_path, values_path):
            if not path.is_file():
                raise AugmentError(f"{path}: file not found")
        templates: dict[str, list[str]] = collections.defaultdict(list)
        for i, row in enumerate(srsly.read_jsonl(templates_path), 1):
            if (
                not isinstance(row, dict)
                or not isinstance(row.get("kind"), str)
                or not isinstance(row.get("text"), str)
            ):
                raise AugmentError(f"{templates_path}:{i}: needs 'kind' and 'text'")
            unknown = {p[1:-1] for p in _PLACEHOLDER.findall(row["text"])} - set(SLOTS)
            if unknown:
                raise AugmentError(
                    f"{templates_path}:{i}: unknown slot {', '.join(sorted(unknown))} "
                    f"(known: {', '.join(sorted(SLOTS))})"
                )
            templates[row["kind"]].append(row["text"])
        lists: dict[str, list[str]] = {}
        for i, row in enumerate(srsly.read_jsonl(values_path), 1):
            if (
                not isinstance(row, dict)
                or not isinstance(row.get("list"), str)
                or not isinstance(row.get("values"), list)
            ):
                raise AugmentError(f"{values_path}:{i}: needs 'list' and a list 'values'")
            lists[row["list"]] = [str(v) for v in row["values"]]
        missing = [name for name in LISTS if not lists.get(name)]
        if missing:
            raise AugmentError(f"{values_path}: no values for {', '.join(missing)}")
        if not templates:
            raise AugmentError(f"{templates_path}: no templates")
        return cls(templates=dict(templates), lists=lists)


class ProseMaker:
    """Fills prose templates with invented values (see the module docstring)."""

    def __init__(self, resources: ProseResources, gazetteer: Gazetteer | None = None):
        self.res = resources
        gaz = gazetteer or Gazetteer({}, None)
        self.first_names = [n for n in gaz.get("first_names") if " " not in n]
        self.surnames = [n for n in gaz.get("surnames") if " " not in n]
        self.towns = list(gaz.get("towns"))
        self.provinces = list(gaz.get("territories"))
        self.hospitals = [h for h in gaz.get("hospitals") if 8 <= len(h) <= 60]
        self.streets = [s for s in gaz.get("streets") if 3 <= len(s) <= 40]
        self.professions = [p for p in gaz.get("professions") if len(p.split()) <= 3]
        self.makers: dict[str, Callable[[random.Random], str]] = {
            "kin": lambda rng: rng.choice(self.res.lists["kin"]),
            "relname": self._person,
            "staff": self._staff,
            "relage": lambda rng: f"{rng.randint(2, 90)} años",
            "age": lambda rng: rng.choice(
                (f"{rng.randint(18, 95)} años", f"{rng.randint(18, 95)} a.")
            ),
            "town": lambda rng: self._pick(rng, self.towns, "city"),
            "province": lambda rng: self._pick(rng, self.provinces, "state"),
            "cp": lambda rng: f"{rng.randint(1, 52):02d}{rng.randint(0, 999):03d}",
            "street": self._street,
            "country": lambda rng: rng.choice(self.res.lists["country"]),
            "profession": self._profession,
            "employer": self._employer,
            "institution": lambda rng: rng.choice(self.res.lists["institution"]),
            "centre": self._centre,
            "hospital": self._hospital,
            "date": self._date,
            "episode": lambda rng: self._shape(
                rng, ("#######", "########", "EP#######", "##/######", "U-######")
            ),
            "nhc": lambda rng: self._shape(rng, ("######", "#######", "########", "HC######")),
            "phone": lambda rng: self._shape(
                rng, ("9## ### ###", "6## ## ## ##", "9########", "6########", "9## ## ## ##")
            ),
            "ncol": lambda rng: self._shape(rng, ("## ## #####", "##/#####", "#########", "#####")),
        }

    def kinds(self) -> list[str]:
        return sorted(self.res.templates)

    def sentence(self, kind: str, rng: random.Random) -> list[Segment]:
        template = rng.choice(self.res.templates[kind])
        out: list[Segment] = []
        for piece in _PLACEHOLDER.split(template):
            if _PLACEHOLDER.fullmatch(piece):
                slot = piece[1:-1]
                out.append((self.makers[slot](rng), SLOTS[slot]))
            elif piece:
                out.append((piece, None))
        # a value at the start of a sentence is capitalised, as a writer would
        if out and out[0][1] is not None and out[0][0][:1].islower():
            out[0] = (out[0][0][:1].upper() + out[0][0][1:], out[0][1])
        return out

    # -- value makers ----------------------------------------------------------------
    @staticmethod
    def _faker(rng: random.Random):
        return seeded_faker(rng.getrandbits(64))

    def _pick(self, rng: random.Random, pool: Sequence[str], faker_method: str) -> str:
        return rng.choice(pool) if pool else getattr(self._faker(rng), faker_method)()

    def _first(self, rng: random.Random) -> str:
        return self._pick(rng, self.first_names, "first_name")

    def _surname(self, rng: random.Random) -> str:
        return self._pick(rng, self.surnames, "last_name")

    def _person(self, rng: random.Random) -> str:
        return rng.choice(
            (
                self._first(rng),
                f"{self._first(rng)} {self._surname(rng)}",
                f"{self._first(rng)} {self._surname(rng)} {self._surname(rng)}",
            )
        )

    def _staff(self, rng: random.Random) -> str:
        first = self._first(rng)
        return rng.choice(
            (
                f"{first} {self._surname(rng)} {self._surname(rng)}",
                f"{first} {self._surname(rng)}",
                f"{first[0]}. {self._surname(rng)}",
                f"{self._surname(rng)} {self._surname(rng)}",
            )
        )

    def _profession(self, rng: random.Random) -> str:
        value = self._pick(rng, self.professions, "job")
        return value.lower() if rng.random() < 0.7 else value

    def _employer(self, rng: random.Random) -> str:
        return self._faker(rng).company()

    def _centre(self, rng: random.Random) -> str:
        kind = rng.choice(self.res.lists["centre_type"])
        town = self._pick(rng, self.towns, "city")
        return f"{kind} {town}" if rng.random() < 0.7 else f"{kind} {self._surname(rng)}"

    def _hospital(self, rng: random.Random) -> str:
        value = self._pick(rng, self.hospitals, "company")
        return value if rng.random() < 0.2 else smart_title(value)

    def _street(self, rng: random.Random) -> str:
        if self.streets:
            base = smart_title(rng.choice(self.streets))
        else:
            base = f"{self._faker(rng).street_name()}, {rng.randint(1, 200)}"
        return f"{rng.choice(self.res.lists['street_type'])} {base}"

    @staticmethod
    def _shape(rng: random.Random, shapes: Sequence[str]) -> str:
        return "".join(str(rng.randint(0, 9)) if c == "#" else c for c in rng.choice(shapes))

    def _date(self, rng: random.Random) -> str:
        d = dt.date(2000, 1, 1) + dt.timedelta(days=rng.randint(0, 9500))
        lists = self.res.lists
        month, short = lists["month"][d.month - 1], lists["month_short"][d.month - 1]
        forms = (
            f"{d:%d/%m/%Y}",
            f"{d.day}/{d.month}/{d:%y}",
            f"{d:%d-%m-%Y}",
            f"{d:%d.%m.%Y}",
            f"{d:%Y-%m-%d}",
            f"{d.day} de {month} de {d.year}",
            f"{d.day} de {month}",
            f"{d.day}-{_ROMAN[d.month - 1]}-{d.year}",
            f"{d.day} {short} {d.year}",
            f"{month} de {d.year}",
            f"{lists['weekday'][d.weekday()]} {d.day}",
            f"{d:%d/%m/%y}",
        )
        return rng.choice(forms)
