"""What PHI columns add to a table's free text: an invented CSV (Faker es_ES) of notes that
mention the patient's name, NHC and birth date in various ways, de-identified with and without
feeding the PHI columns to the text (`TableSpec(phi_to_text=...)`).

Prints rows in and out, whether the columns and the other cells are unchanged, PHI column
values left in clear (must be 0; a surrogate run too) and the recall of the identifying words
of the note (gold: the positions the script wrote each value at; a word is caught when the
`mask` output covers all its characters), overall and per kind. Counts only, never text.

    python experiments/table_gain.py [--model es_meddocan_deid] [--rows 1000] [--seed 7] [--out DIR]
"""

import csv
import datetime as dt
import re
import tempfile
import time
from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.lexicon import words

MONTHS = tuple(words("months", "es"))  # January first
MOTIVES = (
    "dolor torácico de dos días de evolución",
    "disnea de moderados esfuerzos",
    "fiebre sin foco claro",
    "control de su diabetes",
    "revisión tras la cirugía de cadera",
    "cefalea persistente",
    "tos productiva",
    "dolor abdominal difuso",
    "mareos ocasionales",
    "seguimiento de la hipertensión",
)
PLANS = (
    "Se ajusta el tratamiento.",
    "Se solicita analítica.",
    "Buena evolución.",
    "Se mantiene la pauta.",
    "Pendiente de radiografía.",
    "Alta a domicilio.",
)
COLUMNS = ["id", "paciente", "nombre", "nhc", "nacimiento", "servicio", "nota"]
PHI = {"nombre": "NOMBRE_SUJETO_ASISTENCIA", "nhc": "ID_SUJETO_ASISTENCIA", "nacimiento": "FECHAS"}
SERVICES = (
    "Cardiología",
    "Neumología",
    "Medicina Interna",
    "Traumatología",
    "Neurología",
    "Digestivo",
)
WORD = re.compile(r"\w+")
NOT_IDENTIFYING = frozenset({"de", "del"})  # the connectors of a written date


class Note:
    """A note written piece by piece, with where each identifying value went (kind, start, end)."""

    def __init__(self):
        self.parts: list[str] = []
        self.size = 0
        self.gold: list[tuple[str, int, int]] = []

    def add(self, text: str, kind: str | None = None) -> "Note":
        if kind is not None:
            self.gold.append((kind, self.size, self.size + len(text)))
        self.parts.append(text)
        self.size += len(text)
        return self

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _nhc_forms(nhc: str, rng) -> str:
    return rng.choice(
        [nhc, f"{nhc[:2]}.{nhc[2:5]}.{nhc[5:]}", f"{nhc[:3]} {nhc[3:]}", f"{nhc[:4]}-{nhc[4:]}"]
    )


def _date_forms(born: dt.date, rng) -> str:
    return rng.choice(
        [
            born.strftime("%d/%m/%Y"),
            f"{born.day}/{born.month}/{born.year}",
            f"{born.day} de {MONTHS[born.month - 1]} de {born.year}",
            born.isoformat(),
            born.strftime("%d-%m-%Y"),
        ]
    )


