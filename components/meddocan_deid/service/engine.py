"""The service's engine: one loaded pipeline per process and one `Deidentifier` of it (the
library's one de-identification path; a request's mode and policy give it configured in
their way): the service adds no detection or replacement logic of its own.

Pipeline calls are serialised by a turn (the privacy level is a setting of the loaded
pipeline, set per call); each call's docs live in a spaCy memory zone, so that the strings of
its text leave the vocab when it returns (else the vocab, and the process, grow with every new
word served). At most `max_concurrent` requests are admitted at once (a semaphore); up to
`max_queue` more wait for a slot, first come first served, each at most `queue_wait` seconds;
a request the queue cannot take, or that waited its time, gets 429 with a Retry-After (the
seconds the requests ahead of it should take, from the recent time per request). An
admitted request is waited for at most `request_timeout` seconds (504).

Two lanes, so that one long request cannot hold the others up: a request of up to
`SHORT_CHARS` characters runs in the ordinary lane, in one call; a longer one runs in the long
lane piece by piece (`LONG_PIECE_CHARS` a call), runs a piece only while no ordinary request is
in flight, and stops at its deadline (the request's admission plus `request_timeout`),
so that its slot is free again when its 504 is sent. `in_flight`, `queued`, `waiting` and
`long_running` are what /ready and /metrics show."""

import asyncio
import collections
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from .. import __version__
from ..deid.deidentifier import Deidentifier
from ..deid.fingerprint import model_identity
from ..deid.keys import DeidKeyError
from ..deid.known_phi import KnownPhiError, validate_known_phi
from ..deid.operators import DeidResult
from ..deid.options import DeidOptions
from ..deid.pieces import ReportTimeout, doc_spans, pipe_spans, text_spans
from ..deid.policy import Policy, PolicyError, parse_policy, prepare_spans
from ..deid.tables import TableSettings, TableSpec, check_columns, deidentify_loaded
from ..engine.report import RunReport
from ..entity_scores import ScoredFound, scored_sources
from ..errors import InputError, RunError, ServiceError
from ..formats import registry
from ..formats.base import DocumentError
from ..formats.memory import RowsTable
from ..formats.scan import OcrUnavailable, Scan
from ..formats.scan_bytes import ScanKind, read_scan_bytes, redacted_copy
from ..pipeline.loading import load_model, pin_loaded_objects, release_loaded_objects
from .problems import problem
from .settings import ServiceSettings

logger = logging.getLogger("meddocan_deid.service")
SHORT_CHARS = 20_000  # a request up to this many characters runs in the ordinary lane, in one call
LONG_PIECE_CHARS = (
    2_000  # a long request's piece: about 0.1 s of pipeline, the longest an ordinary request waits
)
QUEUE_POLL_SECONDS = 0.005  # how often a queued request looks for a free slot
MEAN_WEIGHT = 0.2  # weight of the latest request in the running mean of the time per request


def field_error(loc: tuple, message: str) -> ServiceError:
    return ServiceError(422, "invalid_request", message, loc=("body",) + tuple(loc))


def _problem(err: Exception) -> str:
    """The library's message for a bad policy or known_phi value: the quoted values it
    repeats only when they cannot be PHI (a wrong label name, with the closest label), else
    `<value>` (problems.problem)."""
    return problem(str(err))


@dataclass(frozen=True)
class RequestFields:
    """The fields of a request that `Engine.options` settles: a JSON body's, or a form's (the
    scan route) as parsed."""

    policy: dict | None
    known_phi: dict | None
    privacy: str | None
    options: Any = None  # the schema's options object (DeidOptions' fields), or None
    tag_numbering: bool = False


@dataclass(frozen=True)
class DeidRequest:
    """What a request settled for its de-identification: the mode, the options, the known
    identifiers and the privacy level (`Engine.options`), and the scope and patient its
    surrogates are consistent within."""

    mode: str
    options: DeidOptions
    known: dict | None
    privacy: str
    scope: str | None = None
    patient_id: str | None = None


