"""Identifiers, phone and fax numbers, plates, serial and network addresses: surrogates of
the same kind, in the original's format.

The kind is read from the value's shape, whatever the identifier label (ID_SUJETO_ASISTENCIA
may hold a DNI, a NIE, a NHC, a CIP...): a DNI/NIF (`45.873.912-K`), a NIE (`X-1234567-L`),
an IBAN (`ES91 2100 0418 ...`), a CCC (20 digits grouped 4-4-2-10, or that validate), a
NUSS/NASS (`28/12345678/40`, or 12 digits in ID_ASEGURAMIENTO, or 12 that validate), a
vehicle plate (`1234 BCD`, `M-1234-AB`), a VIN, a MAC address, an IPv4/IPv6 address. These
get a new value of the same kind, with a valid check character where the kind has one
(python-stdnum), keeping separators, grouping and case. Anything else (NHC, CIP, employee
numbers...) gets random characters of the same shape (digit for digit, letter for letter
with its case, everything else kept).

The identifiers of the Americas (a CURP, an RFC, a RUN/RUT, a CUIT, a cédula, an SSN, an
MBI...: `national_ids`) get a new value of their kind with a valid check; a value both
tables read (`12345678-K`: a DNI letter or a RUT digit) goes to the kind of the report's
country (`ctx.country`), else to the kind whose check passes, Spain's first. Phones of
another plan than Spain's (`phone_plans`) stay in their plan and type."""

import ipaddress
import re
import string
from collections.abc import Callable

from stdnum import iban as std_iban
from stdnum.es import ccc as std_ccc
from stdnum.es import dni as std_dni
from stdnum.es import nie as std_nie

from . import national_ids, phone_plans
from .common import Context, random_shape, seeded_faker

