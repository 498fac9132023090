"""Which kind of identifier or phone a value is, and whether another value is a valid one of
that kind: what `scripts/surrogate_check.py` counts (surrogates valid in their country, per
kind). The kind is read as the identifier surrogates read it (`identifiers.identifiers`,
`identifiers.phones`): a national kind of the Americas (`national_ids`), a Spanish kind with
a check (DNI, NIE, IBAN, CCC, NUSS), a phone of a national plan (`phone_plans`, Spain's too).
"""

from collections.abc import Callable
from typing import NamedTuple

from ...labels import labels_with
from . import national_ids, phone_plans
from .identifiers import SPANISH_CHECKS, compact, kind_of, national_first

PHONE_LABELS = labels_with("phone")


class KindCheck(NamedTuple):
    kind: str  # `curp`, `dni`, `phone_MX`...
    valid: Callable[[str], bool]  # a value as written -> whether it is a valid one of the kind


def _phone_check(region: str, original: str) -> Callable[[str], bool]:
    """Valid in `region`'s plan, of the original's line type (fixed, mobile); a number of
    another type (special rate, toll free) gets a line of the plan (the Spanish surrogates
    never write a special-rate number)."""
    kind = phone_plans.number_type_of(original, region)
    line = kind in phone_plans.LINE_TYPES

    def valid(value: str) -> bool:
        new = phone_plans.number_type_of(value, region)
        return new is not None and (not line or phone_plans.same_type(new, kind))

    return valid


def kind_check(value: str, label: str, country: str | None = None) -> KindCheck | None:
    """The kind `value` of `label` reads as and its check, or None (no kind with a check)."""
    if label in PHONE_LABELS:
        region = phone_plans.plan_of(value, country)
        if region is None and phone_plans.valid_in(value, "ES"):
            region = "ES"
        if region is None or phone_plans.number_type_of(value, region) is None:
            return None
        return KindCheck(f"phone_{region}", _phone_check(region, value))
    spanish = kind_of(value, label)
    national = national_ids.kind_of(value, label, country)
    if national is not None and national_first(spanish, value, national, country):
        name = national.name

        def valid(new: str) -> bool:
            return national_ids.valid(name, new)

        return KindCheck(name, valid)
    if spanish in SPANISH_CHECKS:
        check = SPANISH_CHECKS[spanish]
        return KindCheck(spanish, lambda new: check(compact(new)))
    return None


__all__ = ["KindCheck", "kind_check"]
