"""Write the lexicon vectors: one dimension per word class (first name, surname, town, part of
a place name, nickname, common word, number word ...), in lower case, with a capital and in
capitals, as spaCy vectors that the NER's tok2vec reads (meddocan_deid.training.lexicon_vectors).

    python scripts/lexicon_vectors.py corpus/lexicon_vectors \
        --gazetteer ../shared/meddocan/gazetteer
"""

from collections import Counter
from pathlib import Path

import spacy
import typer
from spacy.training.initialize import convert_vectors

from meddocan_deid.training.lexicon_vectors import (
    CLASSES,
    LexiconSources,
    build_lexicon,
    write_word2vec,
)


def main(
    output: Path = typer.Argument(..., help="Folder of the spaCy vectors to write"),
    gazetteer: Path | None = typer.Option(
        None, help="The task gazetteer's folder (first names, surnames, towns ...)"
    ),
    common_words: int = typer.Option(
        20000, help="How many of the most frequent Spanish word forms are common words"
    ),
) -> None:
    if gazetteer is not None and not gazetteer.is_dir():
        typer.echo(f"{gazetteer}: not a folder (expected the task gazetteer)", err=True)
        raise typer.Exit(1)
    classes = build_lexicon(LexiconSources(gazetteer=gazetteer, common_words=common_words))
    table = output.with_suffix(".w2v.txt")
    rows = write_word2vec(classes, table)
    nlp = spacy.blank("es")
    convert_vectors(nlp, table, truncate=0, prune=-1)
    nlp.to_disk(output)
    table.unlink()
    counts = Counter(cls for cls_set in classes.values() for cls in cls_set)
    typer.echo(
        f"{output}: {rows} words, {len(CLASSES)} classes, {len(nlp.vocab.vectors.keys())} spellings"
    )
    for cls in CLASSES:
        typer.echo(f"  {cls}\t{counts[cls]}")


if __name__ == "__main__":
    typer.run(main)
