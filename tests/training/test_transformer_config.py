"""configs/transformer.cfg, trained on CPU with a tiny random local RoBERTa.

No GPU, no Hub: the tiny model and its BPE tokenizer are built in a temp dir and
passed as components.transformer.model.name. Everything else (the MEDDOCAN tokenizer,
the scorer, the listener, the optimizer, the batcher) comes from the config as is.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

CONFIG = Path(__file__).resolve().parent.parent.parent / "configs" / "transformer.cfg"

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}

# Hand-written mini-reports (not from the corpus): (text, [(phi text, label), ...]).
REPORTS = [
    (
        "Datos del paciente.\nNombre: Ernesto.\nApellidos: Rivas Buendía.\n"
        "NHC: 417296.\nEdad: 62 años.\nSexo: H.\nFecha de Ingreso: 19/11/2016.\n"
        "Médico: Dra. Lucía Gómez Prats. NºCol: 28 28 20128.\n"
        "Varón de 62 años que acude a urgencias por dolor abdominal.",
        [
            ("Ernesto", "NOMBRE_SUJETO_ASISTENCIA"),
            ("Rivas Buendía", "NOMBRE_SUJETO_ASISTENCIA"),
            ("417296", "ID_SUJETO_ASISTENCIA"),
            ("62 años", "EDAD_SUJETO_ASISTENCIA"),
            ("H", "SEXO_SUJETO_ASISTENCIA"),
            ("19/11/2016", "FECHAS"),
            ("Lucía Gómez Prats", "NOMBRE_PERSONAL_SANITARIO"),
            ("28 28 20128", "ID_TITULACION_PERSONAL_SANITARIO"),
        ],
    ),
    (
        "Nombre: María.\nApellidos: Sánchez Ortega.\nEdad: 45 años.\nSexo: M.\n"
        "Domicilio: Calle Mayor 14.\nLocalidad/ Provincia: Zaragoza.\nCP: 50009.\n"
        "Mujer de 45 años remitida al Hospital Clínico Universitario por fiebre.",
        [
            ("María", "NOMBRE_SUJETO_ASISTENCIA"),
            ("Sánchez Ortega", "NOMBRE_SUJETO_ASISTENCIA"),
            ("45 años", "EDAD_SUJETO_ASISTENCIA"),
            ("M", "SEXO_SUJETO_ASISTENCIA"),
            ("Calle Mayor 14", "CALLE"),
            ("Zaragoza", "TERRITORIO"),
            ("50009", "TERRITORIO"),
            ("Hospital Clínico Universitario", "HOSPITAL"),
        ],
    ),
    (
        "Nombre: Pedro.\nApellidos: Martín Ruiz.\nFecha de nacimiento: 03/02/1950.\n"
        "País de nacimiento: España.\nCorreo electrónico: pmartin@hospital.es\n"
        "Paciente trasladado desde Madrid el 12 de marzo de 2017.",
        [
            ("Pedro", "NOMBRE_SUJETO_ASISTENCIA"),
            ("Martín Ruiz", "NOMBRE_SUJETO_ASISTENCIA"),
            ("03/02/1950", "FECHAS"),
            ("España", "PAIS"),
            ("pmartin@hospital.es", "CORREO_ELECTRONICO"),
            ("Madrid", "TERRITORIO"),
            ("12 de marzo de 2017", "FECHAS"),
        ],
    ),
    (
        "Nombre: Ana.\nApellidos: López Vidal.\nEdad: 8 años.\nSexo: M.\n"
        "Médico: Dr. Jorge Ferrer Sanz.\nHospital Universitario La Paz.\n"
        "Niña de 8 años con tos de una semana de evolución.",
        [
            ("Ana", "NOMBRE_SUJETO_ASISTENCIA"),
            ("López Vidal", "NOMBRE_SUJETO_ASISTENCIA"),
            ("8 años", "EDAD_SUJETO_ASISTENCIA"),
            ("M", "SEXO_SUJETO_ASISTENCIA"),
            ("Jorge Ferrer Sanz", "NOMBRE_PERSONAL_SANITARIO"),
            ("Hospital Universitario La Paz", "HOSPITAL"),
        ],
    ),
]


def _require_transformer_stack() -> None:
    missing = []
    for module in ("torch", "transformers", "tokenizers", "spacy_transformers"):
        try:
            importlib.import_module(module)
        except ImportError as err:  # pragma: no cover - depends on the environment
            missing.append(f"{module} ({err})")
    if missing:
        pytest.fail(
            "configs/transformer.cfg needs the transformer stack, missing: "
            + ", ".join(missing)
            + ". Install torch first (CPU: pip install torch==2.13.0), then the extra: "
            'pip install -e ".[transformers]"',
            pytrace=False,
        )


def _build_tiny_roberta(model_dir: Path) -> None:
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizerFast

    texts = [text for text, _ in REPORTS] * 3
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        texts,
        vocab_size=400,
        min_frequency=1,
        special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"],
        show_progress=False,
    )
    raw_dir = model_dir / "bpe"
    raw_dir.mkdir(parents=True)
    bpe.save_model(str(raw_dir))
    tokenizer = RobertaTokenizerFast(
        vocab_file=str(raw_dir / "vocab.json"),
        merges_file=str(raw_dir / "merges.txt"),
        model_max_length=128,
    )
    tokenizer.save_pretrained(str(model_dir))
    config = RobertaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=132,  # 128 wordpieces + RoBERTa's padding_idx offset
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    RobertaModel(config).save_pretrained(str(model_dir))


def _write_docbins(data_dir: Path) -> tuple[Path, Path]:
    nlp = spacy.blank(
        "es", config={"nlp": {"tokenizer": {"@tokenizers": "meddocan_deid.tokenizer.v1"}}}
    )
    docs = []
    for text, phis in REPORTS:
        doc = nlp.make_doc(text)
        spans, start = [], 0
        for phi, label in phis:
            begin = text.index(phi, start)
            span = doc.char_span(begin, begin + len(phi), label=label)
            assert span is not None, f"{phi!r} is not token-aligned in {text!r}"
            spans.append(span)
            start = begin + len(phi)
        doc.ents = spans
        docs.append(doc)
    train, dev = data_dir / "train.spacy", data_dir / "dev.spacy"
    DocBin(docs=docs[:3]).to_disk(train)
    DocBin(docs=docs[3:] + docs[:1]).to_disk(dev)
    return train, dev


def test_config_matches_spec():
    config = spacy.util.load_config(CONFIG)
    assert config["nlp"]["pipeline"] == ["transformer", "ner"]
    assert config["nlp"]["tokenizer"] == {"@tokenizers": "meddocan_deid.tokenizer.v1"}
    model = config["components"]["transformer"]["model"]
    assert model["@architectures"] == "spacy-transformers.TransformerModel.v3"
    assert model["name"] == "PlanTL-GOB-ES/roberta-base-biomedical-clinical-es"
    assert model["mixed_precision"] is False
    assert config["components"]["ner"]["scorer"] == {"@scorers": "meddocan_deid.scorer.v1"}
    assert config["components"]["ner"]["model"]["tok2vec"]["upstream"] == "*"
    weights = config["training"]["score_weights"]
    assert weights["meddocan_s1_f"] == 1.0 and not weights["ents_f"]


@pytest.mark.slow
def test_transformer_config_trains_on_cpu_with_tiny_local_model(tmp_path, monkeypatch):
    _require_transformer_stack()
    for key, value in OFFLINE_ENV.items():
        monkeypatch.setenv(key, value)
    model_dir = tmp_path / "tiny-roberta"
    _build_tiny_roberta(model_dir)
    train, dev = _write_docbins(tmp_path)
    output = tmp_path / "output"

    cmd = [
        sys.executable,
        "-m",
        "spacy",
        "train",
        str(CONFIG),
        "--output",
        str(output),
        "--gpu-id",
        "-1",
        "--paths.train",
        str(train),
        "--paths.dev",
        str(dev),
        "--components.transformer.model.name",
        str(model_dir),
        "--training.max_steps",
        "4",
        "--training.eval_frequency",
        "2",
    ]
    env = {**os.environ, **OFFLINE_ENV, "PYTHONHASHSEED": "0"}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (
        f"spacy train failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    )
    assert "MEDDOCAN_S1_F" in proc.stdout  # the scorer's score is logged at evaluation

    # The trained pipeline must carry its own transformer: remove the source model.
    shutil.rmtree(model_dir)
    for name in ("model-last", "model-best"):
        nlp = spacy.load(output / name)
        assert nlp.pipe_names == ["transformer", "ner"]
        doc = nlp("Nombre: Ernesto.\nApellidos: Rivas Buendía.\nEdad: 62 años.")
        assert isinstance(doc, spacy.tokens.Doc)
        assert doc._.trf_data is not None
        assert [t.text for t in doc][:4] == ["Nombre", ":", "Ernesto", "."]
