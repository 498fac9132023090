"""What each rule component adds: the same trained pipeline scored with parts of it off.

Rows, each adding one part to the row above: the NER alone; header rules; footer rules
(those enabled in the config); date rules (`any/match`); age and relative rules
(`any/age`, `any/relative`, `any/relative_age`); population groups (`any/group`);
entity-edge trimming; entity checks (vetoes `any/veto`, number shapes); address parts;
maker addresses in a product's parenthesis; trusted-PHI propagation.
The representation rows of the README's ablation table (vectors, pretraining, rule data)
come from separate trainings; see the README.
Prints a Markdown table (numbers only) and writes it to OUTPUT.
"""

from pathlib import Path
from typing import Annotated

import spacy
import typer

from meddocan_deid.evaluation.results import run_model, score_results
from meddocan_deid.files import atomic_write

RULE_PARTS = ("phi_rules", "rule_entities")
# (row name, components disabled, pattern-id prefixes removed from the span_ruler)
POST_NER = ("entity_edges", "entity_checks", "address_parts", "maker_address", "trusted_phi")
ROWS = [
    ("NER alone", RULE_PARTS + POST_NER, ()),
    ("+ header rules", POST_NER, ("footer/", "any/")),
    ("+ footer rules", POST_NER, ("any/",)),
    ("+ date rules", POST_NER, ("any/age", "any/relative", "any/group", "any/veto")),
    ("+ age and relative rules", POST_NER, ("any/group", "any/veto")),
    ("+ population group rules", POST_NER, ("any/veto",)),
    ("+ entity edges", POST_NER[1:], ()),
    ("+ entity checks", POST_NER[2:], ()),
    ("+ address parts", POST_NER[3:], ()),
    ("+ maker addresses", POST_NER[4:], ()),
    ("+ trusted PHI (full pipeline)", (), ()),
]


def load(model: str, disabled, removed_prefixes) -> spacy.Language:
    nlp = spacy.load(model, exclude=[c for c in disabled])  # a component the model lacks is ignored
    if removed_prefixes and "phi_rules" in nlp.pipe_names:
        ruler = nlp.get_pipe("phi_rules")
        for pattern_id in {p.get("id", "") for p in ruler.patterns}:
            if pattern_id.startswith(tuple(removed_prefixes)):
                ruler.remove_by_id(pattern_id)
    return nlp


def main(
    model: Annotated[str, typer.Argument(help="Assembled pipeline (path or package)")],
    data_path: Annotated[Path, typer.Argument(help="Evaluation DocBin (corpus/dev.spacy)")],
    output: Annotated[Path, typer.Argument(help="Markdown table to write")],
):
    if not data_path.exists():
        typer.echo(f"{data_path}: file not found", err=True)
        raise typer.Exit(1)
    lines: list[str] = [
        "| pipeline | s1 P | s1 R | s1 F1 | leak | s2 merged F1 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    typer.echo("\n".join(lines))
    for name, disabled, removed in ROWS:
        scores = score_results(run_model(load(model, disabled, removed), data_path)[0])
        line = (
            f"| {name} | {scores['meddocan_s1_p']:.4f} | {scores['meddocan_s1_r']:.4f} | "
            f"{scores['meddocan_s1_f']:.4f} | "
            f"{scores.get('meddocan_s1_leak', scores.get('meddocan_s1_leak_pipeline')):.4f} | "
            f"{scores['meddocan_s2_merged_f']:.4f} |"
        )
        typer.echo(line)
        lines.append(line)
    output.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(output, "\n".join(lines) + "\n")
    typer.echo(f"-> {output}")


if __name__ == "__main__":
    typer.run(main)
