"""What an interchange rewriter (FHIR, HL7 v2) found in one file: each value it replaced by
rule or put through the Deidentifier, by its path in the resource or message
(`Patient.name[0].family`, `Bundle.entry[2].Observation.valueString`, `OBX[3].5`), before and
after, with the spans replaced in it.

`listing` lays a file's values out as two texts, the originals and the de-identified values,
block by block under the same path line, and the replacements between them: a structured value
replaced by rule is one span (its label), a text value holds the Deidentifier's spans. The run's
private copy, shared `.ann` and review page of an interchange file are made of it
(engine/interchange.py): the texts outside the spans are the same in both, as for a report.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from ..deid.operators import Replacement

LISTING_SUFFIX = ".values"  # OUTPUT/<file>.values.txt and .ann, PRIVATE/<file>.values.txt
REMOVED = " (removed)"  # a path line's mark for an element the rules remove whole


@dataclass(frozen=True)
class Found:
    """One value of a file: its path, the value before and after, the spans replaced (offsets
    in `original` and `new`); `removed`: an element removed whole (its value is not listed)."""

    path: str
    original: str
    new: str
    spans: tuple[Replacement, ...] = ()
    removed: bool = False

    @classmethod
    def whole(cls, path: str, original: str, new: str, label: str) -> "Found":
        """A structured value replaced by rule: one span over the whole value."""
        return cls(path, original, new, (Replacement(label, 0, len(original), 0, len(new)),))


@dataclass(frozen=True)
class Listing:
    """A file's values as two texts and the replacements between them (as a report's)."""

    original: str
    output: str
    replacements: list[Replacement]


def listing(found: Iterable[Found]) -> Listing:
    """The listing of a file's values in the order they were found: for each, a path line, the
    value and a blank line."""
    original: list[str] = []
    output: list[str] = []
    replacements: list[Replacement] = []
    at_original = at_output = 0
    for item in found:
        head = f"{item.path}{REMOVED if item.removed else ''}\n"
        at_original += len(head)
        at_output += len(head)
        for r in item.spans:
            replacements.append(
                Replacement(
                    r.label,
                    at_original + r.start,
                    at_original + r.end,
                    at_output + r.new_start,
                    at_output + r.new_end,
                )
            )
        original += [head, item.original, "\n\n"]
        output += [head, item.new, "\n\n"]
        at_original += len(item.original) + 2
        at_output += len(item.new) + 2
    return Listing("".join(original), "".join(output), replacements)
