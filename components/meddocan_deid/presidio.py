"""A Presidio recognizer for the MEDDOCAN pipeline: `MeddocanRecognizer`, to add to a
presidio-analyzer `AnalyzerEngine` for Spanish (`pip install meddocan-deid[presidio]`).

    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    registry = RecognizerRegistry(supported_languages=["es"])
    registry.add_recognizer(MeddocanRecognizer())          # loads es_meddocan_deid
    engine = AnalyzerEngine(registry=registry, nlp_engine=..., supported_languages=["es"])
    engine.analyze(text, language="es")

The recognizer runs its own pipeline on the text (Presidio's `nlp_artifacts` are not
read): its entities are the pipeline's `doc.ents`, with the MEDDOCAN labels as entity
types and one score (the pipeline gives no probabilities; Presidio's spaCy recognizer
scores NER entities 0.85 too)."""
from typing import Any, List, Optional

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from . import LABELS
from .deid.api import DEFAULT_MODEL, doc_spans

DEFAULT_SCORE = 0.85


class MeddocanRecognizer(EntityRecognizer):
    """Presidio `EntityRecognizer` over a MEDDOCAN pipeline.

    nlp: a loaded pipeline (else `model` is loaded by `load()`, with the privacy level
    `privacy` when given); score: the score of every result."""

    def __init__(self, nlp: Any = None, model: str = DEFAULT_MODEL, supported_language: str = "es",
                 supported_entities: Optional[List[str]] = None, score: float = DEFAULT_SCORE,
                 privacy: Optional[str] = None, name: str = "MeddocanRecognizer"):
        self.nlp = nlp
        self.model = model
        self.privacy = privacy
        self.score = score
        entities = list(supported_entities) if supported_entities is not None else list(LABELS)
        unknown = [e for e in entities if e not in LABELS]
        if unknown:
            raise ValueError(f"supported_entities: not MEDDOCAN labels: {unknown}")
        from . import __version__

        super().__init__(supported_entities=entities, name=name, supported_language=supported_language,
                         version=__version__)

    def load(self) -> None:
        """Load the pipeline unless one was given."""
        if self.nlp is None:
            from .pipeline.privacy import load_with_privacy

            self.nlp = load_with_privacy(self.model, self.privacy)

    def analyze(self, text: str, entities: Optional[List[str]] = None, nlp_artifacts: Any = None
                ) -> List[RecognizerResult]:
        """The pipeline's PHI entities of `text` whose label is in `entities` (None or empty:
        every supported one)."""
        wanted = set(entities) & set(self.supported_entities) if entities else set(self.supported_entities)
        doc = self.nlp(text)
        results = []
        for label, start, end in doc_spans(doc):
            if label not in wanted:
                continue
            explanation = AnalysisExplanation(recognizer=self.name, original_score=self.score,
                                              textual_explanation=f"MEDDOCAN pipeline entity {label}")
            results.append(RecognizerResult(entity_type=label, start=start, end=end, score=self.score,
                                             analysis_explanation=explanation,
                                             recognition_metadata={RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                                                                   RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id}))
        return results
