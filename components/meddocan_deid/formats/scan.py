"""A document read as page images (the `ocr` extra): `Scan`, its text with each word's page and
box, from Tesseract's Spanish model (`ocr_images`: `image_to_data`'s words and their confidence)
or from a PDF's text layer (pdf.py); `redact_pages` draws a filled box over every word that
overlaps a replacement, and `images_pdf` / `image_bytes` write the pages back as images only,
with no text layer and no metadata of the source, so that nothing is left under a box.

A page's confidence is Tesseract's mean word confidence (0-100; None for a text layer, and for
a page where no word was recognised). Messages name the problem, never text.
"""

import io
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .base import PAGE_BREAK, DocumentError

OCR_LANGUAGE = "spa"
OCR_DPI = 300  # PDF pages are rendered at this resolution for Tesseract and for their redaction
BOX_MARGIN = 2  # pixels added around a word's box: anti-aliased edges stay under the box
# a redacted word's box reaches this share of its height further along its line (not past half
# the space to the next word): a glyph at a word's edge that Tesseract left out of its box
LINE_REACH = 0.6
# ink outside the recognised words, in cells of INK_CELL pixels a side: a cell is inked when
# more than INK_SHARE of its pixels are dark (scanner specks are not; a line of text is)
INK_CELL = 16
INK_SHARE = 0.08
# above this share of inked cells outside the words read, a page is read again as one block
# and, if still above, flagged for review (engine/scans.py)
MAX_UNREAD_INK = 0.05
INSTALL_HINT = (
    "pip install 'meddocan-deid[ocr]' and apt-get install tesseract-ocr tesseract-ocr-spa"
)


@dataclass(frozen=True)
class ScanWord:
    """A word: its offsets in the scan's text, its page (0-based) and its box in that page's
    pixels (left, top, right, bottom); conf: Tesseract's confidence (None for a text layer);
    line: the index of its line on its page."""

    start: int
    end: int
    page: int
    box: tuple[int, int, int, int]
    conf: float | None = None
    line: int = 0


@dataclass(frozen=True)
class ScanPage:
    """A page as read: its size in pixels, where its text came from ("ocr" or "text layer"),
    its words and its mean word confidence (None: a text layer, or no word recognised), and
    the share of its inked cells that no recognised word covers (`unread_ink`: a block that
    Tesseract left out, a stamp, a logo, handwriting; None for a text layer), and the layout
    of the reading kept ("auto", or "block" when read again as one block)."""

    width: int
    height: int
    source: str
    words: int = 0
    confidence: float | None = None
    unread: float | None = None
    layout: str | None = None


@dataclass
class Scan:
    """A document read page by page: `text` (the pages a blank line apart), its `words` and
    `pages`; the pages are rendered again at `dpi` (a PDF) to be redacted."""

    text: str
    pages: list[ScanPage] = field(default_factory=list)
    words: list[ScanWord] = field(default_factory=list)
    dpi: int = OCR_DPI

    def page_confidences(self) -> list[float | None]:
        return [p.confidence for p in self.pages]


class OcrUnavailable(DocumentError):
    """OCR cannot run here: the message says what to install."""


def ocr_missing() -> str | None:
    """Why OCR cannot run here (the extra, the tesseract program or its Spanish model is
    missing), or None. Asked once a document (tesseract lists its models in a few
    milliseconds, against seconds of OCR a page), so that an install takes effect at once."""
    for module in ("pytesseract", "pypdfium2", "PIL"):
        try:
            __import__(module)
        except ImportError:
            return f"OCR needs the ocr extra ({module} is not installed): {INSTALL_HINT}"
    import pytesseract

    if shutil.which(pytesseract.pytesseract.tesseract_cmd) is None:
        return f"OCR needs the tesseract program (not found): {INSTALL_HINT}"
    try:
        languages = pytesseract.get_languages(config="")
    except Exception as err:  # noqa: BLE001 - pytesseract raises its own and OSError kinds
        return f"tesseract cannot list its models ({type(err).__name__}): {INSTALL_HINT}"
    if OCR_LANGUAGE not in languages:
        return (
            f"tesseract has no Spanish model ({OCR_LANGUAGE!r} not among its languages): "
            "apt-get install tesseract-ocr-spa"
        )
    return None


