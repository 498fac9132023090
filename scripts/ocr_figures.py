"""Figures of scanned reports on invented data (Faker es_ES, a seed): writes reports with the
BRAT gold of their PHI, renders them with Pillow to page images (some rotated a few degrees,
some with noise, some blurred) saved as scanned PDFs (images only), PNG or TIFF, runs them
through the engine (`meddocan_deid.engine.run`: OCR, de-identification, the redacted copies) and
prints counts only:

- OCR character error rate against the typed text (Levenshtein distance over the typed
  length, every run of spaces and line breaks read as one space);
- identifying-word recall on the OCR text against the gold of the typed original, and on the
  typed original itself (what OCR costs). Each typed character is mapped to the OCR character
  that difflib's SequenceMatcher (characters, autojunk off) aligns it with; a gold word maps to
  the OCR words holding its aligned characters, and is covered when it has some and each of
  those OCR words lies wholly inside a predicted entity (a word OCR dropped counts as missed).
  Identifying words: gold PHI words that are capitalised or hold a digit (as docs/results.md);
- PHI strings extractable (pypdfium2's text page) from the redacted PDFs: must be 0;
- identifying gold words boxed on the redacted pages: the word's drawn box (turned with its
  page) at least 90% dark in the redacted image;
- seconds per page of the run (OCR, pipeline and redacted copy; model loading excluded).

    python scripts/ocr_figures.py /tmp/ocr_pipe --reports 30 --seed 0
"""

import argparse
import difflib
import io
import math
import random
import re
import resource
import tempfile
from collections import defaultdict
from pathlib import Path

import matplotlib
import numpy as np
import pypdfium2 as pdfium
import spacy
from faker import Faker
from PIL import Image, ImageDraw, ImageFilter, ImageFont

import meddocan_deid  # noqa: F401  (registers the factories)
from meddocan_deid.brat import parse_ann
from meddocan_deid.engine import run
from meddocan_deid.evaluation.metrics import WORD_RE

DPI = 200  # the pages are drawn as a scanner at 200 dpi would give them
PAGE = (int(8.27 * DPI), int(11.69 * DPI))  # A4
MARGIN, FONT_PX, LINE_PX, WRAP = 150, 30, 44, 80
# DejaVu Sans ships with matplotlib (the dev extra): every Spanish letter has a glyph
FONT_OBJ = ImageFont.truetype(
    str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"), FONT_PX
)
CONDITIONS = ("clean", "clean", "rotated", "noisy", "blurred")
CONTAINERS = ("pdf", "png", "tiff")
REASONS = (
    "dolor torácico opresivo de dos horas de evolución",
    "disnea progresiva y edemas en miembros inferiores",
    "fiebre de 39 grados y tos productiva",
    "dolor abdominal en fosa ilíaca derecha",
    "síncope sin pródromos mientras caminaba",
)
TREATMENTS = (
    "Se pauta tratamiento con furosemida y control de peso diario.",
    "Recibe amoxicilina con ácido clavulánico durante siete días.",
    "Se realiza apendicectomía laparoscópica sin complicaciones.",
    "Se ajusta la dosis de bisoprolol y se retira el diurético.",
)


