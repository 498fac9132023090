"""The whole `spacy project run all` workflow, then the `ensemble` option, on ten reports
and a few training steps, in a copy of the project, ending with the built packages loaded
back by name.

It reads the corpus from ../shared/meddocan (as CI has it). The package is installed
into a temporary folder (pip --target), never into the test environment.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

ROOT = Path(__file__).resolve().parent.parent
SHARED = (ROOT.parent / "shared" / "meddocan").resolve()


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    if not (SHARED / "corpus").is_dir():
        pytest.fail(
            f"{SHARED}/corpus is missing: the workflow test needs the MEDDOCAN copy beside the "
            "checkout"
        )
    work = tmp_path_factory.mktemp("project")
    for name in (
        "project.yml",
        "experiments",
        "configs",
        "scripts",
        "components",
        "setup.cfg",
        "pyproject.toml",
        "README.md",
        "assets/formats",
        "assets/prose",
        "assets/prose_heldout",
        "assets/corpus",
        "assets/heldout_types",
        "assets/heldout_voices",
        "assets/number_words",
        "assets/heldout_americas",
        "assets/heldout_cooficial",
    ):
        src = ROOT / name
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if src.is_dir() else shutil.copy)(src, work / name)
    target = work / "site"
    env = dict(os.environ, PYTHONPATH=str(target), PYTHONUNBUFFERED="1")
    stdout = ""
    for workflow in ("all", "ensemble"):
        cmd = [
            sys.executable,
            "-m",
            "spacy",
            "project",
            "run",
            workflow,
            str(work),
            "--vars.shared",
            str(SHARED),
            "--vars.limit",
            "10",
            "--vars.max_steps",
            "6",
            "--vars.eval_frequency",
            "3",
            "--vars.package_target",
            str(target),
            "--vars.written_fraction",
            "0.02",
        ]  # one writer of the written corpus (of 26 to 74)
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=1500)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        stdout += proc.stdout
    return work, target, stdout


def test_workflow_writes_every_output(project):
    work, _target, stdout = project
    members = [
        f"training/members/{name}/model-best"
        for name in ("beam4", "features_rules", "features", "features_rules_s1", "features_s1")
    ]
    for path in (
        "corpus/train.spacy",
        "corpus/train_aug.spacy",
        "corpus/dev.spacy",
        "training/ner/model-best",
        *members,
        "training/pipeline",
        "training/pipeline_ensemble",
        "metrics/dev.json",
        "metrics/dev_per_type.md",
        "metrics/dev_ensemble.json",
        "metrics/dev_package.json",
        "metrics/formats.json",
        "metrics/prose.json",
        "metrics/prose_heldout.json",
        "metrics/heldout_types.json",
        "metrics/heldout_voices.json",
        "metrics/heldout.json",
        "corpus/lexicon_vectors",
    ):
        assert (work / path).exists(), path
    assert "Gold entities aligned to tokens" in stdout
    assert (work / "corpus" / "train_mix.spacy").exists()
    assert (
        "written\t40" in stdout and "meddocan\t20" in stdout
    )  # one writer's documents, the ten reports and their copies
    assert "10 originals, 10 copies" in stdout and "dropped as unaligned: 0" in stdout
    scores = json.loads((work / "metrics" / "dev.json").read_text(encoding="utf-8"))
    assert scores["meddocan_n_docs"] == 10
    assert 0.0 <= scores["meddocan_s1_f"] <= 1.0 and "meddocan_s1_leak" in scores
    # the rules alone already find header PHI: the tiny run is far from zero
    assert scores["meddocan_s1_f"] > 0.3
    assert (
        json.loads((work / "metrics" / "dev_ensemble.json").read_text(encoding="utf-8"))[
            "meddocan_n_docs"
        ]
        == 10
    )
    # the evaluation sets, per document type (the first ten reports of each: --vars.limit 10)
    formats = json.loads((work / "metrics" / "formats.json").read_text(encoding="utf-8"))
    assert formats["overall"]["n_docs"] == 10 and len(formats["types"]) >= 2
    prose = json.loads((work / "metrics" / "prose.json").read_text(encoding="utf-8"))
    assert prose["overall"]["n_docs"] == 10 and len(prose["types"]) >= 2
    heldout = json.loads((work / "metrics" / "prose_heldout.json").read_text(encoding="utf-8"))
    assert heldout["overall"]["n_docs"] == 10 and len(heldout["types"]) >= 2
    assert "identifying PHI words covered" in stdout
    robust = json.loads((work / "metrics" / "heldout.json").read_text(encoding="utf-8"))
    assert sorted(robust) == sorted(
        f"{name}/{case}"
        for name in (
            "formats",
            "prose_heldout",
            "heldout_types",
            "heldout_voices",
            "number_words",
            "heldout_americas",
            "heldout_cooficial",
        )
        for case in ("as written", "lower", "upper")
    )
    assert robust["heldout_types/lower"]["overall"]["n_docs"] == 10


POST_NER = [
    "entity_edges",
    "place_names",
    "entity_checks",
    "address_parts",
    "maker_address",
    "health_bodies",
    "address_forms",
    "trusted_phi",
    "identifiers",
    "number_words",
    "code_shapes",
    "clinical_codes",
    "privacy",
    "ent_confidence",
]


@pytest.mark.parametrize(
    "name,pipe_names",
    [
        (
            "es_meddocan_deid",
            ["sections", "phi_rules", "rule_entities", "fields", "tok2vec", "ner", *POST_NER],
        ),
        # the five NERs that vote: the member NERs are disabled components that `members` runs
        (
            "es_meddocan_deid_ensemble",
            [
                "sections",
                "phi_rules",
                "rule_entities",
                "gazetteer",
                "ner",
                "members",
                "ner_vote",
                "fields",
                *POST_NER,
            ],
        ),
    ],
)
def test_package_loads_by_name_without_the_repository(project, name, pipe_names):
    work, target, _ = project
    wheels = list((work / "packages").glob(f"{name}-*/dist/*.whl"))
    assert len(wheels) == 1
    code = (
        "import spacy, sys\n"
        f"nlp = spacy.load('{name}')\n"
        "doc = nlp('Datos del paciente.\\nNombre: Ana.\\nApellidos: Ruiz Gil.\\nSexo: M.\\n"
        "Informe clínico del paciente: mujer de 40 años.\\n')\n"
        "print(nlp.pipe_names)\n"
        "print(sorted({(e.label_, e.text) for e in doc.ents}))\n"
        "from meddocan_deid.deid import gazetteer_source\n"
        "print('gazetteer:', gazetteer_source(nlp.vocab))\n"
    )
    # outside the repository, no MEDDOCAN_GAZETTEER: the surrogates still draw from the task
    # gazetteer, which the installed pipeline carries in its vocab
    env = {k: v for k, v in os.environ.items() if k != "MEDDOCAN_GAZETTEER"}
    env["PYTHONPATH"] = str(target)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=target,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert str(pipe_names) in proc.stdout
    assert "('NOMBRE_SUJETO_ASISTENCIA', 'Ruiz Gil')" in proc.stdout
    assert "('SEXO_SUJETO_ASISTENCIA', 'M')" in proc.stdout
    assert "gazetteer: pipeline" in proc.stdout


def run_after_workflow(project, step, *extra_vars):
    """`spacy project run STEP` of the experiments project in the workflow's copy, on its ten
    reports, with the built package importable."""
    work, target, _ = project
    env = dict(os.environ, PYTHONPATH=str(target), PYTHONUNBUFFERED="1")
    cmd = [
        sys.executable,
        "-m",
        "spacy",
        "project",
        "run",
        step,
        str(work / "experiments"),
        "--vars.limit",
        "10",
        "--vars.max_steps",
        "6",
        "--vars.eval_frequency",
        "3",
        *extra_vars,
    ]
    proc = subprocess.run(
        cmd, cwd=work / "experiments", env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def test_self_training_variant_runs_after_the_workflow(project):
    """`silver` labels background reports with the built pipeline; `train-variant` trains a
    student NER on gold + silver with the same config (the reader takes the silver path)."""
    work = project[0]
    assert "10 reports" in run_after_workflow(project, "silver").stdout
    run_after_workflow(
        project,
        "train-variant",
        "--vars.variant",
        "silver",
        "--vars.variant_silver",
        "experiments/corpus/silver.spacy",
        "--vars.variant_gold_copies",
        "2",
    )
    scores = json.loads(
        (work / "experiments" / "metrics" / "variants" / "dev_silver.json").read_text(
            encoding="utf-8"
        )
    )
    assert scores["meddocan_n_docs"] == 10


def test_learning_curve_trains_on_shares_and_dev_folds(project):
    """`learning-curve` writes one row per train share and one K-fold train + dev row; the
    folds' held-out dev files together hold every dev report once."""
    work = project[0]
    proc = run_after_workflow(
        project, "learning-curve", "--vars.curve_fractions", "0.5", "--vars.curve_dev_folds", "2"
    )
    rows = [
        line
        for line in (work / "experiments" / "metrics" / "learning_curve_dev.md")
        .read_text(encoding="utf-8")
        .splitlines()
        if line.startswith("| ") and not line.startswith(("| NER", "| ---"))
    ]
    assert [r.split(" | ")[0:2] for r in rows] == [
        ["| 50% of train", "5"],
        ["| train + dev, 2-fold cross-validation", "15"],
    ]
    nlp = spacy.blank("es")
    held_out = [
        d.user_data["meddocan_id"]
        for i in range(2)
        for d in DocBin()
        .from_disk(
            work
            / "experiments"
            / "training"
            / "learning_curve"
            / f"train_dev_fold{i}"
            / "dev.spacy"
        )
        .get_docs(nlp.vocab)
    ]
    dev = [
        d.user_data["meddocan_id"]
        for d in DocBin().from_disk(work / "corpus" / "dev.spacy").get_docs(nlp.vocab)
    ]
    assert len(held_out) == 10 and sorted(held_out) == sorted(dev)
    assert "learning_curve_dev.md" in proc.stdout


