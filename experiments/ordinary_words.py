"""Ordinary words kept: an invented table of short notes (Faker es_ES values in fixed sentences of
everyday clinical Spanish), run through the pipeline; prints the share of notes where a word that
is not PHI was tagged as PHI, and which of the sentences' own words were (the templates are
invented here, so printing them shows no document). The PHI values of each note are its gold, by
construction; a word of the note outside every gold value that an entity covers is a word removed
wrongly.

    python experiments/ordinary_words.py training/pipeline [--rows 1000] [--seed 11] \
        [--case lower|upper]
"""

import random
import re
from collections import Counter
from typing import Annotated

import typer

# (sentence, slots): {slot} is a PHI value of the kind named; everything else is ordinary text
TEMPLATES = (
    "Reside en {province} y aporta teléfono {phone} para contacto.",
    "{NAME} valorado en consulta de {service} por {motive}.",
    "Paciente de {age} que acude por {motive}. Aporta informe previo.",
    "Refiere {motive} desde hace unos días. Se pauta tratamiento y se cita en dos semanas.",
    "Vive sola en {town}, camina con bastón y presenta buena movilidad.",
    "Acompañado por su {kin}. Aporta analítica del {date} con valores normales.",
    "{name} refiere mejoría. Mantiene tratamiento y sigue controles en su centro.",
    "Se explica el plan al paciente, que entiende y acepta. Pilar fundamental el apoyo en casa.",
    "Trabaja en el campo, fuma medio paquete al día y bebe vino en las comidas.",
    "Presenta herida en la pierna derecha, limpia, sin signos de infección.",
    "Valorado por {service}: se solicita ecografía y se revisa medicación.",
    "Natural de {town}, aporta documentación de la mutua y refiere alergia a la penicilina.",
    "Se revisa con {name} la pauta de insulina. Buen manejo, sin hipoglucemias.",
    "Nieva en la sierra y no puede bajar al pueblo: consulta telefónica al {phone}.",
    "La paciente sale de alta con su {kin}. Control por su médico de cabecera.",
)
MOTIVES = (
    "dolor lumbar",
    "tos persistente",
    "control de tensión",
    "mareos",
    "fiebre",
    "dolor de rodilla",
    "revisión de diabetes",
    "insomnio",
)
SERVICES = (
    "Traumatología",
    "Cardiología",
    "Neumología",
    "Medicina Interna",
    "Digestivo",
    "Rehabilitación",
)
KIN = ("hija", "hijo", "esposa", "marido", "sobrina", "nieto")
SLOT = re.compile(r"\{(\w+)\}")
WORD = re.compile(r"[^\W\d_]+")


def fill(template: str, fake, rng: random.Random) -> tuple[str, list[tuple[int, int]]]:
    """The note and the character spans of its PHI values."""
    out, gold, pos = [], [], 0
    for match in SLOT.finditer(template):
        out.append(template[pos : match.start()])
        slot = match.group(1)
        value = {
            "province": lambda: fake.state_name(),
            "town": lambda: fake.city(),
            "phone": lambda: fake.phone_number(),
            "name": lambda: f"{fake.first_name()} {fake.last_name()}",
            "NAME": lambda: f"{fake.last_name()} {fake.last_name()}, {fake.first_name()}".upper(),
            "age": lambda: f"{rng.randint(18, 89)} años",
            "date": lambda: fake.date(pattern="%d/%m/%Y"),
            "service": lambda: rng.choice(SERVICES),
            "motive": lambda: rng.choice(MOTIVES),
            "kin": lambda: rng.choice(KIN),
        }[slot]()
        start = sum(len(p) for p in out)
        out.append(value)
        if slot not in ("service", "motive"):
            gold.append((start, start + len(value)))
        pos = match.end()
    out.append(template[pos:])
    return "".join(out), gold


def main(
    model: Annotated[str, typer.Argument(help="Pipeline path or installed package name")],
    rows: Annotated[int, typer.Option(min=1)] = 1000,
    seed: Annotated[int, typer.Option()] = 11,
    case: Annotated[str | None, typer.Option(help="lower or upper: the notes in that case")] = None,
    batch_size: Annotated[int, typer.Option(min=1)] = 64,
) -> None:
    import spacy
    from faker import Faker

    if case not in (None, "lower", "upper"):
        typer.echo(f"--case: {case!r} is not lower or upper", err=True)
        raise typer.Exit(1)
    fake = Faker("es_ES")
    fake.seed_instance(seed)
    rng = random.Random(seed)
    notes = []
    for _ in range(rows):
        picked = rng.sample(TEMPLATES, 3)
        text, gold = "", []
        for template in picked:
            sentence, spans = fill(template, fake, rng)
            gold += [(s + len(text), e + len(text)) for s, e in spans]
            text += sentence + " "
        text = text.lower() if case == "lower" else text.upper() if case == "upper" else text
        notes.append((text, gold, picked))
    nlp = spacy.load(model)
    wrong_notes, wrong_words, template_words = 0, Counter(), Counter()
    total_words = 0
    for (text, gold, picked), doc in zip(
        notes, nlp.pipe((n[0] for n in notes), batch_size=batch_size)
    ):
        covered = [(e.start_char, e.end_char) for e in doc.ents]
        wrong = False
        for m in WORD.finditer(text):
            if any(s <= m.start() < e for s, e in gold):
                continue
            total_words += 1
            if any(s <= m.start() and m.end() <= e for s, e in covered):
                wrong = True
                wrong_words[m.group().lower()] += 1
        wrong_notes += wrong
        template_words.update(picked)
    typer.echo(f"notes {rows}, ordinary words {total_words}, case {case or 'as written'}")
    typer.echo(f"notes with an ordinary word removed: {wrong_notes} ({wrong_notes / rows:.2%})")
    typer.echo(
        f"ordinary words removed: {sum(wrong_words.values())} "
        f"({sum(wrong_words.values()) / max(total_words, 1):.2%})"
    )
    for word, count in wrong_words.most_common(15):
        typer.echo(f"  {word}\t{count}")


if __name__ == "__main__":
    typer.run(main)
