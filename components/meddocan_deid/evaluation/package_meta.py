"""The meta.json fields of the packaged pipeline: its dev scores (from the metrics files of
`evaluate` and `spacy evaluate`), its data sources with their licences, and its requirements."""

import json
from pathlib import Path

# scores copied into meta.json "performance" when a metrics file has them
PERFORMANCE_KEYS = (
    "meddocan_s1_p",
    "meddocan_s1_r",
    "meddocan_s1_f",
    "meddocan_s1_leak",
    "meddocan_s2_strict_p",
    "meddocan_s2_strict_r",
    "meddocan_s2_strict_f",
    "meddocan_s2_merged_p",
    "meddocan_s2_merged_r",
    "meddocan_s2_merged_f",
    "ents_p",
    "ents_r",
    "ents_f",
)
REQUIRED_KEYS = ("meddocan_s1_p", "meddocan_s1_r", "meddocan_s1_f")
SOURCES = [
    {
        "name": "MEDDOCAN corpus (Medical Document Anonymization, IberLEF 2019)",
        "url": "https://github.com/PlanTL-GOB-ES/SPACCC_MEDDOCAN",
        "license": "CC BY 4.0",
        "author": "Secretaría de Estado para el Avance Digital (SEAD), Plan TL",
    },
    {
        "name": "MEDDOCAN gazetteer (names, surnames, streets, towns, hospitals, professions), "
        "used as NER features by two of the five NERs of es_meddocan_deid and, stored in the "
        "pipeline's vocab, for the surrogates",
        "url": "https://github.com/PlanTL-GOB-ES/SPACCC_MEDDOCAN",
        "license": "CC BY 4.0",
    },
]
DESCRIPTION = (
    "Finds the 29 PHI types of the MEDDOCAN annotation scheme (names, dates, ages, identifiers, "
    "addresses, hospitals, contacts ...) in Spanish clinical reports, so that they can be "
    "de-identified: sections, header/footer rules and {ner} trained on the 500 train reports "
    "of the MEDDOCAN corpus (synthetic clinical case reports annotated with PHI). Performance "
    "(meta.json): official-style MEDDOCAN scores on its 250 dev reports."
)
# what {ner} says, by whether the pipeline has the vote of configs/pipeline_ensemble.cfg
NER_SUMMARY = {True: "five CNN NERs that vote on each entity", False: "a CNN NER"}


def read_performance(paths) -> dict:
    """The PERFORMANCE_KEYS found in the metrics files (later files win); a missing or
    unreadable file, or no subtask-1 scores at all, is an error naming the file."""
    performance = {}
    for path in paths:
        path = Path(path)
        try:
            scores = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as err:
            raise ValueError(
                f"{path}: metrics file not found (run `spacy project run evaluate` first)"
            ) from err
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}: not valid JSON ({err.msg}, line {err.lineno})") from err
        if not isinstance(scores, dict):
            raise ValueError(f"{path}: expected a JSON object of scores")
        for key in PERFORMANCE_KEYS:
            value = scores.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                performance[key] = value
    if paths:
        missing = [key for key in REQUIRED_KEYS if key not in performance]
        if missing:
            raise ValueError(
                f"{', '.join(str(p) for p in paths)}: no {', '.join(missing)} (not a metrics "
                "file of scripts/evaluate.py)"
            )
    return performance


def build_meta(library_version: str, performance: dict, pipe_names=()) -> dict:
    """meta.json fields given to `spacy package`, which adds the pipeline's own and sets
    `spacy_version` to the minor range of the spaCy that built it. `pipe_names` (the
    pipeline's) say which NERs the description names."""
    major, minor, _ = library_version.split(".")
    description = DESCRIPTION.format(ner=NER_SUMMARY["ner_vote" in pipe_names])
    # `spacy info` hides "performance", so the headline scores go in the description too
    summary = [
        f"{name} {performance[key]:.4f}"
        for name, key in (
            ("subtask-1 F1", "meddocan_s1_f"),
            ("leak", "meddocan_s1_leak"),
            ("subtask-2 merged F1", "meddocan_s2_merged_f"),
            ("spaCy ents_f", "ents_f"),
        )
        if key in performance
    ]
    if summary:
        description += " Dev: " + ", ".join(summary) + "."
    return {
        "description": description,
        "url": "https://example.org/es_meddocan_deid",  # project url placeholder
        "license": "MIT (code); trained on the MEDDOCAN corpus, CC BY 4.0",
        "sources": SOURCES,
        "requirements": [f"meddocan-deid>={library_version},<{major}.{int(minor) + 1}.0"],
        "performance": performance,
    }
