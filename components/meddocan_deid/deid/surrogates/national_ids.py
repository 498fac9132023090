"""Identifiers of the Spanish-speaking countries of the Americas and of the US: surrogates of
the same kind and shape, with a valid check where the kind has one.

`kind_of(text, label, country)` reads a value's kind from its characters (a table below:
the kind, its countries, the labels it may carry, its shape over the compact value, the way
its country writes it, its check from `meddocan_deid.id_checks`): first a kind of the
document's `country` whose check passes, then one of `country` written its way whose check
or shape passes (`0801-1985-01234` a Honduran identity card, `8-123-4567` a Panamanian
cédula), then one written its country's way whose check passes (`123-45-6789` an SSN,
`3-0455-0175` a Costa Rican cédula), then any whose check passes, then a kind whose shape
alone tells it (a CURP, an MBI, a Venezuelan cédula or RIF with its letter, a Nicaraguan
cédula) or, for `country`, a kind of that country its shape fits. A kind whose check one
value in ten passes (El Salvador's DUI, Guatemala's NIT) is read only in a report of its
country. None: no kind of the table (the caller keeps the shape with new characters).

`surrogate(text, label, ctx, country)` draws a new value of that kind: the characters of the
original's shape (digit for digit, letter for letter), the parts its scheme fixes kept where
they say nothing of the person (a CUIT's type, a RIF's letter, a Uruguayan RUT's `001`), the
last character completed so that the check passes, and written in the original's format
(separators and case kept). A CURP and an RFC agree with the report's birth date and sex
(`mexican_ids`), and so does a Cuban carné (its date, century digit and sex digit's parity);
the Central American kinds are drawn part by part (`central_american_ids`), those that hold
a birth date agreeing with the report's. Every surrogate passes its kind's check (a
shape-only kind's as written).
"""

import datetime as dt
import random
import re
import string
from collections.abc import Callable
from typing import NamedTuple

from stdnum import luhn

from ...id_checks import CHECKS
from ...labels import labels_with
from . import central_american_ids, mexican_ids
from .common import KEPT_PLACES, Context
from .stated_person import stated_birth, surrogate_sex

DRAWS = 200
_ALNUM = re.compile(r"[^\W_]|&")
Maker = Callable[[random.Random, str, str, Context], str | None]


def compact(text: str) -> str:
    return "".join(_ALNUM.findall(text)).upper()


def reformat(template: str, value: str) -> str:
    """`value`'s characters in the alphanumeric places of `template` (separators and lower
    case kept): `12.345.678-k` + `234567891` -> `23.456.789-1`."""
    chars = iter(value)
    return "".join(
        (next(chars).lower() if ch.islower() else next(chars)) if _ALNUM.match(ch) else ch
        for ch in template
    )


class NationalKind(NamedTuple):
    name: str
    countries: tuple[str, ...]
    shape: re.Pattern  # over the compact value
    check: str  # a check of meddocan_deid.id_checks
    labels: frozenset[str] = frozenset()  # empty: any label
    distinctive: bool = False  # its shape alone tells the kind (with a failing check too)
    keep: tuple[int, ...] = ()  # places of the compact value kept as they were
    last: str = ""  # the characters the last place may take (completed to pass the check)
    last_same_class: bool = False  # the last place keeps the original's class (digit, letter)
    letters: str = string.ascii_uppercase
    make: Maker | None = None  # a maker of its own (else the generic one)
    written: re.Pattern | None = None  # the way its country writes it (`123-45-6789`)
    # read only in a report of its country (a check one value in ten or eleven passes)
    country_only: bool = False

    def valid(self, value: str) -> bool:
        return CHECKS[self.check](value)


