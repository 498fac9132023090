"""Markdown `.md` notes: a document source. The text is the file's text as written (decoded as
reports are: UTF-8, detection, the fallback), markup and all, so that the `.ann` offsets are
those of the file itself; its sink is the text sink (`.txt` and `.ann`)."""

from .base import Format
from .encodings import decode_bytes


def read_text(data: bytes, encoding: str = "utf-8") -> str:
    return decode_bytes(data, encoding)[0]


FORMAT = Format("md", "document", (".md", ".markdown"), read_text=read_text)
