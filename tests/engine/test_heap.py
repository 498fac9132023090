"""The loaded pipeline is kept out of the garbage collector's full passes while a run, a
service worker or a Spark executor uses it, and given back when it is done."""

import gc

import pytest

import meddocan_deid.engine.runner as engine_run
from meddocan_deid.engine import run
from meddocan_deid.pipeline.loading import loaded_objects_pinned
from meddocan_deid.service.engine import Engine
from meddocan_deid.service.settings import ServiceSettings


@pytest.fixture(autouse=True)
def nothing_pinned_before():
    gc.unfreeze()
    yield
    gc.unfreeze()


def test_objects_are_pinned_inside_and_given_back_after_an_error():
    held = []
    with pytest.raises(RuntimeError):
        with loaded_objects_pinned():
            held.append(gc.get_freeze_count())
            raise RuntimeError("stop")
    assert held[0] > 1000  # the imported libraries alone hold many more
    assert gc.get_freeze_count() == 0


def test_a_run_writes_its_reports_with_the_objects_pinned(tmp_path, rule_nlp, monkeypatch):
    inp = tmp_path / "in"
    inp.mkdir()
    for i in range(3):
        (inp / f"nota{i}.txt").write_text(
            f"Paciente: Leire Quintanar Ibáñez.\nNHC: 43000{i}7.\n", encoding="utf-8"
        )
    seen = []
    write_reports = engine_run.Run.write_reports

    def recording(self):
        seen.append(gc.get_freeze_count())
        return write_reports(self)

    monkeypatch.setattr(engine_run.Run, "write_reports", recording)
    report = run(inp, tmp_path / "out", "tag", None, nlp=rule_nlp, progress=False)
    assert report["reports"]["written"] == 3
    assert seen and seen[0] > 1000
    assert gc.get_freeze_count() == 0  # a process that drops the pipeline afterwards can free it


def test_a_service_worker_pins_its_pipeline_until_it_closes(tmp_path, rule_nlp, monkeypatch):
    monkeypatch.setattr("meddocan_deid.service.engine.load_model", lambda name, privacy: rule_nlp)
    tokens = tmp_path / "tokens"
    tokens.write_text("a-token-of-at-least-thirty-two-characters\n", encoding="utf-8")
    engine = Engine(ServiceSettings(token_file=tokens, model="es_meddocan_deid"), key=None)
    engine.load()
    assert engine.state == "ready"
    assert gc.get_freeze_count() > 1000
    engine.close()
    assert gc.get_freeze_count() == 0
