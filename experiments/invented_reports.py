"""Invented Spanish clinical reports with their gold PHI, made with Faker (es_ES), for the worked
release: each report is written slot by slot, so the gold spans are known by construction.

    PYTHONPATH=components python experiments/invented_reports.py OUT_DIR --n 1000 --seed 5

writes OUT_DIR/in/<type>/<id>.txt (three document types: alta, urgencias, consulta) and
OUT_DIR/gold.jsonl (`{"id", "type", "spans": [[label, start, end], ...]}`). With `--hard P`
each report gets, with probability P, a paragraph of PHI in prose (a bare first name, a name in
lower case, a date or an age in words, a town and a phone with no key), where a de-identifier
misses more. Nothing here comes from a corpus: names, places, numbers and sentences are
invented.
"""

import argparse
import json
import random
from pathlib import Path

from faker import Faker

TYPES = ("alta", "urgencias", "consulta")
# the share of each type among the reports
TYPE_WEIGHTS = (0.5, 0.3, 0.2)
REASONS = (
    "dolor torácico de dos horas de evolución",
    "fiebre y tos productiva",
    "dolor abdominal en fosa ilíaca derecha",
    "disnea de esfuerzo progresiva",
    "cefalea intensa y vómitos",
    "caída casual con dolor en la cadera",
)
MONTHS = (
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre"
).split()
AGES_IN_WORDS = ("cuarenta y dos", "cincuenta y cinco", "sesenta y ocho", "setenta y uno")
FINDINGS = (
    "La analítica muestra leucocitosis leve.",
    "La radiografía de tórax no muestra alteraciones.",
    "El electrocardiograma muestra ritmo sinusal.",
    "La ecografía abdominal es normal.",
)


class Writer:
    """Appends text and slots; a slot's span is recorded with its label."""

    def __init__(self):
        self.parts: list[str] = []
        self.spans: list[list] = []
        self.at = 0

    def text(self, value: str) -> None:
        self.parts.append(value)
        self.at += len(value)

    def slot(self, label: str, value: str) -> None:
        self.spans.append([label, self.at, self.at + len(value)])
        self.text(value)

    def done(self) -> tuple[str, list[list]]:
        return "".join(self.parts), self.spans


def prose(w: Writer, fake: Faker, rng: random.Random, first: str) -> None:
    """A paragraph with PHI in prose, each piece with probability one half."""
    w.text("\nEvolución: ")
    if rng.random() < 0.5:
        w.slot("NOMBRE_SUJETO_ASISTENCIA", first)
        w.text(" refiere mejoría. ")
    if rng.random() < 0.5:
        w.text("Visto el ")
        w.slot("FECHAS", f"{rng.randint(1, 28)} de {rng.choice(MONTHS)}")
        w.text(" por ")
        w.slot(
            "NOMBRE_PERSONAL_SANITARIO", f"{fake.first_name().lower()} {fake.last_name().lower()}"
        )
        w.text(". ")
    if rng.random() < 0.5:
        w.text("Trabaja en ")
        w.slot("TERRITORIO", fake.city())
        w.text(" desde hace años. ")
    if rng.random() < 0.5:
        w.text("Tiene ")
        w.slot("EDAD_SUJETO_ASISTENCIA", f"{rng.choice(AGES_IN_WORDS)} años")
        w.text(". ")
    if rng.random() < 0.5:
        w.text("Localizable en el ")
        w.slot(
            "NUMERO_TELEFONO",
            f"6{rng.randint(10, 99)} {rng.randint(100, 999)} {rng.randint(100, 999)}",
        )
        w.text(". ")
    w.text("\n")