class Engine:
    def __init__(self, settings: ServiceSettings, key: bytes | None, nlp: Any = None):
        self.settings = settings
        self._key = key
        self.nlp = nlp
        self.deidentifier: Deidentifier | None = (
            Deidentifier(nlp, key=key) if nlp is not None else None
        )
        self.state = "ready" if nlp is not None else "loading"
        self._turn = threading.Condition(threading.Lock())
        self._busy = False  # a pipeline call holds the turn
        self._ordinary_waiting = 0
        self._ordinary_active = (
            0  # ordinary requests admitted and not finished: a long piece waits for none
        )
        self._slots = threading.BoundedSemaphore(settings.max_concurrent)
        # one thread a lane: the calls are serialised by the turn anyway, and each further thread
        # that ran the pipeline would keep its own malloc arena at its largest report's size
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deid")
        self._long_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deid-long")
        self._count_lock = threading.Lock()
        self.in_flight = 0  # admitted and not answered by the work yet
        self.running = 0  # started in a lane
        self.long_running = 0
        self._queue: collections.deque = (
            collections.deque()
        )  # tickets of the requests waiting for a slot
        self._mean_seconds: float | None = (
            None  # running mean of the time an admitted request takes
        )
        if nlp is not None:
            self._check_privacy_default()

    # -- loading -------------------------------------------------------------------------
    def load(self) -> None:
        """Load the pipeline (in a thread at startup: /ready says when it is done)."""
        start = time.time()
        try:
            self.nlp = load_model(
                self.settings.model, None
            )  # the CLI's loader: one line naming the model
            self._check_privacy_default()
            self.deidentifier = Deidentifier(self.nlp, key=self._key)
            # the worker keeps its pipeline: full collections skip it (pipeline/loading.py)
            pin_loaded_objects()
        except (RunError, ValueError) as err:  # names the model, never a report
            logger.error("%s", err)
            self.state = "failed"
            return
        self.state = "ready"
        logger.info("pipeline %r loaded in %.1f s", self.settings.model, time.time() - start)

    def _check_privacy_default(self) -> None:
        if self.settings.privacy == "high" and "privacy" not in self.nlp.pipe_names:
            raise ValueError("privacy level 'high' needs a pipeline with the 'privacy' component")

    def close(self) -> None:
        self._executor.shutdown(wait=False)
        self._long_executor.shutdown(wait=False)
        release_loaded_objects()

    # -- request options -----------------------------------------------------------------
    def options(self, req) -> tuple[DeidOptions, dict | None, str]:
        """(the DeidOptions, the known identifiers, the privacy level) of a request."""
        options = DeidOptions(tag_numbering=bool(getattr(req, "tag_numbering", False)))
        policy: Policy | None = None
        if req.policy is not None:
            try:
                policy = parse_policy(req.policy, source="policy")
            except PolicyError as err:
                raise field_error(("policy",), _problem(err)) from None
            if (
                policy.field_keys is not None
            ):  # a request names no server folder: the served pipeline has its keys
                raise field_error(
                    ("policy", "field_keys"),
                    "not accepted by the service: serve a pipeline saved "
                    "with the keys (meddocan-deid add-patterns)",
                )
            options = policy.apply(options)
        if (
            getattr(req, "options", None) is not None
        ):  # validated by the schema (DeidOptions' fields)
            options = replace(
                options,
                **{name: getattr(req.options, name) for name in req.options.model_fields_set},
            )
        try:
            known = validate_known_phi(req.known_phi) if req.known_phi is not None else None
        except KnownPhiError as err:
            raise field_error(("known_phi",), _problem(err)) from None
        privacy = (
            req.privacy or (policy.privacy if policy is not None else None) or self.settings.privacy
        )
        if privacy != "balanced" and "privacy" not in self.nlp.pipe_names:
            raise field_error(
                ("privacy",), "this server's pipeline has no privacy component (only 'balanced')"
            )
        return options, known, privacy

    def configured(self, mode: str, options: DeidOptions) -> Deidentifier:
        """The engine's Deidentifier in a request's mode with its options (422 when it needs the
        key the server does not have; 503 until the pipeline is loaded)."""
        if self.deidentifier is None:
            raise ServiceError(503, "not_ready", f"the pipeline is {self.state}")
        try:
            return self.deidentifier.configured(mode, options)
        except DeidKeyError:
            raise field_error(
                ("mode",),
                "surrogates are not available: the server has no key (start it with --key-file)",
            ) from None

    def check_key(self, mode: str, options: DeidOptions) -> None:
        self.configured(mode, options)

    # -- work (in a thread) --------------------------------------------------------------
    @property
    def queued(self) -> int:
        return max(0, self.in_flight - self.running)

    @property
    def waiting(self) -> int:
        """Requests in the admission queue (not admitted yet)."""
        return len(self._queue)

    def retry_after(self) -> int:
        """Seconds a refused client should wait: the pipeline serves one request at a time, so
        the requests in flight and queued at the recent time per request; 1 to request_timeout."""
        per_request = self._mean_seconds if self._mean_seconds is not None else 1.0
        ahead = self.in_flight + len(self._queue)
        return max(1, min(math.ceil(self.settings.request_timeout), math.ceil(ahead * per_request)))

    def _busy_error(self, why: str) -> ServiceError:
        return ServiceError(
            429,
            "busy",
            f"{self.settings.max_concurrent} requests are being processed and {why}; "
            "retry after the seconds of the Retry-After header",
            headers={"Retry-After": str(self.retry_after())},
        )

    async def _admit(self) -> None:
        """A slot, at once when one is free and no request waits, else after the requests ahead
        of this one in the queue (429 when the queue is full or after `queue_wait` seconds)."""
        if not self._queue and self._slots.acquire(blocking=False):
            return
        if len(self._queue) >= self.settings.max_queue:
            raise self._busy_error(
                f"{self.settings.max_queue} are waiting"
                if self.settings.max_queue
                else "this server queues none"
            )
        ticket = object()
        self._queue.append(ticket)
        give_up = time.monotonic() + self.settings.queue_wait
        try:
            while True:
                if self._queue[0] is ticket and self._slots.acquire(blocking=False):
                    return
                if time.monotonic() >= give_up:
                    raise self._busy_error(
                        f"this request waited {self.settings.queue_wait:g} s for a slot"
                    )
                await asyncio.sleep(QUEUE_POLL_SECONDS)
        finally:
            self._queue.remove(ticket)

    def _took(self, seconds: float) -> None:
        mean = self._mean_seconds
        self._mean_seconds = (
            seconds if mean is None else (1 - MEAN_WEIGHT) * mean + MEAN_WEIGHT * seconds
        )

    def _take_turn(self, ordinary: bool, deadline: float | None = None) -> None:
        """Wait for the pipeline; a long request's piece waits until no ordinary request is in
        flight at all (ReportTimeout at its deadline), so that ordinary requests never queue
        behind it."""
        with self._turn:
            if ordinary:
                self._ordinary_waiting += 1
            try:
                while self._busy or (not ordinary and self._ordinary_active):
                    if deadline is not None and time.monotonic() > deadline:
                        raise ReportTimeout()
                    self._turn.wait(
                        None if deadline is None else max(0.01, deadline - time.monotonic())
                    )
                if not ordinary and deadline is not None and time.monotonic() > deadline:
                    # woken after its deadline: a long piece never starts late
                    raise ReportTimeout()
            finally:
                if ordinary:
                    self._ordinary_waiting -= 1
            self._busy = True

    def _give_turn(self) -> None:
        with self._turn:
            self._busy = False
            self._turn.notify_all()

    @contextmanager
    def _pipeline(self, privacy: str, ordinary: bool = True, deadline: float | None = None):
        """The pipeline at `privacy`, held for this thread during the block (in its turn)."""
        self._take_turn(ordinary, deadline)
        try:
            pipe = self.nlp.get_pipe("privacy") if "privacy" in self.nlp.pipe_names else None
            saved = pipe.level if pipe is not None else "balanced"
            if pipe is not None:
                pipe.level = privacy
            try:
                yield self.nlp
            finally:
                if pipe is not None:
                    pipe.level = saved
        finally:
            self._give_turn()

    def spans(
        self,
        texts: Sequence[str],
        privacy: str,
        ordinary: bool = True,
        deadline: float | None = None,
        convert: Callable = doc_spans,
    ) -> list[list]:
        """The entities of `texts` (`convert(doc)` of each), in one pipeline call at `privacy`,
        in its turn."""
        with self._pipeline(privacy, ordinary, deadline) as nlp:
            return pipe_spans(nlp, list(texts), convert)

    def table(
        self,
        rows: list[dict[str, Any]],
        spec: TableSpec,
        mode: str,
        options: DeidOptions,
        privacy: str,
        deadline: float | None = None,
    ) -> tuple[list[dict[str, Any]], RunReport]:
        """The rows of a table request (a table source in memory, formats/memory.py)
        de-identified as the Run does a table file (PHI columns replaced and known identifiers
        of the row's texts and of the patient's rows, a status column), and the run report of a
        table (rows read, ok and failed, each failed row by name, the spans per label). The
        pipeline is held for the whole table, which the body limit keeps within the timeout."""
        table = RowsTable(rows)
        try:
            check_columns(table, spec)
        except InputError as err:
            raise field_error(("columns",), str(err).replace("rows: ", "", 1)) from None
        deidentifier = self.configured(mode, options)
        start = time.time()
        with self._pipeline(privacy, True, deadline):
            updates, status, per_label = deidentify_loaded(
                table, columns=spec, deidentifier=deidentifier, settings=TableSettings()
            )
        report = self.report(mode, table.name)
        report.add_table(table, spec, status, per_label, table.name)
        report.seconds = time.time() - start
        return table.result(updates, status, spec.status_column), report

    def interchange(
        self,
        name: str,
        text: str,
        mode: str,
        options: DeidOptions,
        privacy: str,
        deadline: float | None = None,
    ) -> tuple[str, RunReport]:
        """A FHIR or HL7 v2 text (`name`: fhir, hl7v2) de-identified by the format's rewriter, as
        the Run does a file of it (the rules: the request policy's, else the shipped ones), and
        its run report (one input, the values replaced per label). 422 naming the field for
        input the format cannot read or without the server's key. The pipeline is held for the
        whole text."""
        interchange = registry.get(name).interchange
        if interchange is None:
            raise ValueError(f"{name} is not an interchange format")
        deidentifier = self.configured(mode, options)
        field = "resource" if name == "fhir" else "message"
        rules = getattr(options.policy, interchange.policy_key, None) if options.policy else None
        try:
            rewriter = interchange.rewriter(
                deidentifier, key=self._key, rules=list(rules) if rules is not None else None
            )
        except DeidKeyError:
            raise field_error(
                ("mode",), f"{name} needs the server's key (start it with --key-file)"
            ) from None
        start = time.time()
        with self._pipeline(privacy, True, deadline):
            try:
                rewriter.collect_text(text, field)
                out, per_label = rewriter.rewrite(text, field)
            except InputError as err:
                raise field_error((field,), str(err).removeprefix(f"{field}: ")) from None
            except (TypeError, AttributeError, KeyError, IndexError, ValueError) as err:
                raise field_error(
                    (field,), f"cannot be de-identified as {name} ({type(err).__name__})"
                ) from None
        report = self.report(mode, name)
        report.counts = dict(read=1, written=1, skipped=0, failed=0, empty=0, not_read=0)
        report.phi_per_label = per_label
        report.seconds = time.time() - start
        return out, report

    def scan(
        self, data: bytes, kind: ScanKind, request: DeidRequest, deadline: float | None = None
    ) -> tuple[Scan, DeidResult, bytes]:
        """A scanned document (a PDF or an image, of `kind`) read by the run's readers (OCR,
        or a PDF's text layer; formats/scan_bytes.py) outside the pipeline's turn, its text
        de-identified as /deidentify does a text, and its redacted copy (pages as images only,
        a box over every PHI word): (its Scan, the DeidResult, the redacted file's bytes).
        501 when OCR cannot run here; 422 naming the file for one its format cannot read."""
        deidentifier = self.configured(request.mode, request.options)  # before the OCR
        try:
            kind, read = read_scan_bytes(data, kind)
        except OcrUnavailable as err:
            raise ServiceError(501, "ocr_unavailable", str(err)) from None
        except DocumentError as err:
            raise field_error(("file",), str(err)) from None
        result = self.replaced(deidentifier, [read.text], request, deadline)[0]
        try:
            redacted = redacted_copy(data, kind, read, result.replacements)
        except DocumentError as err:
            raise field_error(("file",), str(err)) from None
        return read, result, redacted

    def texts_report(self, mode: str, results: Sequence[DeidResult]) -> RunReport:
        """The run report of a request's texts, each de-identified (a failure is the
        request's error, never a text's): read, written, the PHI per label."""
        report = self.report(mode, "texts")
        n = len(results)
        report.counts = dict(read=n, written=n, skipped=0, failed=0, empty=0, not_read=0)
        report.phi_per_label = entity_counts(r.label for res in results for r in res.replacements)
        return report

    def report(self, mode: str, name: str) -> RunReport:
        """A request's run report, before its counts: the mode, the pipeline served, the
        library's version (a request has no output folder and no fingerprint)."""
        return RunReport(
            mode=mode,
            input=name,
            output="",
            model=model_identity(self.nlp, self.settings.model),
            library_version=__version__,
            fingerprint={},
            options={},
        )

    def found(
        self,
        texts: Sequence[str],
        privacy: str,
        deadline: float | None,
        convert: Callable = doc_spans,
    ) -> list[list]:
        """The entities of each text: in one call for an ordinary request, else piece by piece."""
        limit = getattr(self.nlp, "max_length", 1_000_000)
        for i, t in enumerate(texts):
            if len(t) > limit:
                raise field_error(
                    ("texts", i) if len(texts) > 1 else ("text",),
                    f"text too long ({len(t)} characters, limit {limit})",
                )
        if sum(len(t) for t in texts) <= SHORT_CHARS:
            return self.spans(texts, privacy, convert=convert)
        return [
            text_spans(
                self.nlp,
                t,
                deadline,
                limit=LONG_PIECE_CHARS,
                budget=LONG_PIECE_CHARS,
                run=lambda pieces: self.spans(
                    pieces, privacy, ordinary=False, deadline=deadline, convert=convert
                ),
            )
            for t in texts
        ]

    def deidentify(
        self, texts: Sequence[str], request: DeidRequest, deadline: float | None = None
    ) -> list[DeidResult]:
        """Each text de-identified in the request's way."""
        deidentifier = self.configured(request.mode, request.options)
        return self.replaced(deidentifier, texts, request, deadline)

    def replaced(
        self,
        deidentifier: Deidentifier,
        texts: Sequence[str],
        request: DeidRequest,
        deadline: float | None,
    ) -> list[DeidResult]:
        """The entities of each text found at the request's privacy level and replaced by
        `deidentifier` (the request's, configured)."""
        found = self.found(texts, request.privacy, deadline)
        return [
            deidentifier.replace(
                text,
                spans,
                scope=request.scope,
                patient_id=request.patient_id,
                known_phi=request.known,
            )[1]
            for text, spans in zip(texts, found)
        ]

    def analyze(
        self,
        text: str,
        options: DeidOptions,
        known: dict | None,
        privacy: str,
        deadline: float | None = None,
    ) -> list[ScoredFound]:
        """The entities of `text` after the policy and the known identifiers, as (label, start,
        end, source, confidence) (`entity_scores.scored_sources`; "known": a known identifier or
        a deny list match of the request; a detected entity they trimmed keeps its source;
        confidence: an NER entity's calibrated confidence, else None)."""
        found = self.found([text], privacy, deadline, convert=scored_sources)[0]
        exact = {f[:3]: f[3:] for f in found}

        def source(label, start, end):
            if (label, start, end) in exact:
                return exact[(label, start, end)]
            # a forced span inside a detected one of its label is dropped: what lies inside is a
            # piece
            return next(
                (
                    (src, None)
                    for lab, s, e, src, _ in found
                    if lab == label and s <= start and end <= e
                ),
                ("known", None),
            )

        return [
            (label, start, end, *source(label, start, end))
            for label, start, end in prepare_spans(text, [f[:3] for f in found], options, known)
        ]

    @staticmethod
    def is_long(texts: Sequence[str]) -> bool:
        return sum(len(t) for t in texts) > SHORT_CHARS

    # -- admission -----------------------------------------------------------------------
    async def run(self, fn: Callable, *args, long: bool = False) -> Any:
        """`fn(*args, deadline=...)` in a lane's thread, within the concurrency and time limits;
        `long`: the long lane."""
        if self.state != "ready":
            raise ServiceError(503, "not_ready", f"the pipeline is {self.state}")
        await self._admit()
        deadline = time.monotonic() + self.settings.request_timeout
        with self._count_lock:
            self.in_flight += 1
        if not long:
            with self._turn:
                self._ordinary_active += 1

        def work():
            with self._count_lock:
                self.running += 1
                self.long_running += long
            started = time.monotonic()
            try:
                return fn(*args, deadline=deadline)
            finally:
                with self._count_lock:
                    self._took(time.monotonic() - started)
                    self.running -= 1
                    self.long_running -= long
                    self.in_flight -= 1
                if not long:
                    with self._turn:
                        self._ordinary_active -= 1
                        self._turn.notify_all()
                self._slots.release()

        try:
            executor = self._long_executor if long else self._executor
            future = asyncio.get_running_loop().run_in_executor(executor, work)
        except BaseException:
            with self._count_lock:
                self.in_flight -= 1
            if not long:
                with self._turn:
                    self._ordinary_active -= 1
                    self._turn.notify_all()
            self._slots.release()
            raise
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.settings.request_timeout)
        except (TimeoutError, ReportTimeout):  # the work may reach its deadline first
            future.add_done_callback(_consume)
            raise ServiceError(
                504,
                "timeout",
                f"the request took longer than {self.settings.request_timeout:g} s "
                "(the server's limit)",
            ) from None


def _consume(future) -> None:
    if (
        not future.cancelled()
        and future.exception() is not None
        and not isinstance(future.exception(), ReportTimeout)
    ):
        logger.warning(
            "a timed-out request failed afterwards (%s)", type(future.exception()).__name__
        )


def entity_counts(labels) -> dict[str, int]:
    out: dict[str, int] = {}
    for label in labels:
        out[label] = out.get(label, 0) + 1
    return out
