"""Shared fixtures: the rule part of the pipeline, built from configs/pipeline.cfg
(without the trained tok2vec + NER) so that the tests exercise the real config and
its [initialize] pattern loading."""

import os
from pathlib import Path

import pytest

import meddocan_deid  # noqa: F401  (registers the factories and the tokenizer)
from meddocan_deid.pipeline.rules_only import build_rule_pipeline

ROOT = Path(__file__).parent.parent


def build_rule_nlp(**overrides):
    return build_rule_pipeline(
        ROOT / "configs" / "pipeline.cfg", ROOT / "configs" / "patterns", overrides
    )


@pytest.fixture(scope="session")
def rule_nlp():
    return build_rule_nlp()


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory, rule_nlp):
    """`rule_nlp` saved to disk, for what loads a model by its path (the command line, Spark)."""
    path = tmp_path_factory.mktemp("model") / "rule_pipeline"
    rule_nlp.to_disk(path)
    return path


@pytest.fixture(scope="session")
def rule_nlp_all_footer():
    """The rule pipeline with every footer rule label enabled (`footer_labels = null`),
    to test the footer rules that the shipped config may switch off."""
    return build_rule_nlp(**{"components.rule_entities.footer_labels": None})


def pytest_collection_modifyitems(session, config, items):
    """The workflow test file first: under `make test` (two processes, a file to a process) it
    is the longest file, so it starts at once and the other process takes the rest beside it."""
    items.sort(key=lambda item: item.path.name != "test_workflow.py")


# the evidence tests' run
RELEASE_KEY = b"evidence-key-0123456789abcdef"
RELEASE_TEMPLATE = (
    "Nombre: {name}.\nNHC: {nhc}.\nFecha de Ingreso: {day:02d}/05/2001.\n"
    "Paciente de 45 años que ingresa por dolor torácico.\n"
)
RELEASE_NAMES = ["Ana Ruiz Gil", "Eva Sanz Vidal", "Luis Mora Pérez", "Marta López Martín"]


@pytest.fixture(scope="module")
def released(tmp_path_factory, rule_nlp):
    """A run over 30 invented reports, 20 of type alta and 10 of type urgencias, de-identified
    with the rule pipeline into an output folder and a private folder (the evidence tests)."""
    from meddocan_deid.engine import run

    base = tmp_path_factory.mktemp("release")
    inp, out, private = base / "in", base / "out", base / "private"
    for i in range(30):
        sub = inp / ("alta" if i < 20 else "urgencias")
        sub.mkdir(parents=True, exist_ok=True)
        text = RELEASE_TEMPLATE.format(
            name=RELEASE_NAMES[i % 4], nhc=2000000 + 41 * i, day=1 + i % 28
        )
        (sub / f"r{i:02d}.txt").write_text(text, encoding="utf-8")
    run(inp, out, "tag", RELEASE_KEY, nlp=rule_nlp, progress=False, private_dir=private)
    return base, out, private


@pytest.fixture(scope="module")
def sampled(released):
    """`released`, sampled (6 reports, seed 11) into its folder `sample`."""
    from typer.testing import CliRunner

    from meddocan_deid.cli.app import app

    base, out, private = released
    sample = base / "sample"
    r = CliRunner().invoke(
        app,
        ["sample", str(out), "--private-dir", str(private), "--out", str(sample)]
        + ["--n", "6", "--seed", "11"],
    )
    assert r.exit_code == 0, r.output
    return released


# -- Spark: one local SparkSession for the whole test session (a JVM start is the slow part);
# here, not in tests/spark/conftest.py: a second conftest module shadows this one for the
# tests that import from `conftest` in the same worker


@pytest.fixture(scope="session")
def load_log(tmp_path_factory):
    """The folder where each Python worker logs the model paths it loads."""
    return tmp_path_factory.mktemp("loads")


@pytest.fixture(scope="session")
def spark(load_log):
    """The executors' model is `model_dir`."""
    from meddocan_deid.spark import LOAD_LOG_ENV, make_session

    os.environ[LOAD_LOG_ENV] = str(load_log)  # inherited by the Python workers of a new JVM
    # and given to them through the conf too: an earlier test may have started the JVM
    session = make_session(
        "local[2]",
        app_name="meddocan-deid-tests",
        conf={
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "2",
            f"spark.executorEnv.{LOAD_LOG_ENV}": str(load_log),
        },
    )
    yield session
    session.stop()
    os.environ.pop(LOAD_LOG_ENV, None)
