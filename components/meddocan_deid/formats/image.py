"""Scanned pages as images, PNG, JPEG or TIFF (one page a frame; the `ocr` extra: Pillow and
Tesseract's Spanish model, formats/scan.py): a document source read by OCR, each word's box
kept, and its sink: the image in its own format with a filled box over every PHI word (pixels
only, none of the source's metadata). A photo's EXIF orientation is applied before OCR."""

import io
from contextlib import contextmanager

from .base import DocumentError, Format
from .scan import Scan, image_bytes, ocr_images, redact_pages

# Pillow's name of each suffix's format
IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".tif": "TIFF", ".tiff": "TIFF"}


@contextmanager
def _readable():
    """Pillow's errors on a damaged file, raised in the block, as one DocumentError (the class
    only: a message may quote the content)."""
    try:
        yield
    except Exception as err:  # noqa: BLE001 - Pillow raises many kinds on a damaged file
        raise DocumentError(f"not a readable image ({type(err).__name__})") from None


def frame_count(data: bytes) -> int:
    """The image's frames (a TIFF's pages), counted without decoding them."""
    from PIL import Image

    with _readable(), Image.open(io.BytesIO(data)) as opened:
        return int(getattr(opened, "n_frames", 1))


def _pages(data: bytes) -> tuple[list, str]:
    """(the frames as upright RGB images, Pillow's name of the image's format)."""
    from PIL import Image, ImageOps, ImageSequence

    with _readable():
        image = Image.open(io.BytesIO(data))
        kind = image.format or "PNG"
        pages = [
            ImageOps.exif_transpose(frame.copy()).convert("RGB")
            for frame in ImageSequence.Iterator(image)
        ]
    if kind not in IMAGE_FORMATS.values():
        raise DocumentError(f"a {kind} image, not PNG, JPEG or TIFF")
    return pages, kind


def read_scan(data: bytes, *, text_layer: bool = False) -> Scan:
    return ocr_images(_pages(data)[0], dpi=0)


def read_text(data: bytes, encoding: str = "utf-8") -> str:
    return read_scan(data).text


def write_redacted(data: bytes, scan: Scan, replacements) -> bytes:
    """The image in its own format, a black box over every word of every replacement."""
    pages, kind = _pages(data)
    return image_bytes(redact_pages(pages, scan, replacements), kind)


FORMAT = Format(
    "image",
    "document",
    tuple(IMAGE_FORMATS),
    modules=("PIL", "pytesseract"),
    extra="ocr",
    read_text=read_text,
    read_scan=read_scan,
    write_redacted=write_redacted,
)
