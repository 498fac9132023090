"""The review site's HTML, parsed without a browser: highlights, links both ways, escaping,
no external resource, flags; and the CLI options that write it. Invented reports only."""

from pathlib import Path

import pytest
from html_tree import Tree
from typer.testing import CliRunner

from meddocan_deid.brat import validate_ann
from meddocan_deid.cli import app
from meddocan_deid.deid import apply_operator
from meddocan_deid.deid.review import (
    ReviewReport,
    ReviewRow,
    page_name,
    render_index,
    render_report_page,
    report_flags,
    usual_count_flags,
    write_review_site,
)
from meddocan_deid.engine import run

KEY = b"review-test-key-0123456789"
TEXT = (
    "Paciente: Teodora Villalpando Ruiz <script>alert(1)</script>, 61 años.\n"
    "Remitida por la Dra. Inés Carrasco <b>Ferrán</b> desde Hospital San Ejemplo.\n"
)


def spans_of(text):
    out = []
    for sub, label in [
        ("Teodora Villalpando Ruiz", "NOMBRE_SUJETO_ASISTENCIA"),
        ("61 años", "EDAD_SUJETO_ASISTENCIA"),
        ("Inés Carrasco <b>Ferrán</b>", "NOMBRE_PERSONAL_SANITARIO"),
        ("Hospital San Ejemplo", "HOSPITAL"),
    ]:
        s = text.index(sub)
        out.append((label, s, s + len(sub)))
    return out


def page_for(mode, text=TEXT, report_id="inf-001"):
    res = apply_operator(text, spans_of(text), mode, KEY if mode == "surrogate" else None)
    return res, render_report_page(
        ReviewReport(report_id, text, res.text, res.replacements), mode=mode
    )


@pytest.mark.parametrize("mode", ("tag", "mask", "redact", "surrogate"))
def test_page_highlights_and_links_both_ways(mode):
    res, html = page_for(mode)
    tree = Tree(html)
    marks = {a["id"]: a for a in tree.find("mark")}
    anchors = [a for a in tree.find("a") if a.get("href", "").startswith("#")]
    n = len(res.replacements)
    assert sorted(marks) == sorted(
        [f"orig-{i}" for i in range(1, n + 1)] + [f"out-{i}" for i in range(1, n + 1)]
    )
    for i, r in enumerate(res.replacements, start=1):
        assert marks[f"orig-{i}"]["data-label"] == marks[f"out-{i}"]["data-label"] == r.label
        # the highlighted text is the PHI on the left, the replacement on the right (+ the label)
        assert tree.mark_text[f"orig-{i}"] == TEXT[r.start : r.end] + r.label
        assert tree.mark_text[f"out-{i}"] == res.text[r.new_start : r.new_end] + r.label
    hrefs = {a["href"][1:] for a in anchors}
    assert hrefs == set(marks)  # every link resolves to a mark and every mark is linked


