"""Surrogates of identifiers keep their kind, their format and a valid check character;
no surrogate of any label shares a run of 3+ digits with its original. Every value here
is invented."""

import ipaddress
import re

import pytest
from faker import Faker
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stdnum import iban, mac
from stdnum.es import ccc, dni, nie

from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.operators import DIGIT_RULE_KINDS
from meddocan_deid.deid.surrogates import GENERATORS, POLICY_KEPT
from meddocan_deid.deid.surrogates.common import shares_digit_run
from meddocan_deid.deid.surrogates.identifiers import (
    PLATE_LETTERS,
    kind_of,
    nuss_is_valid,
    vin_check,
)

KEY = b"identifier-key-0123456789abcdef"
OTHER_KEY = b"another-identifier-key-987654321"


def compact(text):
    return re.sub(r"[^0-9A-Za-z]", "", text).upper()


def one(value, label, key=KEY, scope="r1", options=None):
    res = apply_operator(
        value, [(label, 0, len(value))], "surrogate", key, scope=scope, options=options
    )
    return res.text


# label, original, the surrogate's format (regex), validator of the surrogate (None: no checksum)
CASES = [
    (
        "ID_SUJETO_ASISTENCIA",
        "45.873.912-K",
        r"\d\d\.\d{3}\.\d{3}-[A-Z]",
        lambda v: dni.is_valid(compact(v)),
    ),
    ("ID_SUJETO_ASISTENCIA", "45873912K", r"\d{8}[A-Z]", lambda v: dni.is_valid(v)),
    ("ID_SUJETO_ASISTENCIA", "45873912-k", r"\d{8}-[a-z]", lambda v: dni.is_valid(compact(v))),
    ("ID_SUJETO_ASISTENCIA", "45873912 K", r"\d{8} [A-Z]", lambda v: dni.is_valid(compact(v))),
    ("ID_SUJETO_ASISTENCIA", "X-7654321-L", r"X-\d{7}-[A-Z]", lambda v: nie.is_valid(compact(v))),
    ("ID_SUJETO_ASISTENCIA", "y7654321z", r"y\d{7}[a-z]", lambda v: nie.is_valid(compact(v))),
    ("ID_ASEGURAMIENTO", "28/52417963/15", r"\d\d/\d{8}/\d\d", lambda v: nuss_is_valid(compact(v))),
    ("ID_ASEGURAMIENTO", "285241796315", r"\d{12}", nuss_is_valid),
    ("ID_ASEGURAMIENTO", "28 52417963 15", r"\d\d \d{8} \d\d", lambda v: nuss_is_valid(compact(v))),
    (
        "OTRO_NUMERO_IDENTIF",
        "ES12 3456 7890 1234 5678 9012",
        r"ES\d\d( \d{4}){5}",
        lambda v: iban.is_valid(v),
    ),
    ("OTRO_NUMERO_IDENTIF", "ES1234567890123456789012", r"ES\d{22}", lambda v: iban.is_valid(v)),
    (
        "OTRO_NUMERO_IDENTIF",
        "1234-5678-06-1234567890",
        r"\d{4}-\d{4}-\d\d-\d{10}",
        lambda v: ccc.is_valid(compact(v)),
    ),
    (
        "OTRO_NUMERO_IDENTIF",
        "GB29 NWBK 6016 1331 9268 19",
        r"GB\d\d [A-Z]{4}( \d{4}){3} \d\d",
        lambda v: iban.is_valid(v, check_country=False),
    ),
    ("IDENTIF_VEHICULOS_NRSERIE", "4821 KLM", rf"\d{{4}} [{PLATE_LETTERS}]{{3}}", None),
    ("IDENTIF_VEHICULOS_NRSERIE", "4821-KLM", rf"\d{{4}}-[{PLATE_LETTERS}]{{3}}", None),
    (
        "IDENTIF_VEHICULOS_NRSERIE",
        "GR-4521-BZ",
        rf"[A-Z]{{2}}-\d{{4}}-[{PLATE_LETTERS}]{{2}}",
        None,
    ),
    ("IDENTIF_VEHICULOS_NRSERIE", "M 4521 K", rf"[A-Z] \d{{4}} [{PLATE_LETTERS}]", None),
    (
        "IDENTIF_VEHICULOS_NRSERIE",
        "VF1AB2C34D5678901",
        r"[A-HJ-NPR-Z0-9]{17}",
        lambda v: vin_check(v) == v[8],
    ),
    (
        "IDENTIF_DISPOSITIVOS_NRSERIE",
        "00:1A:2B:3C:4D:5E",
        r"([0-9A-F]{2}:){5}[0-9A-F]{2}",
        lambda v: mac.is_valid(v),
    ),
    (
        "IDENTIF_DISPOSITIVOS_NRSERIE",
        "0a-1b-2c-3d-4e-5f",
        r"([0-9a-f]{2}-){5}[0-9a-f]{2}",
        lambda v: mac.is_valid(v),
    ),
    (
        "DIREC_PROT_INTERNET",
        "83.45.120.7",
        r"(\d{1,3}\.){3}\d{1,3}",
        lambda v: ipaddress.ip_address(v).version == 4 and not ipaddress.ip_address(v).is_private,
    ),
    (
        "DIREC_PROT_INTERNET",
        "192.168.17.42",
        r"(\d{1,3}\.){3}\d{1,3}",
        lambda v: ipaddress.ip_address(v).is_private,
    ),
    (
        "DIREC_PROT_INTERNET",
        "2a02:9120:4b1::17",
        r"[0-9a-f:]+::[0-9a-f:]+",
        lambda v: ipaddress.ip_address(v).version == 6,
    ),
    (
        "DIREC_PROT_INTERNET",
        "2A02:9120:04B1:7C00:1234:ABCD:0042:8329",
        r"([0-9A-F]{4}:){7}[0-9A-F]{4}",
        lambda v: ipaddress.ip_address(v).version == 6,
    ),
    (
        "CORREO_ELECTRONICO",
        "lucia.ferrandis77@clinicaficticia.cat",
        r"[\w.+-]+@[a-z0-9-]+\.cat",
        None,
    ),
    ("CORREO_ELECTRONICO", "PACO.INVENTADO@GMAIL.COM", r"[A-Z0-9._+-]+@[A-Z0-9-]+\.[A-Z.]+", None),
    (
        "URL_WEB",
        "https://www.consultainventada.es/citas/",
        r"https://www\.[a-z0-9-]+\.es/[a-z0-9/_-]+/",
        None,
    ),
    ("URL_WEB", "www.centrofalso.com", r"www\.[a-z0-9-]+\.com", None),
    ("NUMERO_TELEFONO", "+34 912 345 678", r"\+34 [89]\d\d \d{3} \d{3}", None),
    ("NUMERO_TELEFONO", "654 32 10 98", r"[67]\d\d \d\d \d\d \d\d", None),
    ("ID_SUJETO_ASISTENCIA", "NHC-7654321", r"[A-Z]{3}-\d{7}", None),
]
IDS = [f"{label}:{value}" for label, value, *_ in CASES]


