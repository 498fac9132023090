"""Word lists as data files, the folds, the rule-kind registry and the shared serializer.
Invented examples only."""

import json

import pytest
from spacy.language import Language

import meddocan_deid.pipeline.address_parts  # noqa: F401  (registers the factories)
import meddocan_deid.pipeline.entity_checks  # noqa: F401
import meddocan_deid.pipeline.entity_edges  # noqa: F401
import meddocan_deid.pipeline.fields  # noqa: F401
import meddocan_deid.pipeline.maker_address  # noqa: F401
import meddocan_deid.pipeline.trusted_phi  # noqa: F401
from meddocan_deid.lexicon import (
    DATA_DIR,
    NAME_LABELS,
    TITLES,
    casefold_per_char,
    lookup_key,
    lower_without_accents,
    tagged_words,
    words,
)
from meddocan_deid.pipeline.rule_entities import RULE_KINDS, RuleEntities
from meddocan_deid.pipeline.spans import TITLES as SPANS_TITLES


@pytest.mark.parametrize(
    "factory,setting,name",
    [
        ("meddocan_rule_entities", "trim_words", "trim_words"),
        ("meddocan_rule_entities", "company_suffixes", "company_suffixes"),
        ("meddocan_fields", "name_stop_words", "name_stop_words"),
        ("meddocan_address_parts", "articles", "street_articles"),
        ("meddocan_maker_address", "company_suffixes", "maker_company_suffixes"),
        ("meddocan_trusted_phi", "part_stop_words", "name_part_stop_words"),
    ],
)
def test_a_word_list_default_comes_from_its_data_file(factory, setting, name):
    assert Language.get_factory_meta(factory).default_config[setting] == words(name)


@pytest.mark.parametrize(
    "factory,use",
    [
        ("meddocan_rule_entities", "patient_age_veto"),
        ("meddocan_entity_checks", "relative_age"),
        ("meddocan_fields", "relative_title"),
    ],
)
def test_kinship_words_have_one_file_tagged_by_use(factory, use):
    assert Language.get_factory_meta(factory).default_config["kinship_words"] == tagged_words(
        "kinship_words", use
    )


def test_every_data_file_is_read_and_every_tag_is_declared():
    for path in sorted((DATA_DIR / "es").iterdir()):
        if path.suffix == ".txt":
            assert words(path.stem), path.name
        else:
            data = json.loads(path.read_text(encoding="utf-8"))
            for use in data["uses"]:
                assert tagged_words(path.stem, use), (path.name, use)
    with pytest.raises(KeyError):
        tagged_words("kinship_words", "no_such_use")
    with pytest.raises(FileNotFoundError):
        words("no_such_list")


def test_a_comment_line_needs_a_blank_after_the_hash():
    assert "#" in words("field_filler_words")


def test_titles_and_name_labels_have_one_home():
    assert SPANS_TITLES is TITLES
    assert (
        "dra." in TITLES
        and "señora" not in TITLES
        and "señora" in tagged_words("titles", "address")
    )
    assert set(NAME_LABELS) == {
        "NOMBRE_SUJETO_ASISTENCIA",
        "NOMBRE_PERSONAL_SANITARIO",
        "FAMILIARES_SUJETO_ASISTENCIA",
    }


@pytest.mark.parametrize("text", ["Dña. José Núñez", "Nº 12, Dª Ana", "STRAßE İzmir", "ﬁbra Ω"])
def test_the_three_folds_differ_and_two_keep_offsets(text):
    assert len(lower_without_accents(text)) == len(text) == len(casefold_per_char(text))
    assert lookup_key(text) == lookup_key(text.upper().lower())


def test_what_sets_the_folds_apart():
    assert lower_without_accents("Dª Ñ") == "dª n"  # canonical accents only: `ª` stays
    assert casefold_per_char("Dª Ñ") == "da n"  # compatibility forms too
    assert lookup_key("Straße") == "strasse" and casefold_per_char("Straße") == "straße"


def test_the_deid_folds_are_the_lexicon_folds():
    from meddocan_deid.deid import gazetteer, known_phi, policy
    from meddocan_deid.deid.surrogates import common, names

    assert known_phi.casefold_per_char is policy.casefold_per_char is casefold_per_char
    assert known_phi.NAME_LABELS is NAME_LABELS
    assert gazetteer.lookup_key is common.lookup_key is names.lookup_key is lookup_key
    for text in ["Dña. José Núñez", "Nº 12, Dª Ana", "STRAßE İzmir", "ﬁbra Ω"]:
        assert len(casefold_per_char(text)) == len(text)


def test_every_rule_kind_of_the_shipped_patterns_has_a_handler_or_a_section():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "configs" / "patterns"
    for name in ("phi_rules.jsonl", "institutions.jsonl"):
        for line in (root / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                section, _, kind = json.loads(line)["id"].partition("/")
                assert kind in RULE_KINDS or section in ("header", "body", "footer", "cue"), kind
    assert (
        RULE_KINDS["line"].in_section
        and RULE_KINDS["fallback"].fallback
        and not RULE_KINDS["age"].in_section
    )


def test_rule_entities_state_round_trips_and_an_old_folder_loads(tmp_path):
    nlp = Language()
    pipe = nlp.add_pipe("meddocan_rule_entities")
    pipe.towns, pipe.professions = ["Villaseca de Arriba"], ["tornero"]
    pipe.to_disk(tmp_path / "new")
    assert (tmp_path / "new" / "towns.txt").read_text(encoding="utf-8") == "Villaseca de Arriba\n"
    other = RuleEntities.from_disk(nlp.create_pipe("meddocan_rule_entities"), tmp_path / "new")
    assert (other.towns, other.professions) == (["Villaseca de Arriba"], ["tornero"])
    again = nlp.create_pipe("meddocan_rule_entities").from_bytes(pipe.to_bytes())
    assert (again.towns, again.professions) == (["Villaseca de Arriba"], ["tornero"])
    (tmp_path / "old").mkdir()  # saved before the lists
    old = nlp.create_pipe("meddocan_rule_entities").from_disk(tmp_path / "old")
    assert (old.towns, old.professions) == ([], [])
    assert (
        pipe.to_disk(tmp_path / "ex", exclude=["towns"]) is None
        and not (tmp_path / "ex" / "towns.txt").exists()
    )
