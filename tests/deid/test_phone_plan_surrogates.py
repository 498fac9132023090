"""Phones of another plan than Spain's (deid/surrogates/phone_plans.py): the surrogate stays
in the number's plan (region) and type, keeps the country code or trunk prefix and the
format, and shares no run of three digits with the original; Spanish numbers keep the
Spanish surrogates. Every number is invented."""

import re

import phonenumbers
import pytest

from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.operators import make_context
from meddocan_deid.deid.surrogates.common import shares_digit_run
from meddocan_deid.deid.surrogates.identifiers import phones
from meddocan_deid.deid.surrogates.phone_plans import plan_of, valid_in

KEY = b"phone-plan-surrogate-key-0123456"


def one(value, country=None, scope="r1", label="NUMERO_TELEFONO"):
    ctx = make_context(value, [(label, 0, len(value))], KEY, scope, DeidOptions())
    ctx.country = country
    return phones(value, label, ctx)


def number_type(text, region):
    international = text.lstrip("(").startswith(("+", "00"))
    body = "+" + text.lstrip("(")[2:] if text.startswith("00") else text
    return phonenumbers.number_type(phonenumbers.parse(body, None if international else region))


@pytest.mark.parametrize(
    "value,country,region",
    [
        ("+52 55 1234 5678", None, "MX"),
        ("+54 9 11 4567-8901", None, "AR"),
        ("0054 9 11 4567-8901", None, "AR"),
        ("+56 9 8765 4321", None, "CL"),
        ("+57 310 555 1234", None, "CO"),
        ("+1 (809) 555-0123", None, "DO"),
        ("+1 212-555-0123", None, "US"),
        ("+598 2 487 1234", None, "UY"),
        ("(011) 4567-8901", "AR", "AR"),
        ("310 555 1234", "CO", "CO"),
        ("9 8765 4321", "CL", "CL"),
        ("(809) 555-0123", None, "DO"),
        ("0412-1234567", "VE", "VE"),
        ("+33 6 12 34 56 78", None, "FR"),
    ],
)
@pytest.mark.parametrize("scope", ["r1", "r2"])
def test_same_plan_type_and_format(value, country, region, scope):
    assert plan_of(value, country) == region
    new = one(value, country, scope)
    assert new != value
    assert valid_in(new, region), (value, new)
    kind, new_kind = number_type(value, region), number_type(new, region)
    either = phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE
    assert kind == new_kind or either in (kind, new_kind), (value, new)
    assert re.sub(r"\d", "9", new) == re.sub(r"\d", "9", value)  # the format kept
    lead = re.match(r"\(?(?:\+|00)\s?\d+|\(?0", value)
    if lead:
        assert new.startswith(lead.group())  # the country code or the trunk 0 kept
    assert not shares_digit_run(new, value, "phone"), (value, new)


def test_spanish_numbers_keep_the_spanish_surrogates():
    assert plan_of("612 34 56 78") is None
    assert plan_of("+34 612 34 56 78") is None
    new = one("612 34 56 78")
    assert new[0] in "67" and re.fullmatch(r"\d{3} \d\d \d\d \d\d", new)


def test_a_national_number_reads_in_the_reports_country_first():
    # `310 555 1234` is a valid number in Colombia and in the US: the country decides
    assert plan_of("310 555 1234", "CO") == "CO"
    assert plan_of("310 555 1234", "US") == "US"
    assert plan_of("310 555 1234") == "CO"  # none given: the first plan of REGIONS


def test_a_number_of_no_plan_keeps_its_shape():
    new = one("12 34")
    assert re.fullmatch(r"\d\d \d\d", new) and new != "12 34"


def test_fax_numbers_too():
    res = apply_operator("+52 55 1234 5678", [("NUMERO_FAX", 0, 16)], "surrogate", KEY, scope="f")
    assert valid_in(res.text, "MX") and res.text.startswith("+52 ")
