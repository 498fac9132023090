"""RTF (striprtf; the `documents` extra): a document source. The file's bytes are decoded as
reports are (UTF-8, detection, the fallback), its \\ansicpg, when it has one, wins over cp1252.
No sink: the de-identified text is written as `.txt` with its `.ann`."""

from .base import DocumentError, Format
from .encodings import decode_bytes


def read_text(data: bytes, encoding: str = "utf-8") -> str:
    from striprtf.striprtf import rtf_to_text

    try:
        raw = decode_bytes(data, encoding)[0]
    except UnicodeDecodeError as err:
        raise DocumentError(f"not valid RTF bytes (byte {err.start})") from None
    if not raw.lstrip("\ufeff \r\n\t").startswith("{\\rtf"):
        raise DocumentError("not an RTF file (no {\\rtf header)")
    try:
        # the file's \ansicpg, when it has one, wins over cp1252
        return rtf_to_text(raw, encoding="cp1252", errors="strict")
    except (UnicodeDecodeError, ValueError, LookupError, IndexError) as err:
        raise DocumentError(f"not a readable RTF file ({type(err).__name__})") from None


FORMAT = Format(
    "rtf", "document", (".rtf",), modules=("striprtf",), extra="documents", read_text=read_text
)
