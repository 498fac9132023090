"""Convert BRAT splits to DocBins with the MEDDOCAN tokenizer.

Each Doc carries, in `user_data`, plain values the evaluation needs: the report id,
the full gold annotation as character offsets (including the rare entities that do not
align to tokens) and the official sentence count. Misaligned entities are reported by
label with offsets and a character shape only (never report text), and the run fails
when their share exceeds `--max-misaligned`.
"""

import collections
import itertools
import re
from pathlib import Path

import typer
from spacy.tokens import DocBin
from spacy.util import filter_spans

from meddocan_deid.brat import read_brat_dir
from meddocan_deid.evaluation.metrics import sentence_count
from meddocan_deid.evaluation.results import GOLD_KEY, ID_KEY, SENTENCES_KEY
from meddocan_deid.pipeline.tokenizer import blank_pipeline


def shape(text: str) -> str:
    """A non-identifying shape of a snippet: letters X/x, digits d, the rest kept."""
    return re.sub(
        r"\d", "d", re.sub(r"[^\W\d_]", lambda m: "X" if m.group().isupper() else "x", text)
    )


def convert_split(nlp, brat_dir: Path, sentences_dir: Path, output: Path, stats, limit: int = 0):
    db = DocBin(store_user_data=True)
    reports = read_brat_dir(brat_dir)  # sorted by id, so a limit takes the same reports every time
    for report in itertools.islice(reports, limit or None):
        doc = nlp.make_doc(report.text)
        spans = []
        for label, start, end in report.entities:
            stats["total"][label] += 1
            span = doc.char_span(start, end, label=label)
            if span is None:
                stats["misaligned"][label] += 1
                ctx = doc.char_span(start, end, alignment_mode="expand")
                stats["examples"][label].append(
                    f"{report.doc_id} {start}-{end} gold '{shape(report.text[start:end])}' "
                    f"tokens '{shape(ctx.text) if ctx is not None else ''}'"
                )
            else:
                spans.append(span)
        kept = filter_spans(spans)
        stats["overlapping"] += len(spans) - len(kept)
        doc.ents = kept
        doc.user_data[ID_KEY] = report.doc_id
        doc.user_data[GOLD_KEY] = [list(e) for e in report.entities]
        sent_file = sentences_dir / f"{report.doc_id}.ann"
        if sent_file.exists():
            doc.user_data[SENTENCES_KEY] = sentence_count(sent_file)
        db.add(doc)
    output.parent.mkdir(parents=True, exist_ok=True)
    db.to_disk(output)
    return len(db)


def main(
    corpus_dir: Path = typer.Argument(..., help="Folder with <split>/brat/ subfolders"),
    output_dir: Path = typer.Argument(..., help="Where <split>.spacy files are written"),
    sentences_dir: Path = typer.Option(
        Path("assets/meddocan/sentences"), help="Official sentence files (ID.ann)"
    ),
    max_misaligned: float = typer.Option(
        0.002, help="Fail when a larger share of gold entities does not align"
    ),
    limit: int = typer.Option(0, help="Convert only the first N reports of each split (tests)"),
) -> None:
    nlp = blank_pipeline()
    splits = sorted(p.parent.name for p in corpus_dir.glob("*/brat") if p.is_dir())
    if not splits:
        typer.echo(f"{corpus_dir}: no <split>/brat folders found", err=True)
        raise typer.Exit(1)
    stats = {
        "total": collections.Counter(),
        "misaligned": collections.Counter(),
        "examples": collections.defaultdict(list),
        "overlapping": 0,
    }
    for split in splits:
        n = convert_split(
            nlp,
            corpus_dir / split / "brat",
            sentences_dir,
            output_dir / f"{split}.spacy",
            stats,
            limit,
        )
        typer.echo(f"{split}: {n} reports -> {output_dir / f'{split}.spacy'}")
    total, bad = sum(stats["total"].values()), sum(stats["misaligned"].values())
    share = 1 - bad / total if total else 1.0
    typer.echo(
        f"Gold entities aligned to tokens: {total - bad}/{total} ({share:.4%}); "
        f"overlapping entities dropped from doc.ents: {stats['overlapping']}"
    )
    for label, count in stats["misaligned"].most_common():
        typer.echo(f"  misaligned {label}: {count}")
        for example in stats["examples"][label][:5]:
            typer.echo(f"    {example}")
    if total and bad / total > max_misaligned:
        typer.echo(
            f"Misaligned share {bad / total:.4%} exceeds --max-misaligned {max_misaligned:.4%}",
            err=True,
        )
        raise typer.Exit(1)


if __name__ == "__main__":
    typer.run(main)