@pytest.mark.parametrize("mode", ("tag", "surrogate"))
def test_page_escapes_the_report_and_loads_nothing(mode):
    _, html = page_for(mode, report_id='x"><script>alert(2)</script>')
    tree = Tree(html)
    tags = {t for t, _ in tree.tags}
    assert not tags & {
        "script",
        "iframe",
        "img",
        "link",
        "object",
        "embed",
        "b",
    }  # <b> is report text
    assert "<script>alert(1)</script>" in "".join(tree.text)  # visible, as text
    assert "alert(2)" in "".join(tree.text)
    for _, attrs in tree.tags:
        for name, value in attrs.items():
            assert not (
                name in ("src", "href") and value and not value.startswith(("#", "../", "reports/"))
            )
    csp = [a for a in tree.find("meta") if a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"]


def test_legend_lists_the_labels_of_the_report():
    _, html = page_for("tag")
    legend = html[html.index('<div class="legend">') : html.index('<div class="cols">')]
    for label in ("NOMBRE_SUJETO_ASISTENCIA 1", "EDAD_SUJETO_ASISTENCIA 1", "HOSPITAL 1"):
        assert label in legend
    assert "FECHAS" not in legend


def rep(text, spans, status="ok"):
    res = apply_operator(text, spans, "tag") if status == "ok" else None
    return ReviewReport(
        "r",
        text if res else None,
        res.text if res else None,
        res.replacements if res else [],
        status,
    )


LONG = "Calle del Doctor Fernando Esteban Villaescusa de la Sierra Norte número 1234"


@pytest.mark.parametrize(
    "report,expected",
    [
        (rep("Sin datos personales.", []), ["no PHI found"]),
        (rep("Ana vino.", [("NOMBRE_SUJETO_ASISTENCIA", 0, 3)]), []),
        (
            rep(LONG, [("CALLE", 0, len(LONG))]),
            [f"long entity: CALLE ({len(LONG)} chars, 12 tokens)"],
        ),
        (rep("a b c d e f g h i", [("CALLE", 0, 17)]), ["long entity: CALLE (17 chars, 9 tokens)"]),
        (rep("a b c d e f g h", [("CALLE", 0, 15)]), []),
        (rep(None, [], status="failed: empty text"), ["failed"]),
    ],
)
def test_report_flags(report, expected):
    assert report_flags(report) == expected


def test_failed_report_has_no_page():
    with pytest.raises(ValueError, match="failed report"):
        render_report_page(ReviewReport("r", None, None, [], "failed: empty text"))


@pytest.mark.parametrize("outlier,flagged", [(2, False), (9, True)])
def test_usual_count_flags(outlier, flagged):
    rows = [ReviewRow(f"r{i}", None, "ok", {"FECHAS": 2}, []) for i in range(12)]
    rows.append(ReviewRow("odd", None, "ok", {"FECHAS": outlier}, []))
    usual_count_flags(rows)
    assert bool(rows[-1].flags) is flagged and not any(r.flags for r in rows[:-1])


def test_index_rows_and_escaping():
    rows = [
        ReviewRow("a<i>1", "reports/a_i_1.html", "ok", {"FECHAS": 2, "HOSPITAL": 1}, []),
        ReviewRow("b", None, "failed: text too long (9 characters, limit 5)", {}, ["failed"]),
    ]
    tree = Tree(render_index(rows, mode="tag"))
    assert "i" not in {t for t, _ in tree.tags}
    assert [a["href"] for a in tree.find("a")] == ["reports/a_i_1.html"]
    text = "".join(tree.text)
    assert (
        "a<i>1" in text
        and "FECHAS 2" in text
        and "text too long" in text
        and "1 need a look" in text
    )


def test_write_review_site_links_resolve(tmp_path):
    res = apply_operator(TEXT, spans_of(TEXT), "tag")
    reports = [
        ReviewReport("dir/inf 1", TEXT, res.text, res.replacements),
        ReviewReport("inf-2", None, None, [], "failed: empty text"),
    ]
    index = write_review_site(tmp_path / "site", reports, mode="tag")
    hrefs = [a["href"] for a in Tree(index.read_text(encoding="utf-8")).find("a")]
    assert hrefs == [page_name("dir/inf 1")] and (tmp_path / "site" / hrefs[0]).is_file()
    page = (tmp_path / "site" / hrefs[0]).read_text(encoding="utf-8")
    back = [a["href"] for a in Tree(page).find("a") if not a["href"].startswith("#")]
    assert (
        back == ["../index.html"]
        and (tmp_path / "site" / "reports" / back[0]).resolve() == index.resolve()
    )


def test_cli_writes_private_ann_and_review(tmp_path, rule_nlp):
    inp = tmp_path / "in"
    inp.mkdir()
    text = "Nombre: Rufino Aldecoa Peña.\nNHC: 5512903.\nFecha de ingreso: 07/09/2014.\n"
    (inp / "inf1.txt").write_text(text, encoding="utf-8")
    (inp / "inf2.txt").write_text("  \n", encoding="utf-8")  # empty: listed, not failed
    out, priv, review = tmp_path / "out", tmp_path / "private", tmp_path / "review"
    rep_ = run(
        inp,
        out,
        "surrogate",
        KEY,
        nlp=rule_nlp,
        progress=False,
        private_dir=priv,
        review_dir=review,
    )
    assert (
        rep_["reports"]["written"] == 1
        and rep_["reports"]["failed"] == 0
        and rep_["reports"]["empty"] == 1
    )
    shared = (out / "inf1.txt").read_text(encoding="utf-8")
    n = validate_ann(shared, (out / "inf1.ann").read_text(encoding="utf-8"))
    assert n >= 2 and "Rufino" not in (out / "inf1.ann").read_text(encoding="utf-8")
    assert (priv / "inf1.txt").read_text(encoding="utf-8") == text
    private_ann = (priv / "inf1.ann").read_text(encoding="utf-8")
    assert validate_ann(text, private_ann) == n and "Rufino Aldecoa" in private_ann
    assert sorted(p.name for p in out.iterdir()) == [
        ".meddocan-deid-inputs.jsonl",
        "audit_log.jsonl",
        "inf1.ann",
        "inf1.txt",
        "run_fingerprint.json",
        "run_report.json",
    ]
    index = (review / "index.html").read_text(encoding="utf-8")
    assert "inf2" in index and "empty text" in index and (review / page_name("inf1")).is_file()
    assert "Rufino" in (review / page_name("inf1")).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "option,where",
    [
        ("--review", "out"),
        ("--review", "out/review"),
        ("--private-dir", "out"),
        ("--private-dir", "out/a/b"),
        ("--private-dir", "in/private"),
    ],
)
def test_cli_refuses_phi_folders_inside_output(tmp_path, option, where):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("Ana vino.", encoding="utf-8")
    result = CliRunner().invoke(
        app,
        [
            "deidentify",
            str(tmp_path / "in"),
            str(tmp_path / "out"),
            "--mode",
            "tag",
            option,
            str(tmp_path / where),
            "--model",
            str(tmp_path / "no-model"),
        ],
    )
    assert result.exit_code == 2
    assert f"{option} must not be" in result.output and "no-model" not in result.output
    assert not (tmp_path / "out").exists()
    assert ("shows the original reports (PHI)" in result.output) is (option == "--review")