def check_ocr() -> None:
    """OcrUnavailable (a DocumentError) when OCR cannot run here, saying what to install."""
    problem = ocr_missing()
    if problem is not None:
        raise OcrUnavailable(problem)


def _page_words(page, number: int, psm: int) -> list[tuple[str, tuple, float, tuple]]:
    """(word, box, confidence, (block, paragraph, line)) of each word Tesseract reads on a
    page with page segmentation mode `psm` (3: automatic layout; 6: one uniform block)."""
    import pytesseract

    try:
        data = pytesseract.image_to_data(
            page, lang=OCR_LANGUAGE, config=f"--psm {psm}", output_type=pytesseract.Output.DICT
        )
    except pytesseract.TesseractError as err:
        raise DocumentError(
            f"tesseract failed on page {number + 1} (status {err.status})"
        ) from None
    words = []
    for i, word in enumerate(data["text"]):
        word = (word or "").strip()
        conf = float(data["conf"][i])
        if not word or conf < 0:
            continue
        left, top = int(data["left"][i]), int(data["top"][i])
        box = (left, top, left + int(data["width"][i]), top + int(data["height"][i]))
        key = (data["block_num"][i], data["par_num"][i], data["line_num"][i])
        words.append((word, box, conf, key))
    return words


def ocr_images(images: Iterable, dpi: int = OCR_DPI) -> Scan:
    """The text and word boxes of page images (PIL images) by Tesseract's Spanish model: words
    of a line one space apart, lines a line break apart, blocks a blank line apart, pages a
    blank line apart. A page whose automatic layout leaves more than MAX_UNREAD_INK of its ink
    outside the words read is read again as one block, and the reading that leaves less is
    kept (its `layout`: "auto" or "block")."""
    check_ocr()
    parts: list[str] = []
    pos = 0
    scan = Scan("", dpi=dpi)
    for number, image in enumerate(images):
        page = image.convert("RGB")
        if number:
            parts.append(PAGE_BREAK)
            pos += len(PAGE_BREAK)
        words = _page_words(page, number, 3)
        unread, layout = unread_ink(page, [w[1] for w in words]), "auto"
        if unread > MAX_UNREAD_INK:  # a block the layout analysis skipped (seen on turned pages)
            again = _page_words(page, number, 6)
            unread_again = unread_ink(page, [w[1] for w in again])
            if unread_again < unread:
                words, unread, layout = again, unread_again, "block"
        line_key = None
        line = -1
        page_text_start = pos
        for word, box, conf, key in words:
            if pos > page_text_start:
                if line_key is not None and key[0] != line_key[0]:  # a new block
                    sep = "\n\n"
                elif key != line_key:
                    sep = "\n"
                else:
                    sep = " "
                parts.append(sep)
                pos += len(sep)
            line += key != line_key
            line_key = key
            scan.words.append(ScanWord(pos, pos + len(word), number, box, conf, line))
            parts.append(word)
            pos += len(word)
        confs = [w[2] for w in words]
        mean = round(sum(confs) / len(confs), 1) if confs else None
        scan.pages.append(
            ScanPage(page.width, page.height, "ocr", len(words), mean, unread, layout)
        )
    text = "".join(parts)
    scan.text = text + "\n" if text.strip() else ""
    return scan


