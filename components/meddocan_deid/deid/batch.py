"""The batch core shared by the CLI and the Spark integration.

`deidentify_records(nlp, records, mode, key)` yields exactly one `RecordResult` per input
`Record`, in input order, and never raises for a bad record: an empty text, a text over
the size limit, a non-str text or an exception in the pipeline or the operator gives a
failed result whose reason names the problem, never the text.

Long texts, with memory bounded by the piece, not the report: a text longer than
`piece_limit(nlp)` (20,000 characters, at most half the pipeline's `max_length`) goes through
the pipeline in pieces cut at a paragraph, else a line, else a sentence, else a space
boundary; a window with none of them is cut anywhere and the next piece overlaps it by
`PIECE_OVERLAP` characters, each piece keeping the entities that start in its half of the
overlap, so that an entity across the cut is found whole. At most `PIPE_CHARS` characters go
through one `nlp.pipe` call, in a spaCy memory zone, and only the entities' offsets are kept:
a run's peak memory does not grow with the size of a report, its time grows linearly. The
operator then runs once on the whole text, so that the surrogates and the date offset of a
report (keyed by its id or patient) are the same in every piece. `time_limit` (seconds per
report) is checked between pieces: a report over it fails by name, and the run goes on.
"""
import logging
import time
from dataclasses import dataclass, field
from itertools import islice
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from .api import doc_spans
from .gazetteer import resolve_gazetteer
from .keys import as_key
from .operators import Replacement, apply_operator
from .options import DeidOptions, check_mode, needs_key
from .policy import prepare_spans

logger = logging.getLogger("meddocan_deid.deid")
PIECE_CHARS = 20_000  # the largest piece the pipeline sees (about 1 s of CPU and 60 MB)
PIECE_OVERLAP = 400  # a cut with no boundary: the next piece starts this far back (entities are far shorter)
PIPE_CHARS = 100_000  # characters of one nlp.pipe call
# paragraph, line, sentence, clause, space: the first one found in a window's second half is the cut
BOUNDARIES = ("\n\n", "\n", ". ", "? ", "! ", "; ", " ")
# texts longer than this fail (options.max_chars overrides it); longer ones are cut in pieces
DEFAULT_MAX_CHARS = 50_000_000


class ReportTimeout(Exception):
    """A report took longer than the run's time limit (checked between pieces)."""


@dataclass
class Record:
    id: str
    text: str
    patient_id: Optional[str] = None
    known_phi: Optional[Dict[str, List[str]]] = None  # label -> values known for this report's patient


@dataclass
class RecordResult:
    id: str
    text: Optional[str]  # de-identified text, None when failed
    phi: List[Tuple[str, int, int]]  # (label, start, end) in the original
    status: str  # "ok" or "failed: <reason without document text>"
    replacements: List[Replacement] = field(default_factory=list)  # also the spans in `text`

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _failed(record_id, reason: str) -> RecordResult:
    return RecordResult(str(record_id), None, [], f"failed: {reason}")


def _check(record, max_chars: int) -> Optional[str]:
    """The reason a record cannot be processed, or None."""
    if not isinstance(record, Record):
        return "not a Record"
    if not isinstance(record.text, str):
        return "text is not a string"
    if not record.text.strip():
        return "empty text"
    if len(record.text) > max_chars:
        return f"text too long ({len(record.text)} characters, limit {max_chars})"
    return None


def _error_reason(err: BaseException) -> str:
    # the exception's class only: messages of third-party code may quote the text
    return f"error in the pipeline ({type(err).__name__})"


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


