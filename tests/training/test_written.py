"""The written corpus in the training mix: text copies that keep every offset, the share of
writers, the docs with their gold. Every text here is invented."""

import random

import pytest

from meddocan_deid.errors import MarkupError
from meddocan_deid.evaluation.corpus_set import read_corpus, read_writer
from meddocan_deid.pipeline.tokenizer import blank_pipeline
from meddocan_deid.text_variants import VARIANTS, broken_lines, no_accents, upper, variant
from meddocan_deid.training.written import MixStats, training_mix, writers_share

TEXT = "Paciente: Íñigo Zubizarreta Ibáñez, calle Mayor 3. Straße ß\nVive en Cáceres con su hija."
NAME = (10, 34)  # Íñigo Zubizarreta Ibáñez


@pytest.mark.parametrize("kind", VARIANTS)
def test_every_variant_keeps_length_and_offsets(kind):
    out = variant(TEXT, kind, random.Random(1))
    assert len(out) == len(TEXT)
    a, b = NAME
    assert out[a:b].replace("\n", " ").casefold() in {
        TEXT[a:b].casefold(),
        no_accents(TEXT[a:b]).casefold(),
    }


def test_variants_change_what_they_say():
    assert upper(TEXT).startswith("PACIENTE: ÍÑIGO") and "ß" in upper(
        TEXT
    )  # 'ß' -> 'SS' would move offsets
    assert no_accents(TEXT).startswith(
        "Paciente: Iñigo Zubizarreta Ibañez"
    ) and "Cáceres" not in no_accents(TEXT)
    wrapped = broken_lines("uno dos tres " * 20, width=20)
    assert wrapped.count("\n") >= 5 and max(len(line) for line in wrapped.splitlines()) <= 26
    with pytest.raises(ValueError):
        variant(TEXT, "reversed")


def write(root, writer, doctype, n, split="train"):
    folder = root / "source" / writer / doctype
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(1, n + 1):
        (folder / f"{doctype}_{i:02d}.txt").write_text(
            f"Paciente [[NOMBRE_SUJETO_ASISTENCIA|Ana Ruiz {writer}]], "
            f"[[EDAD_SUJETO_ASISTENCIA|{40 + i} años]].\n",
            encoding="utf-8",
        )
    with open(root / "writers.tsv", "a", encoding="utf-8") as fh:
        if fh.tell() == 0:
            fh.write("writer\tsplit\tdoctypes\tregion\tstyle\n")
        fh.write(f"{writer}\t{split}\t{doctype}\tx\tx\n")


def test_corpus_split_by_writer(tmp_path):
    write(tmp_path, "w01", "uci", 3)
    write(tmp_path, "w02", "receta", 2)
    write(tmp_path, "d01", "uci", 4, split="dev")
    train = read_corpus(tmp_path, ["train"])
    assert sorted({d.doc_id.split("-")[0] for d in train}) == ["w01", "w02"] and len(train) == 5
    assert train[0].doc_id == "w01-uci_01"
    assert len(read_corpus(tmp_path, ["dev"])) == 4
    assert [d.doc_id for d in read_writer(tmp_path / "source" / "w02")] == [
        "w02-receta_01",
        "w02-receta_02",
    ]
    assert [d.doc_id for d in writers_share(train, 0.5)] == [
        "w01-uci_01",
        "w01-uci_02",
        "w01-uci_03",
    ]
    assert writers_share(train, 0.0) == [] and len(writers_share(train, 1.0)) == 5


def test_an_unlisted_writer_is_an_error(tmp_path):
    write(tmp_path, "w01", "uci", 1)
    (tmp_path / "source" / "w09" / "uci").mkdir(parents=True)
    with pytest.raises(MarkupError, match="w09: writer not listed"):
        read_corpus(tmp_path)


def test_training_mix_has_the_corpus_and_its_copies_with_gold(tmp_path):
    write(tmp_path, "w01", "uci", 3)
    nlp = blank_pipeline()
    stats = MixStats()
    docs = list(training_mix(nlp, [], tmp_path, variant_copies=2, seed=3, stats=stats))
    assert (
        len(docs) == 9
        and stats.docs["written"] == 3
        and stats.entities == 18
        and not stats.misaligned
    )
    for doc in docs:
        assert [e.label_ for e in doc.ents] == [
            "NOMBRE_SUJETO_ASISTENCIA",
            "EDAD_SUJETO_ASISTENCIA",
        ]
        assert doc.ents[0].text.casefold() == "ana ruiz w01"
    assert sum(n for kind, n in stats.docs.items() if ":" in kind) == 6


def test_the_copies_of_one_document_are_of_different_kinds(tmp_path, monkeypatch):
    import meddocan_deid.training.written as written

    write(tmp_path, "w01", "uci", 4)
    kinds = []
    monkeypatch.setattr(written, "variant", lambda text, kind, rng: kinds.append(kind) or text)
    list(training_mix(blank_pipeline(), [], tmp_path, variant_copies=2, seed=3, stats=MixStats()))
    assert len(kinds) == 8 and all(kinds[i] != kinds[i + 1] for i in range(0, 8, 2))
    assert set(kinds) <= set(VARIANTS)
