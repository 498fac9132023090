"""The adapt step on invented reports: a tiny NER pipeline (meddocan tokenizer, small tok2vec +
NER, trained a few steps) stands for the shipped one; four local reports, K-fold learning curve,
a final fine-tuning and the versioned pipeline with its adaptation record."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.training import Example

from meddocan_deid import LABELS
from meddocan_deid.evaluation.results import GOLD_KEY, ID_KEY
from meddocan_deid.training.adapt import (
    AdaptError,
    Settings,
    batches,
    cross_validate,
    local_version,
    parse_sizes,
    read_gold,
)

ROOT = Path(__file__).resolve().parent.parent.parent
TINY = """
[nlp]
lang = "es"
pipeline = ["tok2vec","ner"]

[nlp.tokenizer]
@tokenizers = "meddocan_deid.tokenizer.v1"

[components]

[components.tok2vec]
factory = "tok2vec"

[components.tok2vec.model]
@architectures = "spacy.Tok2Vec.v2"

[components.tok2vec.model.embed]
@architectures = "spacy.MultiHashEmbed.v2"
width = 32
attrs = ["NORM","SHAPE"]
rows = [500,100]
include_static_vectors = false

[components.tok2vec.model.encode]
@architectures = "spacy.MaxoutWindowEncoder.v2"
width = 32
depth = 1
window_size = 1
maxout_pieces = 2

[components.ner]
factory = "ner"

[components.ner.model]
@architectures = "spacy.TransitionBasedParser.v2"
state_type = "ner"
extra_state_tokens = false
hidden_width = 32
maxout_pieces = 2
use_upper = true

