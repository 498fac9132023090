"""PDF (pypdf; the `documents` extra): a document source. Its text is the pages' text layer, a
blank line between pages. A PDF without text is read by OCR (the `ocr` extra: its pages rendered
by pypdfium2, then Tesseract's Spanish model, formats/scan.py); without the extra it fails as
"needs OCR", saying what to install. Sinks: the de-identified text as `.txt` with its `.ann`
(the text sink) and, for a scan (or a PDF with a text layer when a redacted copy is asked), a
redacted PDF of page images only (`write_redacted`), a filled box over every PHI word."""

import io
import re

from .base import PAGE_BREAK, DocumentError, Format
from .scan import (
    INSTALL_HINT,
    OCR_DPI,
    OcrUnavailable,
    Scan,
    ScanPage,
    ScanWord,
    images_pdf,
    ocr_images,
    ocr_missing,
    redact_pages,
)

POINTS_PER_INCH = 72


def _text_layer(data: bytes) -> tuple[str, int]:
    """(the text layer's text, the page count) by pypdf."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError("encrypted PDF (needs a password): decrypt it first")
        pages = [page.extract_text() or "" for page in reader.pages]
    except DocumentError:
        raise
    except Exception as err:  # noqa: BLE001 - pypdf raises many kinds on a damaged file (and on AES
        # without its crypto library); the class only: a message may quote the content
        raise DocumentError(f"not a readable PDF ({type(err).__name__})") from None
    return PAGE_BREAK.join(p.strip("\n") for p in pages), len(pages)


def _needs_ocr(n_pages: int) -> str:
    return f"no text layer ({n_pages} page{'s' if n_pages != 1 else ''}, a scanned PDF?): needs OCR"


def read_text(data: bytes, encoding: str = "utf-8") -> str:
    text, n_pages = _text_layer(data)
    if text.strip():
        return text + "\n"
    problem = ocr_missing()
    if problem is not None:
        raise OcrUnavailable(f"{_needs_ocr(n_pages)}; {problem}")
    return _ocr(data).text


def read_scan(data: bytes, *, text_layer: bool = False) -> Scan | None:
    """A PDF without text: its OCR; with a text layer: None (read_text reads it), or when
    `text_layer` (a redacted copy is asked) the text layer by pypdfium2 with each character's
    box."""
    text, n_pages = _text_layer(data)
    if not text.strip():
        problem = ocr_missing()
        if problem is not None:
            raise OcrUnavailable(f"{_needs_ocr(n_pages)}; {problem}")
        return _ocr(data)
    return _text_layer_scan(data) if text_layer else None


def _open(data: bytes):
    try:
        import pypdfium2 as pdfium
    except ImportError:
        raise DocumentError(
            f"a redacted PDF needs the ocr extra (pypdfium2 is not installed): {INSTALL_HINT}"
        ) from None

    try:
        return pdfium.PdfDocument(data)
    except Exception as err:  # noqa: BLE001 - PdfiumError on a damaged or encrypted file
        raise DocumentError(f"not a readable PDF ({type(err).__name__})") from None


def page_count(data: bytes) -> int:
    """The pages, counted by pypdfium2 without rendering them; DocumentError for a file it
    cannot open."""
    document = _open(data)
    try:
        return len(document)
    finally:
        document.close()


def _rendered(data: bytes, dpi: int) -> list:
    """The pages as PIL images at `dpi`."""
    pdf = _open(data)
    try:
        return [
            page.render(scale=dpi / POINTS_PER_INCH, rotation=0).to_pil().convert("RGB")
            for page in pdf
        ]
    finally:
        pdf.close()


def _ocr(data: bytes) -> Scan:
    return ocr_images(_rendered(data, OCR_DPI), dpi=OCR_DPI)


def _text_layer_scan(data: bytes, dpi: int = OCR_DPI) -> Scan:
    """The text layer as pypdfium2 reads it, its line ends as `read_text` (pypdf) writes them
    (`_layer_indices`), each word (a run of non-space characters) boxed by the union of its
    characters' boxes, in the pixels of the page rendered at `dpi`."""

    pdf = _open(data)
    scale = dpi / POINTS_PER_INCH
    scan = Scan("", dpi=dpi)
    parts: list[str] = []
    pos = 0
    try:
        for number, page in enumerate(pdf):
            width, height = page.get_size()
            textpage = page.get_textpage()
            n = textpage.count_chars()
            # one character an index (a character outside the BMP comes as one index too)
            chars = [(textpage.get_text_range(i, 1) or " ")[:1] for i in range(n)]
            indices = _layer_indices(chars)
            text = "".join(chars[i] for i in indices).replace("\r", " ")
            if number:
                parts.append(PAGE_BREAK)
                pos += len(PAGE_BREAK)
            n_words = 0
            for match in re.finditer(r"\S+", text):
                boxes = [textpage.get_charbox(indices[j]) for j in range(*match.span())]
                boxes = [b for b in boxes if b[2] > b[0] and b[3] > b[1]]
                if not boxes:
                    continue
                left = min(b[0] for b in boxes)
                bottom = min(b[1] for b in boxes)
                right = max(b[2] for b in boxes)
                top = max(b[3] for b in boxes)
                box = (
                    int(left * scale),
                    int((height - top) * scale),
                    int(right * scale) + 1,
                    int((height - bottom) * scale) + 1,
                )
                start = pos + match.start()
                line = text.count("\n", 0, match.start())
                scan.words.append(
                    ScanWord(start, start + len(match.group()), number, box, None, line)
                )
                n_words += 1
            parts.append(text)
            pos += len(text)
            size = (round(width * scale), round(height * scale))
            scan.pages.append(ScanPage(size[0], size[1], "text layer", n_words))
            textpage.close()
    finally:
        pdf.close()
    scan.text = "".join(parts) + "\n"
    return scan


def _layer_indices(chars: list[str]) -> list[int]:
    """The indices of a page's characters kept in its text: pdfium ends each line it generates
    with `\\r\\n`, read as `\\n`, and the page's leading and trailing line ends go, as in
    pypdf's text (`read_text`): the same PDF gives the same text with or without a redacted
    copy, on the command line, the service and Spark."""
    kept = [
        i
        for i, c in enumerate(chars)
        if not (c == "\r" and i + 1 < len(chars) and chars[i + 1] == "\n")
    ]
    while kept and chars[kept[0]] == "\n":
        kept.pop(0)
    while kept and chars[kept[-1]] == "\n":
        kept.pop()
    return kept


def write_redacted(data: bytes, scan: Scan, replacements) -> bytes:
    """The PDF's pages rendered at the scan's resolution, a black box over every word of every
    replacement, written as a PDF of images only (no text layer)."""
    pages = _rendered(data, scan.dpi)
    return images_pdf(redact_pages(pages, scan, replacements), scan.dpi)


FORMAT = Format(
    "pdf",
    "document",
    (".pdf",),
    modules=("pypdf",),
    extra="documents",
    read_text=read_text,
    read_scan=read_scan,
    write_redacted=write_redacted,
)
