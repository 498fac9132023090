"""PDF with a text layer (pypdf; the `documents` extra): a document source. Its text is the
pages' text, a blank line between pages; a PDF without text fails as "needs OCR". No sink: the
de-identified text is written as `.txt` with its `.ann` (the text sink)."""

import io

from .base import PAGE_BREAK, DocumentError, Format


def read_text(data: bytes, encoding: str = "utf-8") -> str:
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
    text = PAGE_BREAK.join(p.strip("\n") for p in pages)
    if not text.strip():
        raise DocumentError(
            f"no text layer ({len(pages)} page{'s' if len(pages) != 1 else ''}, "
            "a scanned PDF?): needs OCR"
        )
    return text + "\n"


FORMAT = Format(
    "pdf", "document", (".pdf",), modules=("pypdf",), extra="documents", read_text=read_text
)
