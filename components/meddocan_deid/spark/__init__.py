"""De-identification of Spark DataFrames (`pip install meddocan-deid[spark]`); see
spark/dataframe.py.
pyspark is imported only inside the functions."""

from .dataframe import (
    DEFAULT_MODEL,
    DEID_TEXT_COL,
    LOAD_LOG_ENV,
    OCR_PAGES_COL,
    OCR_REVIEW_COL,
    PHI_COL,
    PHI_TYPE,
    REDACTED_COL,
    REDACTED_TYPE_COL,
    STATUS_COL,
    deidentify_dataframe,
    get_model,
    load_models,
    make_session,
)

__all__ = [
    "DEID_TEXT_COL",
    "DEFAULT_MODEL",
    "LOAD_LOG_ENV",
    "OCR_PAGES_COL",
    "OCR_REVIEW_COL",
    "PHI_COL",
    "PHI_TYPE",
    "REDACTED_COL",
    "REDACTED_TYPE_COL",
    "STATUS_COL",
    "deidentify_dataframe",
    "get_model",
    "load_models",
    "make_session",
]
