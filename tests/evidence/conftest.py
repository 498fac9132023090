"""The evidence tests' run: invented reports of two document types, de-identified with the rule
pipeline into an output folder and a private folder, then sampled."""

import pytest
from typer.testing import CliRunner

from meddocan_deid.cli.app import app
from meddocan_deid.engine import run

KEY = b"evidence-key-0123456789abcdef"
TEMPLATE = (
    "Nombre: {name}.\nNHC: {nhc}.\nFecha de Ingreso: {day:02d}/05/2001.\n"
    "Paciente de 45 años que ingresa por dolor torácico.\n"
)
NAMES = ["Ana Ruiz Gil", "Eva Sanz Vidal", "Luis Mora Pérez", "Marta López Martín"]


@pytest.fixture(scope="module")
def released(tmp_path_factory, rule_nlp):
    """A run over 30 invented reports, 20 of type alta and 10 of type urgencias."""
    base = tmp_path_factory.mktemp("release")
    inp, out, private = base / "in", base / "out", base / "private"
    for i in range(30):
        sub = inp / ("alta" if i < 20 else "urgencias")
        sub.mkdir(parents=True, exist_ok=True)
        text = TEMPLATE.format(name=NAMES[i % 4], nhc=2000000 + 41 * i, day=1 + i % 28)
        (sub / f"r{i:02d}.txt").write_text(text, encoding="utf-8")
    run(inp, out, "tag", KEY, nlp=rule_nlp, progress=False, private_dir=private)
    return base, out, private


@pytest.fixture(scope="module")
def sampled(released):
    base, out, private = released
    sample = base / "sample"
    r = CliRunner().invoke(
        app,
        ["sample", str(out), "--private-dir", str(private), "--out", str(sample)]
        + ["--n", "6", "--seed", "11"],
    )
    assert r.exit_code == 0, r.output
    return released
