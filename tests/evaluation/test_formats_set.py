"""The formats set builder (meddocan_deid.evaluation.formats_set, experiments/formats_set.py)
on invented strings, and `check` on the committed set."""

import subprocess
import sys
from pathlib import Path

import pytest

from meddocan_deid.brat import read_brat_dir
from meddocan_deid.evaluation.formats_set import MarkupError, compare, parse_markup, read_sources

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "experiments" / "formats_set.py"

MARKUP = (
    "Paciente | [[NOMBRE_SUJETO_ASISTENCIA|Lucía Ferrándiz Roig]] | NHC | "
    "[[ID_SUJETO_ASISTENCIA|4410297]]\n"
    "\n"
    "Edad:\t[[EDAD_SUJETO_ASISTENCIA|81 años]] [sic] [[SEXO_SUJETO_ASISTENCIA|mujer]]; ingreso "
    "el "
    "[[FECHAS|3-IV-2024]] a las 10:15.\n"
    "Fdo.: Dra. [[NOMBRE_PERSONAL_SANITARIO|Olga Miravet]]  Nº Col. "
    "[[ID_TITULACION_PERSONAL_SANITARIO|46/4612345]]\n"
)


def run(*args):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True
    )


def test_offsets_round_trip():
    text, entities = parse_markup(MARKUP)
    assert "[[" not in text and "]]" not in text
    surfaces = [(label, text[s:e]) for label, s, e in entities]
    assert surfaces == [
        ("NOMBRE_SUJETO_ASISTENCIA", "Lucía Ferrándiz Roig"),
        ("ID_SUJETO_ASISTENCIA", "4410297"),
        ("EDAD_SUJETO_ASISTENCIA", "81 años"),
        ("SEXO_SUJETO_ASISTENCIA", "mujer"),
        ("FECHAS", "3-IV-2024"),
        ("NOMBRE_PERSONAL_SANITARIO", "Olga Miravet"),
        ("ID_TITULACION_PERSONAL_SANITARIO", "46/4612345"),
    ]
    # everything outside the mentions is kept verbatim: pipes, tabs, blank line, brackets
    assert text.startswith(
        "Paciente | Lucía Ferrándiz Roig | NHC | 4410297\n\nEdad:\t81 años [sic] mujer;"
    )
    assert text.endswith("Nº Col. 46/4612345\n")


def test_build_writes_brat_that_reads_back(tmp_path):
    src = tmp_path / "src" / "alta"
    src.mkdir(parents=True)
    (src / "alta_01.txt").write_text(MARKUP, encoding="utf-8")
    (src / "alta_02.txt").write_text("Sin menciones.\n", encoding="utf-8")
    out = tmp_path / "out"
    result = run("build", tmp_path / "src", out)
    assert result.returncode == 0, result.stderr
    assert "alta\t2\t7" in result.stdout and "total\t2\t7" in result.stdout
    assert "FECHAS\t1" in result.stdout
    docs = {d.doc_id: d for d in read_brat_dir(out)}
    assert sorted(docs) == ["alta_01", "alta_02"]
    text, entities = parse_markup(MARKUP)
    assert (
        docs["alta_01"].text == text
        and sorted(docs["alta_01"].entities, key=lambda e: e[1]) == entities
    )
    assert docs["alta_02"].entities == []
    assert run("check", tmp_path / "src", out).returncode == 0

    # a hand-edited .ann, a removed .txt and a file with no source all fail check
    ann = out / "alta_01.ann"
    ann.write_text(
        ann.read_text(encoding="utf-8").replace("FECHAS", "EDAD_SUJETO_ASISTENCIA"),
        encoding="utf-8",
    )
    (out / "alta_02.txt").unlink()
    (out / "alta_09.ann").write_text("", encoding="utf-8")
    result = run("check", tmp_path / "src", out)
    assert result.returncode == 1
    assert "alta_01.ann: differs" in result.stderr
    assert "alta_02.txt: missing" in result.stderr
    assert "alta_09.ann: extra" in result.stderr


BAD = [
    ("[[NOMBRE_PACIENTE|Rosa Ibáñez]]", "unknown label 'NOMBRE_PACIENTE'"),
    ("[[FECHAS|12/05/2023", "not closed"),
    ("[[FECHAS|]]", "empty mention"),
    ("[[FECHAS 12/05/2023]]", "without '|'"),
    ("[[FECHAS| 12/05/2023]]", "starts or ends with a space"),
    ("[[FECHAS|12/05/2023 ]]", "starts or ends with a space"),
    ("[[FECHAS|12|05]]", "second '|'"),
    ("[[FECHAS|[[EDAD_SUJETO_ASISTENCIA|7 años]]]]", "do not nest"),
    ("fin]] del texto", "']]' without"),
]


@pytest.mark.parametrize("line,problem", BAD)
def test_bad_markup_names_file_and_line(tmp_path, line, problem):
    src = tmp_path / "alta"
    src.mkdir()
    path = src / "alta_03.txt"
    path.write_text(
        f"Informe de alta\nPaciente: [[NOMBRE_SUJETO_ASISTENCIA|Rosa Ibáñez]]\n\nFecha: {line}\n",
        encoding="utf-8",
    )
    with pytest.raises(MarkupError) as err:
        read_sources(tmp_path)
    assert str(err.value).startswith(f"{path}:4:")
    assert problem in str(err.value)
    result = run("build", tmp_path, tmp_path / "out")
    assert result.returncode == 1
    assert f"{path}:4:" in result.stderr and problem in result.stderr
    assert not (tmp_path / "out").exists()


def test_bad_source_name(tmp_path):
    (tmp_path / "alta").mkdir()
    (tmp_path / "alta" / "urgencias_01.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(MarkupError, match="urgencias_01.txt: expected the name"):
        read_sources(tmp_path)


@pytest.mark.parametrize("name", ["formats", "prose", "prose_heldout", "heldout_types"])
def test_committed_set_is_up_to_date(name):
    source, out = ROOT / "assets" / name / "source", ROOT / "assets" / name
    docs = read_sources(source)
    assert docs and all(doc.entities for doc in docs)
    assert compare(docs, out) == {"missing": [], "differs": [], "extra": []}
    result = run("check", source, out)
    assert result.returncode == 0, result.stderr


def test_the_written_corpus_parses_and_every_writer_is_listed():
    from meddocan_deid.evaluation.corpus_set import label_counts, read_corpus

    docs = read_corpus(ROOT / "assets" / "corpus")
    writers = {d.doc_id.split("-", 1)[0] for d in docs}
    labels = label_counts(docs)
    assert len(docs) >= 800 and len(writers) >= 20 and len({d.doctype for d in docs}) >= 20
    assert sum(labels.values()) >= 25_000 and min(labels.values()) >= 30


@pytest.mark.parametrize(
    "name, parts",
    [
        ("informe_12.txt", ("informe", "12")),
        ("alta_hosp_3.txt", ("alta_hosp", "3")),
        ("carta_2_7.txt", ("carta_2", "7")),
        ("x_0.txt", ("x", "0")),
        ("Informe_1.txt", None),
        ("informe12.txt", None),
        ("_1.txt", None),
        ("informe_1.txt.bak", None),
    ],
)
def test_a_source_name_reads_as_before_its_rewrite(name, parts):
    import re

    from meddocan_deid.evaluation.formats_set import SOURCE_NAME

    old = re.compile(r"(?P<doctype>[a-z][a-z0-9_]*)_(?P<num>\d+)\.txt")
    for pattern in (old, SOURCE_NAME):
        m = pattern.fullmatch(name)
        assert (m.group("doctype", "num") if m else None) == parts
