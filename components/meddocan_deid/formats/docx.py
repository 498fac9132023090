"""Word `.docx` (python-docx, lxml; the `documents` extra): a document source and sink.

`read_text` gives the plain text the pipeline reads; `write_document` (the sink) gives the
`.docx` back with that text de-identified: every text node keeps its run and so its
formatting; a replacement goes into the node where its entity starts, and the rest of an
entity that crosses runs is removed from the following nodes.

Word text read (and rewritten): the body (tables and text boxes included), headers,
footers, footnotes, endnotes and comments; deleted text of tracked changes too (it is
still in the file). Paragraphs end with a line break, each part with a blank line. The
document's properties that hold free text (author, title, subject...) are emptied.
"""

import io
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .base import DocumentError, Format

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# the parts of a .docx that hold text, by the end of their content type, in reading order
DOCX_PARTS = (
    "header+xml",
    "document.main+xml",
    "document.macroEnabled.main+xml",
    "template.main+xml",
    "footnotes+xml",
    "endnotes+xml",
    "footer+xml",
    "comments+xml",
)
CORE_TEXT_PROPERTIES = (
    "author",
    "last_modified_by",
    "title",
    "subject",
    "keywords",
    "comments",
    "category",
    "content_status",
    "identifier",
)


# -- Word --------------------------------------------------------------------------------------


@dataclass
class _Segment:
    """A stretch [start, end) of the extracted text and the node it comes from: a text node
    (rewritten), a tab or break (removed when inside an entity) or None (a paragraph end)."""

    start: int
    end: int
    node: Any = None  # an lxml element
    editable: bool = False


def _open_docx(data: bytes):
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        return docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError) as err:
        raise DocumentError(f"not a readable .docx ({type(err).__name__})") from None
    except Exception as err:  # noqa: BLE001 - zipfile and lxml errors on a damaged file
        raise DocumentError(f"not a readable .docx ({type(err).__name__})") from None


def _text_parts(document) -> list[tuple[object, object]]:
    """(part, its XML root) of each part that holds text, in reading order."""
    from lxml import etree

    found = []
    for part in document.part.package.iter_parts():
        ctype = part.content_type
        rank = next((i for i, end in enumerate(DOCX_PARTS) if ctype.endswith(end)), None)
        if rank is None:
            continue
        root = getattr(part, "element", None)
        if root is None:  # a part python-docx keeps as bytes (footnotes, endnotes)
            try:
                root = etree.fromstring(part.blob)
            except etree.XMLSyntaxError as err:
                raise DocumentError(
                    f"not a readable .docx ({part.partname}: {type(err).__name__})"
                ) from None
        found.append((rank, str(part.partname), part, root))
    found.sort(key=lambda x: (x[0], x[1]))
    return [(part, root) for _rank, _name, part, root in found]


def _walk(root, emit: Callable[[str, object, bool], None]) -> None:
    """Emit the text of `root` in document order: text nodes, tabs and breaks, and a line
    break at the end of each paragraph (a text box's paragraphs inside its anchor's)."""
    stack = [iter(root)]
    ends: list[bool | None] = [None]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            end = ends.pop()
            if end is not None:
                emit("\n", None, False)
            continue
        tag = child.tag
        if not isinstance(tag, str):  # comments, processing instructions
            continue
        if tag in (W + "t", W + "delText"):
            emit(child.text or "", child, True)
        elif tag == W + "tab" and child.getparent().tag == W + "r":
            emit("\t", child, False)
        elif tag in (W + "br", W + "cr"):
            emit("\n", child, False)
        elif tag in (W + "instrText", W + "delInstrText", W + "rPr", W + "pPr"):
            continue  # field codes and properties are no text of the page
        else:
            stack.append(iter(child))
            ends.append(True if tag == W + "p" else None)


def _docx_segments(document) -> tuple[str, list[_Segment], list]:
    """The extracted text, its segments and the parts (to write back)."""
    pieces: list[str] = []
    segments: list[_Segment] = []
    pos = [0]

    def emit(text: str, node, editable: bool) -> None:
        if text:
            segments.append(_Segment(pos[0], pos[0] + len(text), node, editable))
            pieces.append(text)
            pos[0] += len(text)

    parts = _text_parts(document)
    for i, (_part, root) in enumerate(parts):
        if i and pos[0]:
            emit("\n", None, False)  # a blank line between parts (with the last paragraph's end)
        _walk(root, emit)
    return "".join(pieces), segments, parts


