"""Surrogate generators, one module per kind of PHI (like DEDUCE/Presidio operators).

Each generator is `fn(text, label, ctx) -> str | None`; None means "use the tag": an age or
a sex when the options say not to keep them, and any value for which no surrogate of its
kind fits (a date that is not one, an unknown profession, an acronym): letters of a word are
never replaced by random letters. Codes (identifiers, phone numbers) keep their shape.
Dates, codes and postal codes dictated in words get their surrogate in words (spelled.py)."""
from typing import Callable, Dict, Optional

from .common import Context
from . import contact, dates, identifiers, institutions, names, person, places, spelled, streets
from .dates import offset_for, shift_date

_GENERATORS: Dict[str, Callable[[str, str, Context], Optional[str]]] = {
    "NOMBRE_SUJETO_ASISTENCIA": names.names,
    "NOMBRE_PERSONAL_SANITARIO": names.names,
    "FAMILIARES_SUJETO_ASISTENCIA": names.relatives,
    "EDAD_SUJETO_ASISTENCIA": person.ages,
    "SEXO_SUJETO_ASISTENCIA": person.sexes,
    "FECHAS": dates.dates,
    "ID_SUJETO_ASISTENCIA": identifiers.identifiers,
    "ID_ASEGURAMIENTO": identifiers.identifiers,
    "ID_CONTACTO_ASISTENCIAL": identifiers.identifiers,
    "NUMERO_BENEF_PLAN_SALUD": identifiers.identifiers,
    "ID_TITULACION_PERSONAL_SANITARIO": identifiers.identifiers,
    "ID_EMPLEO_PERSONAL_SANITARIO": identifiers.identifiers,
    "IDENTIF_VEHICULOS_NRSERIE": identifiers.identifiers,
    "IDENTIF_DISPOSITIVOS_NRSERIE": identifiers.identifiers,
    "IDENTIF_BIOMETRICOS": identifiers.identifiers,
    "OTRO_NUMERO_IDENTIF": identifiers.identifiers,
    "NUMERO_TELEFONO": identifiers.phones,
    "NUMERO_FAX": identifiers.phones,
    "CORREO_ELECTRONICO": contact.emails,
    "URL_WEB": contact.urls,
    "DIREC_PROT_INTERNET": contact.ip_addresses,
    "CALLE": streets.streets,
    "TERRITORIO": places.territories,
    "PAIS": places.countries,
    "HOSPITAL": institutions.hospitals,
    "INSTITUCION": institutions.institutions,
    "CENTRO_SALUD": institutions.health_centres,
    "PROFESION": person.professions,
    "OTROS_SUJETO_ASISTENCIA": person.others,
}

# a value dictated in words gets its surrogate in words (spelled.py): dates, codes, postal codes
_CODE_LABELS = ("ID_SUJETO_ASISTENCIA", "ID_ASEGURAMIENTO", "ID_CONTACTO_ASISTENCIAL", "NUMERO_BENEF_PLAN_SALUD",
                "ID_TITULACION_PERSONAL_SANITARIO", "ID_EMPLEO_PERSONAL_SANITARIO", "OTRO_NUMERO_IDENTIF",
                "NUMERO_TELEFONO", "NUMERO_FAX")
GENERATORS: Dict[str, Callable[[str, str, Context], Optional[str]]] = {
    label: (spelled.dates_in_words(gen) if label == "FECHAS"
            else spelled.codes_in_words(gen) if label in _CODE_LABELS
            else spelled.codes_in_words(gen, postal=True) if label == "TERRITORIO"
            else gen)
    for label, gen in _GENERATORS.items()
}

# labels whose value the default options keep (policy, not a failure to replace)
POLICY_KEPT = ("EDAD_SUJETO_ASISTENCIA", "SEXO_SUJETO_ASISTENCIA")

__all__ = ["Context", "GENERATORS", "POLICY_KEPT", "offset_for", "shift_date"]