@pytest.mark.parametrize("mode", ("tag", "mask", "redact", "surrogate"))
def test_review_command_rebuilds_the_pages_from_stored_files(tmp_path, rule_nlp, mode):
    inp = tmp_path / "in"
    (inp / "sub").mkdir(parents=True)
    (inp / "sub" / "inf1.txt").write_text(
        "Nombre: Rufino Aldecoa Peña.\nNHC: 5512903.\nFecha de ingreso: 07/09/2014.\n"
        "Domicilio: C/ Olmo, 3.\n28011 Madrid.\n",
        encoding="utf-8",
    )
    (inp / "inf2.txt").write_text("Sin datos.\n", encoding="utf-8")
    (inp / "inf3.txt").write_text("", encoding="utf-8")  # empty: listed in the index
    out, priv = tmp_path / "out", tmp_path / "private"
    run(
        inp,
        out,
        mode,
        KEY if mode == "surrogate" else None,
        nlp=rule_nlp,
        progress=False,
        private_dir=priv,
        review_dir=tmp_path / "live",
    )
    result = CliRunner().invoke(app, ["review", str(out), str(priv), str(tmp_path / "stored")])
    assert result.exit_code == 0, result.output
    live = {
        p.relative_to(tmp_path / "live"): p.read_bytes()
        for p in (tmp_path / "live").rglob("*.html")
    }
    stored = {
        p.relative_to(tmp_path / "stored"): p.read_bytes()
        for p in (tmp_path / "stored").rglob("*.html")
    }
    assert set(live) == set(stored) and len(live) == 3  # index + 2 pages
    for name in live:
        if name.name != "index.html":
            assert live[name] == stored[name], name
    assert (
        "inf3" in stored[Path("index.html")].decode()
        and "empty text" in stored[Path("index.html")].decode()
    )


@pytest.mark.parametrize(
    "damage,problem",
    [
        (
            lambda out, priv: (out / "a.txt").write_text(
                (out / "a.txt").read_text(encoding="utf-8").replace("Nombre", "Nombra"),
                encoding="utf-8",
            ),
            "differs",
        ),
        (
            lambda out, priv: (priv / "a.ann").write_text(
                "T1\tNOMBRE_SUJETO_ASISTENCIA 8 11\tXYZ\n", encoding="utf-8"
            ),
            "private .ann",
        ),
        (lambda out, priv: (out / "a.ann").unlink(), None),
    ],
)
def test_review_command_refuses_files_that_do_not_match(tmp_path, rule_nlp, damage, problem):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "a.txt").write_text("Nombre: Rufino Aldecoa Peña.\nNHC: 5512903.\n", encoding="utf-8")
    out, priv = tmp_path / "out", tmp_path / "private"
    run(inp, out, "tag", None, nlp=rule_nlp, progress=False, private_dir=priv)
    damage(out, priv)
    result = CliRunner().invoke(app, ["review", str(out), str(priv), str(tmp_path / "site")])
    if problem is None:  # a missing file: a failed row, the site is still written
        assert result.exit_code == 0 and "is missing" in (
            tmp_path / "site" / "index.html"
        ).read_text(encoding="utf-8")
    else:
        assert result.exit_code == 2 and problem in result.output and "Rufino" not in result.output


def test_review_command_refuses_a_site_inside_output(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "private").mkdir()
    result = CliRunner().invoke(
        app,
        [
            "review",
            str(tmp_path / "out"),
            str(tmp_path / "private"),
            str(tmp_path / "out" / "site"),
        ],
    )
    assert result.exit_code == 2 and "REVIEW_DIR must not be" in result.output
    assert not (tmp_path / "out" / "site").exists()
