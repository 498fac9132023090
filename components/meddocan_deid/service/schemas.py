"""Request and response bodies of the service (pydantic). Validation errors name the
field and the problem; the service's 422 handler removes the offending input."""
from typing import Any, Dict, List, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .. import MODES

Mode = Literal[MODES]  # tag, mask, redact, surrogate
Privacy = Literal["balanced", "high"]
MAX_TEXTS = 256
MAX_ID_CHARS = 200


def check_text(value: str) -> str:
    if not value.strip():
        raise ValueError("empty or only whitespace")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("not valid Unicode (an unpaired surrogate escape)") from None
    return value


class Options(BaseModel):
    """What /deidentify and /analyze share: the policy, the privacy level, known identifiers."""

    model_config = ConfigDict(extra="forbid")

    policy: Optional[Dict[str, Any]] = Field(
        None, description="A policy as in a policy file (operators, labels, allow, deny, date_shift, "
                          "age_threshold, privacy), checked by the same code.")
    privacy: Optional[Privacy] = Field(None, description="balanced or high (default: the policy's, else the server's).")
    known_phi: Optional[Dict[str, Any]] = Field(
        None, description='Label -> strings known for the patient, e.g. {"ID_SUJETO_ASISTENCIA": ["45873912K"]}.')


class DeidentifyRequest(Options):
    text: Optional[str] = Field(None, description="One report (give text or texts).")
    texts: Optional[List[str]] = Field(None, min_length=1, max_length=MAX_TEXTS, description="Several reports.")
    mode: Optional[Mode] = Field(None, description="tag, mask, redact or surrogate (default: the server's).")
    scope: Optional[str] = Field(None, min_length=1, max_length=MAX_ID_CHARS,
                                 description="Report id keying the surrogates and date offset (with text only).")
    patient_id: Optional[str] = Field(None, min_length=1, max_length=MAX_ID_CHARS,
                                      description="Key the surrogates by patient: one patient's reports share them.")
    tag_numbering: bool = Field(False, description="tag mode: number the distinct values of a label.")

    @field_validator("text")
    @classmethod
    def _text(cls, value):
        return None if value is None else check_text(value)

    @field_validator("texts")
    @classmethod
    def _texts(cls, value):
        if value is not None:
            for i, t in enumerate(value):
                try:
                    check_text(t)
                except ValueError as err:
                    raise ValueError(f"texts[{i}]: {err}") from None
        return value

    @model_validator(mode="after")
    def _one_input(self):
        if (self.text is None) == (self.texts is None):
            raise ValueError("give exactly one of 'text' and 'texts'")
        if self.scope is not None and self.texts is not None:
            raise ValueError("'scope' names one report: give it with 'text' (or use 'patient_id')")
        return self


class AnalyzeRequest(Options):
    """Also Presidio analyzer's request body: {"text", "language"} (+ entities, score_threshold,
    correlation_id, return_decision_process)."""

    text: str = Field(..., description="One report.")
    language: Optional[Literal["es"]] = Field(None, description="Presidio's field; with it the answer is Presidio's list.")
    format: Optional[Literal["native", "presidio"]] = Field(None, description="presidio: Presidio analyzer's list.")
    entities: Optional[List[str]] = Field(None, description="Only these labels.")
    score_threshold: Optional[float] = Field(None, ge=0, le=1, description="Presidio's field: minimum score.")
    correlation_id: Optional[str] = Field(None, max_length=MAX_ID_CHARS, description="Presidio's field (ignored).")
    return_decision_process: Optional[bool] = Field(None, description="Presidio's field (ignored).")

    @field_validator("text")
    @classmethod
    def _text(cls, value):
        return check_text(value)

    @field_validator("entities")
    @classmethod
    def _entities(cls, value):
        from .. import LABELS

        if value is not None:
            for i, label in enumerate(value):
                if label not in LABELS:
                    raise ValueError(f"entities[{i}]: not a MEDDOCAN label (e.g. NOMBRE_SUJETO_ASISTENCIA, FECHAS)")
        return value


class Entity(BaseModel):
    label: str
    start: int = Field(..., description="In the original text.")
    end: int


class Replaced(Entity):
    new_start: int = Field(..., description="In the output text.")
    new_end: int


class DeidentifiedText(BaseModel):
    text: str
    entities: List[Replaced]


class DeidentifyResponse(BaseModel):
    mode: str
    privacy: str
    text: Optional[str] = None  # for a `text` request
    entities: Optional[List[Replaced]] = None
    results: Optional[List[DeidentifiedText]] = None  # for a `texts` request


class AnalyzeResponse(BaseModel):
    privacy: str
    entities: List[Entity]


class PresidioResult(BaseModel):
    entity_type: str
    start: int
    end: int
    score: float
