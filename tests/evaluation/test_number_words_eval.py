"""experiments/evaluate_number_words.py counts, per label and in all, the gold mentions with a
number word that the predicted entities wholly remove; numbers only. Two invented documents."""

import importlib.util
from pathlib import Path

import spacy
import typer
from typer.testing import CliRunner

import meddocan_deid.pipeline.number_words  # noqa: F401  (the factory, for the saved pipeline)
from meddocan_deid.evaluation.formats_set import read_sources
from meddocan_deid.evaluation.number_words import score_number_words, wholly_covered

ROOT = Path(__file__).parents[2]
SET = Path(__file__).parent / "number_words_set"


def _script():
    spec = importlib.util.spec_from_file_location(
        "evaluate_number_words", ROOT / "experiments" / "evaluate_number_words.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wholly_covered_ignores_blanks_and_needs_every_character():
    text = "dos mil veinte"
    assert wholly_covered(text, 0, 14, [(0, 3), (4, 14)])
    assert not wholly_covered(text, 0, 14, [(0, 3), (5, 14)])
    assert not wholly_covered(text, 0, 14, [])


def test_only_mentions_with_a_number_word_count():
    docs = read_sources(SET)
    scores = score_number_words(docs, {})
    # `Tres Cantos` holds `tres`; names, `12345678Z` and `15/06/2026` hold none
    assert scores["overall"] == {"n": 9, "removed": 0, "docs": 2}
    assert (
        scores["labels"]["TERRITORIO"]["n"] == 2
        and "NOMBRE_SUJETO_ASISTENCIA" not in scores["labels"]
    )
    assert scores["labels"]["FECHAS"]["n"] == 2


def test_the_script_prints_counts_per_label_and_in_all(tmp_path):
    nlp = spacy.blank("es")
    nlp.add_pipe("meddocan_number_words")
    nlp.to_disk(tmp_path / "pipeline")
    app = typer.Typer()
    app.command()(_script().main)
    result = CliRunner().invoke(
        app, [str(tmp_path / "pipeline"), str(SET), "--output", str(tmp_path / "s.json")]
    )
    assert result.exit_code == 0, result.output
    lines = {
        line.split()[0]: line.split()[1:] for line in result.output.splitlines() if line.strip()
    }
    # the component alone: every number in words but the town's name (a name, not a number)
    assert lines["all"][:2] == ["9", "8"]
    assert lines["TERRITORIO"][:2] == ["2", "1"]
    assert lines["EDAD_SUJETO_ASISTENCIA"][:2] == ["2", "2"]
    assert "PHI in words wholly removed: 8/9 mentions in 2 documents" in result.output
    assert "Aurelio" not in result.output and "cuatro" not in result.output


def test_a_folder_without_sources_is_an_error(tmp_path):
    app = typer.Typer()
    app.command()(_script().main)
    result = CliRunner().invoke(app, ["no_pipeline", str(tmp_path)])
    assert result.exit_code == 1
