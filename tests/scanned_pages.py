"""Invented report pages rendered here as scans, for the OCR tests of the run, the service and
Spark: a Faker person (es_ES, fixed seed), the lines of its report, a page image of them and a
PDF of page images only (no text layer)."""

import io
from pathlib import Path

import matplotlib
from faker import Faker
from PIL import Image, ImageDraw, ImageFont

# DejaVu Sans ships with matplotlib (the dev extra): every Spanish letter has a glyph
FONT = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"


def invented_person(seed: int = 5402) -> dict[str, str]:
    fake = Faker("es_ES")
    fake.seed_instance(seed)
    return {
        "given": fake.first_name_male(),
        "s1": fake.last_name(),
        "s2": fake.last_name(),
        "nhc": str(fake.random_int(1_000_000, 9_999_999)),
        "phone": f"6{fake.random_int(10, 99)} {fake.random_int(100, 999)} "
        f"{fake.random_int(100, 999)}",
    }


def page_lines(p):
    return [
        "Datos del paciente.",
        f"Nombre: {p['given']}.",
        f"Apellidos: {p['s1']} {p['s2']}.",
        f"NHC: {p['nhc']}.",
        f"Teléfono: {p['phone']}",
        "Informe clínico: varón de 47 años con dolor torácico.",
    ]


def phi_strings(p):
    return [p["given"], p["s1"], p["s2"], p["nhc"], p["phone"].split()[1]]


def render(lines, size=(1240, 720)):
    font = ImageFont.truetype(str(FONT), 30)
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((60, 60 + 50 * i), line, font=font, fill="black")
    return image


def image_pdf(pages) -> bytes:
    """A PDF of page images (a scan: no text layer), black and white at 300 dpi as archives
    scan reports (lossless: JPEG artifacts would make the OCR of a digit vary)."""
    bw = [p.convert("L").point(lambda v: 255 if v > 128 else 0, "1") for p in pages]
    buf = io.BytesIO()
    bw[0].save(buf, "PDF", save_all=True, append_images=bw[1:], resolution=300.0)
    return buf.getvalue()


def png_bytes(image) -> bytes:
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()
