"""Request and response bodies of the service (pydantic). Validation errors name the
field and the problem; the service's 422 handler removes the offending input."""

from typing import TYPE_CHECKING, Any, Literal

import regex
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..constants import MODES
from ..deid.options import option_model
from ..deid.tables import TableSpec
from ..presidio_entities import DEFAULT_REGEX_FLAGS, ENTITY_NAMES
from .problems import problem

# the allow_list flags a request may set: the `regex` module's (Presidio's), whose ASCII is
# not `re`'s; the others are version and fuzzy-matching switches
REGEX_FLAGS = int(
    regex.IGNORECASE | regex.MULTILINE | regex.DOTALL | regex.VERBOSE | regex.ASCII | regex.UNICODE
)

if TYPE_CHECKING:  # the types mypy reads; pydantic reads the values below, made from the data
    Mode = str
    RequestOptions = BaseModel
else:
    Mode = Literal[MODES]  # tag, mask, redact, surrogate
    # the de-identification options a request may set: DeidOptions' fields but the server's paths
    RequestOptions = option_model(request=True)
Privacy = Literal["balanced", "high"]
MAX_TEXTS = 256
MAX_ROWS = 10_000  # a table request's rows (the body limit bounds its size too)
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

    policy: dict[str, Any] | None = Field(
        None,
        description="A policy as in a policy file (operators, labels, allow, deny, date_shift, "
        "age_threshold, privacy), checked by the same code.",
    )
    privacy: Privacy | None = Field(
        None, description="balanced or high (default: the policy's, else the server's)."
    )
    known_phi: dict[str, Any] | None = Field(
        None,
        description="Label -> strings known for the patient, e.g. "
        '{"ID_SUJETO_ASISTENCIA": ["45873912K"]}.',
    )
    options: RequestOptions | None = Field(
        None,
        description="De-identification options by name (meddocan_deid.deid.DeidOptions), e.g. "
        '{"tag_numbering": true, "keep_sex": false}; they win over the policy\'s.',
    )


class DeidentifyRequest(Options):
    text: str | None = Field(None, description="One report (give text or texts).")
    texts: list[str] | None = Field(
        None, min_length=1, max_length=MAX_TEXTS, description="Several reports."
    )
    mode: Mode | None = Field(
        None, description="tag, mask, redact or surrogate (default: the server's)."
    )
    scope: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="Report id keying the surrogates and date offset (with text only).",
    )
    patient_id: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="Key the surrogates by patient: one patient's reports share them.",
    )
    tag_numbering: bool = Field(
        False, description="tag mode: number the distinct values of a label."
    )

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


class TableRequest(Options):
    """A table as JSON rows, de-identified as `meddocan-deid deidentify` does a table file."""

    rows: list[dict[str, Any]] = Field(
        ...,
        min_length=1,
        max_length=MAX_ROWS,
        description="The table's rows, each an object of column -> value.",
    )
    id_column: str = Field(
        ..., min_length=1, description="The row id (names failed rows; keys surrogates)."
    )
    text_columns: list[str] = Field([], description="Free-text columns for the pipeline.")
    phi_columns: dict[str, str] = Field(
        {}, description='Column -> MEDDOCAN label, e.g. {"nombre": "NOMBRE_SUJETO_ASISTENCIA"}.'
    )
    patient_column: str | None = Field(
        None, description="Rows of one patient share known identifiers and surrogates."
    )
    status_column: str = Field(
        "deid_status", min_length=1, description="The added column: ok or failed: reason."
    )
    mode: Mode | None = Field(
        None, description="tag, mask, redact or surrogate (default: the server's)."
    )
    _table_spec: Any = PrivateAttr(None)

    @model_validator(mode="after")
    def _spec(self):
        try:
            self._table_spec = TableSpec(
                id_column=self.id_column,
                text_columns=tuple(self.text_columns),
                phi_columns=self.phi_columns,
                patient_column=self.patient_column,
                status_column=self.status_column,
            )
        except ValueError as err:
            raise ValueError(str(err)) from None
        return self

    @property
    def spec(self):
        return self._table_spec


class Failure(BaseModel):
    """A failed row, by name as the run report of a table file names it (never a cell value
    but its id, and not its id when the id column is a PHI column)."""

    row: int = Field(..., description="The row's number, from 1.")
    where: str = Field(..., description="How messages name it (`rows: row 3`).")
    id: str | None = Field(None, description="Its id, where it can be read.")
    reason: str


