"""`deidentify`: the Python API on a text or a processed Doc, through a `Deidentifier`."""

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from ..constants import DEFAULT_MODEL
from ..pipeline.privacy import load_with_privacy
from .deidentifier import Deidentifier
from .keys import KeyLike
from .operators import DeidResult
from .options import DeidOptions, as_options
from .policy import PolicyLike


@lru_cache(maxsize=8)
def load_pipeline(model: str = DEFAULT_MODEL, privacy: str | None = None) -> Language:
    """The pipeline `model` (a package name or a path) at the privacy level `privacy`
    (None: as saved), loaded once per process: later calls return the same object."""
    return load_with_privacy(model, privacy)


def deidentify(
    doc_or_text: Doc | str,
    mode: str = "tag",
    key: KeyLike | None = None,
    nlp: Language | None = None,
    scope: str | None = None,
    patient_id: str | None = None,
    options: DeidOptions | Mapping[str, Any] | None = None,
    policy: PolicyLike = None,
    known_phi: Mapping[str, Sequence[str]] | None = None,
    model: str = DEFAULT_MODEL,
    **option_fields: Any,
) -> DeidResult:
    """De-identify a processed `Doc` (its `doc.ents`), or a text run through `nlp`
    (default: `load_pipeline(model)`, loaded once per process; a text over 20,000
    characters in pieces). For many texts, build one `Deidentifier` and call it.

    mode: "tag", "mask", "redact" or "surrogate" (surrogate needs `key`, bytes or str of
    16+ bytes). scope: the report id that keys the surrogates and the date offset (None: a
    digest of the text); patient_id: key by patient instead, so that the reports of one
    patient share surrogates and date offset. options: a `DeidOptions` or a dict of its
    fields by name, checked (ValueError naming a bad option); other keyword arguments are
    `DeidOptions` fields too (e.g. `tag_numbering=True`, `keep_sex=False`). policy: a `Policy`, a
    dict, or the path of a policy file (.toml/.json: per-label operators, labels off, allow and deny
    lists, date range, age threshold). known_phi: label -> strings known for the patient (e.g. from
    the admission system), found wherever they occur (see `meddocan_deid.deid.known_phi`).

    Returns `DeidResult(text, replacements)`; each replacement is
    `(label, start, end, new_start, new_end)`.
    """
    if options is None:
        options = DeidOptions(**option_fields)
    elif option_fields:
        raise TypeError("give either options or option keyword arguments, not both")
    else:
        options = as_options(options)
    if isinstance(doc_or_text, Doc):
        deidentifier = Deidentifier(
            nlp, mode, key=key, options=options, policy=policy, vocab=doc_or_text.vocab
        )
    elif isinstance(doc_or_text, str):
        deidentifier = Deidentifier(
            nlp if nlp is not None else load_pipeline(model),
            mode,
            key=key,
            options=options,
            policy=policy,
        )
    else:
        raise TypeError("deidentify expects a spaCy Doc or a str")
    return deidentifier.deidentify(
        doc_or_text, scope=scope, patient_id=patient_id, known_phi=known_phi
    )