class Typed:
    """A report as typed: its lines and the gold spans (label, start, end) of its PHI."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.gold: list[tuple[str, int, int]] = []
        self._line = ""
        self._offset = 0

    def add(self, text: str, label: str | None = None) -> "Typed":
        if label is not None:
            start = self._offset + len(self._line)
            self.gold.append((label, start, start + len(text)))
        self._line += text
        return self

    def end(self) -> "Typed":
        self.lines.append(self._line)
        self._offset += len(self._line) + 1
        self._line = ""
        return self

    def prose(self, pieces: list[tuple[str, str | None]]) -> "Typed":
        """A paragraph wrapped at WRAP characters, an entity never cut by a line end."""
        for text, label in pieces:
            for word in [text] if label is not None else text.split(" "):
                if not word:
                    continue
                space = "" if not self._line or word[0] in ".,;:" else " "
                if len(self._line) + len(space) + len(word) > WRAP and self._line:
                    self.end()
                    space = ""
                self.add(space).add(word, label)
        return self.end()

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def invented_report(fake: Faker, rng: random.Random) -> Typed:
    given, s1, s2 = fake.first_name(), fake.last_name(), fake.last_name()
    doctor = f"{fake.first_name()} {fake.last_name()} {fake.last_name()}"
    hospital = f"Hospital {rng.choice(('Universitario', 'General', 'Comarcal'))} {fake.city()}"
    born = fake.date_of_birth(minimum_age=25, maximum_age=88)
    admitted = fake.date_between(start_date="-2y", end_date="-20d")
    discharged = fake.date_between(start_date=admitted, end_date="-1d")
    age = (admitted - born).days // 365
    city, cp = fake.city(), fake.postcode()
    relative = f"{fake.first_name()} {s1}"
    t = Typed()
    t.add(hospital, "HOSPITAL").end().add("Servicio de Medicina Interna").end().end()
    t.add("INFORME DE ALTA").end().end()
    t.add("Paciente: ").add(f"{given} {s1} {s2}", "NOMBRE_SUJETO_ASISTENCIA").end()
    t.add("DNI: ").add(fake.nif(), "ID_SUJETO_ASISTENCIA").add("   NHC: ")
    t.add(str(fake.random_number(digits=7, fix_len=True)), "ID_SUJETO_ASISTENCIA").end()
    t.add("Fecha de nacimiento: ").add(f"{born:%d/%m/%Y}", "FECHAS").end()
    t.add("Domicilio: ").add(fake.street_address().strip(), "CALLE").add(", ")
    t.add(cp, "TERRITORIO").add(" ").add(city, "TERRITORIO").end()
    t.add("Teléfono: ").add(fake.phone_number(), "NUMERO_TELEFONO").end()
    t.add("Ingreso: ").add(f"{admitted:%d/%m/%Y}", "FECHAS").add("   Alta: ")
    t.add(f"{discharged:%d/%m/%Y}", "FECHAS").end().end()
    t.prose(
        [
            ("Paciente de", None),
            (f"{age} años", "EDAD_SUJETO_ASISTENCIA"),
            (f"que ingresa por {rng.choice(REASONS)}. Acude acompañado de su hijo", None),
            (relative, "FAMILIARES_SUJETO_ASISTENCIA"),
            (", que refiere buena situación basal. Antecedentes de hipertensión arterial.", None),
        ]
    )
    t.end()
    t.prose([(rng.choice(TREATMENTS) + " Evolución favorable, se decide el alta.", None)])
    t.end()
    t.prose(
        [
            ("Revisión en consultas externas del", None),
            (hospital, "HOSPITAL"),
            ("el", None),
            (f"{fake.date_between(start_date='+10d', end_date='+60d'):%d/%m/%Y}", "FECHAS"),
            (".", None),
        ]
    )
    t.end()
    t.add("Fdo.: Dr. ").add(doctor, "NOMBRE_PERSONAL_SANITARIO").end()
    return t


def draw_page(t: Typed) -> Image.Image:
    """The page image: the typed lines from the top margin, LINE_PX apart."""
    image = Image.new("L", PAGE, 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(t.lines):
        draw.text((MARGIN, MARGIN + n * LINE_PX), line, font=FONT_OBJ, fill=0)
    return image


def ink_box(t: Typed, start: int, end: int) -> tuple[int, int, int, int]:
    """Where the typed word text[start:end] is drawn: its ink's bounds on the page."""
    offset = 0
    for n, line in enumerate(t.lines):
        if start < offset + len(line) + 1:
            s = start - offset
            x = MARGIN + FONT_OBJ.getlength(line[:s])
            left, top, right, bottom = FONT_OBJ.getbbox(line[s : end - offset])
            y = MARGIN + n * LINE_PX
            return int(x + left), y + top, int(math.ceil(x + right)), y + bottom
        offset += len(line) + 1
    raise ValueError("offset beyond the text")


def degrade(image: Image.Image, condition: str, rng: random.Random):
    """The page as scanned under `condition`, and the turn of its points (None: none)."""
    if condition == "rotated":
        angle = rng.choice((-1, 1)) * rng.uniform(1.0, 3.0)
        turned = image.rotate(angle, resample=Image.BICUBIC, fillcolor=255)
        return turned, angle
    if condition == "noisy":
        pixels = np.asarray(image, dtype=np.float32)
        noise = np.random.default_rng(rng.randrange(2**32)).normal(0, 28, pixels.shape)
        speckle = np.random.default_rng(rng.randrange(2**32)).random(pixels.shape) < 0.004
        out = np.clip(pixels + noise, 0, 255)
        out[speckle] = 0
        return Image.fromarray(out.astype(np.uint8)), None
    if condition == "blurred":
        return image.filter(ImageFilter.GaussianBlur(1.3)), None
    return image, None


def turn_box(box, angle: float | None, size) -> list[tuple[float, float]]:
    """A box's corners once its page is turned by `angle` degrees (PIL's rotate: counter-
    clockwise about the centre; None: not turned)."""
    corners = [(box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3])]
    if angle is None:
        return [(float(x), float(y)) for x, y in corners]
    cx, cy = size[0] / 2, size[1] / 2
    a = math.radians(angle)
    return [
        (
            cx + (x - cx) * math.cos(a) + (y - cy) * math.sin(a),
            cy - (x - cx) * math.sin(a) + (y - cy) * math.cos(a),
        )
        for x, y in corners
    ]


