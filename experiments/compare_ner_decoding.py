"""spaCy's `ner` against `meddocan_ner` on the same reports: the components before the NER run
twice (the rules' preset entities included), then each decoder runs on its copy with the same
weights; prints the docs whose entity annotation (ENT_IOB, ENT_TYPE, ENT_KB_ID) differs and the
seconds of each decoder. Numbers only, never report text.

    python experiments/compare_ner_decoding.py training/pipeline assets/meddocan/corpus/dev/brat
"""

import time
from pathlib import Path

import numpy
import spacy
import typer

from meddocan_deid.brat import read_text

ATTRS = ["ENT_IOB", "ENT_TYPE", "ENT_KB_ID"]


def before_ner(nlp, texts: list[str], batch_size: int):
    with nlp.select_pipes(enable=nlp.pipe_names[: nlp.pipe_names.index("ner")]):
        return list(nlp.pipe(texts, batch_size=batch_size))


def main(pipeline: str, folder: Path, limit: int = 0, batch_size: int = 64):
    nlp = spacy.load(pipeline)
    ner = nlp.get_pipe("ner")
    config = {k: v for k, v in nlp.get_pipe_config("ner").items() if k != "factory"}
    spacy_ner = nlp.add_pipe("ner", name="spacy_ner", config=config, last=True)
    greedy_ner = nlp.add_pipe("meddocan_ner", name="greedy_ner", config=config, last=True)
    for other in (spacy_ner, greedy_ner):
        other.from_bytes(ner.to_bytes(exclude=["vocab"]), exclude=["vocab"])
    nlp.remove_pipe("spacy_ner")
    nlp.remove_pipe("greedy_ner")
    paths = sorted(folder.glob("*.txt"))[: limit or None]
    if not paths:
        raise typer.BadParameter(f"{folder}: no .txt reports")
    texts = [read_text(path) for path in paths]
    seconds = {}
    results = {}
    for name, component in (("spacy ner", spacy_ner), ("meddocan_ner", greedy_ner)):
        docs = before_ner(nlp, texts, batch_size)
        start = time.perf_counter()
        results[name] = list(component.pipe(docs, batch_size=batch_size))
        seconds[name] = time.perf_counter() - start
    a, b = results["spacy ner"], results["meddocan_ner"]
    differing = sum(
        not numpy.array_equal(x.to_array(ATTRS), y.to_array(ATTRS)) for x, y in zip(a, b)
    )
    typer.echo(
        f"{folder}: docs {len(a)}, tokens {sum(map(len, a))}, entities "
        f"{sum(len(d.ents) for d in a)}, differing docs {differing}; spacy ner "
        f"{seconds['spacy ner']:.2f} s, meddocan_ner {seconds['meddocan_ner']:.2f} s"
    )
    raise typer.Exit(1 if differing else 0)


if __name__ == "__main__":
    typer.run(main)