def read_text(data: bytes, encoding: str = "utf-8") -> str:
    return _docx_segments(_open_docx(data))[0]


def write_document(data: bytes, new_text: str, replacements: Sequence) -> bytes:
    """The `.docx` `data` with its extracted text replaced by `new_text` as `replacements`
    say (`Replacement`s in the offsets of `read_text(data)` and of `new_text`):
    each run keeps its formatting. Raises DocumentError for a replacement outside the text."""
    from docx.oxml.ns import qn

    document = _open_docx(data)
    original, segments, parts = _docx_segments(document)
    if any(r.end > len(original) for r in replacements):
        raise DocumentError("the replacements do not fit the document's text")
    reps = sorted(replacements, key=lambda r: r.start)
    starts = [r.start for r in reps]
    owner = _owners(reps, segments)
    for idx, seg in enumerate(segments):
        # the replacements that overlap this segment
        i = max(0, bisect_left(starts, seg.start) - 1)
        hits = [
            r
            for r in reps[i : bisect_left(starts, seg.end)]
            if r.start < seg.end and r.end > seg.start
        ]
        if not seg.editable:
            if hits and seg.node is not None:  # a tab or break inside an entity goes with it
                seg.node.getparent().remove(seg.node)
            continue
        out, pos = [], seg.start
        for r in hits:
            if r.start > pos:
                out.append(original[pos : r.start])
            if owner.get(r.start) == idx:
                out.append(new_text[r.new_start : r.new_end])
            pos = max(pos, min(r.end, seg.end))
        out.append(original[pos : seg.end])
        value = "".join(out)
        if value != original[seg.start : seg.end]:
            seg.node.text = value
            seg.node.set(qn("xml:space"), "preserve")  # leading and trailing spaces are kept
    _clear_properties(document)
    _clear_traces(document, parts)
    from lxml import etree

    for part, root in parts:
        if getattr(part, "element", None) is None:
            part._blob = etree.tostring(
                root, xml_declaration=True, encoding="UTF-8", standalone=True
            )
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


# attributes of tracked changes and comments that name their author and time
TRACE_ATTRIBUTES = ("author", "initials", "date")


def _clear_traces(document, parts) -> None:
    """What identifies beyond the text: tracked-change and comment authors and dates, and the
    targets of external links (a `mailto:` keeps the address its visible text lost) are
    emptied; custom document properties are dropped."""
    from docx.oxml.ns import qn

    names = [qn(f"w:{a}") for a in TRACE_ATTRIBUTES]
    for _part, root in parts:
        for el in root.iter():
            for name in names:
                if el.get(name) is not None:
                    el.set(name, "")
    for part in document.part.package.iter_parts():
        for rel in part.rels.values():
            if rel.is_external:
                rel._target = ""
        if part.content_type.endswith("custom-properties+xml"):
            part._blob = (
                b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns='
                b'"http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"/>'
            )


def _owners(reps, segments: list[_Segment]) -> dict:
    """replacement start -> index of the first text segment it overlaps (where its new text
    goes)."""
    owner = {}
    seg_starts = [s.start for s in segments]
    for r in reps:
        j = max(0, bisect_left(seg_starts, r.start) - 1)
        while j < len(segments) and segments[j].start < r.end:
            s = segments[j]
            if s.editable and s.end > r.start:
                owner[r.start] = j
                break
            j += 1
    return owner


def _clear_properties(document) -> None:
    """Empty the core properties that hold free text (a name in `author` or `title`)."""
    props = document.core_properties
    for name in CORE_TEXT_PROPERTIES:
        if getattr(props, name, None):
            setattr(props, name, "")
    for part in document.part.package.iter_parts():  # docProps/app.xml: Company, Manager
        if part.content_type.endswith("extended-properties+xml"):
            from lxml import etree

            try:
                root = etree.fromstring(part.blob)
            except etree.XMLSyntaxError:
                continue
            changed = False
            for el in root:
                if isinstance(el.tag, str) and el.tag.rsplit("}", 1)[-1] in (
                    "Company",
                    "Manager",
                    "HyperlinkBase",
                ):
                    el.text = ""
                    changed = True
            if changed:
                part._blob = etree.tostring(
                    root, xml_declaration=True, encoding="UTF-8", standalone=True
                )


FORMAT = Format(
    "docx",
    "document",
    (".docx",),
    modules=("docx", "lxml"),
    extra="documents",
    read_text=read_text,
    write_document=write_document,
)
