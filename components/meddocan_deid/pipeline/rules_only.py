"""The rule part of the pipeline: configs/pipeline.cfg without the trained tok2vec + NER.

For tests and for measuring what a change of the pattern files adds (scripts/rule_gain.py):
the pattern paths are those of a `configs/patterns` folder unless overridden
(`{"paths.rule_patterns": ...}`), and `[initialize]` reads them as a full build does.
"""

from pathlib import Path

import spacy
from spacy.language import Language

TRAINED = ("tok2vec", "ner")
# [paths] variable -> file under the patterns folder
PATTERN_FILES = {
    "paths.sections_patterns": "sections.jsonl",
    "paths.rule_patterns": "phi_rules.jsonl",
    "paths.institution_patterns": "institutions.jsonl",
    "paths.place_names": "place_names.jsonl",
    "paths.identifier_patterns": "identifiers.jsonl",
    "paths.field_keys": "fields.jsonl",
    "paths.privacy_rules": "privacy_high.jsonl",
    "paths.clinical_words": "clinical_words.txt",
    "paths.town_list": "towns_geonames.txt",
    "paths.profession_list": "professions.txt",
}


def build_rule_pipeline(
    config_path: Path, patterns_dir: Path, overrides: dict[str, str] | None = None
) -> Language:
    """An initialized pipeline of every component of `config_path` but tok2vec and ner."""
    paths = {key: str(Path(patterns_dir) / name) for key, name in PATTERN_FILES.items()}
    config = spacy.util.load_config(
        config_path, overrides={**paths, **(overrides or {})}, interpolate=False
    )
    config["nlp"]["pipeline"] = [name for name in config["nlp"]["pipeline"] if name not in TRAINED]
    for name in TRAINED:
        config["components"].pop(name, None)
    # the vectors come from the trained NER's folder, which a rule pipeline has none of
    config["initialize"]["vectors"] = None
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    nlp.initialize()
    return nlp
