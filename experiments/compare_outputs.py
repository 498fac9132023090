"""Compare what two versions of the code write on the same reports (a speed-up check): the
entities and every span group of each document, as offsets, labels and kind ids.

    # with each version of the code on PYTHONPATH, the same pipeline
    python experiments/compare_outputs.py dump PIPELINE before.json FOLDER [FOLDER...]
    python experiments/compare_outputs.py dump PIPELINE after.json FOLDER [FOLDER...]
    python experiments/compare_outputs.py compare before.json after.json

`dump` runs the pipeline over the `.txt` reports of each folder (`--limit N`: the first N of
each) and writes, per report, its entities and span groups as (start, end, label, kb_id)
character offsets: no report text. `compare` prints, per folder and in all, the documents
compared and those whose entities or span groups differ (counts only, never text or names);
exit status 1 on any difference or any document found on one side only.
"""

import json
from pathlib import Path
from typing import Annotated

import typer

from meddocan_deid.brat import read_text
from meddocan_deid.pipeline.privacy import load_with_privacy

app = typer.Typer(add_completion=False)


def _spans(spans) -> list[list]:
    return [[s.start_char, s.end_char, s.label_, s.kb_id_] for s in spans]


@app.command()
def dump(
    pipeline: Annotated[str, typer.Argument(help="Pipeline path or package")],
    out: Annotated[Path, typer.Argument(help="JSON file to write")],
    folders: Annotated[list[Path], typer.Argument(help="Folders of .txt reports")],
    limit: Annotated[int, typer.Option(help="The first N reports of each folder (0: all)")] = 0,
) -> None:
    nlp = load_with_privacy(pipeline, None)
    outputs: dict[str, dict] = {}
    for folder in folders:
        files = sorted(folder.glob("*.txt"))
        if limit:
            files = files[:limit]
        if not files:
            typer.echo(f"{folder}: no .txt reports", err=True)
            raise typer.Exit(2)
        texts = [read_text(f) for f in files]
        for path, doc in zip(files, nlp.pipe(texts), strict=True):
            groups = {key: _spans(group) for key, group in sorted(doc.spans.items())}
            outputs[f"{folder.name}/{path.name}"] = {"ents": _spans(doc.ents), "spans": groups}
    out.write_text(json.dumps(outputs), encoding="utf-8")
    typer.echo(f"{len(outputs)} documents written to {out}")


@app.command()
def compare(
    before: Annotated[Path, typer.Argument(help="JSON written by `dump`")],
    after: Annotated[Path, typer.Argument(help="JSON written by `dump`")],
) -> None:
    a = json.loads(before.read_text(encoding="utf-8"))
    b = json.loads(after.read_text(encoding="utf-8"))
    per_folder: dict[str, list[int]] = {}
    for name in sorted(a.keys() | b.keys()):
        counts = per_folder.setdefault(name.split("/", 1)[0], [0, 0, 0])
        if name not in a or name not in b:
            counts[2] += 1
            continue
        counts[0] += 1
        counts[1] += a[name] != b[name]
    for folder, (compared, differing, one_side) in per_folder.items():
        typer.echo(
            f"{folder}: documents compared {compared}, differing {differing}, "
            f"on one side only {one_side}"
        )
    compared, differing, one_side = (sum(c[i] for c in per_folder.values()) for i in range(3))
    typer.echo(
        f"all: documents compared {compared}, differing {differing}, on one side only {one_side}"
    )
    if differing or one_side:
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
