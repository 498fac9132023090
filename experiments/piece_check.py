"""Nothing lost in the cutting: the entities of N dev reports put end to end (one text, cut
in pieces by the batch core) against those of each report alone, moved to the long text's
offsets. Prints the counts of entities found both ways, only whole, only in pieces, and how
many of the differences lie within `--margin` characters of a report boundary. No text.

    python experiments/piece_check.py es_meddocan_deid ../shared/meddocan/corpus/dev/brat --n 100
"""

from pathlib import Path

import typer

from meddocan_deid.brat import read_text
from meddocan_deid.deid.pieces import pipe_spans, split_pieces, text_spans
from meddocan_deid.pipeline.privacy import load_with_privacy

SEP = "\n\n"


def main(
    model: str = typer.Argument(..., help="Installed package name or pipeline path"),
    folder: Path = typer.Argument(..., help="Folder of .txt reports"),
    n: int = typer.Option(100, help="Reports put end to end"),
    margin: int = typer.Option(
        200, help="A difference this close to a report boundary counts as at the boundary"
    ),
) -> None:
    texts = [read_text(p) for p in sorted(folder.glob("*.txt"))[:n]]
    nlp = load_with_privacy(model, None)
    alone, starts, offset = set(), [], 0
    for text, spans in zip(texts, [pipe_spans(nlp, [t])[0] for t in texts]):
        starts.append(offset)
        alone.update((label, offset + s, offset + e) for label, s, e in spans)
        offset += len(text) + len(SEP)
    whole = SEP.join(texts)
    pieces = split_pieces(whole, 20_000)
    cut = set(text_spans(nlp, whole))
    only_alone, only_cut = alone - cut, cut - alone
    bounds = starts[1:] + [p.start for p in pieces[1:]]

    def near(span) -> bool:
        return any(
            b - margin <= span[1] <= b + margin or b - margin <= span[2] <= b + margin
            for b in bounds
        )

    diff = only_alone | only_cut
    typer.echo(f"reports {len(texts)}, characters {len(whole)}, pieces {len(pieces)}")
    typer.echo(
        f"entities report by report {len(alone)}, in pieces {len(cut)}, both {len(alone & cut)}"
    )
    typer.echo(
        f"only report by report {len(only_alone)}, only in pieces {len(only_cut)}; of these "
        f"within {margin} characters of a report boundary or a cut: {sum(map(near, diff))}, "
        f"elsewhere: {sum(not near(d) for d in diff)}"
    )
    # the cutting alone: the same long text as one doc (no cut) against its pieces
    nlp.max_length = max(nlp.max_length, 2 * len(whole))
    one = set(pipe_spans(nlp, [whole])[0])
    cuts = [p.start for p in pieces[1:]]
    moved = one ^ cut

    def near_a_cut(offset: int) -> bool:
        return any(c - margin <= offset <= c + margin for c in cuts)

    near = sum(near_a_cut(d[1]) or near_a_cut(d[2]) for d in moved)
    typer.echo(
        f"the long text as one doc {len(one)} entities, in pieces {len(cut)}: differ {len(moved)}, "
        f"of which within {margin} characters of a cut {near}"
    )


if __name__ == "__main__":
    typer.run(main)
