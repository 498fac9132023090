"""The `.ann` files of de-identified reports (shared and private) and their checks:
re-exported from the one BRAT module, `meddocan_deid.brat`."""
from ..brat import (AnnError, format_output_ann, format_private_ann, fragments, parse_ann, validate_ann,
                    validate_folder)

__all__ = ["AnnError", "format_output_ann", "format_private_ann", "fragments", "parse_ann", "validate_ann",
           "validate_folder"]