SEPARATORS = frozenset(" .-/\n\t")  # a value may run across a line break (`12345678-\nZ`)
# the current plate series (since 2000): four digits and three letters, no vowels, no Ñ nor Q
PLATE_LETTERS = "BCDFGHJKLMNPRSTVWXYZ"
# provincial plates (until 2000): the province's code, by length
PROVINCES = {
    1: ("A", "B", "C", "H", "J", "L", "M", "O", "P", "S", "T", "V", "Z"),
    2: (
        "AB",
        "AL",
        "AV",
        "BA",
        "BI",
        "BU",
        "CA",
        "CC",
        "CE",
        "CO",
        "CR",
        "CS",
        "CU",
        "GC",
        "GI",
        "GR",
        "GU",
        "HU",
        "LE",
        "LO",
        "LU",
        "MA",
        "ML",
        "MU",
        "NA",
        "OU",
        "PM",
        "PO",
        "SA",
        "SE",
        "SG",
        "SO",
        "SS",
        "TE",
        "TF",
        "TO",
        "VA",
        "VI",
        "ZA",
    ),
}
VIN_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"  # no I, O, Q
_VIN_VALUES = {c: (i % 9) + 1 for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
_VIN_VALUES.update({"S": 2, "T": 3, "U": 4, "V": 5, "W": 6, "X": 7, "Y": 8, "Z": 9})
_VIN_VALUES.update({d: int(d) for d in string.digits})
_VIN_WEIGHTS = (8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2)
MAC = re.compile(
    r"(?:[0-9A-Fa-f]{2}([:-]))(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}|"
    r"[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}"
)


def compact(text: str) -> str:
    return "".join(c for c in text if c.isalnum()).upper()


def reformat(template: str, value: str) -> str:
    """The characters of `value` in the alphanumeric positions of `template`: separators,
    grouping and lower case kept (`45.873.912-k` + `12345678Z` -> `12.345.678-z`)."""
    chars = iter(value)
    return "".join(
        (next(chars).lower() if ch.islower() else next(chars)) if ch.isalnum() else ch
        for ch in template
    )


def _digits(rng, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def vin_check(vin: str) -> str:
    """The check character (position 9) of a 17-character VIN (ISO 3779, North America)."""
    total = sum(_VIN_VALUES[c] * w for c, w in zip(vin.upper(), _VIN_WEIGHTS))
    return "X" if total % 11 == 10 else str(total % 11)


def nuss_is_valid(number: str) -> bool:
    """A 12-digit NUSS/NASS: province (2), number (8), control (2) = the first 10 read as
    one number (number below 10^7: province * 10^7 + number) modulo 97."""
    if not re.fullmatch(r"\d{12}", number):
        return False
    province, body, control = int(number[:2]), int(number[2:10]), int(number[10:])
    base = province * 10**7 + body if body < 10**7 else int(number[:10])
    return base % 97 == control


# -- the kinds ---------------------------------------------------------------------------
def kind_of(text: str, label: str = "") -> str | None:
    """The kind of identifier `text` reads as, or None (random same-shape characters)."""
    try:
        return f"ipv{ipaddress.ip_address(text).version}"
    except ValueError:
        pass
    if MAC.fullmatch(text):
        return "mac"
    if not text or not all(c.isalnum() or c in SEPARATORS for c in text):
        return None
    c, up = compact(text), text.upper()
    if re.fullmatch(r"\d{8}[A-Z]", c):
        return "dni"
    if re.fullmatch(r"[XYZ]\d{7}[A-Z]", c):
        return "nie"
    if re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", c) and (
        (c[:2] == "ES" and len(c) == 24) or std_iban.is_valid(c)
    ):
        return "iban"
    if re.fullmatch(r"\d{20}", c) and (
        std_ccc.is_valid(c) or re.fullmatch(r"\d{4}\D\d{4}\D\d{2}\D\d{10}", text)
    ):
        return "ccc"
    if re.fullmatch(r"\d{12}", c) and (
        label == "ID_ASEGURAMIENTO"
        or nuss_is_valid(c)
        or re.fullmatch(r"\d{2}\D\d{8}\D\d{2}", text)
    ):
        return "nuss"
    if re.fullmatch(rf"\d{{4}}[ -]?[{PLATE_LETTERS}]{{3}}", up):
        return "plate"
    m = re.fullmatch(r"([A-Z]{1,2})[ -]?\d{4}[ -]?[A-Z]{1,2}", up)
    if m and m.group(1) in PROVINCES[len(m.group(1))]:
        return "provincial_plate"
    if (
        re.fullmatch(r"[A-HJ-NPR-Z0-9]{17}", c)
        and re.search(r"\d", c)
        and re.search(r"[A-Z]", c)
        and (label == "IDENTIF_VEHICULOS_NRSERIE" or vin_check(c) == c[8])
    ):
        return "vin"
    return None


def _dni(rng, text):
    number = _digits(rng, 8)
    return number + std_dni.calc_check_digit(number)


def _nie(rng, text):
    start = compact(text)[0]  # X, Y or Z kept: the shape, not the person
    number = start + _digits(rng, 7)
    return number + std_nie.calc_check_digit(number)


def _ccc_number(rng) -> str:
    body = _digits(rng, 8) + "00" + _digits(rng, 10)
    return body[:8] + std_ccc.calc_check_digits(body) + body[10:]


def _iban(rng, text):
    c = compact(text)
    country = c[:2]
    if country == "ES":
        bban = _ccc_number(rng)
    else:  # same shape; the IBAN checksum is valid, a national one is not looked at
        bban = "".join(
            rng.choice(string.digits) if ch.isdigit() else rng.choice(string.ascii_uppercase)
            for ch in c[4:]
        )
    return country + std_iban.calc_check_digits(country + "00" + bban) + bban


def _ccc(rng, text):
    return _ccc_number(rng)


def _nuss(rng, text):
    province = rng.randint(1, 53)
    number = f"{province:02d}{rng.randint(10**7, 10**8 - 1)}"  # 8 digits: both rules agree
    return number + f"{int(number) % 97:02d}"


def _plate(rng, text):
    return _digits(rng, 4) + "".join(rng.choice(PLATE_LETTERS) for _ in range(3))


def _provincial_plate(rng, text):
    m = re.fullmatch(r"([A-Z]{1,2})[ -]?\d{4}[ -]?([A-Z]{1,2})", text.upper())
    province = rng.choice(PROVINCES[len(m.group(1))])
    return province + _digits(rng, 4) + "".join(rng.choice(PLATE_LETTERS) for _ in m.group(2))


VIN_LETTERS = "".join(c for c in VIN_CHARS if c.isalpha())


def _vin(rng, text):
    """A VIN with a valid check character and the original's letters and digits where they
    were (the check is a digit or X: drawn again until it is of the original's kind)."""
    original = compact(text).upper()
    for _ in range(200):
        vin = [rng.choice(VIN_LETTERS if c.isalpha() else string.digits) for c in original]
        vin[8] = "0"
        check = vin_check("".join(vin))
        if check.isalpha() == original[8].isalpha():
            vin[8] = check
            return "".join(vin)
    vin[8] = check  # a valid VIN whose check character differs in kind (X is 1 draw in 11)
    return "".join(vin)


def _mac(rng, text):
    lower = any(c in "abcdef" for c in text)
    hexdigits = "0123456789abcdef" if lower else "0123456789ABCDEF"
    out = [rng.choice(hexdigits) if c in string.hexdigits else c for c in text]
    # a locally administered unicast address (first octet xxxxxx10): it names no manufacturer
    out[1] = rng.choice("26ae" if lower else "26AE")
    return "".join(out)


def _ip(rng, text):
    original = ipaddress.ip_address(text)
    fk = seeded_faker(rng.getrandbits(64))
    if original.version == 4:
        return fk.ipv4_private() if original.is_private else fk.ipv4_public()
    # the original's zero groups stay zero, so that a compressed `::` form keeps its shape
    zeros = [g == "0000" and "::" in text for g in original.exploded.split(":")]
    groups = [0 if z else rng.randint(1, 0xFFFF) for z in zeros]
    new = ipaddress.IPv6Address(":".join(f"{g:x}" for g in groups))
    if "::" in text:
        out = new.compressed
    elif len(text) == 39:
        out = new.exploded
    else:
        out = ":".join(f"{int(g, 16):x}" for g in new.exploded.split(":"))
    return out.upper() if any(c in "ABCDEF" for c in text) else out


# kind -> (make(rng, text) -> value, whether the value goes through `reformat`, the check of
# its compact value where the kind has a check character)
MAKERS: dict[str, tuple[Callable, bool, Callable[[str], bool] | None]] = {
    "dni": (_dni, True, std_dni.is_valid),
    "nie": (_nie, True, std_nie.is_valid),
    "iban": (_iban, True, std_iban.is_valid),
    "ccc": (_ccc, True, std_ccc.is_valid),
    "nuss": (_nuss, True, nuss_is_valid),
    "plate": (_plate, True, None),
    "provincial_plate": (_provincial_plate, True, None),
    "vin": (_vin, True, None),
    "mac": (_mac, False, None),
    "ipv4": (_ip, False, None),
    "ipv6": (_ip, False, None),
}
# the Spanish kinds with a check character: a value that passes it is theirs before a national
# kind's (`national_first`)
SPANISH_CHECKS: dict[str, Callable[[str], bool]] = {
    kind: check for kind, (_make, _fmt, check) in MAKERS.items() if check is not None
}


def national_first(kind: str | None, text: str, national, country: str | None) -> bool:
    """Whether a value both tables may read is the national kind's (see the docstring)."""
    if kind is None:
        return True
    check = SPANISH_CHECKS.get(kind)
    # a value that passes the Spanish kind's check and fails the national one is Spanish,
    # whatever the report's country (`45.873.912-K` is a DNI written the Chilean way)
    if check is not None and check(compact(text)) and not national_ids.valid(national.name, text):
        return False
    if country not in (None, "ES") and country in national.countries:
        return True
    if check is None or check(compact(text)):
        return False
    return national_ids.valid(national.name, text)


def identifiers(text: str, label: str, ctx: Context) -> str:
    kind = kind_of(text, label)
    national = national_ids.kind_of(text, label, ctx.country)
    if national is not None and national_first(kind, text, national, ctx.country):
        return ctx.draw(
            national_ids.draw_kind(national),
            text,
            lambda rng, attempt: national_ids.make(national, rng, text, label, ctx),
            key_value=compact(text),
        )
    if kind is None:
        return ctx.draw("id", text, lambda rng, attempt: random_shape(rng, text), key_value=text)
    make, keep_format, _check = MAKERS[kind]

    def draw(rng, attempt):
        value = make(rng, text)
        return reformat(text, value) if keep_format else value

    return ctx.draw(
        "id-" + kind, text, draw, key_value=compact(text) if keep_format else text.lower()
    )


PHONE_PREFIX = re.compile(r"^(?:\(?(?:\+|00)\s?\d{2,3}\)?[\s.-]*)")
# Spain's code where a span left its `+` out (`34 612 345 678` of `+34 612 345 678`)
SPANISH_CODE = re.compile(r"^\(?34\)?[\s.-]*(?=(?:[\s.-]?\d){9}$)")


# Spanish numbering plan, first two digits of a 9-digit number. Mobile: 6x, 71-74 (70 is
# personal numbering, at a special rate). Geographic landlines: 91-98 and 81-88 (80x holds
# 800/803/806/807, free and premium; 90x holds 900-905 and the other special rates; 89x is
# not geographic). Surrogates never start with a special-rate prefix.
MOBILE_PREFIXES = tuple(f"6{d}" for d in range(10)) + ("71", "72", "73", "74")
LANDLINE_PREFIXES = tuple(f"9{d}" for d in range(1, 9)) + tuple(f"8{d}" for d in range(1, 9))


def phone_shape(rng, text: str, prefixes) -> str:
    """`text` with its first two digits a prefix drawn from `prefixes`, its other digits
    random, everything else kept."""
    prefix = rng.choice(prefixes)
    out, n = [], 0
    for ch in text:
        if ch.isdigit():
            out.append(prefix[n] if n < 2 else rng.choice(string.digits))
            n += 1
        else:
            out.append(ch)
    return "".join(out)


def phones(text: str, label: str, ctx: Context) -> str:
    """Phones and faxes: a number of another plan than Spain's stays in its plan and type
    (`phone_plans`). A Spanish one: an international prefix (`+34`, `0034`, `34` where the span
    left the `+` out) is kept; a mobile number (6, 7) gets a mobile prefix, any other national
    number (9 digits, or starting with 8 or 9) a geographic landline prefix, never a
    special-rate one (800, 803, 806, 807, 90x); other digits random, the format kept; a valid
    number of the plan gets one of the plan and of its line type (phonenumbers). Short numbers
    (extensions) get random digits."""
    region = phone_plans.plan_of(text, ctx.country)
    if region is not None:
        new = phone_plans.surrogate(text, region, ctx)
        if new is not None:
            return new
    m = PHONE_PREFIX.match(text) or SPANISH_CODE.match(text)
    prefix = m.group() if m else ""
    rest = text[len(prefix) :]
    digits = [c for c in rest if c.isdigit()]
    first = digits[0] if digits else ""
    if len(digits) >= 2 and (first in "6789" or len(digits) == 9):
        pool = MOBILE_PREFIXES if first in "67" else LANDLINE_PREFIXES
        # a valid Spanish number gets one of the plan (`98 9...` is none), of its line type
        # (a special-rate or personal number gets a line)
        kind = phone_plans.number_type_of(text, "ES")

        def valid(candidate: str, original: str) -> bool:
            if not ctx.acceptable(candidate, original):
                return False
            if kind is None:
                return True
            new = phone_plans.number_type_of(candidate, "ES")
            line = kind in phone_plans.LINE_TYPES
            return new is not None and (not line or phone_plans.same_type(new, kind))

        return ctx.draw(
            "phone",
            text,
            lambda rng, attempt: prefix + phone_shape(rng, rest, pool),
            check=valid,
            key_value=text,
        )
    return ctx.draw(
        "phone", text, lambda rng, attempt: prefix + random_shape(rng, rest), key_value=text
    )


def postal_code(rng, text: str) -> str:
    """Five digits: a plausible Spanish postal code, 01000-52999."""
    province = rng.randint(1, 52)
    return f"{province:02d}{rng.randint(0, 999):03d}"


def is_postal_code(text: str) -> bool:
    return len(text) == 5 and text.isdigit()


def territory_code(text: str, label: str, ctx: Context) -> str:
    if is_postal_code(text):
        return ctx.draw(
            "postcode", text, lambda rng, attempt: postal_code(rng, text), key_value=text
        )
    return identifiers(text, label, ctx)
