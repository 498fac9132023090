"""A review page opened by a real browser (headless Chromium, from file://): the DOM it
builds has the highlights with their labels, the report's `<script>` as visible text (no
script element), and every replacement linked to its original and back. Invented report.

Needs `chromium` on PATH (.ci/run installs Debian's package when it is missing)."""

import shutil
import subprocess

import pytest
from html_tree import Tree as Dom

from meddocan_deid.deid import apply_operator
from meddocan_deid.deid.review import ReviewReport, page_name, write_review_site

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TEXT = (
    "Informe de alta. Paciente: Eulalia Marcó Bentabol <script>alert(1)</script>, de 38 años.\n"
    "Domicilio: Avda. de los Almendros, 44, 30012 Murcia. Teléfono: 968 55 01 72.\n"
    "<img src=x onerror=alert(3)> Firma: Dr. Baltasar Ojeda Riquelme.\n"
)
PHI = [
    ("Eulalia Marcó Bentabol", "NOMBRE_SUJETO_ASISTENCIA"),
    ("38 años", "EDAD_SUJETO_ASISTENCIA"),
    ("Avda. de los Almendros, 44", "CALLE"),
    ("30012", "TERRITORIO"),
    ("Murcia", "TERRITORIO"),
    ("968 55 01 72", "NUMERO_TELEFONO"),
    ("Baltasar Ojeda Riquelme", "NOMBRE_PERSONAL_SANITARIO"),
]


def chromium(*args, tmp_path, timeout=120):
    exe = shutil.which("chromium")
    assert exe, "chromium not found on PATH: apt-get install chromium (.ci/run does it)"
    profile = tmp_path / "chromium-profile"
    proc = subprocess.run(
        [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, f"chromium failed (exit {proc.returncode}): {proc.stderr[-500:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    spans = []
    for sub, label in PHI:
        s = TEXT.index(sub)
        spans.append((label, s, s + len(sub)))
    res = apply_operator(TEXT, spans, "surrogate", b"browser-test-key-0123456789")
    site = tmp_path_factory.mktemp("site")
    write_review_site(
        site, [ReviewReport("alta-<b>7</b>", TEXT, res.text, res.replacements)], mode="surrogate"
    )
    return site / page_name("alta-<b>7</b>"), res


@pytest.fixture(scope="module")
def dom(page, tmp_path_factory):
    path, _ = page
    return Dom(chromium("--dump-dom", path.as_uri(), tmp_path=tmp_path_factory.mktemp("chrome")))


def test_browser_shows_highlights_with_labels(dom, page):
    _, res = page
    marks = {a["id"]: a for t, a in dom.tags if t == "mark"}
    assert len(marks) == 2 * len(PHI)
    for i, (r, (sub, label)) in enumerate(zip(res.replacements, PHI), start=1):
        assert marks[f"orig-{i}"]["data-label"] == marks[f"out-{i}"]["data-label"] == label
        assert dom.mark_text[f"orig-{i}"] == sub + label
        assert dom.mark_text[f"out-{i}"] == res.text[r.new_start : r.new_end] + label


def test_browser_keeps_the_report_markup_as_text(dom):
    tags = [t for t, _ in dom.tags]
    assert "script" not in tags and "img" not in tags and "b" not in tags
    text = "".join(dom.text)
    assert text.count("<script>alert(1)</script>") == 2  # original and output, visible
    assert text.count("<img src=x onerror=alert(3)>") == 2
    assert "alta-<b>7</b>" in text


def test_browser_links_each_replacement_to_its_original(dom):
    ids = {a["id"] for _, a in dom.tags if "id" in a}
    links = {}
    for t, a in dom.tags:
        if t == "a" and a.get("href", "").startswith("#"):
            links.setdefault(a["href"][1:], 0)
            links[a["href"][1:]] += 1
    for i in range(1, len(PHI) + 1):
        assert f"orig-{i}" in ids and f"out-{i}" in ids
        assert links.get(f"orig-{i}") == 1 and links.get(f"out-{i}") == 1
    assert set(links) <= ids  # every in-page link resolves
    # the link inside each output mark goes to its original, and back
    for i in range(1, len(PHI) + 1):
        assert ("a", f"#orig-{i}") in _inside(dom, f"out-{i}") and ("a", f"#out-{i}") in _inside(
            dom, f"orig-{i}"
        )


def _inside(dom, mark_id):
    """(tag, href) of the tags that follow the mark `mark_id` up to the next mark."""
    out, on = [], False
    for t, a in dom.tags:
        if t == "mark":
            on = a.get("id") == mark_id
            continue
        if on:
            out.append((t, a.get("href")))
    return out