def write_note(p: dict, rng) -> Note:
    """One note in one of six shapes; every value it mentions is recorded as gold."""
    n = Note()
    given, s1, s2, nhc, born = p["given"], p["s1"], p["s2"], p["nhc"], p["born"]
    title = "Sra." if p["female"] else "Sr."
    shape = rng.randrange(6)
    if shape == 0:
        n.add(f"{given} {s1} {s2}", "name").add(f", de {p['age']} años, nacido el ")
        n.add(born.strftime("%d/%m/%Y"), "date").add(
            f", acude por {rng.choice(MOTIVES)}. NHC "
        ).add(nhc, "nhc").add(".")
    elif shape == 1:
        n.add("Paciente ").add(f"{s1.upper()} {s2.upper()}", "name").add(" (").add(
            _nhc_forms(nhc, rng), "nhc"
        )
        n.add(f"). {rng.choice(PLANS)} Se cita a ").add(given, "name").add(
            f" en {rng.randint(2, 8)} semanas."
        )
    elif shape == 2:
        n.add("Revisión de ").add(f"{given} {s1}", "name").add(
            f": {rng.choice(PLANS).lower()} Nacimiento: "
        )
        n.add(_date_forms(born, rng), "date").add(".")
    elif shape == 3:
        n.add(f"{title} ").add(s1, "name").add(
            f" refiere {rng.choice(MOTIVES)}. Historia clínica nº "
        )
        n.add(_nhc_forms(nhc, rng), "nhc").add(". F. nac. ").add(
            _date_forms(born, rng), "date"
        ).add(".")
    elif shape == 4:
        n.add("Control en planta: ").add(f"{given.lower()} {s1.lower()}", "name").add(
            " tolera dieta. Hª "
        )
        n.add(_nhc_forms(nhc, rng), "nhc").add(f". {rng.choice(PLANS)}")
    else:
        n.add("Se comenta con la familia de ").add(given, "name").add(
            f" la evolución. {rng.choice(PLANS)} NHC-"
        )
        n.add(nhc, "nhc").add(", fecha de nacimiento ").add(_date_forms(born, rng), "date").add(".")
    return n


def make_table(path: Path, rows: int, seed: int) -> list[dict]:
    """The CSV of `rows` rows (patients with one to five rows each)
    and, per row, its note's gold."""
    import random

    from faker import Faker

    fake = Faker("es_ES")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    out: list[dict] = []
    patient = 0
    while len(out) < rows:
        patient += 1
        female = rng.random() < 0.5
        born = fake.date_of_birth(minimum_age=18, maximum_age=89)
        p = {
            "given": fake.first_name_female() if female else fake.first_name_male(),
            "s1": fake.last_name(),
            "s2": fake.last_name(),
            "nhc": str(fake.random_int(1_000_000, 9_999_999)),
            "born": born,
            "female": female,
            "age": (dt.date(2024, 1, 1) - born).days // 365,
        }
        for _ in range(min(rng.randint(1, 5), rows - len(out))):
            note = write_note(p, rng)
            out.append(
                {
                    "id": f"EP{len(out) + 1:06d}",
                    "paciente": f"PAC{patient:05d}",
                    "nombre": f"{p['given']} {p['s1']} {p['s2']}",
                    "nhc": p["nhc"],
                    "nacimiento": born.strftime("%d/%m/%Y"),
                    "servicio": rng.choice(SERVICES),
                    "nota": note.text,
                    "_gold": note.gold,
                }
            )
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows([[r[c] for c in COLUMNS] for r in out])
    return out


def read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def recall(rows: list[dict], notes: list[str]) -> dict[str, tuple[int, int]]:
    """kind -> (identifying words caught, words); a word is caught when the mask output has
    `*` on all its characters (mask keeps every offset)."""
    found: dict[str, list[int]] = {}
    for row, out in zip(rows, notes):
        for kind, s, e in row["_gold"]:
            for m in WORD.finditer(row["nota"], s, e):
                if m.group().lower() in NOT_IDENTIFYING:
                    continue
                caught = len(out) == len(row["nota"]) and set(out[m.start() : m.end()]) == {"*"}
                for key in (kind, "all"):
                    counts = found.setdefault(key, [0, 0])
                    counts[0] += caught
                    counts[1] += 1
    return {k: (v[0], v[1]) for k, v in found.items()}


