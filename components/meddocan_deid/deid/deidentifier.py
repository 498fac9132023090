"""`Deidentifier`: the one de-identification path of the package.

Built once from a pipeline, a mode, options (a policy applied to them) and a key, it settles
then, and only then, the operator of every label, whether a key is needed (a missing or short
key fails here, not per report) and the gazetteer the surrogates draw from. Every caller (the
Python API, the batch of the CLI and of tables, Spark's partitions, the service) holds one and
calls it: pieces -> spans -> policy and known identifiers -> operators.

Records (`deidentify_records`) go `batch_size` at a time and never raise for a bad record: an
empty text, a text over the size limit, a non-str text or an exception in the pipeline or the
operator gives a failed result whose reason names the problem, never the text. Short records
share `nlp.pipe` calls; a long one goes alone, piece by piece (deid/pieces.py), against its own
deadline (`time_limit` seconds a report). The operator runs once on the whole text, so that the
surrogates and the date offset of a report (keyed by its id or patient) are the same in every piece.
"""

import logging
import multiprocessing as mp
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any

from spacy.tokens import Doc

from ..errors import RunError
from .failures import pipeline_error
from .gazetteer import Gazetteer, resolve_gazetteer
from .keys import DeidKeyError, KeyLike, as_key
from .known_phi import validate_known_phi
from .operators import DeidResult, Span, apply_operator
from .options import DeidOptions, check_mode, label_operators
from .pieces import (
    PIPE_CHARS,
    ReportTimeout,
    doc_spans,
    groups,
    piece_limit,
    pipe_spans,
    text_spans,
)
from .policy import PolicyLike, as_policy, prepare_spans
from .records import Record, RecordResult

logger = logging.getLogger("meddocan_deid.deid")
# texts longer than this fail (options.max_chars overrides it); longer ones are cut in pieces
DEFAULT_MAX_CHARS = 50_000_000
# one pipeline object serves every thread of a process: one text at a time through it (spaCy's
# memory zones, which the pieces use, are not thread-safe)
PIPELINE_LOCK = threading.Lock()
# the Deidentifier inherited by forked workers (never pickled: the key stays in memory)
_FORKED: dict[str, Any] = {}