def report(
    fake: Faker, rng: random.Random, doc_type: str, hard: float = 0.0
) -> tuple[str, list[list]]:
    w = Writer()
    sex = rng.choice(("varón", "mujer"))
    first = fake.first_name_male() if sex == "varón" else fake.first_name_female()
    patient = f"{first} {fake.last_name()} {fake.last_name()}"
    doctor = f"{fake.first_name()} {fake.last_name()} {fake.last_name()}"
    when = fake.date_between("-5y", "today")
    date = when.strftime("%d/%m/%Y")
    age = str(rng.randint(18, 95))
    w.text("Datos del paciente.\nNombre: ")
    w.slot("NOMBRE_SUJETO_ASISTENCIA", patient)
    w.text(".\nNHC: ")
    w.slot("ID_SUJETO_ASISTENCIA", str(rng.randint(1_000_000, 9_999_999)))
    w.text(".\nDomicilio: ")
    w.slot("CALLE", f"{fake.street_name()}, {rng.randint(1, 120)}")
    w.text(".\nLocalidad: ")
    w.slot("TERRITORIO", fake.city())
    w.text(".\nCP: ")
    w.slot("TERRITORIO", fake.postcode())
    w.text(".\nFecha de ingreso: " if doc_type != "consulta" else ".\nFecha de consulta: ")
    w.slot("FECHAS", date)
    w.text(".\n\n")
    if doc_type == "alta":
        w.text("Informe de alta. Paciente ")
        w.slot("SEXO_SUJETO_ASISTENCIA", sex)
        w.text(" de ")
        w.slot("EDAD_SUJETO_ASISTENCIA", f"{age} años")
        w.text(f" que ingresa por {rng.choice(REASONS)}. {rng.choice(FINDINGS)} ")
        w.text("Es dado de alta el ")
        w.slot("FECHAS", (when.replace(day=min(when.day, 28))).strftime("%d/%m/%Y"))
        w.text(".\n")
    elif doc_type == "urgencias":
        w.text("Acude a urgencias ")
        w.slot("SEXO_SUJETO_ASISTENCIA", sex)
        w.text(" de ")
        w.slot("EDAD_SUJETO_ASISTENCIA", f"{age} años")
        w.text(f" por {rng.choice(REASONS)}. {rng.choice(FINDINGS)}\n")
        if rng.random() < 0.4:  # a relative named in the text: harder to find
            w.text("Le acompaña su hija ")
            w.slot("FAMILIARES_SUJETO_ASISTENCIA", fake.first_name_female())
            w.text(", que aporta la medicación habitual.\n")
    else:
        w.text(f"Consulta de revisión. {rng.choice(FINDINGS)} ")
        if rng.random() < 0.5:
            w.text("Se comenta el caso con el doctor ")
            w.slot("NOMBRE_PERSONAL_SANITARIO", f"{fake.last_name()}")
            w.text(" por teléfono.\n")
        else:
            w.text("Cita de control en tres meses.\n")
    if rng.random() < hard:
        prose(w, fake, rng, first)
    w.text("\nMédico: ")
    w.slot("NOMBRE_PERSONAL_SANITARIO", doctor)
    w.text(". Hospital: ")
    w.slot("HOSPITAL", f"Hospital {fake.last_name()}")
    w.text(".\nTeléfono: ")
    w.slot(
        "NUMERO_TELEFONO", f"9{rng.randint(10, 99)} {rng.randint(100, 999)} {rng.randint(100, 999)}"
    )
    if rng.random() < 0.5:
        w.text(". Correo: ")
        w.slot("CORREO_ELECTRONICO", fake.email())
    w.text(".\n")
    return w.done()


def write(out: Path, n: int, seed: int, hard: float = 0.0) -> None:
    fake = Faker("es_ES")
    Faker.seed(seed)
    rng = random.Random(seed)
    gold = []
    for i in range(n):
        doc_type = rng.choices(TYPES, TYPE_WEIGHTS)[0]
        text, spans = report(fake, rng, doc_type, hard)
        path = out / "in" / doc_type / f"r{i:04d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        gold.append({"id": f"{doc_type}/r{i:04d}", "type": doc_type, "spans": spans})
    (out / "gold.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--hard", type=float, default=0.0)
    args = parser.parse_args()
    write(args.out, args.n, args.seed, args.hard)
    print(f"{args.n} invented reports -> {args.out / 'in'}; gold -> {args.out / 'gold.jsonl'}")


if __name__ == "__main__":
    main()
