"""Which rule groups the NER makes redundant: the assembled pipeline with one rule component
left out at a time, scored on MEDDOCAN dev and on the held-out sets as written, in lower case
and in capitals (pooled over the sets). A group whose removal moves no column beyond the
spread between training seeds adds nothing measurable. Numbers only.

    python experiments/ablation_sets.py training/pipeline corpus/dev.spacy assets/formats \
        assets/prose_heldout assets/heldout_types --output metrics/ablation_sets.md
"""

from collections.abc import Sequence
from pathlib import Path

import spacy
import typer

from meddocan_deid.evaluation.formats import evaluate_formats, read_set
from meddocan_deid.evaluation.results import run_model, score_results
from meddocan_deid.files import atomic_write

# the rule components of configs/pipeline.cfg; the NER, the sections and `privacy` stay
GROUPS = (
    "phi_rules",
    "rule_entities",
    "fields",
    "entity_edges",
    "place_names",
    "entity_checks",
    "address_parts",
    "maker_address",
    "trusted_phi",
    "identifiers",
    "code_shapes",
)
CASES = (None, "lower", "upper")


def pooled(nlp: spacy.Language, sets: Sequence[Path], docs: dict[Path, list], case: str | None):
    """Identifying-word recall and the share of other words removed over all `sets`."""
    tp = n = removed = words = 0
    for folder in sets:
        o = evaluate_formats(nlp, folder, docs=docs[folder], case=case)["overall"]
        tp += o["meddocan_phi_identifying_word_tp"]
        n += o["meddocan_phi_identifying_word_n"]
        removed += o["meddocan_over_redaction_removed"]
        words += o["meddocan_over_redaction_n"]
    return tp / max(n, 1), removed / max(words, 1)


def main(
    model: str = typer.Argument(..., help="Assembled pipeline (path or package)"),
    dev: Path = typer.Argument(..., help="MEDDOCAN dev DocBin (corpus/dev.spacy)"),
    sets: list[Path] = typer.Argument(..., help="Held-out set folders (.txt/.ann)"),
    output: Path | None = typer.Option(None, help="Markdown table to write"),
    groups: str = typer.Option(
        ",".join(GROUPS), help="Rule components to leave out, one at a time"
    ),
) -> None:
    for path in (dev, *sets):
        if not path.exists():
            typer.echo(f"{path}: not found", err=True)
            raise typer.Exit(1)
    docs = {folder: read_set(folder) for folder in sets}
    lines = [
        "| pipeline | dev s1 F1 | dev ident. R | held-out ident. R (written / lower / upper) | "
        "other words removed (written / lower / upper) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    typer.echo("\n".join(lines))
    for left_out in [None, *groups.split(",")]:
        nlp = spacy.load(model, exclude=[left_out] if left_out else [])
        if left_out and left_out in nlp.pipe_names:
            raise RuntimeError(f"{left_out} still in the pipeline")
        dev_scores = score_results(run_model(nlp, dev)[0])
        recall, share = zip(*(pooled(nlp, sets, docs, case) for case in CASES))
        line = (
            f"| {'full pipeline' if left_out is None else 'without ' + left_out} | "
            f"{dev_scores['meddocan_s1_f']:.4f} | "
            f"{dev_scores['meddocan_phi_identifying_word_recall']:.4f} | "
            f"{' / '.join(f'{r:.4f}' for r in recall)} | "
            f"{' / '.join(f'{100 * s:.2f}%' for s in share)} |"
        )
        typer.echo(line)
        lines.append(line)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(output, "\n".join(lines) + "\n")
        typer.echo(f"-> {output}")


if __name__ == "__main__":
    typer.run(main)
