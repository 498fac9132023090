"""`deidentify`: the Python API on a text or a processed Doc."""
from typing import Any, Optional, Union

from spacy.tokens import Doc

from .gazetteer import resolve_gazetteer
from .keys import KeyLike
from .operators import DeidResult, apply_operator
from .options import DeidOptions

DEFAULT_MODEL = "es_meddocan_deid"


def doc_spans(doc: Doc):
    return [(ent.label_, ent.start_char, ent.end_char) for ent in doc.ents]


def deidentify(doc_or_text: Union[Doc, str], mode: str = "tag", key: Optional[KeyLike] = None,
               nlp: Any = None, scope: Optional[str] = None, patient_id: Optional[str] = None,
               options: Optional[DeidOptions] = None, **option_fields) -> DeidResult:
    """De-identify a processed `Doc` (its `doc.ents`), or a text run through `nlp`
    (default: `spacy.load("es_meddocan_deid")`).

    mode: "tag", "mask", "redact" or "surrogate" (surrogate needs `key`, bytes or str of
    16+ bytes). scope: the report id that keys the surrogates and the date offset (None: a
    digest of the text); patient_id: key by patient instead, so that the reports of one
    patient share surrogates and date offset. Other keyword arguments are `DeidOptions`
    fields (e.g. `tag_numbering=True`, `keep_sex=False`).

    Returns `DeidResult(text, replacements)`; each replacement is
    `(label, start, end, new_start, new_end)`.
    """
    if options is None:
        options = DeidOptions(**option_fields)
    elif option_fields:
        raise TypeError("give either options or option keyword arguments, not both")
    if isinstance(doc_or_text, Doc):
        doc = doc_or_text
    elif isinstance(doc_or_text, str):
        if nlp is None:
            import spacy

            nlp = spacy.load(DEFAULT_MODEL)
        doc = nlp(doc_or_text)
    else:
        raise TypeError("deidentify expects a spaCy Doc or a str")
    # the pipeline's own gazetteer first: the same surrogates wherever the pipeline runs
    gaz = resolve_gazetteer(doc.vocab, options.gazetteer) if mode == "surrogate" else None
    if patient_id is not None:
        return apply_operator(doc.text, doc_spans(doc), mode, key, scope=f"patient:{patient_id}", options=options,
                              patient_scope=True, gazetteer=gaz)
    return apply_operator(doc.text, doc_spans(doc), mode, key,
                          scope=None if scope is None else f"report:{scope}", options=options, gazetteer=gaz)