class Deidentifier:
    """De-identify texts, Docs or records with `nlp` in `mode` ("tag", "mask", "redact" or
    "surrogate"; `options.label_modes` and the policy's operators override it per label).

    policy: a `Policy`, a dict or the path of a policy file, applied to `options`. key: bytes
    or str of 16+ bytes, needed (DeidKeyError otherwise) when some label gets the surrogate
    operator. vocab: where the pipeline's own gazetteer is read (default: `nlp.vocab`; give a
    Doc's vocab when `nlp` is None). Raises ValueError for a bad mode or operator."""

    def __init__(
        self,
        nlp=None,
        mode: str = "tag",
        *,
        key: KeyLike | None = None,
        options: DeidOptions | None = None,
        policy: PolicyLike = None,
        vocab=None,
    ):
        self.nlp = nlp
        self.mode = check_mode(mode)
        options = options or DeidOptions()
        policy = as_policy(policy)
        self.options = policy.apply(options) if policy is not None else options
        self.operators: dict[str, str] = label_operators(mode, self.options)
        self.needs_key = "surrogate" in self.operators.values()
        if self.needs_key and key is None:
            raise DeidKeyError("surrogate mode needs a key")
        self._key_given = key  # for `configured`: a run that needs no key ignores it
        self.key: bytes | None = as_key(key) if self.needs_key and key is not None else None
        self.vocab = vocab if vocab is not None else getattr(nlp, "vocab", None)
        # the pipeline's own gazetteer first: the same surrogates wherever the pipeline runs
        self.gazetteer: Gazetteer | None = (
            resolve_gazetteer(self.vocab, self.options.gazetteer) if self.needs_key else None
        )
        self.max_chars = self.options.max_chars or DEFAULT_MAX_CHARS

    def configured(self, mode: str, options: DeidOptions | None = None) -> "Deidentifier":
        """A Deidentifier of the same pipeline and key in another mode or with other options."""
        return Deidentifier(self.nlp, mode, key=self._key_given, options=options, vocab=self.vocab)

    # -- one text --------------------------------------------------------------------------
    def spans(self, text: str, deadline: float | None = None) -> list[Span]:
        """The entities the pipeline finds in `text` (in pieces when long), one text at a time."""
        with PIPELINE_LOCK:
            return text_spans(self.nlp, text, deadline)

    def phi_spans(
        self,
        text: str,
        found: Iterable[Span],
        known_phi: Mapping[str, Sequence[str]] | None = None,
    ) -> list[Span]:
        """The spans the operators get: the entities `found` after the policy (labels off,
        allow and deny lists) and the known identifiers."""
        return prepare_spans(text, found, self.options, known_phi)

    def replace(
        self,
        text: str,
        found: Iterable[Span],
        *,
        scope: str | None = None,
        patient_id: str | None = None,
        known_phi: Mapping[str, Sequence[str]] | None = None,
    ) -> tuple[list[Span], DeidResult]:
        """(the spans replaced, the result) for `text` and the entities `found` in it: the
        policy and the known identifiers, then the operators. scope: the report id that keys
        the surrogates and the date offset (None: a digest of the text); patient_id: key by
        patient instead."""
        spans = self.phi_spans(text, found, known_phi)
        if patient_id is not None:
            result = apply_operator(
                text,
                spans,
                self.mode,
                self.key,
                scope=f"patient:{patient_id}",
                options=self.options,
                patient_scope=True,
                gazetteer=self.gazetteer,
                operators=self.operators,
            )
        else:
            result = apply_operator(
                text,
                spans,
                self.mode,
                self.key,
                scope=None if scope is None else f"report:{scope}",
                options=self.options,
                gazetteer=self.gazetteer,
                operators=self.operators,
            )
        return spans, result

    def deidentify(
        self,
        text_or_doc: str | Doc,
        *,
        scope: str | None = None,
        patient_id: str | None = None,
        known_phi: Mapping[str, Sequence[str]] | None = None,
        found: Iterable[Span] | None = None,
    ) -> DeidResult:
        """De-identify a text (run through the pipeline, in pieces when long) or a processed
        Doc (its `doc.ents`); `found`: the entities of the text when already known. known_phi:
        label -> strings known for the patient, found wherever they occur."""
        if known_phi is not None:
            known_phi = validate_known_phi(known_phi)
        if isinstance(text_or_doc, Doc):
            text, found = text_or_doc.text, doc_spans(text_or_doc) if found is None else found
        elif isinstance(text_or_doc, str):
            text = text_or_doc
            if found is None:
                found = self.spans(text)
        else:
            raise TypeError("deidentify expects a spaCy Doc or a str")
        return self.replace(text, found, scope=scope, patient_id=patient_id, known_phi=known_phi)[1]

    # -- records -----------------------------------------------------------------------------
    def deidentify_records(
        self,
        records: Iterable[Record],
        *,
        batch_size: int = 32,
        time_limit: float | None = None,
        n_process: int = 1,
    ) -> Iterator[RecordResult]:
        """One `RecordResult` per record, in input order (see the module's docstring).
        Surrogates are keyed by the record's patient id when it has one, else by its id.
        `n_process` above 1 forks workers that inherit this Deidentifier (its pipeline and key)."""
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if time_limit is not None and time_limit <= 0:
            raise ValueError("time_limit must be positive")
        if n_process > 1:
            return self._forked(iter(records), batch_size, time_limit, n_process)
        return self._records(iter(records), batch_size, time_limit)

    def _forked(
        self, records: Iterator, batch_size: int, time_limit: float | None, n_process: int
    ) -> Iterator[RecordResult]:
        try:
            ctx = mp.get_context("fork")
        except ValueError:
            raise RunError("--n-process above 1 needs the 'fork' start method (Linux)") from None
        _FORKED.update(deidentifier=self, time_limit=time_limit)
        try:
            with ctx.Pool(n_process) as pool:
                for chunk_results in pool.imap(
                    _forked_chunk, _chunks(records, batch_size), chunksize=1
                ):
                    yield from chunk_results
        finally:
            _FORKED.clear()

    def _records(
        self, records: Iterator, batch_size: int, time_limit: float | None
    ) -> Iterator[RecordResult]:
        while True:
            chunk = list(islice(records, batch_size))
            if not chunk:
                return
            results: list[RecordResult | None] = [None] * len(chunk)
            good: list[tuple[int, Record]] = []
            for i, record in enumerate(chunk):
                reason = _check(record, self.max_chars)
                if reason is None:
                    good.append((i, record))
                else:
                    results[i] = _failed(getattr(record, "id", f"#{i}"), reason)
            batch = [r for _, r in good]
            for (i, record), found in zip(good, self._record_spans(batch, time_limit)):
                if isinstance(found, BaseException):
                    results[i] = _failed(record.id, _error_of(found, time_limit, self.nlp))
                else:
                    results[i] = self._record_result(record, found)
            # every record has its result: a failure or a de-identified text
            yield from (result for result in results if result is not None)

    def _record_result(self, record: Record, found) -> RecordResult:
        try:
            spans, result = self.replace(
                record.text,
                found,
                scope=str(record.id),
                patient_id=record.patient_id,
                known_phi=record.known_phi,
            )
            return RecordResult(str(record.id), result.text, spans, "ok", result.replacements)
        except Exception as err:  # noqa: BLE001 - one bad record must not stop the batch
            logger.debug("record %s failed in the operator: %s", record.id, type(err).__name__)
            return RecordResult(
                str(record.id),
                None,
                [],
                f"failed: error in the {self.mode} operator ({type(err).__name__})",
            )

    def _record_spans(self, batch: list[Record], time_limit: float | None) -> list[object]:
        """Per record, its entities or the exception that stopped it. Short records share
        `nlp.pipe` calls (a failing call is retried record by record, to isolate the bad one);
        a long record goes alone, piece by piece, against its own deadline."""
        nlp = self.nlp
        limit = piece_limit(nlp)
        found: list[object] = [None] * len(batch)
        short = [i for i, r in enumerate(batch) if len(r.text) <= limit]
        for group in groups([len(batch[i].text) for i in short], PIPE_CHARS):
            indices = [short[j] for j in group]
            try:
                for i, spans in zip(indices, pipe_spans(nlp, [batch[i].text for i in indices])):
                    found[i] = spans
            except Exception:  # noqa: BLE001 - isolate the record that broke the call
                for i in indices:
                    try:
                        found[i] = pipe_spans(nlp, [batch[i].text])[0]
                    except Exception as err:  # noqa: BLE001
                        logger.debug(
                            "record %s failed in the pipeline: %s", batch[i].id, type(err).__name__
                        )
                        found[i] = err
        for i, record in enumerate(batch):
            if len(record.text) > limit:
                deadline = None if time_limit is None else time.monotonic() + time_limit
                try:
                    found[i] = text_spans(nlp, record.text, deadline)
                except Exception as err:  # noqa: BLE001 - MemoryError and ReportTimeout included
                    logger.debug(
                        "record %s failed in the pipeline: %s", record.id, type(err).__name__
                    )
                    found[i] = err
        return found


