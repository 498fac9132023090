"""The release targets of a policy file (`[release]`, `[tables]`): what certify, risk and the
statement check a release against. pydantic models, validated with the rest of the policy
(deid/policy.py); a bad value is reported as `<file>: <key>: <problem>`.

    [release]
    max_reports_with_phi = 0.05   # the upper bound of the share of reports with PHI left
    max_mentions_left = 0.01      # optional: the same for the share of PHI mentions left
    confidence = 0.95             # one-sided, exact (Clopper-Pearson)

    [tables]
    k = 5                         # every combination of quasi-identifiers shared by >= k rows
    l = 2                         # optional: >= l distinct sensitive values in each
    max_suppressed = 0.0          # share of rows that may be withheld to reach k
    [tables.generalise]           # the ladder of each kind of column, least first
    age = [5, 10, 20]             # bands of so many years
    date = ["month", "year"]
    postal_code = [3, 2]          # digits kept
    town = ["province"]
    category = ["*"]              # sex and other categories: withheld
"""

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

_STRICT = ConfigDict(extra="forbid", strict=True)
DATE_LEVELS = ("month", "year", "*")
TOWN_LEVELS = ("province", "*")


def _problem(message: str) -> PydanticCustomError:
    return PydanticCustomError("policy", "{problem}", {"problem": message})


def _share(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise _problem("expected a share between 0 and 1 (e.g. 0.05), both excluded")
    return float(value)


def _share_or_zero(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise _problem("expected a share from 0 to 1 (1 excluded)")
    return float(value)


def _count(low: int, optional: bool = False):
    def check(value):
        if optional and value is None:
            return value
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise _problem(f"expected an integer of at least {low}")
        return value

    return BeforeValidator(check)


def _ladder(allowed, what: str):
    def check(value):
        if not isinstance(value, list) or not value:
            raise _problem(f"expected a non-empty list of {what}")
        for v in value:
            ok = v in allowed if not callable(allowed) else allowed(v)
            if not ok:
                raise _problem(f"{str(v)[:40]!r} is not one of {what}")
        if len(set(value)) != len(value):
            raise _problem("a level is listed twice")
        return list(value)

    return BeforeValidator(check)


def _band(v) -> bool:
    return v == "*" or (isinstance(v, int) and not isinstance(v, bool) and 1 < v <= 100)


def _digits(v) -> bool:
    return v == "*" or (isinstance(v, int) and not isinstance(v, bool) and 0 < v < 5)


Share = Annotated[float, BeforeValidator(_share)]


class ReleaseTargets(BaseModel):
    model_config = _STRICT
    max_reports_with_phi: Share = 0.05
    max_mentions_left: Annotated[
        float | None, BeforeValidator(lambda v: v if v is None else _share(v))
    ] = None
    confidence: Share = 0.95


class Generalise(BaseModel):
    model_config = _STRICT
    age: Annotated[list, _ladder(_band, "band widths in years (2 to 100) or '*'")] = Field(
        default_factory=lambda: [5, 10, 20, "*"]
    )
    date: Annotated[list, _ladder(DATE_LEVELS, "'month', 'year', '*'")] = Field(
        default_factory=lambda: ["month", "year", "*"]
    )
    postal_code: Annotated[list, _ladder(_digits, "digits kept (1 to 4) or '*'")] = Field(
        default_factory=lambda: [3, 2, "*"]
    )
    town: Annotated[list, _ladder(TOWN_LEVELS, "'province', '*'")] = Field(
        default_factory=lambda: ["province", "*"]
    )
    category: Annotated[list, _ladder(("*",), "'*'")] = Field(default_factory=lambda: ["*"])


class TableTargets(BaseModel):
    model_config = _STRICT
    k: Annotated[int, _count(2)] = 5
    l: Annotated[int | None, _count(1, optional=True)] = None  # noqa: E741 - the l of l-diversity
    max_suppressed: Annotated[float, BeforeValidator(_share_or_zero)] = 0.0
    generalise: Generalise = Field(default_factory=Generalise)


ColumnKind = Literal["age", "date", "postal_code", "town", "category"]
