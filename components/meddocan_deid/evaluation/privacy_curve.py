"""The recall / over-redaction curve of the privacy operating point.

Runs a pipeline once without its `privacy` component, then applies that component at
level "high" with the first k of its rules, for k = 0 (balanced) to all, plus reference
points (rule lists given apart, e.g. the raw generic NER everywhere), and scores each with
the MEDDOCAN metrics. Rows hold numbers only, never report text.
"""

from collections.abc import Sequence
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from ..pipeline.privacy import Privacy, validate_rules
from .metrics import EvaluationError
from .results import doc_result, make_unique, score_results

ROW_KEYS = (
    "meddocan_s1_p",
    "meddocan_s1_r",
    "meddocan_s1_f",
    "meddocan_s1_leak",
    "meddocan_phi_word_recall",
    "meddocan_phi_identifying_word_recall",
    "meddocan_phi_identifying_word_n",
    "meddocan_phi_identifying_word_tp",
    "meddocan_over_redaction",
    "meddocan_over_redaction_removed",
)
# the generic NER's PER/LOC/ORG taken everywhere, unfiltered: what the rules improve on
RAW_UNION = [
    {
        "id": "raw/generic_everywhere",
        "source": "generic_ner",
        "sections": ["header", "body", "footer"],
        "labels": {"PER": "NOMBRE_PERSONAL_SANITARIO", "LOC": "TERRITORIO", "ORG": "INSTITUCION"},
    }
]


def curve_points(
    rules: Sequence[dict], references: dict[str, list[dict]] | None = None
) -> list[tuple[str, list[dict]]]:
    """(name, rules) of each point: balanced, then one more rule at a time, then the references."""
    points: list[tuple[str, list[dict]]] = [("balanced", [])]
    points += [(f"+ {rule.get('id', i)}", list(rules[: i + 1])) for i, rule in enumerate(rules)]
    points += [(name, validate_rules(extra)) for name, extra in (references or {}).items()]
    return points


def privacy_curve(
    nlp: Language,
    references: Sequence[Doc],
    points: Sequence[tuple[str, list[dict]]],
    batch_size: int = 32,
) -> list[dict[str, Any]]:
    """One row of scores per point (see ROW_KEYS), in the order given."""
    if "privacy" not in nlp.pipe_names:
        raise EvaluationError(
            "the pipeline has no 'privacy' component; rebuild it with configs/pipeline.cfg"
        )
    privacy = nlp.get_pipe("privacy")
    if not isinstance(privacy, Privacy):
        raise EvaluationError(
            f"the pipeline's 'privacy' component is a {type(privacy).__name__}, not "
            "meddocan_privacy"
        )
    saved = (privacy.level, privacy.rules)
    with nlp.select_pipes(disable=["privacy"]):
        predicted = list(nlp.pipe((d.text for d in references), batch_size=batch_size))
    base = [list(doc.ents) for doc in predicted]
    rows = []
    try:
        for name, rules in points:
            privacy.level, privacy.rules = "high", rules
            for doc, ents in zip(predicted, base):
                doc.ents = ents
                privacy(doc)  # caches the generic entities on the doc at its first call
            results = make_unique(
                [
                    doc_result(ref, doc, str(i))
                    for i, (ref, doc) in enumerate(zip(references, predicted))
                ]
            )
            scores = score_results(results)
            rows.append({"point": name, **{key: scores.get(key) for key in ROW_KEYS}})
    finally:
        privacy.level, privacy.rules = saved
    return rows


def curve_markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| operating point | s1 F1 | leak | identifying-word recall | uncovered identifying "
        "words | PHI word recall | non-PHI words removed |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        missed = int(r["meddocan_phi_identifying_word_n"]) - int(
            r["meddocan_phi_identifying_word_tp"]
        )
        lines.append(
            f"| {r['point']} | {r['meddocan_s1_f']:.4f} | {r['meddocan_s1_leak']:.5f} | "
            f"{r['meddocan_phi_identifying_word_recall']:.4f} | {missed} | "
            f"{r['meddocan_phi_word_recall']:.4f} | {r['meddocan_over_redaction']:.2%} "
            f"({r['meddocan_over_redaction_removed']}) |"
        )
    return "\n".join(lines) + "\n"


def plot_curve(rows: Sequence[dict[str, Any]], path, title: str = "dev") -> None:
    """Identifying-word recall against the share of non-PHI words removed, one marker per point."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r for r in rows if not str(r["point"]).startswith("raw/")]
    others = [r for r in rows if str(r["point"]).startswith("raw/")]
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    ax.plot(
        [100 * r["meddocan_over_redaction"] for r in steps],
        [r["meddocan_phi_identifying_word_recall"] for r in steps],
        "o-",
        label="privacy rules, cumulative",
    )
    for r in steps:
        ax.annotate(
            str(r["point"]).lstrip("+ "),
            (100 * r["meddocan_over_redaction"], r["meddocan_phi_identifying_word_recall"]),
            textcoords="offset points",
            xytext=(5, -10),
            fontsize=7,
        )
    for r in others:
        ax.plot(
            [100 * r["meddocan_over_redaction"]],
            [r["meddocan_phi_identifying_word_recall"]],
            "s",
            label=str(r["point"]),
        )
    ax.axhline(0.997, color="grey", linestyle=":", linewidth=1, label="target recall 0.997")
    ax.axvline(3.0, color="grey", linestyle="--", linewidth=1, label="budget: 3% of non-PHI words")
    ax.set_xlabel("non-PHI words removed (%)")
    ax.set_ylabel("identifying PHI words covered")
    ax.set_title(f"Privacy operating points ({title})")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