@pytest.mark.parametrize("label,value,fmt,valid", CASES, ids=IDS)
def test_surrogate_of_the_same_kind_and_format(label, value, fmt, valid):
    new = one(value, label)
    assert new != value
    assert re.fullmatch(fmt, new), new
    if valid is not None:
        assert valid(new), new
    assert not shares_digit_run(new, value, DIGIT_RULE_KINDS.get(label, ""))


@pytest.mark.parametrize("label,value,fmt,valid", CASES, ids=IDS)
def test_surrogate_is_keyed(label, value, fmt, valid):
    assert one(value, label) == one(value, label)  # same key and scope: the same surrogate
    others = {one(value, label, scope=s) for s in ("r2", "r3", "r4")} | {
        one(value, label, key=OTHER_KEY)
    }
    assert others - {one(value, label)}  # another scope or key: another surrogate


@pytest.mark.parametrize(
    "value,label,kind",
    [
        ("45.873.912-K", "ID_SUJETO_ASISTENCIA", "dni"),
        ("45873912K", "OTRO_NUMERO_IDENTIF", "dni"),
        ("Z-1234567-R", "ID_SUJETO_ASISTENCIA", "nie"),
        ("A-1234567-R", "ID_SUJETO_ASISTENCIA", None),  # not X, Y, Z
        ("ES12 3456 7890 1234 5678 9012", "OTRO_NUMERO_IDENTIF", "iban"),
        ("ES12 3456", "OTRO_NUMERO_IDENTIF", None),  # too short
        (
            "DE12 3456 7890 1234 5678 90",
            "OTRO_NUMERO_IDENTIF",
            None,
        ),  # not a valid IBAN: same shape only
        ("1234-5678-06-1234567890", "OTRO_NUMERO_IDENTIF", "ccc"),
        ("28/52417963/15", "ID_SUJETO_ASISTENCIA", "nuss"),
        ("285241796399", "ID_ASEGURAMIENTO", "nuss"),  # 12 digits in ID_ASEGURAMIENTO
        ("285241796399", "ID_SUJETO_ASISTENCIA", None),  # elsewhere only when it validates
        ("4821 KLM", "IDENTIF_VEHICULOS_NRSERIE", "plate"),
        ("4821 KAM", "IDENTIF_VEHICULOS_NRSERIE", None),  # a vowel: not a current plate
        ("GR-4521-BZ", "IDENTIF_VEHICULOS_NRSERIE", "provincial_plate"),
        ("QQ-4521-BZ", "IDENTIF_VEHICULOS_NRSERIE", None),  # no such province
        ("VF1AB2C34D5678901", "IDENTIF_VEHICULOS_NRSERIE", "vin"),
        ("00:1A:2B:3C:4D:5E", "IDENTIF_DISPOSITIVOS_NRSERIE", "mac"),
        ("00:1A:2B-3C:4D:5E", "IDENTIF_DISPOSITIVOS_NRSERIE", None),  # mixed separators
        ("10.0.0.300", "DIREC_PROT_INTERNET", None),
        ("fe80::1", "DIREC_PROT_INTERNET", "ipv6"),
        ("7654321", "ID_SUJETO_ASISTENCIA", None),  # a NHC: same shape
    ],
)
def test_kind_of(value, label, kind):
    assert kind_of(value, label) == kind