def split_pieces(text: str, limit: int, overlap: Optional[int] = None) -> List[Piece]:
    """The pieces of `text`, each at most `limit` characters: cut after the last boundary of
    `BOUNDARIES` in the window's second half; a window without one is cut at `limit` and the
    next piece starts `overlap` characters earlier (default: `PIECE_OVERLAP`, at most a
    quarter of `limit`). Consecutive pieces split their overlap in the middle."""
    overlap = min(PIECE_OVERLAP if overlap is None else overlap, limit // 4)
    windows: List[Tuple[int, int]] = []
    start = 0
    while len(text) - start > limit:
        window = text[start:start + limit]
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


def _groups(sizes: List[int], budget: int) -> Iterator[List[int]]:
    """Indices of `sizes` in order, grouped so that a group's total is at most `budget` (or one item)."""
    group: List[int] = []
    total = 0
    for i, size in enumerate(sizes):
        if group and total + size > budget:
            yield group
            group, total = [], 0
        group.append(i)
        total += size
    if group:
        yield group


def pipe_spans(nlp, texts: List[str], convert: Callable = doc_spans) -> List[List[Tuple[str, int, int]]]:
    """The entities of each text, in one `nlp.pipe` call inside a memory zone: the docs and
    the strings they added are gone when it returns. An exception in the pipeline is raised
    after the zone has closed (spaCy's zone leaves the vocab broken when one crosses it).
    convert: a Doc -> its (label, start, end, ...) tuples of plain values."""
    zone = getattr(nlp, "memory_zone", None)
    if zone is None:
        return [convert(doc) for doc in nlp.pipe(texts)]
    error: Optional[BaseException] = None
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


def text_spans(nlp, text: str, deadline: Optional[float] = None, *, limit: Optional[int] = None,
               budget: int = PIPE_CHARS, run: Optional[Callable[[List[str]], list]] = None) -> List[Tuple[str, int, int]]:
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
    spans: List[Tuple[str, int, int]] = []
    for group in _groups([p.end - p.start for p in pieces], budget):
        if deadline is not None and time.monotonic() > deadline:
            raise ReportTimeout()
        chosen = [pieces[i] for i in group]
        for piece, found in zip(chosen, run([text[p.start:p.end] for p in chosen])):
            spans.extend((label, piece.start + s, piece.start + e, *rest) for label, s, e, *rest in found
                         if piece.keep_from <= piece.start + s < piece.keep_to)
    return spans


def _deid_one(record: Record, text: str, found, vocab, mode: str, key, options: DeidOptions) -> RecordResult:
    try:
        spans = prepare_spans(text, found, options, record.known_phi)
        gaz = resolve_gazetteer(vocab, options.gazetteer) if needs_key(mode, options) else None
        if record.patient_id is not None:
            result = apply_operator(text, spans, mode, key, scope=f"patient:{record.patient_id}",
                                    options=options, patient_scope=True, gazetteer=gaz)
        else:
            result = apply_operator(text, spans, mode, key, scope=f"report:{record.id}", options=options,
                                    gazetteer=gaz)
        return RecordResult(str(record.id), result.text, spans, "ok", result.replacements)
    except Exception as err:  # noqa: BLE001 - one bad record must not stop the batch
        logger.debug("record %s failed in the operator: %s", record.id, type(err).__name__)
        return RecordResult(str(record.id), None, [], f"failed: error in the {mode} operator ({type(err).__name__})")


def _error_of(err: BaseException, time_limit: Optional[float]) -> str:
    if isinstance(err, ReportTimeout):
        return f"took longer than the time limit ({time_limit:g} s a report)"
    return _error_reason(err)


def _record_spans(nlp, batch: List[Record], time_limit: Optional[float]) -> List[object]:
    """Per record, its entities or the exception that stopped it. Short records share
    `nlp.pipe` calls (a failing call is retried record by record, to isolate the bad one);
    a long record goes alone, piece by piece, against its own deadline."""
    limit = piece_limit(nlp)
    found: List[object] = [None] * len(batch)
    short = [i for i, r in enumerate(batch) if len(r.text) <= limit]
    for group in _groups([len(batch[i].text) for i in short], PIPE_CHARS):
        indices = [short[j] for j in group]
        try:
            for i, spans in zip(indices, pipe_spans(nlp, [batch[i].text for i in indices])):
                found[i] = spans
        except Exception:  # noqa: BLE001 - isolate the record that broke the call
            for i in indices:
                try:
                    found[i] = pipe_spans(nlp, [batch[i].text])[0]
                except Exception as err:  # noqa: BLE001
                    logger.debug("record %s failed in the pipeline: %s", batch[i].id, type(err).__name__)
                    found[i] = err
    for i, record in enumerate(batch):
        if len(record.text) > limit:
            deadline = None if time_limit is None else time.monotonic() + time_limit
            try:
                found[i] = text_spans(nlp, record.text, deadline)
            except Exception as err:  # noqa: BLE001 - MemoryError and ReportTimeout included
                logger.debug("record %s failed in the pipeline: %s", record.id, type(err).__name__)
                found[i] = err
    return found


def _process_batch(nlp, batch: List[Record], mode: str, key, options: DeidOptions,
                   time_limit: Optional[float] = None) -> List[RecordResult]:
    results = []
    for record, found in zip(batch, _record_spans(nlp, batch, time_limit)):
        if isinstance(found, BaseException):
            results.append(_failed(record.id, _error_of(found, time_limit)))
        else:
            results.append(_deid_one(record, record.text, found, nlp.vocab, mode, key, options))
    return results


def deidentify_records(nlp, records: Iterable[Record], mode: str, key: Optional[bytes], *,
                       batch_size: int = 32, options: Optional[DeidOptions] = None,
                       time_limit: Optional[float] = None) -> Iterator[RecordResult]:
    """De-identify records with `nlp` (a loaded pipeline), up to `batch_size` records at a
    time (long texts in pieces, see above). Surrogates are keyed by the record's patient id
    when it has one, else by its id. `time_limit`: seconds a long report may take (None: no
    limit). Raises ValueError at once for a bad mode or a missing key (not per record)."""
    check_mode(mode)
    options = options or DeidOptions()
    if needs_key(mode, options):
        if key is None:
            raise ValueError("surrogate mode needs a key")
        key = as_key(key)
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    if time_limit is not None and time_limit <= 0:
        raise ValueError("time_limit must be positive")
    max_chars = options.max_chars or DEFAULT_MAX_CHARS
    return _run(nlp, iter(records), mode, key, batch_size, options, max_chars, time_limit)


def _run(nlp, records, mode, key, batch_size, options, max_chars, time_limit) -> Iterator[RecordResult]:
    while True:
        chunk = list(islice(records, batch_size))
        if not chunk:
            return
        results: List[Optional[RecordResult]] = [None] * len(chunk)
        good: List[Tuple[int, Record]] = []
        for i, record in enumerate(chunk):
            reason = _check(record, max_chars)
            if reason is None:
                good.append((i, record))
            else:
                results[i] = _failed(getattr(record, "id", f"#{i}"), reason)
        if good:
            batch = [r for _, r in good]
            for (i, _record), result in zip(good, _process_batch(nlp, batch, mode, key, options, time_limit)):
                results[i] = result
        yield from results
