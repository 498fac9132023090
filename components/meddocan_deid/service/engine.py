"""The service's engine: one loaded pipeline per process, used through the library's own
de-identification (`meddocan_deid.deid.deidentify`, `prepare_spans`): the service adds no
detection or replacement logic of its own.

Pipeline calls are serialised by a lock (the privacy level is a setting of the loaded
pipeline, set per request); each request's docs live in a spaCy memory zone, under the lock,
so that the strings of its text leave the vocab when it is answered (else the vocab, and the
process, grow with every new word served); at most `max_concurrent` requests are admitted at once (a
semaphore: more get 429), each waited for at most `request_timeout` seconds (504; the
work finishes in its thread and only then frees its slot)."""
import asyncio
import logging
import threading
import time
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..deid.api import deidentify, doc_spans
from ..deid.known_phi import KnownPhiError, validate_known_phi
from ..deid.options import DeidOptions, needs_key
from ..deid.policy import Policy, PolicyError, parse_policy, prepare_spans
from .settings import ServiceSettings
from ..errors import ServiceError  # noqa: F401  (re-exported)

logger = logging.getLogger("meddocan_deid.service")


def field_error(loc: Tuple, message: str) -> ServiceError:
    return ServiceError(422, "invalid_request", message, loc=("body",) + tuple(loc))


def _problem(err: Exception) -> str:
    """The library's message for a bad policy or known_phi value, without the quoted
    values it may repeat (an unknown label or operator): the field names stay."""
    import re

    return re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "<value>", str(err))


class Engine:
    def __init__(self, settings: ServiceSettings, key: Optional[bytes], nlp: Any = None):
        self.settings = settings
        self._key = key
        self.nlp = nlp
        self.state = "ready" if nlp is not None else "loading"
        self._lock = threading.RLock()
        self._slots = threading.BoundedSemaphore(settings.max_concurrent)
        # one thread: the work is serialised by the lock anyway, and each further thread that
        # ran the pipeline would keep its own malloc arena at its largest report's size
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="deid")
        if nlp is not None:
            self._check_privacy_default()

    # -- loading -------------------------------------------------------------------------
    def load(self) -> None:
        """Load the pipeline (in a thread at startup: /ready says when it is done)."""
        from ..engine.heap import pin_loaded_objects
        from ..engine.settings import load_model
        from ..errors import RunError

        start = time.time()
        try:
            self.nlp = load_model(self.settings.model, None)  # the CLI's loader: one line naming the model
            self._check_privacy_default()
            pin_loaded_objects()  # the worker keeps its pipeline: full collections skip it (engine/heap.py)
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
        from ..engine.heap import release_loaded_objects

        self._executor.shutdown(wait=False)
        release_loaded_objects()

    # -- request options -----------------------------------------------------------------
    def options(self, req) -> Tuple[DeidOptions, Optional[dict], str]:
        """(the DeidOptions, the known identifiers, the privacy level) of a request."""
        options = DeidOptions(tag_numbering=bool(getattr(req, "tag_numbering", False)))
        policy: Optional[Policy] = None
        if req.policy is not None:
            try:
                policy = parse_policy(req.policy, source="policy")
            except PolicyError as err:
                raise field_error(("policy",), _problem(err)) from None
            if policy.field_keys is not None:  # a request names no server folder: the served pipeline has its keys
                raise field_error(("policy", "field_keys"), "not accepted by the service: serve a pipeline saved "
                                                            "with the keys (meddocan-deid add-patterns)")
            options = policy.apply(options)
        try:
            known = validate_known_phi(req.known_phi) if req.known_phi is not None else None
        except KnownPhiError as err:
            raise field_error(("known_phi",), _problem(err)) from None
        privacy = req.privacy or (policy.privacy if policy is not None else None) or self.settings.privacy
        if privacy != "balanced" and "privacy" not in self.nlp.pipe_names:
            raise field_error(("privacy",), "this server's pipeline has no privacy component (only 'balanced')")
        return options, known, privacy

    def check_key(self, mode: str, options: DeidOptions) -> None:
        if needs_key(mode, options) and self._key is None:
            raise field_error(("mode",), "surrogates are not available: the server has no key "
                                         "(start it with --key-file)")

    # -- work (in a thread) --------------------------------------------------------------
    def docs(self, texts: Sequence[str], privacy: str) -> List:
        limit = getattr(self.nlp, "max_length", 1_000_000)
        for i, t in enumerate(texts):
            if len(t) > limit:
                raise field_error(("texts", i) if len(texts) > 1 else ("text",),
                                  f"text too long ({len(t)} characters, limit {limit})")
        with self._lock:
            pipe = self.nlp.get_pipe("privacy") if "privacy" in self.nlp.pipe_names else None
            saved = pipe.level if pipe is not None else "balanced"
            if pipe is not None:
                pipe.level = privacy
            try:
                return list(self.nlp.pipe(texts))
            finally:
                if pipe is not None:
                    pipe.level = saved

    @contextmanager
    def _zone(self):
        """The lock and a memory zone: what is made in it must be plain Python data at its end."""
        with self._lock:
            zone = getattr(self.nlp, "memory_zone", None)
            if zone is None:
                yield
                return
            with zone():
                yield

    def deidentify(self, texts: Sequence[str], mode: str, options: DeidOptions, known: Optional[dict],
                   privacy: str, scope: Optional[str], patient_id: Optional[str]):
        with self._zone():
            docs = self.docs(texts, privacy)
            return [deidentify(doc, mode=mode, key=self._key, scope=scope, patient_id=patient_id, options=options,
                               known_phi=known) for doc in docs]

    def analyze(self, text: str, options: DeidOptions, known: Optional[dict], privacy: str):
        with self._zone():
            doc = self.docs([text], privacy)[0]
            return prepare_spans(doc.text, doc_spans(doc), options, known)

    # -- admission -----------------------------------------------------------------------
    async def run(self, fn: Callable, *args) -> Any:
        """`fn(*args)` in a worker thread, within the concurrency and time limits."""
        if self.state != "ready":
            raise ServiceError(503, "not_ready", f"the pipeline is {self.state}")
        if not self._slots.acquire(blocking=False):
            raise ServiceError(429, "busy", f"{self.settings.max_concurrent} requests are being processed; "
                                            "retry later")

        def work():
            try:
                return fn(*args)
            finally:
                self._slots.release()

        try:
            future = asyncio.get_running_loop().run_in_executor(self._executor, work)
        except BaseException:
            self._slots.release()
            raise
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.settings.request_timeout)
        except asyncio.TimeoutError:
            future.add_done_callback(_consume)
            raise ServiceError(504, "timeout", f"the request took longer than {self.settings.request_timeout:g} s "
                                               "(the server's limit)") from None


def _consume(future) -> None:
    if not future.cancelled() and future.exception() is not None:
        logger.warning("a timed-out request failed afterwards (%s)", type(future.exception()).__name__)


def entity_counts(labels) -> Dict[str, int]:
    out: Dict[str, int] = {}
    for label in labels:
        out[label] = out.get(label, 0) + 1
    return out
