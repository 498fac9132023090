"""Texts of any length through the pipeline, with memory bounded by the piece.

A text longer than `piece_limit(nlp)` (20,000 characters, at most half the pipeline's
`max_length`) goes through the pipeline in pieces cut at a paragraph, else a line, else a
sentence, else a space boundary; a window with none of them is cut anywhere and the next piece
overlaps it by `PIECE_OVERLAP` characters, each piece keeping the entities that start in its
half of the overlap, so that an entity across the cut is found whole. At most `PIPE_CHARS`
characters go through one `nlp.pipe` call, in a spaCy memory zone, and only the entities'
offsets are kept: a run's peak memory does not grow with the size of a report, its time grows
linearly. `deadline` is checked between pieces (ReportTimeout).
"""

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from spacy.tokens import Doc

PIECE_CHARS = 20_000  # the largest piece the pipeline sees (about 1 s of CPU and 60 MB)
PIECE_OVERLAP = (
    400  # a cut with no boundary: the next piece starts this far back (entities are far shorter)
)
PIPE_CHARS = 100_000  # characters of one nlp.pipe call
# paragraph, line, sentence, clause, space: the first one found in a window's second half is the cut
BOUNDARIES = ("\n\n", "\n", ". ", "? ", "! ", "; ", " ")


class ReportTimeout(Exception):
    """A report took longer than the run's time limit (checked between pieces)."""


def doc_spans(doc: Doc) -> list[tuple[str, int, int]]:
    """The entities of a processed Doc as (label, start, end) character offsets."""
    return [(ent.label_, ent.start_char, ent.end_char) for ent in doc.ents]


def piece_limit(nlp) -> int:
    """The longest text that goes through the pipeline in one piece."""
    return max(1, min(PIECE_CHARS, int(getattr(nlp, "max_length", 1_000_000) or 1_000_000) // 2))


@dataclass(frozen=True)
class Piece:
    """A window [start, end) of a text; its entities that start in [keep_from, keep_to) are kept."""

    start: int
    end: int
    keep_from: int
    keep_to: int


def split_pieces(text: str, limit: int, overlap: int | None = None) -> list[Piece]:
    """The pieces of `text`, each at most `limit` characters: cut after the last boundary of
    `BOUNDARIES` in the window's second half; a window without one is cut at `limit` and the
    next piece starts `overlap` characters earlier (default: `PIECE_OVERLAP`, at most a
    quarter of `limit`). Consecutive pieces split their overlap in the middle."""
    overlap = min(PIECE_OVERLAP if overlap is None else overlap, limit // 4)
    windows: list[tuple[int, int]] = []
    start = 0
    while len(text) - start > limit:
        window = text[start : start + limit]
        cut = -1
        for sep in BOUNDARIES:
            i = window.rfind(sep, limit // 2)
            if i != -1:
                cut = i + len(sep)
                break
        if cut > 0:
            windows.append((start, start + cut))
            start += cut
        else:  # no boundary: a hard cut, and the next piece overlaps this one
            windows.append((start, start + limit))
            start += limit - overlap
    windows.append((start, len(text)))
    pieces = []
    for i, (s, e) in enumerate(windows):
        keep_from = 0 if i == 0 else (s + windows[i - 1][1]) // 2
        keep_to = len(text) + 1 if i == len(windows) - 1 else (windows[i + 1][0] + e) // 2
        pieces.append(Piece(s, e, keep_from, keep_to))
    return pieces


def groups(sizes: list[int], budget: int) -> Iterator[list[int]]:
    """Indices of `sizes` in order, grouped so that a group's total is at
    most `budget` (or one item)."""
    group: list[int] = []
    total = 0
    for i, size in enumerate(sizes):
        if group and total + size > budget:
            yield group
            group, total = [], 0
        group.append(i)
        total += size
    if group:
        yield group


def pipe_spans(
    nlp, texts: list[str], convert: Callable = doc_spans
) -> list[list[tuple[str, int, int]]]:
    """The entities of each text, in one `nlp.pipe` call inside a memory zone: the docs and
    the strings they added are gone when it returns. An exception in the pipeline is raised
    after the zone has closed (spaCy's zone leaves the vocab broken when one crosses it).
    convert: a Doc -> its (label, start, end, ...) tuples of plain values."""
    zone = getattr(nlp, "memory_zone", None)
    if zone is None:
        return [convert(doc) for doc in nlp.pipe(texts)]
    error: BaseException | None = None
    with zone():
        docs = nlp.pipe(texts)
        try:
            spans = [convert(doc) for doc in docs]
        except Exception as err:  # noqa: BLE001 - raised again below, outside the zone
            error = err
        finally:
            docs.close()
    if error is not None:
        raise error
    return spans


def text_spans(
    nlp,
    text: str,
    deadline: float | None = None,
    *,
    limit: int | None = None,
    budget: int = PIPE_CHARS,
    run: Callable[[list[str]], list] | None = None,
) -> list[tuple[str, int, int]]:
    """The entities of a text of any length, in its offsets: in one piece when it fits, else
    piece by piece (pieces of at most `limit` characters, default `piece_limit(nlp)`, at most
    `budget` characters a call). Raises ReportTimeout when `deadline` (a `time.monotonic()`
    value) passes between two calls. `run(texts)`: how a call is made (default `pipe_spans`;
    the service takes its lock there, so that other requests go between two calls); items
    after (label, start, end) in what it returns are kept."""
    limit = min(limit or piece_limit(nlp), piece_limit(nlp))
    run = run or (lambda texts: pipe_spans(nlp, texts))
    if len(text) <= limit:
        return run([text])[0]
    pieces = split_pieces(text, limit)
    spans: list[tuple[str, int, int]] = []
    for group in groups([p.end - p.start for p in pieces], budget):
        if deadline is not None and time.monotonic() > deadline:
            raise ReportTimeout()
        chosen = [pieces[i] for i in group]
        for piece, found in zip(chosen, run([text[p.start : p.end] for p in chosen])):
            spans.extend(
                (label, piece.start + s, piece.start + e, *rest)
                for label, s, e, *rest in found
                if piece.keep_from <= piece.start + s < piece.keep_to
            )
    return spans
