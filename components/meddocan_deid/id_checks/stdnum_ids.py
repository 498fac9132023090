"""National identifiers that python-stdnum validates, as their country writes them.

Each check compacts the value (blanks, dots, hyphens and slashes out, capitals) and asks
python-stdnum: `mx.curp` (with its check digit), `mx.rfc` (with its check digit: about
1.5% of real RFCs fail it, and those count only after their key), `cl.rut` (RUN and RUT),
`ar.dni` (its length: no check digit), `ar.cuit` (CUIT and CUIL), `co.nit`, `pe.cui` (the
DNI's CUI, with or without its check character), `pe.ruc`, `ec.ci`, `ec.ruc`, `do.cedula`,
`uy.rut`, `ve.rif`, `cu.ni` (the birth date it holds), `cr.cpf` (province and length), and the
tax numbers of Guatemala (`gt.nit`, its mod-11 check digit or K) and El Salvador (`sv.nit`:
municipality, birth date, serial, check digit) and Paraguay's RUC (`py.ruc`: the cédula's
digits and a mod-11 check digit).
"""

from collections.abc import Callable

from stdnum.ar import cuit as ar_cuit
from stdnum.ar import dni as ar_dni
from stdnum.cl import rut as cl_rut
from stdnum.co import nit as co_nit
from stdnum.cr import cpf as cr_cpf
from stdnum.cu import ni as cu_ni
from stdnum.do import cedula as do_cedula
from stdnum.ec import ci as ec_ci
from stdnum.ec import ruc as ec_ruc
from stdnum.gt import nit as gt_nit
from stdnum.mx import curp as mx_curp
from stdnum.mx import rfc as mx_rfc
from stdnum.pe import cui as pe_cui
from stdnum.pe import ruc as pe_ruc
from stdnum.py import ruc as py_ruc
from stdnum.sv import nit as sv_nit
from stdnum.uy import rut as uy_rut
from stdnum.ve import rif as ve_rif

from .common import compact


def curp(value: str) -> bool:
    """A CURP: 18 characters, its name letters, birth date, sex, state and check digit."""
    return mx_curp.is_valid(compact(value))


def rfc(value: str) -> bool:
    """An RFC of a person (13 characters) or a company (12), with a valid check digit."""
    return mx_rfc.is_valid(compact(value), validate_check_digits=True)


def cl_run(value: str) -> bool:
    """A Chilean RUN/RUT: 7 or 8 digits and the mod-11 check digit (0-9 or K)."""
    return cl_rut.is_valid(compact(value))


def ar_document(value: str) -> bool:
    """An Argentinian DNI: 7 or 8 digits (no check digit)."""
    return ar_dni.is_valid(compact(value))


def ar_cuit_cuil(value: str) -> bool:
    """An Argentinian CUIT or CUIL: its type (20, 23, 24, 27, 30...), 8 digits, a check digit."""
    return ar_cuit.is_valid(compact(value))


def co_tax_number(value: str) -> bool:
    """A Colombian NIT: 8 to 15 digits with its check digit."""
    return co_nit.is_valid(compact(value))


def pe_document(value: str) -> bool:
    """A Peruvian DNI (CUI): 8 digits, with or without its check digit or letter."""
    return pe_cui.is_valid(compact(value))


def pe_tax_number(value: str) -> bool:
    """A Peruvian RUC: 11 digits with its check digit."""
    return pe_ruc.is_valid(compact(value))


def ec_document(value: str) -> bool:
    """An Ecuadorian cédula: province, third digit below 6, 10 digits with the check digit."""
    return ec_ci.is_valid(compact(value))


def ec_tax_number(value: str) -> bool:
    """An Ecuadorian RUC: 13 digits."""
    return ec_ruc.is_valid(compact(value))


def do_document(value: str) -> bool:
    """A Dominican cédula: 11 digits with a Luhn check digit."""
    return do_cedula.is_valid(compact(value))


def uy_tax_number(value: str) -> bool:
    """A Uruguayan RUT: 12 digits, `001` before the check digit."""
    return uy_rut.is_valid(compact(value))


def ve_tax_number(value: str) -> bool:
    """A Venezuelan RIF: V, E, J, P or G, 8 digits and the check digit."""
    return ve_rif.is_valid(compact(value))


def cu_document(value: str) -> bool:
    """A Cuban carné de identidad: 11 digits that begin with a birth date."""
    return cu_ni.is_valid(compact(value))


def cr_document(value: str) -> bool:
    """A Costa Rican cédula (persona física): province, volume and entry, 9 or 10 digits."""
    return cr_cpf.is_valid(value.strip())


def gt_tax_number(value: str) -> bool:
    """A Guatemalan NIT: 1 to 11 digits and its mod-11 check digit (0-9 or K)."""
    return gt_nit.is_valid(compact(value))


def sv_tax_number(value: str) -> bool:
    """A Salvadoran NIT: 14 digits (municipality, birth date, serial) and its check digit."""
    return sv_nit.is_valid(compact(value))


def py_tax_number(value: str) -> bool:
    """A Paraguayan RUC: a person's cédula digits (or a company's) and its mod-11 check digit."""
    return py_ruc.is_valid(compact(value))


CHECKS: dict[str, Callable[[str], bool]] = {
    "mx_curp": curp,
    "mx_rfc": rfc,
    "cl_run": cl_run,
    "ar_dni": ar_document,
    "ar_cuit": ar_cuit_cuil,
    "co_nit": co_tax_number,
    "pe_cui": pe_document,
    "pe_ruc": pe_tax_number,
    "ec_ci": ec_document,
    "ec_ruc": ec_tax_number,
    "do_cedula": do_document,
    "uy_rut": uy_tax_number,
    "ve_rif": ve_tax_number,
    "cu_ni": cu_document,
    "cr_cedula": cr_document,
    "gt_nit": gt_tax_number,
    "sv_nit": sv_tax_number,
    "py_ruc": py_tax_number,
}
