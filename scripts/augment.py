"""Format-augmented train set: every gold report and N copies of it in other layouts.

See `meddocan_deid.training.augment` for what a copy changes (header layout and keys,
footer, sentences naming the patient or doctor, section titles, invented prose sentences with
surrogate values when `--prose-sentences` is above 0) and what it keeps (the
body, every gold entity's label and text). Only counts are printed, never report text.
"""

from pathlib import Path

import typer
from spacy.tokens import DocBin

from meddocan_deid.deid.gazetteer import Gazetteer, read_lists
from meddocan_deid.pipeline.tokenizer import blank_pipeline
from meddocan_deid.training.augment import (
    Augmenter,
    AugmentError,
    Resources,
    augment_docs,
    layout_counts,
)
from meddocan_deid.training.prose import ProseMaker, ProseResources


def main(
    input_path: Path = typer.Argument(..., help="DocBin of gold train docs (corpus/train.spacy)"),
    output: Path = typer.Argument(..., help="DocBin to write: the originals and their copies"),
    copies: int = typer.Option(1, help="Augmented copies per report"),
    seed: int = typer.Option(0, help="Random seed; the same seed gives the same output"),
    resources: Path = typer.Option(
        Path("configs/augment"), help="Folder with header_keys.jsonl and phrases.jsonl"
    ),
    sections: Path = typer.Option(
        Path("configs/patterns/sections.jsonl"), help="Section-title patterns (header/footer)"
    ),
    prose_sentences: int = typer.Option(
        0,
        help="Up to this many invented sentences per copy that put PHI in prose with surrogate "
        "values (0: none)",
    ),
    prose_resources: Path = typer.Option(
        Path("configs/augment"), help="Folder with prose.jsonl and prose_values.jsonl"
    ),
    gazetteer: Path | None = typer.Option(
        None, help="Task gazetteer folder for the invented values (else Faker es_ES)"
    ),
    max_dropped: float = typer.Option(
        0.01, help="Fail when a larger share of the copies' entities does not align"
    ),
) -> None:
    if not input_path.is_file():
        typer.echo(f"{input_path}: DocBin not found", err=True)
        raise typer.Exit(1)
    if copies < 0:
        typer.echo(f"--copies must be 0 or more, got {copies}", err=True)
        raise typer.Exit(1)
    if prose_sentences < 0:
        typer.echo(f"--prose-sentences must be 0 or more, got {prose_sentences}", err=True)
        raise typer.Exit(1)
    nlp = blank_pipeline()
    try:
        prose = None
        if prose_sentences:
            gaz = Gazetteer(read_lists(gazetteer), gazetteer) if gazetteer is not None else None
            prose = ProseMaker(ProseResources.from_dir(prose_resources), gaz)
        augmenter = Augmenter(
            nlp,
            Resources.from_dir(resources, sections),
            seed=seed,
            prose=prose,
            prose_sentences=prose_sentences,
        )
    except (AugmentError, ValueError) as err:
        typer.echo(str(err), err=True)
        raise typer.Exit(1) from None
    docs = list(DocBin().from_disk(input_path).get_docs(nlp.vocab))
    out = DocBin(store_user_data=True)
    made = []
    n_orig = n_copy = ents_orig = ents_copy = added = invented = dropped = 0
    for doc, is_copy in augment_docs(docs, augmenter, copies):
        out.add(doc)
        if is_copy:
            made.append(doc)
            n_copy += 1
            ents_copy += len(doc.ents)
            added += doc.user_data["augment"]["added"]
            invented += doc.user_data["augment"]["invented"]
            dropped += doc.user_data["augment"]["dropped"]
        else:
            n_orig += 1
            ents_orig += len(doc.ents)
    output.parent.mkdir(parents=True, exist_ok=True)
    out.to_disk(output)
    typer.echo(
        f"{output}: {n_orig + n_copy} docs ({n_orig} originals, {n_copy} copies, seed {seed})"
    )
    typer.echo(
        f"entities: originals {ents_orig}, copies {ents_copy} "
        f"(copies add {added} in sentences that name a person, {invented} invented in prose; "
        f"dropped as unaligned: {dropped})"
    )
    for name, counts in sorted(layout_counts(made).items()):
        typer.echo(
            f"  {name}: " + ", ".join(f"{k}={v}" for k, v in sorted(counts.items(), key=str))
        )
    total = ents_orig * copies + added + invented
    if total and dropped / total > max_dropped:
        typer.echo(
            f"Dropped share {dropped / total:.4%} exceeds --max-dropped {max_dropped:.4%}", err=True
        )
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
