"""BRAT I/O of the evaluation: re-exported from the one BRAT module, `meddocan_deid.brat`."""

from ..brat import (
    Annotation,
    BratDocument,
    BratError,
    format_ann,
    read_ann,
    read_brat_dir,
    read_text,
    write_brat,
)

__all__ = [
    "Annotation",
    "BratDocument",
    "BratError",
    "format_ann",
    "read_ann",
    "read_brat_dir",
    "read_text",
    "write_brat",
]
