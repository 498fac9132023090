"""The tok2vec's span features (meddocan_deid.SpanFeatureEmbed.v1) and the gazetteer loader."""

import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import Span

from meddocan_deid.pipeline.patterns import (
    GAZETTEER_LISTS,
    PatternFileError,
    load_gazetteer_patterns,
)
from meddocan_deid.training.span_features import span_feature_embed, span_feature_ids

ROOT = Path(__file__).parent.parent.parent
GAZETTEER = ROOT.parent / "shared" / "meddocan" / "gazetteer"


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("es")


def _doc(nlp, text, groups):
    doc = nlp(text)
    for key, spans in groups.items():
        doc.spans[key] = [Span(doc, start, end, label=label) for start, end, label in spans]
    return doc


@pytest.mark.parametrize(
    "groups, same, different",
    [
        # a token outside every span has the O feature of its group
        ({"sections": [(0, 6, "body")]}, [(1, 2)], []),
        # B and I of one label differ; I tokens of one span agree
        ({"rules": [(2, 5, "TERRITORIO")]}, [(3, 4), (0, 1)], [(2, 3), (1, 2)]),
        # two labels differ at the same position
        ({"rules": [(0, 1, "PAIS"), (3, 4, "CALLE")]}, [(1, 2)], [(0, 3)]),
    ],
)
def test_span_feature_ids_follow_the_spans(nlp, groups, same, different):
    doc = _doc(nlp, "vive en El Palmar desde ayer", groups)
    keys = list(groups)
    ids = span_feature_ids(keys).predict([doc])[0]
    assert ids.shape == (len(doc), len(keys))
    column = ids[:, 0]
    for a, b in same:
        assert column[a] == column[b]
    for a, b in different:
        assert column[a] != column[b]


def test_missing_span_group_gives_o_features(nlp):
    with_group = _doc(nlp, "uno dos tres", {"rules": []})
    without = nlp("uno dos tres")
    model = span_feature_ids(["rules"])
    assert numpy.array_equal(model.predict([with_group])[0], model.predict([without])[0])


def test_nested_span_shows_inside_the_longer_one(nlp):
    doc = _doc(nlp, "Hospital de Getafe hoy", {"gaz": [(0, 3, "hospital"), (2, 3, "town")]})
    ids = span_feature_ids(["gaz"]).predict([doc])[0][:, 0]
    outer_only = span_feature_ids(["gaz"]).predict(
        [_doc(nlp, "Hospital de Getafe hoy", {"gaz": [(0, 3, "hospital")]})]
    )[0][:, 0]
    assert ids[0] == outer_only[0] and ids[1] == outer_only[1]
    assert ids[2] != outer_only[2]


def test_span_feature_embed_changes_with_the_spans(nlp):
    model = span_feature_embed(
        32, ["NORM", "SHAPE"], [100, 100], False, ["rules"], feature_width=8, feature_rows=32
    )
    plain = nlp("vive en Getafe")
    marked = _doc(nlp, "vive en Getafe", {"rules": [(2, 3, "TERRITORIO")]})
    model.initialize(X=[plain, marked])
    out_plain, out_marked = model.predict([plain, marked])
    assert out_plain.shape == out_marked.shape == (3, 32)
    assert not numpy.allclose(out_plain[2], out_marked[2])
    # the gradient reaches the feature embeddings
    _, backprop = model.begin_update([marked])
    backprop([model.ops.alloc2f(3, 32) + 1.0])


def test_span_feature_embed_without_groups_is_multihashembed():
    model = span_feature_embed(16, ["NORM"], [50], False, [])
    assert model.name.startswith("embed") or "hashembed" in model.name


@pytest.mark.skipif(not GAZETTEER.is_dir(), reason="needs ../shared/meddocan/gazetteer")
def test_gazetteer_patterns_cover_every_list():
    patterns = load_gazetteer_patterns(GAZETTEER)
    labels = {p["label"] for p in patterns}
    assert labels == set(GAZETTEER_LISTS.values())
    # street entries lose their house number (`, 12`, `, S/N`)
    streets = [p["pattern"] for p in patterns if p["label"] == "street"]
    assert streets and not any(s.rstrip().upper().endswith(("S/N", ",")) for s in streets)


def test_gazetteer_folder_errors_name_the_folder(tmp_path):
    with pytest.raises(PatternFileError, match="gazetteer folder not found"):
        load_gazetteer_patterns(tmp_path / "missing")
    (tmp_path / "Nombres (Firstnames).txt").write_text("Ana\n", encoding="utf-8")
    with pytest.raises(PatternFileError, match="no 'Apellidos"):
        load_gazetteer_patterns(tmp_path)


def test_gazetteer_file_not_utf8_is_named(tmp_path):
    for name in GAZETTEER_LISTS:
        (tmp_path / f"{name} (x).txt").write_text("x\n", encoding="utf-8")
    bad = tmp_path / "Nombres (x).txt"
    bad.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(PatternFileError, match="Nombres .x..txt: not UTF-8"):
        load_gazetteer_patterns(tmp_path)


REPORTS = [
    (
        "Nombre: Juan Pérez García.\nVive en Getafe.\nMujer de 40 años.\n",
        [
            ("Juan Pérez García", "NOMBRE_SUJETO_ASISTENCIA"),
            ("Getafe", "TERRITORIO"),
            ("40 años", "EDAD_SUJETO_ASISTENCIA"),
        ],
    ),
    (
        "Ingresa en el Hospital Severo Ochoa de Leganés.\nRemitido por: Dra. Ana López.\n",
        [
            ("Hospital Severo Ochoa", "HOSPITAL"),
            ("Leganés", "TERRITORIO"),
            ("Ana López", "NOMBRE_PERSONAL_SANITARIO"),
        ],
    ),
]


