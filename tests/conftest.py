"""Shared fixtures: the rule part of the pipeline, built from configs/pipeline.cfg
(without the trained tok2vec + NER) so that the tests exercise the real config and
its [initialize] pattern loading."""
from pathlib import Path

import pytest
import spacy

import meddocan_deid  # noqa: F401  (registers the factories and the tokenizer)

ROOT = Path(__file__).parent.parent
TRAINED = ("tok2vec", "ner")


def build_rule_nlp(**overrides):
    config = spacy.util.load_config(
        ROOT / "configs" / "pipeline.cfg",
        overrides={
            "paths.sections_patterns": str(ROOT / "configs" / "patterns" / "sections.jsonl"),
            "paths.rule_patterns": str(ROOT / "configs" / "patterns" / "phi_rules.jsonl"),
            "paths.institution_patterns": str(ROOT / "configs" / "patterns" / "institutions.jsonl"),
            "paths.place_names": str(ROOT / "configs" / "patterns" / "place_names.jsonl"),
            "paths.identifier_patterns": str(ROOT / "configs" / "patterns" / "identifiers.jsonl"),
            "paths.field_keys": str(ROOT / "configs" / "patterns" / "fields.jsonl"),
            "paths.privacy_rules": str(ROOT / "configs" / "patterns" / "privacy_high.jsonl"),
            "paths.clinical_words": str(ROOT / "configs" / "patterns" / "clinical_words.txt"),
            **overrides,
        },
        interpolate=False,
    )
    config["nlp"]["pipeline"] = [name for name in config["nlp"]["pipeline"] if name not in TRAINED]
    for name in TRAINED:
        config["components"].pop(name, None)
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    return nlp


@pytest.fixture(scope="session")
def rule_nlp():
    return build_rule_nlp()


@pytest.fixture(scope="session")
def rule_nlp_all_footer():
    """The rule pipeline with every footer rule label enabled (`footer_labels = null`),
    to test the footer rules that the shipped config may switch off."""
    return build_rule_nlp(**{"components.rule_entities.footer_labels": None})
