"""Shared fixtures: the rule part of the pipeline, built from configs/pipeline.cfg
(without the trained tok2vec + NER) so that the tests exercise the real config and
its [initialize] pattern loading."""

from pathlib import Path

import pytest

import meddocan_deid  # noqa: F401  (registers the factories and the tokenizer)
from meddocan_deid.pipeline.rules_only import build_rule_pipeline

ROOT = Path(__file__).parent.parent


def build_rule_nlp(**overrides):
    return build_rule_pipeline(
        ROOT / "configs" / "pipeline.cfg", ROOT / "configs" / "patterns", overrides
    )


@pytest.fixture(scope="session")
def rule_nlp():
    return build_rule_nlp()


@pytest.fixture(scope="session")
def rule_nlp_all_footer():
    """The rule pipeline with every footer rule label enabled (`footer_labels = null`),
    to test the footer rules that the shipped config may switch off."""
    return build_rule_nlp(**{"components.rule_entities.footer_labels": None})


def pytest_collection_modifyitems(session, config, items):
    """The workflow test file first: under `make test` (two processes, a file to a process) it
    is the longest file, so it starts at once and the other process takes the rest beside it."""
    items.sort(key=lambda item: item.path.name != "test_workflow.py")