def _shape_maker(kind: NationalKind) -> Maker:
    """New characters in the original's shape, the `keep` places kept, a first digit never
    0 where the original's is not, the last place completed to pass the check (with a
    character of the original's class where the kind writes its check either way: a
    Peruvian DNI's digit or letter)."""

    def make(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
        first_digit = next((i for i, c in enumerate(original) if c.isdigit()), -1)
        last = kind.last
        if kind.last_same_class:
            last = "".join(c for c in last if c.isdigit() == original[-1].isdigit())
        for _ in range(DRAWS):
            chars = []
            for i, c in enumerate(original):
                if i in kind.keep:
                    chars.append(c)
                elif c.isdigit():
                    pool = "123456789" if i == first_digit and c != "0" else string.digits
                    chars.append(rng.choice(pool))
                else:
                    chars.append(rng.choice(kind.letters))
            if last:
                for c in rng.sample(last, len(last)):
                    chars[-1] = c
                    if kind.valid("".join(chars)):
                        return "".join(chars)
            elif kind.valid("".join(chars)):
                return "".join(chars)
        return None

    return make


def _nss_mx(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    body = "".join(rng.choice(string.digits) for _ in range(10))
    return body + luhn.calc_check_digit(body)


def _cedula_do(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    # the first three digits are the issuing office (`001`, `402`...): the original's first
    # digit, never `000`
    office = original[0] + rng.choice(string.digits) + rng.choice("123456789")
    body = office + "".join(rng.choice(string.digits) for _ in range(7))
    return body + luhn.calc_check_digit(body)


# a Cuban carné's 7th digit: the century of its birth date
CU_CENTURY_DIGITS = {1800: "9", 1900: "012345", 2000: "678"}


def _carne_cu(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    """A Cuban carné: a birth date (the patient's stated one, `stated_person.stated_birth`;
    otherwise drawn in the original's century, the 7th digit), the century digit, 2 digits,
    the 10th of the sex's parity (even: male; `stated_person.surrogate_sex`), a last digit."""
    century = {"9": 1800}.get(original[6], 2000 if original[6] in "678" else 1900)
    birth = stated_birth(ctx, label)
    if birth is not None and birth.year // 100 * 100 not in CU_CENTURY_DIGITS:
        birth = None  # a century the carné cannot write
    own_sex = "F" if int(original[9]) % 2 else "M"
    sex = surrogate_sex(ctx, label, own_sex)
    for _ in range(DRAWS):
        if birth is not None:
            date = birth
        else:
            date = dt.date(century, 1, 1) + dt.timedelta(days=rng.randrange(36500))
        digits7 = CU_CENTURY_DIGITS[date.year // 100 * 100]
        digit7 = original[6] if original[6] in digits7 else rng.choice(digits7)
        sex_digit = rng.choice("13579" if sex == "F" else "02468")
        value = (
            date.strftime("%y%m%d")
            + digit7
            + "".join(rng.choice(string.digits) for _ in range(2))
            + sex_digit
            + rng.choice(string.digits)
        )
        if CHECKS["cu_ni"](value):
            return value
    return None


def _ruc_ec(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    # a person's RUC: a valid cédula and `001`
    cedula = BY_NAME["ci_ec"].make
    assert cedula is not None
    value = cedula(rng, original[:10], label, ctx)
    return None if value is None else value + original[10:]


def _curp(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    return mexican_ids.curp(rng, original, label, ctx)


def _rfc(rng: random.Random, original: str, label: str, ctx: Context) -> str | None:
    return mexican_ids.rfc(rng, original, label, ctx)


# the labels a national identity document's number is given under
_PATIENT = frozenset(labels_with("national_id"))
_INSURANCE = frozenset({"ID_ASEGURAMIENTO"})
_DIGITS = string.digits
_MBI_LETTERS = "ACDEFGHJKMNPQRTUVWXY"


def _k(name, countries, shape, check, written=None, **kw) -> NationalKind:
    return NationalKind(
        name,
        tuple(countries.split()),
        re.compile(shape),
        check,
        written=re.compile(written, re.IGNORECASE) if written else None,
        **kw,
    )


KINDS: tuple[NationalKind, ...] = tuple(
    kind._replace(make=kind.make or _shape_maker(kind))
    for kind in (
        # the most specific shapes first: a value several kinds may read goes to the first
        _k(
            "curp",
            "MX",
            r"[A-Z]{4}\d{6}[HMX][A-Z]{5}[A-Z0-9]\d",
            "mx_curp",
            distinctive=True,
            make=_curp,
        ),
        _k(
            "rfc",
            "MX",
            r"[A-ZÑ&]{4}\d{6}(?:[A-Z0-9]{3})?|[A-ZÑ&]{3}\d{6}[A-Z0-9]{3}",
            "mx_rfc",
            distinctive=True,
            make=_rfc,
        ),
        _k(
            "mbi",
            "US",
            r"[1-9][A-Z][A-Z0-9]\d[A-Z][A-Z0-9]\d[A-Z]{2}\d{2}",
            "us_mbi",
            labels=_INSURANCE,
            distinctive=True,
            letters=_MBI_LETTERS,
        ),
        _k(
            "rif_ve",
            "VE",
            r"[VEJPG]\d{9}",
            "ve_rif",
            labels=_PATIENT,
            distinctive=True,
            keep=(0,),
            last=_DIGITS,
        ),
        _k(
            "ci_ve", "VE", r"[VE]\d{6,8}", "ve_cedula", labels=_PATIENT, distinctive=True, keep=(0,)
        ),
        _k(
            "cuit",
            "AR",
            r"(?:20|23|24|27|30|33|34)\d{9}",
            "ar_cuit",
            labels=_PATIENT,
            keep=(0, 1),
            last=_DIGITS,
            written=r"\d{2}-\d{8}-\d|\d{2}-\d{1,2}\.\d{3}\.\d{3}-\d",
        ),
        _k(
            "ruc_pe",
            "PE",
            r"(?:10|15|17|20)\d{9}",
            "pe_ruc",
            labels=_PATIENT,
            keep=(0, 1),
            last=_DIGITS,
        ),
        _k("ruc_ec", "EC", r"\d{10}001", "ec_ruc", labels=_PATIENT, make=_ruc_ec),
        _k(
            "rut_uy",
            "UY",
            r"\d{12}",
            "uy_rut",
            labels=_PATIENT,
            keep=(0, 1, 8, 9, 10),
            last=_DIGITS,
            written=r"\d{2}-\d{6}-\d{3}-\d",
        ),
        _k(
            "ci_ec",
            "EC",
            r"(?:0[1-9]|1\d|2[0-4]|30)[0-6]\d{7}",
            "ec_ci",
            labels=_PATIENT | _INSURANCE,
            last=_DIGITS,
            written=r"\d{9}-\d",
        ),
        _k("ni_cu", "CU", r"\d{11}", "cu_ni", labels=_PATIENT, make=_carne_cu),
        _k(
            "cedula_do",
            "DO",
            r"\d{11}",
            "do_cedula",
            labels=_PATIENT,
            make=_cedula_do,
            written=r"\d{3}-\d{7}-\d",
        ),
        _k("nss_mx", "MX", r"\d{11}", "mx_nss", labels=_INSURANCE, make=_nss_mx),
        _k(
            "dni_pe",
            "PE",
            r"\d{8}[0-9A-K]",
            "pe_cui",
            labels=_PATIENT,
            last=_DIGITS + "ABCDEFGHIJK",
            last_same_class=True,
        ),
        _k(
            "run_cl",
            "CL",
            r"\d{7,8}[0-9K]",
            "cl_run",
            labels=_PATIENT,
            last=_DIGITS + "K",
            written=r"\d{1,2}\.\d{3}\.\d{3}-[\dK]|\d{7,8}-[\dK]",
        ),
        _k(
            "ci_uy",
            "UY",
            r"[1-9]\d{5,6}\d",
            "uy_ci",
            labels=_PATIENT,
            last=_DIGITS,
            written=r"\d\.\d{3}\.\d{3}-\d|\d{3}\.\d{3}-\d",
        ),
        _k(
            "cedula_cr",
            "CR",
            r"0?[1-9]\d{8}",
            "cr_cedula",
            labels=_PATIENT,
            written=r"0?[1-9]-\d{3,4}-\d{3,4}",
        ),
        _k("ssn", "US", r"\d{9}", "us_ssn", labels=_PATIENT, written=r"\d{3}-\d{2}-\d{4}"),
        _k(
            "nit_co",
            "CO",
            # python-stdnum's NIT has 8 to 16 digits; 16 would newly read a Spanish value whose
            # digits pass the NIT's check (one in ten) as a NIT: kept to 15, as before
            r"\d{8,15}",
            "co_nit",
            labels=_PATIENT,
            last=_DIGITS,
            written=r"\d{3}\.\d{3}\.\d{3}-\d",
        ),
        # Central America: after the kinds above, so that a value they read stays theirs; the
        # new kinds read only in a report of their country (a Spanish report's values keep the
        # surrogates they had)
        _k(
            "cui_gt",
            "GT",
            r"\d{13}",
            "gt_cui",
            labels=_PATIENT,
            make=central_american_ids.gt_cui,
            written=r"\d{4}\s\d{5}\s\d{4}",
            country_only=True,  # a Spanish 13-digit value passes its check now and then
        ),
        _k(
            "nit_sv",
            "SV",
            r"[019]\d{13}",
            "sv_nit",
            labels=_PATIENT,
            make=central_american_ids.sv_tax_number,
            written=r"\d{4}-\d{6}-\d{3}-\d",
            country_only=True,  # a Spanish 14-digit value passes its check now and then
        ),
        _k(
            "cedula_ni",
            "NI",
            r"\d{13}[A-Z]",
            "ni_cedula",
            labels=_PATIENT,
            distinctive=True,
            make=central_american_ids.ni_cedula,
        ),
        _k(
            "dui_sv",
            "SV",
            r"\d{9}",
            "sv_dui",
            labels=_PATIENT,
            last=_DIGITS,
            country_only=True,
        ),
        _k(
            "nit_gt",
            "GT",
            r"\d{2,11}[0-9K]",
            "gt_nit",
            labels=_PATIENT,
            last=_DIGITS + "K",
            country_only=True,
        ),
        # documents without a check digit: only for a document of their country
        _k(
            "dni_hn",
            "HN",
            r"(?:0[1-9]|1[0-8])(?:0[1-9]|[12]\d)(?:19|20)\d{7}",
            "hn_identity",
            labels=_PATIENT,
            keep=(4, 5),
            make=central_american_ids.hn_identity,
            written=r"\d{4}-\d{4}-\d{5}",
        ),
        _k(
            "cedula_pa",
            "PA",
            r"(?:\d{1,2}(?:AV|PI)?|PE|E|N)\d{2,10}",
            "pa_cedula",
            labels=_PATIENT,
            keep=(0, 1),  # the province (one digit or two)
            make=central_american_ids.pa_cedula,
            written=r"(?:\d{1,2}(?:AV|PI)?|PE|E|N)-\d{1,4}-\d{1,6}",
        ),
        _k("dni_ar", "AR", r"[1-9]\d{6,7}", "ar_dni", labels=_PATIENT),
        _k("cc_co", "CO", r"[1-9]\d{5,9}", "co_cedula", labels=_PATIENT),
    )
)
BY_NAME = {kind.name: kind for kind in KINDS}
# whether a kind's check is a check digit or a scheme (a value that passes it is that kind)
UNCHECKED = frozenset({"dni_ar", "cc_co", "ci_ve", "cedula_cr", "dni_hn", "cedula_pa"})
# shape-only kinds read only as their country writes them (in groups, with their hyphens)
WRITTEN_SHAPES = frozenset({"dni_hn", "cedula_pa"})


def _valid_as(kind: NationalKind, text: str, value: str) -> bool:
    # the shape-only checks read the value as written (dots by thousands, a V- prefix)
    return kind.valid(text) if kind.name in UNCHECKED else kind.valid(value)


def draw_kind(kind: NationalKind) -> str:
    """The kind a surrogate of `kind` is drawn and checked under (Context.draw, the digit-run
    rule's KEPT_PLACES)."""
    return "id-" + kind.name


def kind_of(text: str, label: str = "", country: str | None = None) -> NationalKind | None:
    """The kind `text` reads as (see the module docstring), or None."""
    value = compact(text)
    fitting = [
        k
        for k in KINDS
        if k.shape.fullmatch(value)
        and (not k.labels or not label or label in k.labels)
        and (not k.country_only or country in k.countries)
    ]
    if not fitting:
        return None

    def ours(kind: NationalKind) -> bool:
        return country is not None and country in kind.countries

    checked = [k for k in fitting if k.name not in UNCHECKED and _valid_as(k, text, value)]
    as_written = [
        k
        for k in fitting
        if k.written is not None and k.written.fullmatch(text.strip()) and _valid_as(k, text, value)
    ]
    # the report's own kinds first: checked, then written its way (a shape-only kind too)
    for pool in ([k for k in checked if ours(k)], [k for k in as_written if ours(k)]):
        if pool:
            return pool[0]
    for pool in (as_written, checked):
        if pool:
            return pool[0]
    for kind in fitting:
        if kind.name in WRITTEN_SHAPES and not _valid_as(kind, text, value):
            continue  # `6792547` is no Panamanian cédula: its groups tell one
        if ours(kind) or (kind.distinctive and _distinct(kind, text, value)):
            return kind
    return None


def _distinct(kind: NationalKind, text: str, value: str) -> bool:
    # a Venezuelan cédula reads as one only with its letter written first (`V-12.345.678`)
    return kind.name != "ci_ve" or _valid_as(kind, text, value)


def valid(kind_name: str, value: str) -> bool:
    """Whether `value` passes the check of the kind `kind_name`."""
    kind = BY_NAME[kind_name]
    return _valid_as(kind, value, compact(value))


def make(kind: NationalKind, rng: random.Random, text: str, label: str, ctx: Context) -> str | None:
    """A new value of `kind` for `text`, in its format; None when no draw passes the check."""
    value = compact(text)
    assert kind.make is not None
    new = kind.make(rng, value, label, ctx)
    if new is None or len(new) != len(value):
        return None
    written = reformat(text, new)
    # a shape-only kind is checked as written (`8-123-4567`): its maker cannot see the groups
    return written if _valid_as(kind, written, new) else None


# the digit-run rule reads a kind's surrogates without its kept places
KEPT_PLACES.update({draw_kind(kind): kind.keep for kind in KINDS if kind.keep})