def deidentify_records(
    nlp,
    records: Iterable[Record],
    mode: str,
    key: KeyLike | None,
    *,
    batch_size: int = 32,
    options: DeidOptions | None = None,
    time_limit: float | None = None,
) -> Iterator[RecordResult]:
    """`Deidentifier(nlp, mode, key=key, options=options).deidentify_records(records, ...)`."""
    return Deidentifier(nlp, mode, key=key, options=options).deidentify_records(
        records, batch_size=batch_size, time_limit=time_limit
    )


def _forked_chunk(chunk: list[Record]) -> list[RecordResult]:
    return list(
        _FORKED["deidentifier"]._records(iter(chunk), max(1, len(chunk)), _FORKED["time_limit"])
    )


def _chunks(records: Iterator, size: int) -> Iterator[list]:
    chunk: list = []
    for r in records:
        chunk.append(r)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _failed(record_id, reason: str) -> RecordResult:
    return RecordResult(str(record_id), None, [], f"failed: {reason}")


def _check(record, max_chars: int) -> str | None:
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


def _error_of(err: BaseException, time_limit: float | None, nlp=None) -> str:
    if isinstance(err, ReportTimeout):
        return f"took longer than the time limit ({time_limit:g} s a report)"
    # the component by name and the exception's class only: messages may quote the text
    return pipeline_error(nlp, err)
