"""`deidentify`: the Python API on a text or a processed Doc."""
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Union

from spacy.language import Language

from spacy.tokens import Doc

from .. import DEFAULT_MODEL
from .gazetteer import resolve_gazetteer
from .keys import KeyLike
from .operators import DeidResult, apply_operator
from .options import DeidOptions, needs_key
from .policy import Policy, as_policy, prepare_spans
from ..pipeline.privacy import load_with_privacy

PolicyLike = Union[None, str, Path, Mapping[str, Any], Policy]


# one pipeline object serves every thread of a process: one text at a time through it (spaCy's
# memory zones, which the pieces use, are not thread-safe)
_PIPELINE_LOCK = threading.Lock()


@lru_cache(maxsize=8)
def load_pipeline(model: str = DEFAULT_MODEL, privacy: Optional[str] = None) -> Language:
    """The pipeline `model` (a package name or a path) at the privacy level `privacy`
    (None: as saved), loaded once per process: later calls return the same object."""
    return load_with_privacy(model, privacy)


def doc_spans(doc: Doc):
    return [(ent.label_, ent.start_char, ent.end_char) for ent in doc.ents]


def deidentify(doc_or_text: Union[Doc, str], mode: str = "tag", key: Optional[KeyLike] = None,
               nlp: Optional[Language] = None, scope: Optional[str] = None, patient_id: Optional[str] = None,
               options: Optional[DeidOptions] = None, policy: PolicyLike = None,
               known_phi: Optional[Mapping[str, Sequence[str]]] = None, model: str = DEFAULT_MODEL,
               **option_fields: Any) -> DeidResult:
    """De-identify a processed `Doc` (its `doc.ents`), or a text run through `nlp`
    (default: `load_pipeline(model)`, loaded once per process; a text over 20,000
    characters in pieces).

    mode: "tag", "mask", "redact" or "surrogate" (surrogate needs `key`, bytes or str of
    16+ bytes). scope: the report id that keys the surrogates and the date offset (None: a
    digest of the text); patient_id: key by patient instead, so that the reports of one
    patient share surrogates and date offset. Other keyword arguments are `DeidOptions`
    fields (e.g. `tag_numbering=True`, `keep_sex=False`). policy: a `Policy`, a dict, or the
    path of a policy file (.toml/.json: per-label operators, labels off, allow and deny
    lists, date range, age threshold). known_phi: label -> strings known for the patient (e.g. from the
    admission system), found wherever they occur (see `meddocan_deid.deid.known_phi`).

    Returns `DeidResult(text, replacements)`; each replacement is
    `(label, start, end, new_start, new_end)`.
    """
    if options is None:
        options = DeidOptions(**option_fields)
    elif option_fields:
        raise TypeError("give either options or option keyword arguments, not both")
    policy = as_policy(policy)
    if policy is not None:
        options = policy.apply(options)
    if known_phi is not None:
        from .known_phi import validate_known_phi

        known_phi = validate_known_phi(known_phi)
    if isinstance(doc_or_text, Doc):
        text, found, vocab = doc_or_text.text, doc_spans(doc_or_text), doc_or_text.vocab
    elif isinstance(doc_or_text, str):
        if nlp is None:
            nlp = load_pipeline(model)
        from .batch import text_spans

        text = doc_or_text
        with _PIPELINE_LOCK:
            found, vocab = text_spans(nlp, text), nlp.vocab  # a long text in pieces (see deid.batch)
    else:
        raise TypeError("deidentify expects a spaCy Doc or a str")
    return deidentify_found(text, found, vocab, mode, key, scope=scope, patient_id=patient_id, options=options,
                            known_phi=known_phi)


def deidentify_found(text: str, found, vocab, mode: str, key: Optional[KeyLike], *, scope: Optional[str],
                     patient_id: Optional[str], options: DeidOptions, known_phi: Optional[dict]) -> DeidResult:
    """The operators on `text` and the entities already found in it (`(label, start, end)`):
    the policy and known identifiers, then the replacements (see `deidentify`)."""
    spans = prepare_spans(text, found, options, known_phi)
    # the pipeline's own gazetteer first: the same surrogates wherever the pipeline runs
    gaz = resolve_gazetteer(vocab, options.gazetteer) if needs_key(mode, options) else None
    if patient_id is not None:
        return apply_operator(text, spans, mode, key, scope=f"patient:{patient_id}", options=options,
                              patient_scope=True, gazetteer=gaz)
    return apply_operator(text, spans, mode, key,
                          scope=None if scope is None else f"report:{scope}", options=options, gazetteer=gaz)