def main(
    model: Annotated[
        str, typer.Option(help="Installed pipeline name or path")
    ] = "es_meddocan_deid",
    rows: Annotated[int, typer.Option(min=1, help="Rows of the invented table")] = 1000,
    seed: Annotated[int, typer.Option(help="Faker and layout seed")] = 7,
    out: Annotated[
        Path | None, typer.Option(help="Folder for the tables (default: a temporary one)")
    ] = None,
    batch_size: Annotated[int, typer.Option(min=1)] = 32,
) -> None:
    from meddocan_deid.deid.api import load_pipeline
    from meddocan_deid.deid.tables import TableSettings, TableSpec, deidentify_table

    folder = Path(out or tempfile.mkdtemp(prefix="table_gain-"))
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "notas.csv"
    table = make_table(src, rows, seed)
    start = time.time()
    nlp = load_pipeline(model)
    typer.echo(
        f"model {model} loaded in {time.time() - start:.1f}s; table {src} ({len(table)} rows, "
        f"{len({r['paciente'] for r in table})} patients, {sum(len(r['_gold']) for r in table)} "
        "values in notes)"
    )
    settings = TableSettings(batch_size=batch_size)
    in_cols, in_rows = read_csv(src)
    results = {}
    runs = (
        ("mask, PHI columns fed to the text", "mask", True),
        ("mask, PHI columns not fed", "mask", False),
        ("surrogate, PHI columns fed to the text", "surrogate", True),
    )
    for name, mode, fed in runs:
        spec = TableSpec(
            id_column="id",
            text_columns=("nota",),
            patient_column="paciente",
            phi_columns=PHI,
            phi_to_text=fed,
        )
        target = folder / f"{mode}_{'fed' if fed else 'not_fed'}" / "notas.csv"
        target.parent.mkdir(exist_ok=True)
        target.unlink(missing_ok=True)
        t0 = time.time()
        res = deidentify_table(
            src,
            columns=spec,
            mode=mode,
            key=b"table-gain-key-0123456789abcdef",
            output=target,
            nlp=nlp,
            settings=settings,
        )
        seconds = time.time() - t0
        out_cols, out_rows = read_csv(target)
        idx = {c: j for j, c in enumerate(out_cols)}
        others = [c for c in in_cols if c not in PHI and c != "nota"]
        same_others = sum(
            all(o[idx[c]] == i[in_cols.index(c)] for c in others) for i, o in zip(in_rows, out_rows)
        )
        in_clear = sum(o[idx[c]] == r[c] for r, o in zip(table, out_rows) for c in PHI)
        values = {r[c] for r in table for c in ("nombre", "nhc")}
        raw = target.read_text(encoding="utf-8")
        anywhere = sum(v in raw for v in values)
        notes = [o[idx["nota"]] for o in out_rows]
        results[name] = recall(table, notes) if mode == "mask" else None
        typer.echo(f"\n{name}: {seconds:.1f}s")
        typer.echo(
            f"  rows in {len(in_rows)}, out {len(out_rows)}, ok {res.ok}, failed {len(res.failed)}"
        )
        typer.echo(
            f"  columns equal: {out_cols == in_cols + ['deid_status']}; other columns unchanged in "
            f"{same_others}/{len(in_rows)} rows"
        )
        typer.echo(
            f"  PHI column values left in clear: {in_clear} (of {len(table) * len(PHI)}); full "
            f"names and NHCs found anywhere in the output: {anywhere} (of {len(values)})"
        )
        if results[name] is not None:
            for kind in ("all", "name", "nhc", "date"):
                caught, total = results[name].get(kind, (0, 0))
                typer.echo(
                    f"  identifying-word recall of the notes, {kind}: {caught}/{total} = "
                    f"{caught / max(total, 1):.4f}"
                )
    fed, not_fed = results[runs[0][0]]["all"], results[runs[1][0]]["all"]
    typer.echo(
        "\n"
        f"recall with the PHI columns {fed[0] / fed[1]:.4f}, without "
        f"{not_fed[0] / not_fed[1]:.4f} "
        f"({fed[0] - not_fed[0]:+d} words)"
    )


if __name__ == "__main__":
    typer.run(main)