@pytest.fixture(scope="module")
def features_model(tmp_path_factory):
    """An NER trained for a few steps with configs/ner_features.cfg on invented reports and
    an invented gazetteer, then assembled with configs/pipeline_features.cfg."""
    from spacy.training import Example

    tmp = tmp_path_factory.mktemp("features")
    gazetteer = tmp / "gazetteer"
    gazetteer.mkdir()
    for name in GAZETTEER_LISTS:
        (gazetteer / f"{name} (x).txt").write_text(
            "Getafe\nLeganés\n" if name == "Municipios" else "Zzz\n", encoding="utf-8"
        )
    config = spacy.util.load_config(
        ROOT / "configs" / "ner_features.cfg",
        overrides={
            "paths.gazetteer": str(gazetteer),
            "paths.sections_patterns": str(ROOT / "configs" / "patterns" / "sections.jsonl"),
            "paths.rule_patterns": str(ROOT / "configs" / "patterns" / "phi_rules.jsonl"),
        },
    )
    nlp = spacy.util.load_model_from_config(config, auto_fill=True, validate=True)
    examples = []
    for text, ents in REPORTS:
        offsets = [(text.index(s), text.index(s) + len(s), label) for s, label in ents]
        examples.append(Example.from_dict(nlp.make_doc(text), {"entities": offsets}))
    optimizer = nlp.initialize(lambda: examples)
    annotating = config["training"]["annotating_components"]
    losses = {}
    for _ in range(3):
        nlp.update(examples, sgd=optimizer, losses=losses, annotates=annotating)
    # the components before the tok2vec write the span groups it reads
    predicted = nlp(REPORTS[0][0])
    assert {"sections", "phi_rules", "rule_entities", "gazetteer"} <= set(predicted.spans)
    assert [s.text for s in predicted.spans["gazetteer"]] == ["Getafe"]
    assert losses["ner"] > 0
    nlp.to_disk(tmp / "ner")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "spacy",
            "assemble",
            str(ROOT / "configs" / "pipeline_features.cfg"),
            str(tmp / "pipeline"),
            "--paths.ner_model",
            str(tmp / "ner"),
            "--paths.sections_patterns",
            str(ROOT / "configs" / "patterns" / "sections.jsonl"),
            "--paths.rule_patterns",
            str(ROOT / "configs" / "patterns" / "phi_rules.jsonl"),
            "--paths.institution_patterns",
            str(ROOT / "configs" / "patterns" / "institutions.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return tmp / "pipeline"


def test_features_pipeline_tok2vec_reads_the_gazetteer(features_model):
    nlp = spacy.load(features_model)
    assert nlp.pipe_names.index("gazetteer") < nlp.pipe_names.index("tok2vec")
    doc = nlp.make_doc("Vive en Leganés desde hace años.")
    for name in nlp.pipe_names[: nlp.pipe_names.index("tok2vec")]:
        doc = nlp.get_pipe(name)(doc)
    assert [s.text for s in doc.spans["gazetteer"]] == ["Leganés"]
    tok2vec = nlp.get_pipe("tok2vec").model
    with_gazetteer = tok2vec.predict([doc])[0]
    doc.spans["gazetteer"] = []
    without = tok2vec.predict([doc])[0]
    assert not numpy.allclose(with_gazetteer[2], without[2])
    # the whole pipeline runs and keeps the rule entities on doc.ents
    assert any(
        e.label_ == "NOMBRE_SUJETO_ASISTENCIA"
        for e in nlp("Nombre: Juan Pérez García.\nSin datos.\n").ents
    )


def test_ensemble_config_assembles_and_votes(features_model, tmp_path):
    """configs/pipeline_ensemble.cfg with the small features NER as each of its five members."""
    ner = features_model.parent / "ner"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "spacy",
            "assemble",
            str(ROOT / "configs" / "pipeline_ensemble.cfg"),
            str(tmp_path / "ensemble"),
            "--paths.ner_model",
            str(ner),
            "--paths.ner_model_b",
            str(ner),
            "--paths.ner_model_c",
            str(ner),
            "--paths.ner_model_d",
            str(ner),
            "--paths.ner_model_e",
            str(ner),
            "--paths.sections_patterns",
            str(ROOT / "configs" / "patterns" / "sections.jsonl"),
            "--paths.rule_patterns",
            str(ROOT / "configs" / "patterns" / "phi_rules.jsonl"),
            "--paths.institution_patterns",
            str(ROOT / "configs" / "patterns" / "institutions.jsonl"),
            "--paths.clinical_words",
            str(ROOT / "configs" / "patterns" / "clinical_words.txt"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    nlp = spacy.load(tmp_path / "ensemble")
    assert "tok2vec" not in nlp.pipe_names  # each member carries its own copy
    doc = nlp("Nombre: Juan Pérez García.\nVive en Getafe.\n")
    assert ("Juan Pérez García", "NOMBRE_SUJETO_ASISTENCIA") in [
        (e.text, e.label_) for e in doc.ents
    ]
    # identical members make identical predictions, each kept in its own span group
    member = [(e.start, e.end, e.label_) for e in doc.spans["ner_b"]]
    for key in ("ner_c", "ner_d", "ner_e"):
        assert member == [(e.start, e.end, e.label_) for e in doc.spans[key]]
