"""Checks of national identifiers of the Spanish-speaking countries and the United States:
pure functions `check(value) -> bool` over a value as written (separators allowed), one
module per family of check:

* `stdnum_ids`: the kinds python-stdnum validates (CURP, RFC, RUN/RUT, CUIT/CUIL, NIT...);
* `weighted_keys`: check digits python-stdnum does not know (the Uruguayan CI key, the
  Luhn digit of Mexico's NSS);
* `national_shapes`: documents without a check digit, checked by their shape (the
  Colombian and Venezuelan cédulas and the cédulas of the other countries);
* `us_federal`: the US SSN by its ranges and the Medicare MBI by its character classes.

`CHECKS` maps a check's name (the `validator` of a pattern line in
`configs/patterns/identifiers.jsonl`) to its function. No spaCy object, no word list.
"""

from collections.abc import Callable

from . import national_shapes, stdnum_ids, us_federal, weighted_keys

CHECKS: dict[str, Callable[[str], bool]] = {
    **stdnum_ids.CHECKS,
    **weighted_keys.CHECKS,
    **national_shapes.CHECKS,
    **us_federal.CHECKS,
}

# the checks of a shape alone (no check digit): a value that passes them may be another kind's
SHAPE_CHECKS = frozenset({"ar_dni", "cr_cedula", *national_shapes.CHECKS})

__all__ = ["CHECKS", "SHAPE_CHECKS"]
