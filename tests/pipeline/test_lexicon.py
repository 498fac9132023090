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
    LANGUAGES,
    NAME_LABELS,
    TITLES,
    casefold_per_char,
    lookup_key,
    lower_without_accents,
    tagged_words,
    word_uses,
    words,
    words_by_language,
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
    for lang in LANGUAGES:
        for path in sorted((DATA_DIR / lang).iterdir()):
            if path.suffix == ".txt":
                assert words(path.stem, lang), path
            else:
                data = json.loads(path.read_text(encoding="utf-8"))
                assert any(tagged_words(path.stem, use, lang) for use in data["uses"]), path
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


def test_a_list_read_without_a_language_is_the_union_spanish_first():
    union = words("possessives")
    assert union[: len(words("possessives", "es"))] == words("possessives", "es")
    assert {"su", "seva", "súa", "bere"} <= set(union) and len(union) == len(set(union))
    assert words("possessives", ["ca", "eu"]) == words("possessives", "ca") + ["bere"]
    # a list that only some languages have is read from those
    assert words("case_suffixes") == words("case_suffixes", "eu")


def test_tagged_lists_are_read_in_every_language():
    relatives = tagged_words("kinship_words", "relative_age")
    assert {"madre", "filla", "nai", "alaba"} <= set(relatives)
    assert "filla" not in tagged_words("kinship_words", "relative_age", "es")
    assert "relative_title" in word_uses("kinship_words")["seva"]


def test_positional_lists_by_language():
    months = words_by_language("months")
    assert set(months) == set(LANGUAGES)
    assert [m[3] for m in months.values()] == ["abril", "abril", "abril", "apirila"]
    assert all(len(m) == 12 for m in months.values())


def test_bad_languages_and_files_name_the_problem(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="unknown language"):
        words("possessives", "fr")
    with pytest.raises(FileNotFoundError, match="no_such_list"):
        words("no_such_list", ["ca", "gl"])
    import meddocan_deid.lexicon as lexicon

    (tmp_path / "es").mkdir()
    (tmp_path / "es" / "broken.json").write_text("{", encoding="utf-8")
    monkeypatch.setattr(lexicon, "DATA_DIR", tmp_path)
    with pytest.raises(ValueError, match="broken.json: not valid JSON"):
        lexicon.tagged_words("broken", "x", "es")
