"""A new format is one module and one test: Markdown notes (formats/markdown.py) read as reports."""

import json

from meddocan_deid.engine import RunConfig
from meddocan_deid.engine.runner import Run
from meddocan_deid.formats import registry

NOTE = "# Informe\n\n**Nombre:** Ana.\n\n- NHC: 5192837.\n"


def test_a_markdown_note_is_a_report_with_its_offsets(tmp_path, rule_nlp):
    assert (
        registry.find(tmp_path / "nota.MD").name == "md"
        and registry.document_kind("x.markdown") == "md"
    )
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "nota.md").write_text(NOTE, encoding="utf-8")
    report = Run(
        RunConfig(input=inp, output=tmp_path / "out", mode="tag", progress=False), nlp=rule_nlp
    ).execute()
    assert (
        report["reports"]["written"] == 1
        and report["failed"] == []
        and report["encodings"] == {"md": 1}
    )
    out = (tmp_path / "out" / "nota.txt").read_text(encoding="utf-8")
    assert "5192837" not in out and out.startswith("# Informe\n\n**Nombre:**")  # the markup is kept
    for line in (tmp_path / "out" / "nota.ann").read_text(encoding="utf-8").splitlines():
        _tid, label_span, value = line.split("\t")
        label, start, end = label_span.split()
        assert out[int(start) : int(end)] == value  # in the output's offsets, as for a .txt report
    assert json.loads((tmp_path / "out" / "run_report.json").read_text())["reports"]["read"] == 1