# the embedding keeps the config's width, a reference to the encoder's
EMBED_WIDTH = "width = ${components.tok2vec.model.encode.width}"


def config_section(config: str, section: str) -> str:
    return config.split(f"[{section}]\n", 1)[1].split("\n[", 1)[0]


# Each run trains, assembles and evaluates a whole variant, so two runs cover the six options
# (a run each took a minute of the suite): the beam NER with a wider CNN and characters in
# place of the hashed embedding; then the config's NER with the BiLSTM and both embeddings.
@pytest.mark.parametrize(
    "variant,extra_vars,ner_factory,beam_two,encode,embed",
    [
        (
            "beam2_window3_char",
            (
                "--vars.variant_beam_width",
                "2",
                "--vars.variant_window",
                "3",
                "--vars.variant_embed",
                "char",
            ),
            "beam_ner",
            True,
            (
                [
                    '@architectures = "spacy.MaxoutWindowEncoder.v2"',
                    "window_size = 3",
                    "width = 128",
                ],
                ["TorchBiLSTM"],
            ),
            (
                [
                    '@architectures = "spacy.CharacterEmbed.v2"',
                    "nC = 8",
                    'feature = "NORM"',
                    EMBED_WIDTH,
                ],
                ["attrs", "SHAPE"],
            ),
        ),
        (
            "beam0_bilstm_hashchar",
            (
                "--vars.variant_beam_width",
                "0",
                "--vars.variant_encoder",
                "bilstm",
                "--vars.variant_embed",
                "hashchar",
            ),
            "meddocan_ner",
            False,
            (
                ['@architectures = "spacy.TorchBiLSTMEncoder.v1"', "depth = 2", "width = 128"],
                ["window_size", "maxout_pieces"],
            ),
            (
                [
                    '@architectures = "meddocan_deid.HashCharEmbed.v1"',
                    "nC = 8",
                    '"SHAPE"',
                    EMBED_WIDTH,
                ],
                ["spacy.MultiHashEmbed"],
            ),
        ),
    ],
)
def test_train_variant_sets_the_ner_and_the_tok2vec(
    project, variant, extra_vars, ner_factory, beam_two, encode, embed
):
    """`--vars.variant_beam_width N` trains spaCy's beam_ner of width N (0 keeps the config's
    NER); `--vars.variant_window N` widens the CNN; `--vars.variant_encoder bilstm` replaces it
    (no CNN option left over); `--vars.variant_embed` replaces the hashed embedding, or adds
    characters to it; the pipeline is still assembled and evaluated."""
    work = project[0]
    run_after_workflow(project, "train-variant", "--vars.variant", variant, *extra_vars)
    config = (
        work / "experiments" / "training" / "variants" / variant / "model-best" / "config.cfg"
    ).read_text(encoding="utf-8")
    ner_section = config_section(config, "components.ner")
    assert f'factory = "{ner_factory}"' in ner_section
    assert ("beam_width = 2" in ner_section) == beam_two
    for section, (expected, absent) in (("encode", encode), ("embed", embed)):
        text_of_section = config_section(config, f"components.tok2vec.model.{section}")
        for text in expected:
            assert text in text_of_section, (section, text)
        for text in absent:
            assert text not in text_of_section, (section, text)
    assert (work / "experiments" / "metrics" / "variants" / f"dev_{variant}.json").exists()


