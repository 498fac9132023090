"""Invented prose sentences for the augmented copies (meddocan_deid.training.prose): each
value carries its slot's label, the output is seeded, bad resource files name the file and
line, and an Augmenter with prose keeps every gold entity and adds only the invented ones."""

import collections
import random

import pytest
from test_augment import REPORTS, RESOURCES, SECTIONS, make_gold

from meddocan_deid.deid.gazetteer import Gazetteer
from meddocan_deid.training.augment import AUGMENT_KEY, Augmenter, AugmentError, Resources
from meddocan_deid.training.prose import SLOTS, ProseMaker, ProseResources

# an invented gazetteer: the maker draws from it when it has a list
GAZ = Gazetteer(
    {
        "first_names": ("Irune", "Telmo"),
        "surnames": ("Zubiri", "Olano"),
        "towns": ("Villaverde del Monte",),
        "territories": ("Soria",),
        "hospitals": ("HOSPITAL DE LA RIBERA ALTA",),
        "professions": ("Carpintero",),
    },
    "test",
)


@pytest.fixture(scope="module")
def prose():
    return ProseResources.from_dir(RESOURCES)


def test_every_value_has_its_slot_label_and_kind_words(prose):
    maker = ProseMaker(prose, GAZ)
    rng = random.Random(0)
    seen = collections.Counter()
    for kind in maker.kinds():
        for _ in range(30):
            for text, label in maker.sentence(kind, rng):
                if label is None:
                    assert "{" not in text and "}" not in text
                    continue
                assert label in SLOTS.values() and text.strip() == text and text
                seen[label] += 1
    # the gazetteer's lists are used: names, towns and professions come from it
    text = " ".join(
        t
        for kind in maker.kinds()
        for _ in range(30)
        for t, label in maker.sentence(kind, rng)
        if label is not None
    )
    assert "Zubiri" in text or "Olano" in text
    assert "Villaverde del Monte" in text and "carpintero" in text.lower()
    assert {
        "FAMILIARES_SUJETO_ASISTENCIA",
        "TERRITORIO",
        "PROFESION",
        "OTROS_SUJETO_ASISTENCIA",
        "CENTRO_SALUD",
        "FECHAS",
        "ID_CONTACTO_ASISTENCIAL",
        "NOMBRE_PERSONAL_SANITARIO",
    } <= set(seen)


def test_same_rng_same_sentence_and_faker_without_gazetteer(prose):
    maker = ProseMaker(prose)  # no gazetteer: Faker es_ES
    first = [maker.sentence(k, random.Random(7)) for k in maker.kinds()]
    again = [maker.sentence(k, random.Random(7)) for k in maker.kinds()]
    assert first == again
    other = [maker.sentence(k, random.Random(8)) for k in maker.kinds()]
    assert first != other


def test_bad_resource_files_name_the_file_and_line(tmp_path, prose):
    (tmp_path / "prose_values.jsonl").write_text(
        (RESOURCES / "prose_values.jsonl").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "prose.jsonl").write_text(
        '{"kind": "town", "text": "Vive en {town}."}\n'
        '{"kind": "town", "text": "Vive en {pueblo}."}\n',
        encoding="utf-8",
    )
    with pytest.raises(AugmentError, match=r"prose.jsonl:2: unknown slot pueblo"):
        ProseResources.from_dir(tmp_path)
    (tmp_path / "prose.jsonl").write_text(
        '{"kind": "town", "text": "Vive en {town}."}\n', encoding="utf-8"
    )
    (tmp_path / "prose_values.jsonl").write_text(
        '{"list": "kin", "values": ["madre"]}\n', encoding="utf-8"
    )
    with pytest.raises(AugmentError, match=r"prose_values.jsonl: no values for institution"):
        ProseResources.from_dir(tmp_path)
    (tmp_path / "prose_values.jsonl").unlink()
    with pytest.raises(AugmentError, match=r"prose_values.jsonl: file not found"):
        ProseResources.from_dir(tmp_path)


def test_copies_with_prose_keep_the_gold_and_add_only_invented_entities(prose):
    from meddocan_deid.pipeline.tokenizer import blank_pipeline

    nlp = blank_pipeline()
    resources = Resources.from_dir(RESOURCES, SECTIONS)
    gold = [make_gold(nlp, doc_id, marked) for doc_id, marked in REPORTS]
    maker = ProseMaker(prose, GAZ)
    total_invented = 0
    for seed in range(20):
        augmenter = Augmenter(nlp, resources, seed=seed, prose=maker, prose_sentences=3)
        for index, doc in enumerate(gold):
            copy = next(augmenter.copies(doc, 1, index))
            info = copy.user_data[AUGMENT_KEY]
            orig = collections.Counter((e.label_, e.text.casefold()) for e in doc.ents)
            new = collections.Counter((e.label_, e.text.casefold()) for e in copy.ents)
            assert info["dropped"] == 0
            assert not orig - new, info  # no gold entity lost
            assert 1 <= sum(k.startswith("invented_") for k in info["prose"]) <= 3
            assert len(copy.ents) == len(doc.ents) + info["added"] + info["invented"]
            total_invented += info["invented"]
            # the same seed gives the same copy
            again = next(
                Augmenter(nlp, resources, seed=seed, prose=maker, prose_sentences=3).copies(
                    doc, 1, index
                )
            )
            assert again.text == copy.text
    assert total_invented > 40


def test_script_adds_invented_sentences_and_rejects_a_negative_count(tmp_path):
    import re
    import subprocess
    import sys

    from spacy.tokens import DocBin

    from meddocan_deid.pipeline.tokenizer import blank_pipeline

    nlp = blank_pipeline()
    db = DocBin(store_user_data=True)
    for doc_id, marked in REPORTS:
        db.add(make_gold(nlp, doc_id, marked))
    db.to_disk(tmp_path / "train.spacy")
    root = RESOURCES.parent.parent
    base = [sys.executable, str(root / "scripts" / "augment.py"), str(tmp_path / "train.spacy")]
    result = subprocess.run(
        base + [str(tmp_path / "out.spacy"), "--copies", "2", "--prose-sentences", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
    )
    assert result.returncode == 0, result.stderr
    invented = int(re.search(r"(\d+) invented in prose", result.stdout).group(1))
    assert invented >= 4 and "dropped as unaligned: 0" in result.stdout
    bad = subprocess.run(
        base + [str(tmp_path / "bad.spacy"), "--prose-sentences", "-1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=root,
    )
    assert bad.returncode == 1 and "--prose-sentences must be 0 or more" in bad.stderr
