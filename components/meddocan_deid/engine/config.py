"""`RunConfig`: what one run is asked to do (the engine's input; see runner.py)."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..constants import DEFAULT_MODEL
from ..deid.options import DeidOptions
from ..deid.tables import TableSpec
from .scans import DEFAULT_REVIEW_BELOW

REPORT_NAME = "run_report.json"
EXPORT_FORMATS = ("brat", "labelstudio", "doccano")


@dataclass(frozen=True)
class SparkJob:
    """A run on Apache Spark (`RunConfig.spark`): the input's format (`auto`: by its suffix, or
    by the files of a local folder; else a format with a Spark source: parquet, jsonl, txt) and
    the output's (a format with a Spark sink: parquet, jsonl); Spark's master and settings
    (master None: spark-submit's, else local[*]; an active session is used as it is); the
    tasks the input is cut into (0: at least 4 per core). The columns are the run's table:
    its id, its one text column, its patient column (used when the input has it) and its PHI
    columns."""

    input_format: str = "auto"
    output_format: str = "parquet"
    master: str | None = None
    conf: dict[str, str] = field(default_factory=dict)
    partitions: int = 0
    text_format: str = "text"  # or fhir, hl7v2 (resources, messages) or scan (files' bytes)


@dataclass(frozen=True)
class RunConfig:
    """One run's settings. The key is kept out of `repr` (it never reaches a log).

    input / output: a .txt file, a folder (recursive) or a JSONL file; the output folder.
    mode: tag, mask, redact or surrogate (a policy may set other operators per label);
    key: the surrogate key (bytes), None when no label uses the surrogate operator.
    options: the operators' options (`DeidOptions`, with the policy applied).
    report_path: the run report (None: OUTPUT/run_report.json).
    private_dir: also write each original and its `.ann` (original offsets) there;
    review_dir: write the review site there (both hold PHI; neither may be inside OUTPUT);
    review_language: the site's language, "en" or "es".
    policy_digest: the policy's digest in the fingerprint (None: the options' policy's).
    encoding: the fallback codec of inputs that are neither UTF-8 nor detected with confidence.
    privacy: the pipeline's privacy level, "balanced" or "high" (None: the policy's, else the
    model's).
    export_format: also write the private folder for an annotation tool (brat, labelstudio,
    doccano); needs private_dir.
    report_options: the options recorded in the run report (the command line's; None: this
    config's); random_key: the key is a throwaway one (a refused resume says so).
    progress: a progress bar on stderr (None: when stderr is a terminal).
    time_limit: seconds one report may take (checked between its pieces; None: no limit);
    a report over it fails by name and the run goes on.
    skip_unsupported: files of the input folder that are not plain text are listed as not read
    (False: each is a failure, and the exit code says so).
    table: the input is a table with these columns (id, text, PHI, patient, status, sheet): it is
    written whole to OUTPUT/<its name> in its format (None: the input holds reports).
    input_format: auto (each file by its suffix; a .json file is FHIR where its content is), or
    fhir or hl7v2: an input file is read as that format, a folder's files where their content is
    of it (engine/interchange.py; other files as usual).
    interchange_rules: format name (fhir, hl7v2) -> the JSON rule file of its structured
    elements for this run (else the policy's, else the shipped rules).
    interchange_ann: a FHIR or HL7 v2 file also gets OUTPUT/<its name>.values.txt, its
    de-identified values by path, and their BRAT `.ann` (engine/interchange.py); with
    private_dir and review_dir such a file gets its listing of originals and its review page.
    spark: the run goes on Apache Spark (`SparkJob`): INPUT and OUTPUT are any Hadoop paths,
    OUTPUT is written by Spark, the table names the columns (report_path: None writes no
    run report, since OUTPUT is Spark's folder).
    redacted_pdf: a PDF with a text layer also gets its redacted copy, as a scan (a PDF without
    text or an image, read by OCR) always does (engine/scans.py); ocr_review_below: a scanned
    page whose mean OCR word confidence (0-100) is below it is flagged in the run report.
    audit_log: the audit log the run appends its line to (None: the environment's
    MEDDOCAN_DEID_AUDIT_LOG, else OUTPUT/audit_log.jsonl; see meddocan_deid.audit).
    """

    input: Path | str  # a Spark run: any Hadoop path, kept as given
    output: Path | str
    mode: str
    key: bytes | None = field(default=None, repr=False)
    model: str = DEFAULT_MODEL
    n_process: int = 1
    batch_size: int = 32
    overwrite: bool = False
    options: DeidOptions = field(default_factory=DeidOptions)
    report_path: Path | None = None
    private_dir: Path | None = None
    review_dir: Path | None = None
    review_language: str = "en"
    policy_digest: str | None = None
    encoding: str = "utf-8"
    privacy: str | None = None
    export_format: str | None = None
    report_options: dict[str, Any] | None = None
    random_key: bool = False
    progress: bool | None = None
    time_limit: float | None = None
    skip_unsupported: bool = False
    table: TableSpec | None = None
    spark: SparkJob | None = None
    input_format: str = "auto"
    interchange_rules: Mapping[str, Path] = field(default_factory=dict)
    interchange_ann: bool = False
    redacted_pdf: bool = False
    ocr_review_below: float = DEFAULT_REVIEW_BELOW
    audit_log: Path | None = None

    @property
    def report_file(self) -> Path:
        return Path(self.report_path) if self.report_path else Path(self.output) / REPORT_NAME

    @property
    def run_privacy(self) -> str | None:
        """The privacy level the pipeline runs at: the config's, else the policy's (None: the
        model's)."""
        policy = getattr(self.options, "policy", None)
        if self.privacy is None and policy is not None:
            return policy.privacy
        return self.privacy

    @property
    def run_policy_digest(self) -> str | None:
        policy = getattr(self.options, "policy", None)
        if self.policy_digest is None and policy is not None:
            return policy.digest()
        return self.policy_digest
