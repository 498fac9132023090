"""What the check modules share: reading a value as written into its characters."""

import re

_SEPARATORS = re.compile(r"[\s.\-/]")


def compact(value: str) -> str:
    """The value without blanks, dots, hyphens and slashes, in capitals (`12.345.678-k` ->
    `12345678K`)."""
    return _SEPARATORS.sub("", value).upper()


def grouped_by_thousands(value: str) -> bool:
    """Dots, where a number has them, group it by thousands (`1.234.567`, not `12.34.567`)."""
    if "." not in value:
        return True
    return re.fullmatch(r"\d{1,3}(?:\.\d{3})+", value) is not None
