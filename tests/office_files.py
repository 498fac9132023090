"""Documents made in the tests (invented content): a .docx with python-docx, a minimal PDF
with a text layer written by hand (PDF 1.4, Helvetica, WinAnsi), and RTF by hand."""

from collections.abc import Sequence


def make_docx(
    path,
    *,
    header: str,
    paragraphs: Sequence[Sequence[str]],
    table: Sequence[Sequence[str]] = (),
    footer: str = "",
    bold_every_other: bool = True,
) -> None:
    """paragraphs: each a list of run texts (a name split across runs crosses runs);
    every other run bold, so that the formatting of each run can be checked."""
    import docx

    doc = docx.Document()
    section = doc.sections[0]
    section.header.paragraphs[0].text = header
    if footer:
        section.footer.paragraphs[0].text = footer
    for runs in paragraphs:
        p = doc.add_paragraph()
        for j, text in enumerate(runs):
            run = p.add_run(text)
            run.bold = bool(bold_every_other and j % 2)
    if table:
        t = doc.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, text in enumerate(row):
                t.cell(r, c).text = text
    doc.core_properties.author = "Autor Inventado"
    doc.save(str(path))


def _pdf_string(line: str) -> bytes:
    raw = line.encode("cp1252")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def minimal_pdf(pages: list[list[str] | None]) -> bytes:
    """A valid PDF with one page per item: its lines as a text layer (None or []: a page
    with no text, as a scan without OCR)."""
    objs: list[bytes | None] = []

    def add(body: bytes | None) -> int:
        objs.append(body)
        return len(objs)

    font = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    kids = []
    for lines in pages:
        ops = []
        if lines:
            ops.append(b"BT /F1 11 Tf 14 TL 72 760 Td")
            ops.extend(_pdf_string(line) + b" Tj T*" for line in lines)
            ops.append(b"ET")
        stream = b"\n".join(ops)
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append((add(None), content))
    pages_id = add(None)
    for page, content in kids:
        objs[page - 1] = (
            b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (pages_id, content, font)
        )
    objs[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % p for p, _ in kids),
        len(kids),
    )
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objs) + 1,
        catalog,
        xref,
    )
    return bytes(out)


def rtf_escape(text: str) -> str:
    """Text as RTF: accents as \\'xx (cp1252), a line as \\par."""
    out = []
    for ch in text:
        if ch == "\n":
            out.append("\\par\n")
        elif ch in "\\{}":
            out.append("\\" + ch)
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append(f"\\'{ch.encode('cp1252')[0]:02x}")
    return "".join(out)


def make_rtf(text: str) -> bytes:
    body = rtf_escape(text)
    return (
        "{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Arial;}}"
        "{\\info{\\author Autor Inventado}}\n"
        "\\f0\\fs22 " + body + "\n}"
    ).encode("ascii")