def unread_ink(page, boxes: Sequence[tuple[int, int, int, int]]) -> float:
    """The share of the page's inked cells (INK_CELL pixels a side, more than INK_SHARE of
    them dark) that no word box, one cell wider all round, touches: text OCR did not read."""
    import numpy as np

    ink = np.asarray(page.convert("L")) < 128
    rows, cols = ink.shape[0] // INK_CELL, ink.shape[1] // INK_CELL
    if not rows or not cols:
        return 0.0
    cells = ink[: rows * INK_CELL, : cols * INK_CELL].reshape(rows, INK_CELL, cols, INK_CELL)
    inked = cells.mean(axis=(1, 3)) > INK_SHARE
    read = np.zeros_like(inked)
    for left, top, right, bottom in boxes:
        read[
            max(top // INK_CELL - 1, 0) : bottom // INK_CELL + 2,
            max(left // INK_CELL - 1, 0) : right // INK_CELL + 2,
        ] = True
    total = int(inked.sum())
    return round(float((inked & ~read).sum()) / total, 3) if total else 0.0


def words_to_redact(scan: Scan, replacements: Sequence) -> list[ScanWord]:
    """The words of `scan` that overlap a replacement's original span (every word of every
    entity, whole)."""
    spans = sorted((r.start, r.end) for r in replacements if r.end > r.start)
    if not spans:
        return []
    found, j = [], 0
    for word in sorted(scan.words, key=lambda w: w.start):
        while j < len(spans) and spans[j][1] <= word.start:
            j += 1
        if j < len(spans) and spans[j][0] < word.end:
            found.append(word)
    return found


def redaction_boxes(scan: Scan, replacements: Sequence) -> list[tuple[int, tuple]]:
    """(page, box) of each word to redact: its box, BOX_MARGIN wider all round and reaching
    LINE_REACH of its height along its line on each side, up to half the space to a
    neighbour."""
    lines: dict[tuple[int, int], list[ScanWord]] = {}
    for word in scan.words:
        lines.setdefault((word.page, word.line), []).append(word)
    for words in lines.values():
        words.sort(key=lambda w: w.box[0])
    found = []
    for word in words_to_redact(scan, replacements):
        left, top, right, bottom = word.box
        line = lines[(word.page, word.line)]
        at = line.index(word)
        reach = int((bottom - top) * LINE_REACH)
        # up to half the space to a neighbour: the words stay apart, a field's key readable
        before = (line[at - 1].box[2] + left) // 2 + 1 if at > 0 else left - reach
        after = (right + line[at + 1].box[0]) // 2 - 1 if at + 1 < len(line) else right + reach
        found.append(
            (
                word.page,
                (
                    min(left - BOX_MARGIN, max(before, left - reach)),
                    top - BOX_MARGIN,
                    max(right + BOX_MARGIN, min(after, right + reach)),
                    bottom + BOX_MARGIN,
                ),
            )
        )
    return found


def redact_pages(images: Sequence, scan: Scan, replacements: Sequence) -> list:
    """Fresh RGB copies of the page images (no metadata of the source) with a black box over
    every word to redact (`redaction_boxes`). Raises DocumentError when the pages are not those
    of the scan."""
    from PIL import Image, ImageDraw

    if len(images) != len(scan.pages):
        raise DocumentError(f"{len(images)} pages to redact, {len(scan.pages)} read")
    pages, ratios = [], []
    for image, read in zip(images, scan.pages, strict=True):
        # a render may round a page's size another way than the scan did: a pixel or so
        rx, ry = image.width / max(read.width, 1), image.height / max(read.height, 1)
        if abs(rx - 1) > 0.01 or abs(ry - 1) > 0.01:
            raise DocumentError("the pages to redact are not the size they were read at")
        clean = Image.new("RGB", image.size, "white")
        clean.paste(image.convert("RGB"))
        pages.append(clean)
        ratios.append((rx, ry))
    draws = [ImageDraw.Draw(p) for p in pages]
    for number, (left, top, right, bottom) in redaction_boxes(scan, replacements):
        rx, ry = ratios[number]
        draws[number].rectangle(
            (int(left * rx), int(top * ry), int(right * rx + 1), int(bottom * ry + 1)),
            fill="black",
        )
    return pages


def images_pdf(pages: Sequence, dpi: int = OCR_DPI) -> bytes:
    """A PDF of page images only: no text layer, no metadata but the page count."""
    if not pages:
        raise DocumentError("no page to write")
    buf = io.BytesIO()
    first, *rest = pages
    first.save(buf, "PDF", save_all=True, append_images=rest, resolution=float(dpi))
    return buf.getvalue()


def image_bytes(pages: Sequence, image_format: str) -> bytes:
    """The pages as one image file of `image_format` (PNG, JPEG: one page; TIFF: one frame a
    page), with nothing of the source's metadata."""
    if not pages:
        raise DocumentError("no page to write")
    buf = io.BytesIO()
    first, *rest = pages
    if image_format == "TIFF":
        first.save(buf, "TIFF", save_all=True, append_images=rest, compression="tiff_deflate")
    elif len(pages) > 1:
        raise DocumentError(f"a {image_format} image holds one page, not {len(pages)}")
    elif image_format == "JPEG":
        first.save(buf, "JPEG", quality=90)
    else:
        first.save(buf, image_format)
    return buf.getvalue()
