"""A Presidio recognizer for the MEDDOCAN pipeline: `MeddocanRecognizer`, to add to a
presidio-analyzer `AnalyzerEngine` for Spanish (`pip install meddocan-deid[presidio]`).

    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    registry = RecognizerRegistry(supported_languages=["es"])
    registry.add_recognizer(MeddocanRecognizer())          # loads es_meddocan_deid
    engine = AnalyzerEngine(registry=registry, nlp_engine=..., supported_languages=["es"])
    engine.analyze(text, language="es", entities=["PERSON"], allow_list=[...], score_threshold=0.4)

The recognizer runs its own pipeline on the text (Presidio's `nlp_artifacts` are not read):
its entities are the pipeline's `doc.ents`, named by MEDDOCAN label or Presidio entity
(`meddocan_deid.presidio_entities`), each scored by the component that found it; an entity of
the NER scores its calibrated confidence when the pipeline has `ent_confidence`
(pipeline/ent_confidence.py) and `scores` does not set "ner". The
engine's own `entities`, `allow_list`, `score_threshold` and `return_decision_process` apply
to them as to any recognizer's. docs/presidio.md has the mapping and the scores."""

from typing import Any

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from . import __version__
from .constants import DEFAULT_MODEL
from .pipeline.ent_confidence import entity_confidence
from .pipeline.privacy import load_with_privacy
from .presidio_entities import (
    ENTITY_NAMES,
    PRESIDIO_NAMES,
    RECOGNIZER_NAME,
    entity_sources,
    explanation_text,
    presidio_entity,
    result_naming,
    source_scores,
    unknown_names,
    wanted,
)

# recognition_metadata keys of each result: the MEDDOCAN label and the source behind its score
LABEL_KEY = "meddocan_label"
SOURCE_KEY = "meddocan_source"


class MeddocanRecognizer(EntityRecognizer):
    """Presidio `EntityRecognizer` over a MEDDOCAN pipeline.

    nlp: a loaded pipeline (else `model` is loaded by `load()`, with the privacy level
    `privacy` when given). supported_entities: MEDDOCAN labels and/or Presidio names (default:
    all of both). entity_names: "presidio" or "meddocan", the names results carry; None: MEDDOCAN
    labels when every requested entity is one, else Presidio names. scores: source -> score,
    over `presidio_entities.SOURCE_SCORES`."""

    name: str  # set by presidio's EntityRecognizer.__init__ (the recognizer's name)

    def __init__(
        self,
        *,
        nlp: Any = None,
        model: str = DEFAULT_MODEL,
        supported_language: str = "es",
        supported_entities: list[str] | None = None,
        entity_names: str | None = None,
        scores: dict[str, float] | None = None,
        privacy: str | None = None,
        name: str = RECOGNIZER_NAME,
    ):
        self.nlp = nlp
        self.model = model
        self.privacy = privacy
        self.scores = source_scores(scores)
        self.model_confidence = "ner" not in (scores or {})  # else the given "ner" score wins
        result_naming(None, entity_names)  # checks the value
        self.entity_names = entity_names
        entities = (
            list(supported_entities) if supported_entities is not None else list(ENTITY_NAMES)
        )
        unknown = unknown_names(entities)
        if unknown:
            raise ValueError(
                f"supported_entities: neither MEDDOCAN labels nor Presidio names of the mapping: "
                f"{unknown} (Presidio names: {list(PRESIDIO_NAMES)})"
            )
        super().__init__(
            supported_entities=entities,
            name=name,
            supported_language=supported_language,
            version=__version__,
        )

    def load(self) -> None:
        """Load the pipeline unless one was given."""
        if self.nlp is None:
            self.nlp = load_with_privacy(self.model, self.privacy)

    def analyze(
        self, text: str, entities: list[str] | None = None, nlp_artifacts: Any = None
    ) -> list[RecognizerResult]:
        """The pipeline's PHI entities of `text` whose MEDDOCAN label or Presidio name is among
        `entities` and the supported ones (None or empty: every supported one)."""
        supported = set(self.supported_entities)
        requested = (
            [e for e in entities if e in supported] if entities else list(self.supported_entities)
        )
        if not requested:
            return []
        naming = result_naming(entities, self.entity_names)
        results = []
        doc = self.nlp(text)
        confidence = entity_confidence(doc) if self.model_confidence else {}
        for label, start, end, source in entity_sources(doc):
            name = presidio_entity(label, text[start:end])
            if not wanted(label, name, requested):
                continue
            score = self.scores[source]
            if source == "ner" and (start, end) in confidence:
                score = round(confidence[(start, end)], 4)
            explanation = AnalysisExplanation(
                recognizer=self.name,
                original_score=score,
                pattern_name=source,
                textual_explanation=explanation_text(label, name, source),
            )
            if source == "checked_identifier":  # otherwise None, presidio's default
                explanation.validation_result = True
            results.append(
                RecognizerResult(
                    entity_type=name if naming == "presidio" else label,
                    start=start,
                    end=end,
                    score=score,
                    analysis_explanation=explanation,
                    recognition_metadata={
                        RecognizerResult.RECOGNIZER_NAME_KEY: self.name,
                        RecognizerResult.RECOGNIZER_IDENTIFIER_KEY: self.id,
                        LABEL_KEY: label,
                        SOURCE_KEY: source,
                    },
                )
            )
        return results