def save_scan(image: Image.Image, container: str, path: Path) -> Path:
    target = path.with_suffix({"pdf": ".pdf", "png": ".png", "tiff": ".tif"}[container])
    if container == "pdf":  # a scanned PDF: the page image only (JPEG-compressed), no text
        buf = io.BytesIO()
        image.save(buf, "PDF", resolution=float(DPI))
        target.write_bytes(buf.getvalue())
    else:
        image.save(target)
    return target


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children (the tesseract runs)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def levenshtein(a: str, b: str) -> int:
    """Edit distance, a row at a time (numpy: insertions by a running minimum)."""
    if not a or not b:
        return max(len(a), len(b))
    codes = np.array([ord(c) for c in b])
    idx = np.arange(len(b) + 1)
    prev = idx.copy()
    for i, ch in enumerate(a, start=1):
        row = np.empty_like(prev)
        row[0] = i
        row[1:] = np.minimum(prev[1:] + 1, prev[:-1] + (codes != ord(ch)))
        prev = np.minimum.accumulate(row - idx) + idx  # row[j] = min(row[j], row[j-1] + 1)
    return int(prev[-1])


def predicted_spans(ann: str) -> list[tuple[str, int, int]]:
    return [(label, s, e) for _tid, label, frags, _text in parse_ann(ann) for s, e in frags]


def covered_mask(length: int, spans) -> np.ndarray:
    mask = np.zeros(length, dtype=bool)
    for _label, start, end in spans:
        mask[start:end] = True
    return mask


def identifying_gold_words(text: str, gold) -> list[tuple[int, int]]:
    gold_mask = covered_mask(len(text), gold)
    return [
        (m.start(), m.end())
        for m in WORD_RE.finditer(text)
        if gold_mask[m.start() : m.end()].any()
        and (m.group()[0].isupper() or any(c.isdigit() for c in m.group()))
    ]


def recall_on(typed: str, gold, read: str, predicted) -> tuple[int, int]:
    """(identifying gold words covered in `read`, identifying gold words): see the module."""
    to_read = np.full(len(typed), -1)
    matcher = difflib.SequenceMatcher(None, typed, read, autojunk=False)
    for block in matcher.get_matching_blocks():
        to_read[block.a : block.a + block.size] = np.arange(block.b, block.b + block.size)
    predicted_mask = covered_mask(len(read), predicted)
    read_words = [(m.start(), m.end()) for m in WORD_RE.finditer(read)]
    word_at = np.full(len(read), -1)
    for n, (s, e) in enumerate(read_words):
        word_at[s:e] = n
    words = identifying_gold_words(typed, gold)
    covered = 0
    for start, end in words:
        aligned = [int(to_read[i]) for i in range(start, end) if to_read[i] >= 0]
        hit = {int(word_at[j]) for j in aligned if word_at[j] >= 0}
        if hit and all(predicted_mask[read_words[n][0] : read_words[n][1]].all() for n in hit):
            covered += 1
    return covered, len(words)


def pdf_text(data: bytes) -> str:
    pdf = pdfium.PdfDocument(data)
    try:
        return "".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()


def redacted_page(path: Path) -> Image.Image:
    if path.suffix == ".pdf":
        pdf = pdfium.PdfDocument(path.read_bytes())
        try:
            return pdf[0].render(scale=DPI / 72).to_pil().convert("L")
        finally:
            pdf.close()
    return Image.open(path).convert("L")


