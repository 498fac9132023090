"""A plain-text report, `.txt` in any case (`.TXT`): a source (one report, its id the file's
stem) and, through the output folder (engine/output.py), the sink of every report: its
de-identified `.txt` and a BRAT `.ann`. Its bytes are read as UTF-8 when they are valid UTF-8,
else in the encoding charset-normalizer detects with confidence, else in the fallback."""

from collections.abc import Iterator
from pathlib import Path

from .base import Format, Item, safe_stem
from .encodings import decode_bytes


def items(path: Path, encoding: str = "utf-8", find=None) -> Iterator[Item]:
    path = Path(path)
    yield Item(path.stem, safe_stem(path.stem), path=path, where=path.name)


def read_text(data: bytes, encoding: str = "utf-8") -> str:
    return decode_bytes(data, encoding)[0]


FORMAT = Format("txt", "text", (".txt",), read_text=read_text, items=items)