class TableResponse(BaseModel):
    mode: str
    privacy: str
    rows: list[dict[str, Any]] = Field(
        ...,
        description="The same rows in the same order, text and PHI columns "
        "replaced, with the status column.",
    )
    failed: int
    failures: list[Failure] = Field(
        [], description="The failed rows by number, id and reason (the first 1,000)."
    )


class FhirRequest(Options):
    """A FHIR R4 resource or Bundle, de-identified as `meddocan-deid deidentify` does a FHIR
    file (the rules: the policy's `fhir_rules` given inline, else the shipped ones)."""

    resource: dict[str, Any] = Field(
        ..., description="A FHIR R4 resource or Bundle (JSON), with its resourceType."
    )
    mode: Mode | None = Field(
        None, description="tag, mask, redact or surrogate (default: the server's)."
    )


class Hl7Request(Options):
    """HL7 v2 messages, de-identified as `meddocan-deid deidentify` does an .hl7 file (the
    rules: the policy's `hl7_rules` given inline, else the shipped ones)."""

    message: str = Field(
        ...,
        description="One or more messages, segments separated by \\r (MLLP framing kept).",
    )
    mode: Mode | None = Field(
        None, description="tag, mask, redact or surrogate (default: the server's)."
    )

    @field_validator("message")
    @classmethod
    def _message(cls, value):
        return check_text(value)


class FhirResponse(BaseModel):
    mode: str
    privacy: str
    resource: dict[str, Any] = Field(..., description="The resource de-identified, as FHIR.")
    phi_per_label: dict[str, int] = Field(..., description="The values replaced per label.")


class Hl7Response(BaseModel):
    mode: str
    privacy: str
    message: str = Field(..., description="The messages de-identified, in their framing.")
    phi_per_label: dict[str, int] = Field(..., description="The values replaced per label.")


class AnalyzeRequest(Options):
    """Also Presidio analyzer's request body: {"text", "language"} (+ entities, score_threshold,
    allow_list, allow_list_match, regex_flags, return_decision_process, context, correlation_id),
    with Presidio's meaning; `entities` filter and `allow_list` apply to the native answer too."""

    text: str = Field(..., description="One report.")
    language: Literal["es"] | None = Field(
        None, description="Presidio's field; with it the answer is Presidio's list."
    )
    format: Literal["native", "presidio"] | None = Field(
        None, description="presidio: Presidio analyzer's list."
    )
    entities: list[str] | None = Field(
        None,
        description="Only these: MEDDOCAN labels and/or Presidio entity names (PERSON, "
        "LOCATION...; "
        "docs/presidio.md).",
    )
    entity_names: Literal["presidio", "meddocan"] | None = Field(
        None,
        description="Names in Presidio's answer (default: MEDDOCAN labels when every requested "
        "entity is "
        "one, else Presidio names). The native answer always has MEDDOCAN labels.",
    )
    score_threshold: float | None = Field(
        None, ge=0, le=1, description="Presidio's field: minimum score."
    )
    allow_list_match: Literal["exact", "regex"] = Field(
        "exact",
        description="Presidio's field: exact, an entity whose text is in allow_list; regex, one in "
        "which a regex of allow_list is found.",
    )
    regex_flags: int = Field(
        DEFAULT_REGEX_FLAGS,
        description="Presidio's field: flags of the allow_list "
        "regexes, Python `regex` module's (default "
        "DOTALL|MULTILINE|IGNORECASE).",
    )
    # after allow_list_match and regex_flags: its validator reads them
    allow_list: list[str] | None = Field(
        None, description="Presidio's field: texts never reported."
    )
    context: list[str] | None = Field(
        None,
        description="Presidio's field: accepted, not used (the pipeline "
        "reads the report's own context).",
    )
    correlation_id: str | None = Field(
        None, max_length=MAX_ID_CHARS, description="Presidio's field (ignored)."
    )
    return_decision_process: bool | None = Field(
        None,
        description="Presidio's field: each result of Presidio's answer carries its "
        "analysis_explanation.",
    )

    @field_validator("text")
    @classmethod
    def _text(cls, value):
        return check_text(value)

    @field_validator("entities")
    @classmethod
    def _entities(cls, value):
        if value is not None:
            for i, name in enumerate(value):
                if name not in ENTITY_NAMES:
                    raise ValueError(
                        problem(
                            f"entities[{i}]: {name!r} is neither a MEDDOCAN label (e.g. "
                            "NOMBRE_SUJETO_ASISTENCIA, FECHAS) nor a Presidio name of the "
                            "mapping (e.g. PERSON, LOCATION)"
                        )
                    )
        return value

    @field_validator("regex_flags")
    @classmethod
    def _regex_flags(cls, value):
        if value < 0 or value & ~REGEX_FLAGS:
            raise ValueError(
                "only the regex module's IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII, UNICODE "
                "flags"
            )
        return value

    @field_validator("allow_list")
    @classmethod
    def _allow_list(cls, value, info: ValidationInfo):
        if value and info.data.get("allow_list_match") == "regex":
            for i, term in enumerate(value):
                try:
                    regex.compile(term, flags=info.data.get("regex_flags", DEFAULT_REGEX_FLAGS))
                except (regex.error, ValueError):
                    raise ValueError(f"allow_list[{i}]: not a valid regular expression") from None
            try:  # Presidio joins them with `|`
                regex.compile(
                    "|".join(t for t in value if t),
                    flags=info.data.get("regex_flags", DEFAULT_REGEX_FLAGS),
                )
            except (regex.error, ValueError):
                raise ValueError(
                    "allow_list: the regular expressions do not combine with '|'"
                ) from None
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
    entities: list[Replaced]