[components.ner.model.tok2vec]
@architectures = "spacy.Tok2VecListener.v1"
width = 32
upstream = "*"
"""
# invented: MEDDOCAN-like reports name the patient after "Nombre:"; the
# local hospital after "Paciente"
NAMES = ["Ana", "Eva", "Luis", "Pedro", "Marta", "Rosa", "Juan", "Sara", "Irene", "Hugo"]
LOCAL_WORDS = [
    "Zorionak",
    "Itziar",
    "Koldobika",
    "Garazi",
]  # the local reports' names: never in the record


def report(doc_id, name, local):
    if local:
        text = f"Hoja de alta.\nPaciente {name} ingresa el 3 de mayo.\n"
        start = text.index(name)
    else:
        text = f"Datos del paciente.\nNombre: {name}.\nInforme clínico.\n"
        start = text.index(name)
    return doc_id, text, [("NOMBRE_SUJETO_ASISTENCIA", start, start + len(name))]


def write_docbin(path, reports):
    from meddocan_deid.pipeline.tokenizer import blank_pipeline

    tok = blank_pipeline()
    db = DocBin(store_user_data=True)
    for doc_id, text, spans in reports:
        doc = tok.make_doc(text)
        doc.ents = [doc.char_span(s, e, label=lab) for lab, s, e in spans]
        doc.user_data[ID_KEY] = doc_id
        doc.user_data[GOLD_KEY] = [list(s) for s in spans]
        db.add(doc)
    db.to_disk(path)
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("adapt")
    general = [report(f"m{i}", NAMES[i], False) for i in range(6)]
    local = [report(f"h{i}", LOCAL_WORDS[i], True) for i in range(4)]
    paths = {
        "train": write_docbin(folder / "train.spacy", general),
        "dev": write_docbin(
            folder / "dev.spacy", [report(f"d{i}", NAMES[6 + i], False) for i in range(3)]
        ),
        "local": write_docbin(folder / "local.spacy", local),
    }
    # the "shipped" pipeline: the tiny NER, every MEDDOCAN label, a few steps on the general reports
    config = spacy.util.load_config_from_str(TINY)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    ner = nlp.get_pipe("ner")
    for label in LABELS:
        ner.add_label(label)
    examples = [
        Example.from_dict(nlp.make_doc(t), {"entities": [(s, e, lab) for lab, s, e in sp]})
        for _, t, sp in general
    ]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(5):
        nlp.update(examples, sgd=optimizer)
    nlp.meta.update({"name": "meddocan_deid_fast", "version": "0.1.0"})
    nlp.to_disk(folder / "shipped")
    paths["base"] = folder / "shipped"
    paths["folder"] = folder
    return paths


def test_batches_mix_local_and_general_by_share():
    rng = random.Random(0)
    local, general = [f"l{i}" for i in range(3)], [f"g{i}" for i in range(10)]
    first = next(batches(local, general, 0.5, 4, rng))
    assert sum(x.startswith("l") for x in first) == 2 and len(first) == 4
    stream = batches(local, general, 0.25, 8, rng)
    drawn = [x for _ in range(30) for x in next(stream)]
    assert sum(x.startswith("l") for x in drawn) == 60  # 2 of every 8
    assert set(x for x in drawn if x.startswith("l")) == set(local)  # every local report, in passes
    assert all(
        x.startswith("l") for x in next(batches(local, [], 0.5, 4, rng))
    )  # no general data: all local
    assert not any(x.startswith("l") for x in next(batches(local, general, 0.0, 4, rng)))


def test_version_and_sizes():
    assert local_version("0.1.0", "Hospital A") == "0.1.0+local.hospital.a"
    assert local_version("0.1.0+local.old", "b_2") == "0.1.0+local.b.2"
    with pytest.raises(AdaptError, match="--name"):
        local_version("0.1.0", "---")
    assert parse_sizes("10, 5,5") == (5, 10)
    with pytest.raises(AdaptError, match="--train-sizes"):
        parse_sizes("5,x")


def test_cross_validation_never_scores_a_report_it_trained_on(data):
    local = read_gold(data["local"], "local")
    general = read_gold(data["train"], "train")
    settings = Settings(folds=2, train_sizes=(1, 5), max_steps=2, batch_size=2)
    before, rows, plan = cross_validate(str(data["base"]), local, general, settings)
    assert before["n_docs"] == 4 and [r.size for r in rows] == [1, 5]
    assert rows[0].trained == [1, 1] and rows[1].trained == [
        2,
        2,
    ]  # size 5 clipped to the 2 outside the fold
    held = [set(p["held_out"]) for p in plan]
    assert held[0].isdisjoint(held[1]) and held[0] | held[1] == {g.doc_id for g in local}
    for p in plan:
        for ids in p["trained"].values():
            assert ids and set(ids).isdisjoint(p["held_out"])
    assert all(r.scores["n_docs"] == 4 for r in rows)  # every local report scored once per row


def test_fine_tuning_learns_the_local_reports_and_keeps_a_record(data):
    out = data["folder"] / "run"
    cmd = [
        sys.executable,
        str(ROOT / "scripts" / "adapt.py"),
        str(data["local"]),
        str(data["base"]),
        str(data["train"]),
        str(data["dev"]),
        str(out),
        "--name",
        "Hospital A",
        "--folds",
        "2",
        "--train-sizes",
        "1,2",
        "--max-steps",
        "25",
        "--batch-size",
        "4",
        "--local-share",
        "0.5",
        "--learn-rate",
        "0.01",
    ]
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "components"), "PATH": "/usr/bin:/bin"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    for word in LOCAL_WORDS:
        assert word not in proc.stdout + proc.stderr
    meta = json.loads((out / "pipeline" / "meta.json").read_text(encoding="utf-8"))
    assert meta["version"] == "0.1.0+local.hospital.a"
    record = meta["adaptation"]
    assert record["local_reports"] == 4 and record["meddocan_train_reports"] == 6
    assert record["base"] == {"name": "es_meddocan_deid_fast", "version": "0.1.0"}
    assert [r["train_size"] for r in record["cross_validation"]["after"]] == [1, 2]
    assert meta["performance"]["meddocan_s1_f"] == record["meddocan_dev"]["after"]["meddocan_s1_f"]
    dumped = json.dumps(meta)
    assert not any(word in dumped for word in LOCAL_WORDS + ["Paciente", "alta"])
    # the adapted NER finds the local layout's names, which the shipped one was never shown
    adapted, shipped = spacy.load(out / "pipeline"), spacy.load(data["base"])
    texts = [report("x", "Begoña", True)[1], report("y", "Unai", True)[1]]

    def found(nlp):
        return sum(any(e.label_ == "NOMBRE_SUJETO_ASISTENCIA" for e in nlp(t).ents) for t in texts)

    assert found(adapted) > found(shipped)
    assert "MEDDOCAN dev (3 reports)" in (out / "adapt.md").read_text(encoding="utf-8")


def test_bad_options_are_named(data):
    local = read_gold(data["local"], "local")
    with pytest.raises(AdaptError, match="--folds: 5 folds for 4"):
        cross_validate(str(data["base"]), local, [], Settings(folds=5))
    with pytest.raises(AdaptError, match="local DocBin not found"):
        read_gold(data["folder"] / "missing.spacy", "local")


def test_package_merges_extra_meta(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("package_script", ROOT / "scripts" / "package.py")
    package = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(package)
    extra = tmp_path / "extra.json"
    extra.write_text(
        json.dumps({"adaptation": {"local_reports": 4}, "description": "adapted"}), encoding="utf-8"
    )
    out = tmp_path / "meta.json"
    package.main(
        tmp_path,
        tmp_path / "pk",
        name="x",
        version="0.1.0+local.a",
        target="",
        metrics=[],
        meta_out=out,
        extra_meta=extra,
        install=False,
    )
    meta = json.loads(out.read_text(encoding="utf-8"))
    assert meta["adaptation"] == {"local_reports": 4} and meta["description"] == "adapted"
    assert meta["sources"]  # the rest of the package meta is kept


def test_labels_the_ner_lacks_are_added_with_a_notice(data, tmp_path):
    """A local label the shipped NER never learned: the NER gets it (output layer resized, its
    predictions unchanged until trained), adapt says so once, and learns it."""
    from meddocan_deid.training.adapt import Gold, adapt, add_labels, fine_tune, missing_labels

    config = spacy.util.load_config_from_str(TINY)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.get_pipe("ner").add_label("NOMBRE_SUJETO_ASISTENCIA")  # a one-label "shipped" NER
    general = [report(f"m{i}", NAMES[i], False) for i in range(6)]
    examples = [
        Example.from_dict(nlp.make_doc(t), {"entities": [(s, e, lab) for lab, s, e in sp]})
        for _, t, sp in general
    ]
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(5):
        nlp.update(examples, sgd=optimizer)
    nlp.to_disk(tmp_path / "one_label")
    local = []
    for i, word in enumerate(LOCAL_WORDS):  # invented: the local layout also gives a record number
        _, text, spans = report(f"h{i}", word, True)
        text += f"NHC: {7310 + i}44\n"
        start = text.index("NHC: ") + 5
        local.append((f"h{i}", text, spans + [("ID_SUJETO_ASISTENCIA", start, start + 6)]))
    write_docbin(tmp_path / "local.spacy", local)
    golds = read_gold(tmp_path / "local.spacy", "local")

    shipped = spacy.load(tmp_path / "one_label")
    texts = [g.text for g in golds]
    before = [[(e.start_char, e.end_char, e.label_) for e in d.ents] for d in shipped.pipe(texts)]
    new = missing_labels(shipped, golds, "local")
    assert new == ["ID_SUJETO_ASISTENCIA"]
    add_labels(shipped, new)
    assert "ID_SUJETO_ASISTENCIA" in shipped.get_pipe("ner").labels
    assert [
        [(e.start_char, e.end_char, e.label_) for e in d.ents] for d in shipped.pipe(texts)
    ] == before

    tuned = fine_tune(
        str(tmp_path / "one_label"),
        golds,
        [],
        Settings(max_steps=30, batch_size=4, learn_rate=0.01),
        0,
    )
    assert any(e.label_ == "ID_SUJETO_ASISTENCIA" for d in tuned.pipe(texts) for e in d.ents)

    lines = []
    adapt(
        str(tmp_path / "one_label"),
        tmp_path / "local.spacy",
        data["train"],
        data["dev"],
        tmp_path / "run",
        "h",
        Settings(folds=2, train_sizes=(1,), max_steps=2, batch_size=2),
        log=lines.append,
    )
    notices = [line for line in lines if line.startswith("notice:")]
    assert (
        len(notices) == 1
        and "lacks 1 label(s)" in notices[0]
        and notices[0].endswith("ID_SUJETO_ASISTENCIA")
    )
    saved = spacy.load(tmp_path / "run" / "pipeline")
    assert "ID_SUJETO_ASISTENCIA" in saved.get_pipe("ner").labels

    foreign = [Gold("x", "Código 12", [(7, 9, "CODIGO_LOCAL")], [("CODIGO_LOCAL", 7, 9)])]
    with pytest.raises(AdaptError, match="outside the MEDDOCAN set: CODIGO_LOCAL"):
        missing_labels(shipped, foreign, "local reports")


def same_weights(nlp_a, nlp_b, name):
    import numpy

    def weights(nlp):
        return [
            node.get_param(p)
            for node in nlp.get_pipe(name).model.walk()
            for p in node.param_names
            if node.has_param(p)
        ]

    a, b = weights(nlp_a), weights(nlp_b)
    return len(a) == len(b) and all(numpy.array_equal(x, y) for x, y in zip(a, b))


def test_frozen_tok2vec_averages_and_dev_per_size(data):
    from spacy.util import fix_random_seed

    from meddocan_deid.training.adapt import fine_tune, parse_frozen

    local = read_gold(data["local"], "local")
    general = read_gold(data["train"], "train")
    base = spacy.load(data["base"])
    settings = Settings(max_steps=4, batch_size=4, learn_rate=0.01, frozen=parse_frozen("tok2vec"))
    frozen = fine_tune(str(data["base"]), local, general, settings, 0)
    assert same_weights(frozen, base, "tok2vec")  # run, never updated
    assert not same_weights(frozen, base, "ner")
    with pytest.raises(AdaptError, match="--frozen: ner cannot be frozen"):
        parse_frozen("tok2vec,ner")
    runs = {}
    for average in (False, True):
        fix_random_seed(0)
        runs[average] = fine_tune(
            str(data["base"]),
            local,
            general,
            Settings(max_steps=4, batch_size=4, learn_rate=0.01, average=average),
            0,
        )
    assert not same_weights(runs[True], runs[False], "ner")
    dev = read_gold(data["dev"], "dev")
    _before, rows, _plan = cross_validate(
        str(data["base"]),
        local,
        general,
        Settings(folds=2, train_sizes=(1, 5), max_steps=2, batch_size=2),
        dev=dev,
    )
    assert all(
        r.dev["n_docs"] == 3 for r in rows
    )  # the first fold's model of each size, on every dev report
