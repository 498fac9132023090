"""The batch core shared by the CLI and the Spark integration.

`deidentify_records(nlp, records, mode, key)` yields exactly one `RecordResult` per input
`Record`, in input order, and never raises for a bad record: an empty text, a text over
the size limit, a non-str text or an exception in the pipeline or the operator gives a
failed result whose reason names the problem, never the text.

Long texts: a text longer than `piece_limit(nlp)` (100,000 characters, at most half the
pipeline's `max_length`) goes through the pipeline in pieces cut at paragraph, else line,
else space boundaries; the entities of each piece are moved to the text's offsets, and the
operator then runs once on the whole text, so that the surrogates and the date offset of
a report (keyed by its id or patient) are the same in every piece. The result is that of
processing the pieces one by one.
"""
import logging
from dataclasses import dataclass, field
from itertools import islice
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from .api import doc_spans
from .gazetteer import resolve_gazetteer
from .keys import as_key
from .operators import Replacement, apply_operator
from .options import DeidOptions, check_mode, needs_key
from .policy import prepare_spans

logger = logging.getLogger("meddocan_deid.deid")
PIECE_CHARS = 100_000
# texts longer than this fail (options.max_chars overrides it); longer ones are cut in pieces
DEFAULT_MAX_CHARS = 50_000_000


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


def split_pieces(text: str, limit: int) -> List[int]:
    """Start offsets of the pieces of `text`, each at most `limit` characters: cut after the
    last blank line of the window, else after its last line break, else after its last
    space, else at `limit` (the pieces put together are `text`)."""
    starts = [0]
    start = 0
    while len(text) - start > limit:
        window = text[start:start + limit]
        half = limit // 2
        cut = -1
        for sep in ("\n\n", "\n", " "):
            i = window.rfind(sep, half)
            if i != -1:
                cut = i + len(sep)
                break
        start += cut if cut > 0 else limit
        starts.append(start)
    return starts


def text_pieces(text: str, limit: int) -> List[Tuple[int, str]]:
    """(offset, piece) for each piece of `text` (see `split_pieces`)."""
    starts = split_pieces(text, limit)
    return [(s, text[s:e]) for s, e in zip(starts, starts[1:] + [len(text)])]


def merge_piece_spans(pieces: List[Tuple[int, str]], docs) -> Tuple[List[Tuple[str, int, int]], object]:
    """The entities of the pieces' docs in the whole text's offsets, and the vocab."""
    spans = [(label, off + s, off + e) for (off, _t), doc in zip(pieces, docs) for label, s, e in doc_spans(doc)]
    return spans, docs[0].vocab


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


def _process_batch(nlp, batch: List[Record], mode: str, key, options: DeidOptions) -> List[RecordResult]:
    limit = piece_limit(nlp)
    pieces = [text_pieces(r.text, limit) if len(r.text) > limit else [(0, r.text)] for r in batch]
    try:
        flat = iter(list(nlp.pipe([t for p in pieces for _o, t in p])))
        docs = [[next(flat) for _ in p] for p in pieces]
    except Exception:  # noqa: BLE001 - isolate the record that broke the batch
        docs = []
        for r, p in zip(batch, pieces):
            try:
                docs.append([nlp(t) for _o, t in p])
            except Exception as err:  # noqa: BLE001
                logger.debug("record %s failed in the pipeline: %s", r.id, type(err).__name__)
                docs.append(err)
    results = []
    for record, p, doc in zip(batch, pieces, docs):
        if isinstance(doc, BaseException):
            results.append(_failed(record.id, _error_reason(doc)))
        else:
            found, vocab = merge_piece_spans(p, doc)
            results.append(_deid_one(record, record.text, found, vocab, mode, key, options))
    return results


def deidentify_records(nlp, records: Iterable[Record], mode: str, key: Optional[bytes], *,
                       batch_size: int = 32, options: Optional[DeidOptions] = None) -> Iterator[RecordResult]:
    """De-identify records with `nlp` (a loaded pipeline), `batch_size` texts per
    `nlp.pipe` call (long texts in pieces, see above). Surrogates are keyed by the record's patient id when it has one, else
    by its id. Raises ValueError at once for a bad mode or a missing key (not per record)."""
    check_mode(mode)
    options = options or DeidOptions()
    if needs_key(mode, options):
        if key is None:
            raise ValueError("surrogate mode needs a key")
        key = as_key(key)
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    max_chars = options.max_chars or DEFAULT_MAX_CHARS
    return _run(nlp, iter(records), mode, key, batch_size, options, max_chars)


def _run(nlp, records, mode, key, batch_size, options, max_chars) -> Iterator[RecordResult]:
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
            for (i, _record), result in zip(good, _process_batch(nlp, [r for _, r in good], mode, key, options)):
                results[i] = result
        yield from results
