"""What a pipeline leaves, by gold label: identifying words (capitalised or with a digit) of each
label's mentions not wholly inside a predicted entity, and the other words removed, by the label
of the entity that removed them. Totals only, never text (held-out sets may be scored).

    python experiments/leak_by_label.py training/pipeline assets/heldout_americas [--case lower]
"""

from collections import Counter
from pathlib import Path

import spacy
import typer

from meddocan_deid.evaluation.formats import read_set
from meddocan_deid.evaluation.metrics import WORD_RE
from meddocan_deid.evaluation.results import system_annotations
from meddocan_deid.text_variants import variant


def _identifying(word: str) -> bool:
    return word[0].isupper() or any(c.isdigit() for c in word)


def main(
    model: str = typer.Argument(..., help="Pipeline path or installed package name"),
    sets: list[Path] = typer.Argument(..., help="BRAT folders (.txt/.ann)"),
    case: str = typer.Option("", help="Run on the 'lower' or 'upper' copies (gold as written)"),
) -> None:
    nlp = spacy.load(model)
    for folder in sets:
        docs = read_set(folder)
        texts = [variant(d.text, case) if case else d.text for d in docs]
        words, left, removed = Counter(), Counter(), Counter()
        other_words = 0
        for brat, doc in zip(docs, nlp.pipe(texts, batch_size=16)):
            owner: list[str | None] = [None] * len(brat.text)
            for label, start, end in system_annotations(doc):
                owner[start:end] = [label] * (end - start)
            gold = [False] * len(brat.text)
            for label, start, end, *_ in brat.entities:
                gold[int(start) : int(end)] = [True] * (int(end) - int(start))
                for m in WORD_RE.finditer(brat.text, int(start), int(end)):
                    if _identifying(m.group()):
                        words[label] += 1
                        left[label] += not all(owner[m.start() : m.end()])
            for m in WORD_RE.finditer(brat.text):
                if not any(gold[m.start() : m.end()]):
                    other_words += 1
                    by = sorted({o for o in owner[m.start() : m.end()] if o})
                    if by:
                        removed[by[0]] += 1
        typer.echo(
            f"{folder.name} ({case or 'as written'}): identifying words {sum(words.values())}, "
            f"left {sum(left.values())}; other words {other_words}, removed {sum(removed.values())}"
        )
        typer.echo(f"  {'label':<34}{'left':>6}{'of':>7}{'removed':>9}")
        for label in sorted(words.keys() | removed.keys(), key=lambda k: (-left[k], -removed[k])):
            typer.echo(f"  {label:<34}{left[label]:>6}{words[label]:>7}{removed[label]:>9}")


if __name__ == "__main__":
    typer.run(main)