class DeidentifyResponse(BaseModel):
    mode: str
    privacy: str
    text: str | None = None  # for a `text` request
    entities: list[Replaced] | None = None
    results: list[DeidentifiedText] | None = None  # for a `texts` request


class AnalyzeResponse(BaseModel):
    privacy: str
    entities: list[Entity]


class PresidioExplanation(BaseModel):
    """Presidio's AnalysisExplanation: why an entity was reported (pattern_name: its source)."""

    recognizer: str
    pattern_name: str | None = None
    pattern: str | None = None
    original_score: float
    score: float
    textual_explanation: str | None = None
    score_context_improvement: float = 0
    supportive_context_word: str = ""
    validation_result: bool | None = None
    regex_flags: int | None = None


class PresidioResult(BaseModel):
    """One of Presidio analyzer's results; `analysis_explanation` only with
    return_decision_process."""

    entity_type: str
    start: int
    end: int
    score: float
    analysis_explanation: PresidioExplanation | None = None


class ScanPageRead(BaseModel):
    """A page of a scan as the run report lists it (engine/scans.py)."""

    page: int = Field(..., description="Its number, from 1.")
    source: Literal["ocr", "text layer"] = Field(
        ..., description="Where its text came from: OCR, or a PDF's text layer."
    )
    words: int = Field(..., description="The words read on it.")
    confidence: float | None = Field(
        None,
        description="OCR: Tesseract's mean word confidence, 0-100 (null: no word recognised).",
    )
    unread_ink: float | None = Field(
        None, description="OCR: the share of its inked cells that no word read covers."
    )
    layout: str | None = Field(
        None, description="OCR: the page layout kept, auto or block (read again as one block)."
    )
    review: bool | None = Field(
        None,
        description="OCR: to be reviewed by a person (confidence below review_below, no word "
        "recognised, or ink left unread).",
    )


class RedactedFile(BaseModel):
    media_type: str = Field(
        ..., description="application/pdf for a PDF, else the image's own (image/png...)."
    )
    data: str = Field(
        ...,
        description="The file, base64: its pages as images only (no text layer, no metadata of "
        "the upload), a black box over every PHI word.",
    )


class ScanResponse(BaseModel):
    mode: str
    privacy: str
    text: str = Field(..., description="The text read from the scan, de-identified.")
    entities: list[Replaced] = Field(
        ..., description="Each PHI entity: its offsets in the text read and in `text`."
    )
    format: str = Field(..., description="pdf or image.")
    review_below: float = Field(
        ..., description="The OCR confidence under which a page is flagged."
    )
    pages: list[ScanPageRead]
    pages_to_review: int = Field(..., description="The pages flagged for review.")
    redacted: RedactedFile