@pytest.mark.parametrize(
    "options,message",
    [
        (["--encoder", "lstm"], "--encoder: 'lstm' is not one of cnn, bilstm"),
        (["--window", "-2"], "--window: -2 needs a positive size and the cnn encoder"),
        (
            ["--window", "3", "--encoder", "bilstm"],
            "--window: 3 needs a positive size and the cnn encoder",
        ),
        (["--embed", "bytes"], "--embed: 'bytes' is not one of hash, cased, char, hashchar"),
    ],
)
def test_train_variant_rejects_a_bad_encoder(project, options, message):
    work = project[0]
    proc = subprocess.run(
        [
            sys.executable,
            "scripts/train_variant.py",
            "configs/ner.cfg",
            "training/variants/bad_encoder",
            "--train",
            "corpus/train.spacy",
            "--dev",
            "corpus/dev.spacy",
            *options,
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (work / "training" / "variants" / "bad_encoder").exists()


def test_train_variant_rejects_a_negative_beam_width(project):
    work = project[0]
    proc = subprocess.run(
        [
            sys.executable,
            "scripts/train_variant.py",
            "configs/ner.cfg",
            "training/variants/bad",
            "--train",
            "corpus/train.spacy",
            "--dev",
            "corpus/dev.spacy",
            "--beam-width",
            "-1",
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert "--beam-width: -1 is negative" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (work / "training" / "variants" / "bad").exists()
