"""The checks of the identifiers of the Americas (meddocan_deid.id_checks): each accepts its
kind as written (separators, case) and refuses a wrong check or a broken shape. Every value
is invented; check characters are computed for the test."""

import pytest
from stdnum import luhn
from stdnum.cl import rut
from stdnum.mx import curp

from meddocan_deid.id_checks import CHECKS, national_shapes, stdnum_ids, us_federal, weighted_keys
from meddocan_deid.id_checks.us_federal import mbi, ssn
from meddocan_deid.id_checks.weighted_keys import uy_ci_key

CURP_BODY = "GOMR850312MDFNRS0"
CURP = CURP_BODY + curp.calc_check_digit(CURP_BODY)
WRONG_CURP = CURP_BODY + str((int(curp.calc_check_digit(CURP_BODY)) + 1) % 10)
RUN = "12531909" + rut.calc_check_digit("12531909")
NSS_BODY = "4187926530"
NSS = NSS_BODY + luhn.calc_check_digit(NSS_BODY)


@pytest.mark.parametrize(
    "check,value,valid",
    [
        ("mx_curp", CURP, True),
        ("mx_curp", CURP.lower(), True),
        ("mx_curp", WRONG_CURP, False),
        ("mx_curp", "GOMR851312MDFNRS01", False),  # month 13
        ("mx_rfc", "GODE 561231 GR8", True),
        ("mx_rfc", "GODE-561231-GR9", False),
        ("cl_run", f"{RUN[:2]}.{RUN[2:5]}.{RUN[5:8]}-{RUN[8]}", True),
        ("cl_run", f"{RUN[:8]}-{(int(RUN[8]) + 1) % 10 if RUN[8].isdigit() else 0}", False),
        ("ar_cuit", "20-05536168-2", True),
        ("ar_cuit", "20-05536168-3", False),
        ("ar_dni", "20.123.456", True),
        ("ar_dni", "2012345699", False),
        ("co_nit", "213.123.432-1", True),
        ("co_nit", "213.123.432-5", False),
        ("pe_cui", "10117410-2", True),
        ("pe_cui", "10117410-3", False),
        ("pe_ruc", "20512333797", True),
        ("ec_ci", "171430710-3", True),
        ("ec_ci", "1714307104", False),
        ("do_cedula", "001-1391820-5", True),
        ("do_cedula", "001-1391820-4", False),
        ("uy_rut", "21-100342-001-7", True),
        ("uy_rut", "21-030367-001-4", False),
        ("ve_rif", "V-11470283-4", True),
        ("ve_rif", "V-11470283-3", False),
        ("cu_ni", "91021027775", True),
        ("cu_ni", "02023061531", False),  # 30 February
        ("cr_cedula", "3-0455-0175", True),
        ("cr_cedula", "30-1234-1234", False),
        ("uy_ci", "1.234.567-2", True),
        ("uy_ci", "1.234.567-3", False),
        ("uy_ci", "1234567-2", True),
        ("mx_nss", NSS, True),
        ("mx_nss", NSS[:-1] + str((int(NSS[-1]) + 1) % 10), False),
        ("mx_nss", NSS[:-1], False),
        ("co_cedula", "1.023.456.789", True),
        ("co_cedula", "79123456", True),
        ("co_cedula", "12.34.567", False),  # dots not by thousands
        ("co_cedula", "12345", False),
        ("ve_cedula", "V-12.345.678", True),
        ("ve_cedula", "E 84123456", True),
        ("ve_cedula", "X-12.345.678", False),
        ("ve_cedula", "V-1234", False),
        ("other_cedula", "001-010190-0001A", True),
        ("other_cedula", "8-123-4567", True),
        ("other_cedula", "1111111", False),  # one repeated digit
        ("us_ssn", "536-90-4399", True),
        ("us_ssn", "536904399", True),
        ("us_ssn", "666-12-3456", False),
        ("us_ssn", "000-12-3456", False),
        ("us_ssn", "912-12-3456", False),
        ("us_ssn", "536-00-4399", False),
        ("us_ssn", "536-90-0000", False),
        ("us_ssn", "078-05-1120", False),  # printed on sample cards
        ("us_ssn", "536-904399", False),  # dashes in one place only
        ("us_mbi", "1EG4-TE5-MK73", True),
        ("us_mbi", "1EG4TE5MK73", True),
        ("us_mbi", "1SG4-TE5-MK73", False),  # S is left out of the letters
        ("us_mbi", "0EG4-TE5-MK73", False),  # the first is 1-9
        # Central America: 0*9 + 0*8 + 0*7 + 1*6 + 6*5 + 2*4 + 9*3 + 7*2 = 85: the DUI's check is 5
        ("sv_dui", "00016297-5", True),
        ("sv_dui", "000162975", True),
        ("sv_dui", "00016297-6", False),
        ("sv_dui", "0016297-5", False),
        # 1*2 + 2*3 + ... + 8*9 = 240 = 21*11 + 9: the CUI's check is 9; department 01 has 17
        ("gt_cui", "1234 56789 0101", True),
        ("gt_cui", "1234567890117", True),
        ("gt_cui", "1234 56788 0101", False),
        ("gt_cui", "1234 56789 2301", False),  # department 23
        ("gt_cui", "1234 56789 0118", False),  # municipality 18 of 17
        ("gt_nit", "576937-K", True),
        ("gt_nit", "576937-7", False),
        ("sv_nit", "0614-050707-104-8", True),
        ("sv_nit", "0614-050707-104-9", False),
        # 10101900000 = 439213043 * 23 + 11: letter 11 (from 0) of A to Y without I and O
        ("ni_cedula", "001-010190-0000M", True),
        ("ni_cedula", "0010101900000m", True),
        ("ni_cedula", "001-010190-0000A", False),
        ("ni_cedula_date", "001-010190-0000A", True),
        ("ni_cedula_date", "001-320190-0000A", False),  # day 32
        ("ni_cedula_date", "001-290201-0000A", False),  # 29 February of a year not leap
        ("hn_identity", "0801-1985-01234", True),
        ("hn_identity", "0801198501234", True),
        ("hn_identity", "1901-1985-01234", False),  # department 19
        ("hn_identity", "0801-1785-01234", False),
        ("pa_cedula", "8-123-4567", True),
        ("pa_cedula", "PE-12-345", True),
        ("pa_cedula", "4AV-12-345", True),
        ("pa_cedula", "14-123-4567", False),  # province 14
        ("pa_cedula", "8-12345-1", False),
    ],
)
def test_check(check, value, valid):
    assert CHECKS[check](value) is valid


def test_uruguayan_ci_key_follows_the_published_weights():
    # 1*2 + 2*9 + 3*8 + 4*7 + 5*6 + 6*3 + 7*4 = 148: the key brings it to 150
    assert uy_ci_key("1234567") == "2"
    # six digits are padded with a zero on the left
    assert uy_ci_key("123456") == uy_ci_key("0123456")


def test_ssn_and_mbi_checks_agree_with_their_published_examples():
    assert ssn("123-45-6789") and not ssn("123-45-678")
    assert mbi("1EG4-TE5-MK73") and not mbi("1EG4-TE5-MK7")


def test_every_check_is_named_once():
    names = [
        name
        for module in (stdnum_ids, weighted_keys, national_shapes, us_federal)
        for name in module.CHECKS
    ]
    assert len(names) == len(set(names)) == len(CHECKS)
