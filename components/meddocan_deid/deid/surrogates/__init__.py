"""Surrogate generators, one module per kind of PHI (like DEDUCE/Presidio operators).

Each generator is `fn(text, label, ctx) -> str | None`; None means "use the tag": an age or
a sex when the options say not to keep them, and any value for which no surrogate of its
kind fits (a date that is not one, an unknown profession, an acronym): letters of a word are
never replaced by random letters. Codes (identifiers, phone numbers) keep their shape.
Dates, codes and postal codes dictated in words get their surrogate in words (spelled.py), in
the language of their passage; names and places with a Basque case suffix, the surrogate of
their bare name with the suffix (basque_case.py)."""

from collections.abc import Callable

from ...labels import KEPT_LABELS, SURROGATES
from . import (
    basque_case,
    contact,
    country_places,
    dates,
    identifiers,
    institutions,
    names,
    person,
    places,
    spelled,
    streets,
)
from .common import Context
from .dates import offset_for, shift_date

MODULES = {
    "contact": contact,
    "country_places": country_places,
    "dates": dates,
    "identifiers": identifiers,
    "institutions": institutions,
    "names": names,
    "person": person,
    "places": places,
    "streets": streets,
}


def _generator(name: str) -> Callable[[str, str, Context], str | None]:
    module, function = name.split(".", 1)
    return getattr(MODULES[module], function)


# label -> its generator, `module.function` in the label table (meddocan_deid.labels)
_GENERATORS: dict[str, Callable[[str, str, Context], str | None]] = {
    label: _generator(name) for label, name in SURROGATES.items()
}
# a name or a place of a Basque passage with a case suffix (`Gasteizko`, `Mirenen`,
# `Gurutzetako ospitalean`) gets the surrogate of its bare name, the suffix put back
_BASQUE_CASE_MODULES = ("names", "places", "country_places", "institutions")
_GENERATORS = {
    label: (
        basque_case.suffixed(gen, _generator(SURROGATES["TERRITORIO"]))
        if SURROGATES[label].split(".", 1)[0] in _BASQUE_CASE_MODULES
        else gen
    )
    for label, gen in _GENERATORS.items()
}

# a value dictated in words gets its surrogate in words (spelled.py): dates, the codes whose
# generator writes digits (identifiers and phones, by the label table), postal codes
_CODE_LABELS = tuple(
    label
    for label, name in SURROGATES.items()
    if name in ("identifiers.identifiers", "identifiers.phones")
)
GENERATORS: dict[str, Callable[[str, str, Context], str | None]] = {
    label: (
        spelled.dates_in_words(gen)
        if label == "FECHAS"
        else spelled.codes_in_words(gen)
        if label in _CODE_LABELS
        else spelled.codes_in_words(gen, postal=True)
        if label == "TERRITORIO"
        else gen
    )
    for label, gen in _GENERATORS.items()
}

# labels whose value the default options keep (policy, not a failure to replace)
POLICY_KEPT = KEPT_LABELS

__all__ = ["Context", "GENERATORS", "POLICY_KEPT", "offset_for", "shift_date"]
