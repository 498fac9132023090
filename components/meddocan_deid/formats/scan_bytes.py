"""A scanned document given as bytes rather than as a file of a run (an upload to the service,
a row of a Spark binary column): `scan_kind`, its format by its content (a PDF, or a PNG, JPEG
or TIFF image); `page_count`, its pages before any OCR; `read_scan_bytes`, its text and word
boxes by the readers a run uses (pdf.py, image.py: a PDF is read from its text layer when it
has one, as `deidentify --redacted-pdf` reads it, else by OCR); `page_entries`, its pages as
the run report lists them (engine/scans.py `ScanLog` uses it too); `redacted_copy`, its pages
as images only with a box over every PHI word. Messages name the problem, never text."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import image, pdf
from .base import DocumentError
from .scan import MAX_UNREAD_INK, OcrUnavailable, Scan, ocr_missing

DEFAULT_REVIEW_BELOW = 60.0  # Tesseract's mean word confidence (0-100) under which a page is
# flagged: below it, character errors hide identifiers from the pipeline (docs/ocr.md)
# the file signatures of the formats read as scans, and the media type of each
SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image", "image/png"),
    (b"\xff\xd8\xff", "image", "image/jpeg"),
    (b"II*\x00", "image", "image/tiff"),
    (b"MM\x00*", "image", "image/tiff"),
)
PDF_SIGNATURE = b"%PDF-"
PDF_HEADER_BYTES = 1024  # a PDF reader takes the signature anywhere in the first kilobyte


@dataclass(frozen=True)
class ScanKind:
    """A scanned document's format (`pdf` or `image`, the registry's names) and the media type
    of it and of its redacted copy."""

    format: str
    media_type: str


def scan_kind(data: bytes) -> ScanKind:
    """The format of a scanned document by its first bytes; DocumentError for anything else."""
    for signature, name, media_type in SIGNATURES:
        if data.startswith(signature):
            return ScanKind(name, media_type)
    if PDF_SIGNATURE in data[:PDF_HEADER_BYTES]:
        return ScanKind("pdf", "application/pdf")
    raise DocumentError("not a scanned document: expected a PDF, PNG, JPEG or TIFF file")


def page_count(data: bytes, kind: ScanKind) -> int:
    """The document's pages (a PDF's pages, an image's frames), read without OCR;
    DocumentError for a file its format cannot open."""
    return pdf.page_count(data) if kind.format == "pdf" else image.frame_count(data)


def read_scan_bytes(data: bytes, kind: ScanKind | None = None) -> tuple[ScanKind, Scan]:
    """(its kind, its Scan): OCR of its pages, or a PDF's text layer with each word's box.
    OcrUnavailable when its pages need OCR and OCR cannot run here (a PDF with a text layer
    needs none); DocumentError for an unreadable file."""
    kind = kind or scan_kind(data)
    fmt = pdf.FORMAT if kind.format == "pdf" else image.FORMAT
    missing = fmt.missing()
    if missing is not None:
        raise OcrUnavailable(missing)
    if kind.format != "pdf":  # an image is read by OCR only; pdf.read_scan checks when it must
        missing = ocr_missing()
        if missing is not None:
            raise OcrUnavailable(missing)
    assert fmt.read_scan is not None
    scan = fmt.read_scan(data, text_layer=True)
    if scan is None:  # a reader gives a Scan whenever it is asked for the words' boxes
        raise DocumentError(f"no page read from the {kind.format}")
    return kind, scan


def page_entries(scan: Scan, review_below: float = DEFAULT_REVIEW_BELOW) -> list[dict[str, Any]]:
    """Each page as the run report lists it: its number (from 1), where its text came from,
    its words and, for an OCR page, its mean word confidence, the share of its ink outside the
    words read, the layout kept and whether it is to be reviewed (confidence below
    `review_below`, no word recognised, or more than MAX_UNREAD_INK of its ink unread)."""
    pages = []
    for number, page in enumerate(scan.pages, start=1):
        entry: dict[str, Any] = {"page": number, "source": page.source, "words": page.words}
        if page.source == "ocr":
            entry["confidence"] = page.confidence
            # a block Tesseract skipped is neither de-identified nor boxed
            entry["unread_ink"] = page.unread
            entry["layout"] = page.layout
            entry["review"] = (
                page.confidence is None
                or page.confidence < review_below
                or (page.unread is not None and page.unread > MAX_UNREAD_INK)
            )
        pages.append(entry)
    return pages


def redacted_copy(data: bytes, kind: ScanKind, scan: Scan, replacements: Sequence) -> bytes:
    """The document's pages as images only, in its own format, a black box over every word of
    every replacement (the writers of a run's redacted copies)."""
    writer = pdf.FORMAT.write_redacted if kind.format == "pdf" else image.FORMAT.write_redacted
    assert writer is not None
    return writer(data, scan, replacements)
