"""The review site in English and in Spanish: the same words in both, every fixed text of the
index and the pages in the language asked for, and the CLI options that ask for it. Invented
reports only."""

import json
import string

import pytest
from html_tree import Tree
from typer.testing import CliRunner

from meddocan_deid.cli import app
from meddocan_deid.cli.options import recorded_params
from meddocan_deid.deid import apply_operator
from meddocan_deid.deid.review import (
    LANGUAGES,
    TEXTS,
    ReviewReport,
    ReviewRow,
    ReviewSite,
    render_index,
    render_report_page,
    report_flags,
    usual_count_flags,
)

TEXT = "Paciente: Teodora Villalpando Ruiz, 61 años.\nNHC: 5512903.\n"
NAME = "Teodora Villalpando Ruiz"


def report(text=TEXT):
    start = text.index(NAME)
    res = apply_operator(text, [("NOMBRE_SUJETO_ASISTENCIA", start, start + len(NAME))], "tag")
    return ReviewReport("inf-001", text, res.text, res.replacements)


ROWS = [
    ReviewRow("a", "reports/a.html", "ok", {"FECHAS": 2}, []),
    ReviewRow("b", None, "failed: text too long (9 characters, limit 5)", {}, ["fallido"]),
    ReviewRow("c", None, "empty text", {}, ["fallido"]),
]


def fields_of(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


def test_both_languages_have_every_text_with_the_same_fields():
    assert LANGUAGES == ("en", "es")
    assert set(TEXTS["en"]) == set(TEXTS["es"])
    for name, english in TEXTS["en"].items():
        assert fields_of(english) == fields_of(TEXTS["es"][name]), name
        assert english != TEXTS["es"][name] or name in ("original", "column_phi", "status_ok")


def test_the_index_in_spanish():
    html = render_index(ROWS, mode="tag", language="es")
    tree = Tree(html)
    assert '<html lang="es">' in html
    text = "".join(tree.text)
    for words in (
        "Revisión de la anonimización",
        "3 informes, modo tag",
        "2 por revisar",
        "Estado",
        "Por etiqueta",
        "fallido: text too long",  # the reason as the run recorded it
        "texto vacío",
        "Manténgalas en privado",
    ):
        assert words in text, words
    for english in ("need a look", "Status", "empty text", "failed:", "Keep them private"):
        assert english not in text, english
    assert '<html lang="en">' in render_index(ROWS, mode="tag")  # English by default


def test_a_page_in_spanish():
    html = render_report_page(report(), mode="tag", language="es")
    tree = Tree(html)
    assert "<title>Revisión: inf-001</title>" in html
    assert "Informe inf-001" in "".join(tree.text)
    titles = {a.get("title") for a in tree.find("a") if a.get("title")}
    assert titles == {"ir al reemplazo", "ir al original"}
    assert "todos los informes" in "".join(tree.text) and "Anonimizado (tag)" in "".join(tree.text)
    assert "De-identified" not in html and "go to the" not in html


def test_flags_in_spanish():
    long_name = "Teodora Villalpando Ruiz de la Sierra Alta y Baja del Norte"
    text = f"Paciente: {long_name}.\n"
    start = text.index(long_name)
    res = apply_operator(text, [("NOMBRE_SUJETO_ASISTENCIA", start, start + len(long_name))], "tag")
    long_report = ReviewReport("r", text, res.text, res.replacements)
    assert report_flags(long_report, language="es") == [
        f"entidad larga: NOMBRE_SUJETO_ASISTENCIA ({len(long_name)} caracteres, 11 tokens)"
    ]
    empty = apply_operator("Sin datos.", [], "tag")
    assert report_flags(ReviewReport("s", "Sin datos.", empty.text, []), language="es") == [
        "sin PHI encontrada"
    ]
    rows = [ReviewRow(f"r{i}", None, "ok", {"FECHAS": 2}, []) for i in range(12)]
    rows.append(ReviewRow("odd", None, "ok", {"FECHAS": 9}, []))
    usual_count_flags(rows, language="es")
    assert rows[-1].flags == [
        "muchas FECHAS: 9 (lo habitual: 2.5)",
        "muchas en total: 9 (lo habitual: 2.5)",
    ]


def test_an_unknown_language_is_refused_before_any_page(tmp_path):
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        ReviewSite(tmp_path / "site", language="fr")
    assert not (tmp_path / "site").exists()


def test_the_run_report_records_the_language_only_when_asked():
    assert recorded_params({"mode": "tag", "option": (), "review_language": "en"}) == {
        "mode": "tag"
    }
    assert recorded_params({"mode": "tag", "option": ("a=1",), "review_language": "es"}) == {
        "mode": "tag",
        "option": ("a=1",),
        "review_language": "es",
    }


def test_deidentify_and_review_write_the_site_in_spanish(tmp_path, model_dir):
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "inf1.txt").write_text(TEXT, encoding="utf-8")
    (inp / "inf2.txt").write_text(" \n", encoding="utf-8")
    out, priv, site = tmp_path / "out", tmp_path / "private", tmp_path / "revision"
    args = ["deidentify", str(inp), str(out), "--mode", "tag", "--model", str(model_dir)]
    result = CliRunner().invoke(
        app, [*args, "--private-dir", str(priv), "--review", str(site), "--review-language", "es"]
    )
    assert result.exit_code == 0, result.output
    index = (site / "index.html").read_text(encoding="utf-8")
    assert '<html lang="es">' in index and "texto vacío" in index and "2 informes" in index
    recorded = json.loads((out / "run_report.json").read_text(encoding="utf-8"))
    assert '"review_language": "es"' in json.dumps(recorded)
    # the same site again from the stored files, in either language
    for language, words in (
        ("es", "Revisión de la anonimización"),
        ("en", "De-identification review"),
    ):
        rebuilt = tmp_path / f"rebuilt-{language}"
        result = CliRunner().invoke(
            app, ["review", str(out), str(priv), str(rebuilt), "--language", language]
        )
        assert result.exit_code == 0, result.output
        assert words in (rebuilt / "index.html").read_text(encoding="utf-8")
    result = CliRunner().invoke(
        app, ["review", str(out), str(priv), str(tmp_path / "fr"), "--language", "fr"]
    )
    assert result.exit_code == 2 and "'fr' is not one of" in result.output
    assert not (tmp_path / "fr").exists()
    # without the option: English, and the run report as before the option existed
    site2 = tmp_path / "review"
    result = CliRunner().invoke(
        app, [*args[:2], str(tmp_path / "out2"), *args[3:], "--review", str(site2)]
    )
    assert result.exit_code == 0, result.output
    assert '<html lang="en">' in (site2 / "index.html").read_text(encoding="utf-8")
    assert "review_language" not in (tmp_path / "out2" / "run_report.json").read_text(
        encoding="utf-8"
    )