@pytest.mark.parametrize("seed", range(12))
def test_nuss_check_agrees_with_faker(seed):
    fk = Faker("es_ES")
    fk.seed_instance(seed)
    number = fk.nuss()
    if (
        int(number[2:10]) >= 10**7
    ):  # Faker reads every body as 10 digits; the rules agree from 10^7 up
        assert nuss_is_valid(number)
    wrong = number[:10] + f"{(int(number[10:]) + 1) % 97:02d}"
    assert not nuss_is_valid(wrong)


@pytest.mark.parametrize(
    "surrogate,original,kind,shares",
    [
        ("12.345.678-Z", "45.873.912-K", "", False),
        ("98.745.873-Z", "45.873.912-K", "", True),  # 873
        ("4587-3", "45.873.912-K", "", True),  # regrouped: digits are read without separators
        ("a1b2c", "123", "", False),  # two digits at most, each time
        ("20/07/2001", "14/03/2001", "date", False),  # the year of a shifted date may stay
        ("20/07/2001", "14/03/2001", "", True),
        ("20012020", "20010314", "date", True),  # no year in a compact date: the whole run counts
        (
            "+34 965 001 872",
            "+34 912 345 678",
            "phone",
            False,
        ),  # the country code is kept on purpose
        ("+34 965 001 872", "+34 912 345 678", "", True),
        ("+34 912 000 000", "+34 912 345 678", "phone", True),
    ],
)
def test_digit_run_rule(surrogate, original, kind, shares):
    assert shares_digit_run(surrogate, original, kind) is shares


def test_an_id_inside_a_name_span_loses_its_digits():
    text = "Paciente: Ramiro Castellfalso 45873912K."
    new = one(text[10:-1], "NOMBRE_SUJETO_ASISTENCIA")
    assert re.search(r" \d{8}[A-Z]$", new)  # the shape stays
    assert not shares_digit_run(new, "45873912K")


SETTINGS = settings(
    max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
LABELS = sorted(GENERATORS)
VALUE = st.one_of(
    st.text(alphabet="0123456789 .-/", min_size=3, max_size=20),
    st.from_regex(r"\A[A-Za-z]{0,6} ?[0-9]{3,10}[A-Z]?\Z"),
    st.from_regex(r"\A[0-9]{1,2}/[0-9]{1,2}/[0-9]{4}\Z"),
    st.from_regex(r"\A[0-9]{2,3}\.[0-9]{3}\.[0-9]{3}-[A-Z]\Z"),
    st.from_regex(r"\A[A-Z][a-z]{2,8} [0-9]{3,9}\Z"),
).filter(lambda v: v.strip() == v and v)


@SETTINGS
@given(label=st.sampled_from(LABELS), value=VALUE)
def test_no_surrogate_shares_a_digit_run(label, value):
    new = one(value, label)
    if label in POLICY_KEPT and new == value:  # an age below the threshold, the sex: kept by policy
        return
    assert not shares_digit_run(new, value, DIGIT_RULE_KINDS.get(label, "")), (label, value, new)


@SETTINGS
@given(value=st.from_regex(r"\A[1-9][0-9]{2,11}\Z"))  # 100 and over: the aggregate
def test_no_surrogate_of_an_age_over_the_threshold_shares_a_digit_run(value):
    new = one(value + " años", "EDAD_SUJETO_ASISTENCIA", options=DeidOptions(age_threshold=90))
    assert not shares_digit_run(new, value)