def boxed(page: Image.Image, corners, size) -> bool:
    """The word's ink box (its corners, turned with its page) is at least 90% dark on the
    redacted page (scaled to its size)."""
    sx, sy = page.width / size[0], page.height / size[1]
    points = [(x * sx, y * sy) for x, y in corners]
    left, top = int(min(x for x, _ in points)), int(min(y for _, y in points))
    right = int(math.ceil(max(x for x, _ in points))) + 1
    bottom = int(math.ceil(max(y for _, y in points))) + 1
    area = np.asarray(page.crop((left, top, right, bottom)))
    mask = Image.new("1", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).polygon([(x - left, y - top) for x, y in points], fill=1)
    inside = np.asarray(mask, dtype=bool)
    return bool(inside.any()) and float((area[inside] < 80).mean()) >= 0.9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="pipeline path or name")
    parser.add_argument("--reports", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=None, help="keep the files here")
    args = parser.parse_args()
    fake = Faker("es_ES")
    fake.seed_instance(args.seed)
    rng = random.Random(args.seed)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="ocr-figures-"))
    scans, typed_dir, out, private = (work / n for n in ("scans", "typed", "out", "private"))
    for folder in (scans, typed_dir):
        folder.mkdir(parents=True, exist_ok=True)
    reports = {}
    for n in range(args.reports):
        t = invented_report(fake, rng)
        condition, container = CONDITIONS[n % len(CONDITIONS)], CONTAINERS[n % len(CONTAINERS)]
        image = draw_page(t)
        scanned, angle = degrade(image, condition, rng)
        rid = f"informe{n:02d}"
        path = save_scan(scanned, container, scans / rid)
        (typed_dir / f"{rid}.txt").write_text(t.text, encoding="utf-8")
        reports[rid] = (t, condition, container, path, angle)
    nlp = spacy.load(args.model)
    cpu_before = cpu_seconds()
    report = run(scans, out, "tag", None, nlp=nlp, progress=False, private_dir=private)
    cpu = cpu_seconds() - cpu_before
    typed_report = run(
        typed_dir,
        work / "typed_out",
        "tag",
        None,
        nlp=nlp,
        progress=False,
        private_dir=work / "typed_private",
    )
    confidence = {d["id"]: d["pages"][0]["confidence"] for d in report["scanned"]["read"]}
    cer: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    recall = {"ocr": [0, 0], "typed": [0, 0]}
    by_condition: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    extractable = boxed_words = ident_total = 0
    pdfs = 0
    for rid, (t, condition, _container, path, angle) in reports.items():
        read = (private / f"{rid}.txt").read_text(encoding="utf-8")
        errors = levenshtein(squash(t.text), squash(read))
        for key in (condition, "all"):
            cer[key][0] += errors
            cer[key][1] += len(squash(t.text))
        predicted = predicted_spans((private / f"{rid}.ann").read_text(encoding="utf-8"))
        got, total = recall_on(t.text, t.gold, read, predicted)
        recall["ocr"][0] += got
        recall["ocr"][1] += total
        by_condition[condition][0] += got
        by_condition[condition][1] += total
        typed_pred = predicted_spans(
            (work / "typed_private" / f"{rid}.ann").read_text(encoding="utf-8")
        )
        got, total = recall_on(t.text, t.gold, t.text, typed_pred)
        recall["typed"][0] += got
        recall["typed"][1] += total
        redacted = out / f"{rid}{path.suffix}"
        if path.suffix == ".pdf":
            pdfs += 1
            layer = pdf_text(redacted.read_bytes())
            extractable += sum(t.text[s:e] in layer for _label, s, e in t.gold)
        page = redacted_page(redacted)
        for start, end in identifying_gold_words(t.text, t.gold):
            ident_total += 1
            boxed_words += boxed(page, turn_box(ink_box(t, start, end), angle, PAGE), PAGE)
    pages = report["scanned"]["pages"]
    busy = report["seconds"] - report["model_load_seconds"]
    kinds: dict[str, int] = defaultdict(int)
    for _t, condition, container, _path, _angle in reports.values():
        kinds[condition] += 1
        kinds[container] += 1
    print(f"{len(reports)} invented reports, {pages} pages: {dict(sorted(kinds.items()))}")
    print(
        "OCR character error rate: "
        + ", ".join(f"{k} {e / n:.4f} ({e}/{n})" for k, (e, n) in sorted(cer.items()))
    )
    conf = [c for c in confidence.values() if c is not None]
    pages_read = [p for d in report["scanned"]["read"] for p in d["pages"]]
    print(
        f"OCR mean word confidence per page: min {min(conf):.1f}, mean "
        f"{sum(conf) / len(conf):.1f}; pages read again as one block (ink left unread by the "
        f"automatic layout): {sum(p['layout'] == 'block' for p in pages_read)}; pages flagged "
        f"for review (confidence below {report['scanned']['review_below']} or over 5% of the ink "
        f"unread): {report['scanned']['pages_to_review']}"
    )
    for name, (got, total) in recall.items():
        print(f"identifying-word recall on the {name} text: {got / total:.4f} ({got}/{total})")
    print(
        "identifying-word recall on the OCR text by condition: "
        + ", ".join(f"{k} {g / n:.4f} ({g}/{n})" for k, (g, n) in sorted(by_condition.items()))
    )
    print(f"PHI strings extractable from the redacted PDFs: {extractable} ({pdfs} PDFs)")
    print(
        f"identifying gold words boxed on the redacted pages: {boxed_words / ident_total:.4f} "
        f"({boxed_words}/{ident_total})"
    )
    print(
        f"seconds per page (OCR, pipeline, redacted copy): {busy / pages:.2f} wall, "
        f"{cpu / pages:.2f} CPU (this process and tesseract); reports written "
        f"{report['reports']['written']}, failed {report['reports']['failed']}"
    )
    print(f"typed reports written {typed_report['reports']['written']} (the recall's baseline)")


if __name__ == "__main__":
    main()
