"""How input bytes become text: UTF-8 when they are, else a confident detection, else the
fallback."""

import codecs

from charset_normalizer import from_bytes


def decode_bytes(data: bytes, fallback: str = "utf-8") -> tuple[str, str]:
    """(text, codec name): UTF-8 when `data` is valid UTF-8 (strict); else the encoding
    charset-normalizer detects with confidence; else `fallback`. Detection is confident when
    the fallback is not among its candidates and every candidate decodes `data` to the same
    text (for Spanish in cp1252 it also proposes cp1250, which reads `ñ` as `ń`: not
    confident). Raises UnicodeDecodeError when `fallback` is needed and does not decode."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    fallback = codecs.lookup(fallback).name
    detected = _detect(data, fallback)
    if detected is not None:
        return detected
    return data.decode(fallback), fallback


def _detect(data: bytes, fallback: str) -> tuple[str, str] | None:
    matches = list(from_bytes(data))
    if not matches:
        return None
    names = []
    for m in matches:
        try:
            names.append(codecs.lookup(m.encoding).name)
        except LookupError:
            return None
    if fallback in names:
        return None  # a plausible reading: the user's choice decides
    texts = {str(m) for m in matches}
    if len(texts) != 1:
        return None
    return texts.pop(), names[0]


def encoding_label(encoding: str) -> str:
    """How messages name an input encoding: `UTF-8` for the default, else the codec name."""
    return "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding
