"""Write the identifier evaluation set: invented Spanish clinical reports with BRAT gold.

    python experiments/make_identifier_set.py assets/identifiers --n-reports 96 --seed 20240

Every report is assembled from the hand-written templates below (nothing comes from the
MEDDOCAN corpus): a header of `Título: valor` lines, a free-text body and a footer that
starts with `Remitido por:`. Each section plants identifiers of several kinds (DNI, NIE,
NASS, IBAN, phones, URLs, plates...) in several formats, with valid check digits from
python-stdnum where the kind has one, and some keyed values with a wrong check letter.
The body also carries look-alike numbers that are not PHI (lab values, doses, blood
pressure, ICD-10 codes, sizes, times, percentages), written as `NO_PHI` entities.

Output: `<id>.txt` and `<id>.ann` per report. The `.ann` has one `T` line per entity
(offsets in Unicode characters, end exclusive) and, for each identifier and look-alike,
an `AnnotatorNotes` line: `kind=<kind> valid=<1|0|na> format=<format> section=<section>`.
A span that crosses a line break has no surface column (BRAT's third column cannot hold
a newline). The same seed always writes the same files.
"""

from __future__ import annotations

import datetime as dt
import random
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import phonenumbers
import typer
from phonenumbers import PhoneNumberType
from stdnum import iban as std_iban
from stdnum import luhn, verhoeff
from stdnum.ar import cuit as std_ar_cuit
from stdnum.cl import rut as std_cl_rut
from stdnum.co import nit as std_co_nit
from stdnum.cr import cpf as std_cr_cpf
from stdnum.cu import ni as std_cu_ni
from stdnum.do import cedula as std_do_cedula
from stdnum.ec import ci as std_ec_ci
from stdnum.es import ccc as std_ccc
from stdnum.es import dni as std_dni
from stdnum.es import nie as std_nie
from stdnum.mx import curp as std_curp
from stdnum.mx import rfc as std_rfc
from stdnum.pe import cui as std_pe_cui
from stdnum.pe import ruc as std_pe_ruc
from stdnum.uy import rut as std_uy_rut
from stdnum.ve import rif as std_ve_rif

from meddocan_deid.id_checks import CHECKS
from meddocan_deid.id_checks.weighted_keys import uy_ci_key
from meddocan_deid.lexicon import words

NO_PHI = "NO_PHI"
SECTIONS = ("header", "body", "footer")

# kind -> MEDDOCAN label (guidelines 2.3.14-2.3.28; URL_WEB / DIREC_PROT_INTERNET is
# decided per value: a URL with a protocol is DIREC_PROT_INTERNET, P24.1)
KIND_LABELS: dict[str, str] = {
    "dni": "ID_SUJETO_ASISTENCIA",
    "nie": "ID_SUJETO_ASISTENCIA",
    "passport": "ID_SUJETO_ASISTENCIA",
    "nhc": "ID_SUJETO_ASISTENCIA",
    "cip": "ID_SUJETO_ASISTENCIA",
    "nass": "ID_ASEGURAMIENTO",
    "episode": "ID_CONTACTO_ASISTENCIAL",
    "iban": "OTROS_SUJETO_ASISTENCIA",
    "ccc": "OTROS_SUJETO_ASISTENCIA",
    "phone": "NUMERO_TELEFONO",
    "phone_foreign": "NUMERO_TELEFONO",
    "fax": "NUMERO_FAX",
    "email": "CORREO_ELECTRONICO",
    "url": "URL_WEB",
    "ipv4": "IDENTIF_DISPOSITIVOS_NRSERIE",
    "ipv6": "IDENTIF_DISPOSITIVOS_NRSERIE",
    "mac": "IDENTIF_DISPOSITIVOS_NRSERIE",
    "serial": "IDENTIF_DISPOSITIVOS_NRSERIE",
    "plate": "IDENTIF_VEHICULOS_NRSERIE",
    "vin": "IDENTIF_VEHICULOS_NRSERIE",
    "employee": "ID_EMPLEO_PERSONAL_SANITARIO",
    "member": "OTRO_NUMERO_IDENTIF",
}
KINDS = tuple(KIND_LABELS)
PLATE_LETTERS = "BCDFGHJKLMNPRSTVWXYZ"
PROVINCE_CODES = ("M", "B", "V", "SE", "GR", "Z", "BI", "MU", "A", "TO")
HOSPITALS = (
    "Hospital Universitario Río Alberche",
    "Hospital General de Valdeluna",
    "Hospital Comarcal Sierra del Moncayo",
    "Clínica Santa Casilda de Oriente",
    "Hospital Provincial Nuestra Señora del Brezo",
    "Hospital Universitario Ribera del Tajuña",
    "Complejo Hospitalario Alto Genil",
    "Hospital Virgen de la Peña Blanca",
)
SERVICES = (
    "Medicina Interna",
    "Neumología",
    "Oncología Médica",
    "Cardiología",
    "Urología",
    "Digestivo",
    "Nefrología",
    "Cirugía General",
)
MONTHS = tuple(words("months", "es"))  # January first
TLDS = ("es", "com", "org", "net", "eu")


@dataclass
class Ent:
    text: str
    label: str
    kind: str | None = None  # identifiers and look-alikes carry a note
    valid: str = "na"
    fmt: str = ""  # a look-alike's: the kind whose check it fails (`of=`)
    country: str = ""  # the identifiers of the Americas: the country of the kind


Part = object  # str or Ent
PHONE_LABELS = ("NUMERO_TELEFONO", "NUMERO_FAX")


class Report:
    """Text and entities built piece by piece; offsets follow from the concatenation."""

    def __init__(self) -> None:
        self.text = ""
        self.entities: list[tuple[int, int, Ent, str]] = []
        self.section = "header"

    def add(self, *parts: Part) -> None:
        for part in parts:
            if isinstance(part, Ent):
                # MEDDOCAN's gold leaves a leading `+` or `(` of a phone or fax number out of
                # the span (`Tfno.+34 612...` is annotated from `34`); `00` stays in
                lead = (
                    len(part.text) - len(part.text.lstrip("+("))
                    if part.label in PHONE_LABELS
                    else 0
                )
                start = len(self.text) + lead
                self.text += part.text
                self.entities.append((start, len(self.text), part, self.section))
            else:
                self.text += str(part)

    def ann(self) -> str:
        lines, notes = [], []
        for i, (start, end, ent, section) in enumerate(
            sorted(self.entities, key=lambda e: (e[0], e[1])), start=1
        ):
            surface = self.text[start:end]
            if "\n" in surface:
                lines.append(f"T{i}\t{ent.label} {start} {end}\n")
            else:
                lines.append(f"T{i}\t{ent.label} {start} {end}\t{surface}\n")
            country = f" country={ent.country}" if ent.country else ""
            if ent.label == NO_PHI:
                of = f" of={ent.fmt}" if ent.fmt else ""
                notes.append(
                    f"#{len(notes) + 1}\tAnnotatorNotes T{i}\tkind=lookalike type={ent.kind}{of}"
                    f"{country} section={section}\n"
                )
            elif ent.kind:
                notes.append(
                    f"#{len(notes) + 1}\tAnnotatorNotes T{i}\tkind={ent.kind} valid={ent.valid}"
                    f" format={ent.fmt}{country} section={section}\n"
                )
        return "".join(lines + notes)


class Names:
    """Invented names, places and internet names from the small lists below (no Faker: its
    data change between versions, and the shipped set must be what this script writes)."""

    FEMALE = (
        "Lucía",
        "Carmen",
        "Íngrid",
        "Dolores",
        "Nerea",
        "Paola",
        "Rocío",
        "Amparo",
        "Begoña",
        "Inés",
        "Remedios",
        "Maite",
        "Aitana",
        "Consuelo",
        "Yolanda",
        "Noelia",
        "Elvira",
        "Macarena",
        "Sonia",
        "Pilar",
    )
    MALE = (
        "Aurelio",
        "Jacinto",
        "Rubén",
        "Ismael",
        "Fermín",
        "Gaspar",
        "Lisandro",
        "Óscar",
        "Teodoro",
        "Iker",
        "Baltasar",
        "Ramiro",
        "Eusebio",
        "Joaquín",
        "Nicanor",
        "Adrián",
        "Ulises",
        "Marcelo",
        "Hugo",
        "Celestino",
    )
    SURNAMES = (
        "Arnaiz",
        "Bayo",
        "Castells",
        "Cañellas",
        "Escudero",
        "Ferrándiz",
        "Garrido",
        "Huertas",
        "Iglesias",
        "Jover",
        "Lasheras",
        "Meléndez",
        "Nieto",
        "Olmedo",
        "Pascual",
        "Quintana",
        "Roldán",
        "Sebastián",
        "Toledano",
        "Uría",
        "Valcárcel",
        "Zamora",
        "Berrocal",
        "Cuadrado",
        "Domínguez",
        "Echeverría",
        "Gallardo",
        "Herrero",
        "Losada",
        "Montero",
        "Peñalver",
        "Saavedra",
        "Tejedor",
        "Villalba",
    )
    STREET_TYPES = ("Calle", "Avenida", "Plaza", "Paseo", "Camino", "Ronda", "Travesía", "Glorieta")
    STREET_NAMES = (
        "de los Almendros",
        "del Doctor Ferrán",
        "Mayor",
        "de la Alameda",
        "del Río Tormes",
        "de Santa Brígida",
        "de los Tejares",
        "del Pintor Sorolla",
        "de la Fuente Vieja",
        "de las Acacias",
        "del Mirador",
        "de San Lorenzo",
        "del Cierzo",
        "de la Estación",
    )
    CITIES = (
        "Teruel",
        "Cádiz",
        "León",
        "Ourense",
        "Albacete",
        "Soria",
        "Cuenca",
        "Lugo",
        "Huesca",
        "Zamora",
        "Palencia",
        "Segovia",
        "Jaén",
        "Badajoz",
        "Castellón",
        "Girona",
        "Logroño",
        "Ávila",
    )
    FREE_DOMAINS = ("gmail.com", "hotmail.com", "yahoo.es", "outlook.es", "telefonica.net")
    DOMAIN_WORDS = (
        "saludnorte",
        "clinicaribera",
        "hospitalvaldeluna",
        "centromedicoalba",
        "portalpaciente",
        "fisioalcor",
        "laboratoriosur",
        "consultasmoncayo",
        "imagenalberche",
        "asociacionepoc",
    )

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def first_name_female(self) -> str:
        return self.rng.choice(self.FEMALE)

    def first_name_male(self) -> str:
        return self.rng.choice(self.MALE)

    def first_name(self) -> str:
        return self.rng.choice(self.FEMALE + self.MALE)

    def last_name(self) -> str:
        return self.rng.choice(self.SURNAMES)

    def city(self) -> str:
        return self.rng.choice(self.CITIES)

    def street_name(self) -> str:
        return f"{self.rng.choice(self.STREET_TYPES)} {self.rng.choice(self.STREET_NAMES)}"

    def user_name(self) -> str:
        first = self.first_name().lower()
        last = self.last_name().lower()
        return self.rng.choice(
            (f"{first[0]}{last}", f"{first}{self.rng.randint(10, 99)}", f"{first}_{last}")
        )

    def free_email_domain(self) -> str:
        return self.rng.choice(self.FREE_DOMAINS)

    def domain_word(self) -> str:
        return self.rng.choice(self.DOMAIN_WORDS)

    def ipv4_private(self) -> str:
        return (
            self.rng.choice(
                (f"10.{self.rng.randint(0, 255)}", "192.168", f"172.{self.rng.randint(16, 31)}")
            )
            + f".{self.rng.randint(0, 255)}.{self.rng.randint(1, 254)}"
        )

    def ipv4_public(self) -> str:
        return ".".join(
            str(n)
            for n in (
                self.rng.choice((62, 80, 83, 88, 91, 185, 212, 213)),
                self.rng.randint(0, 255),
                self.rng.randint(0, 255),
                self.rng.randint(1, 254),
            )
        )

    def ipv6(self) -> str:
        return ":".join(f"{self.rng.randrange(65536):04x}" for _ in range(8))

    def vin(self) -> str:
        alphabet = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"  # no I, O, Q
        return (
            "VF"
            + "".join(self.rng.choice(alphabet) for _ in range(9))
            + "".join(self.rng.choice(string.digits) for _ in range(6))
        )


class Values:
    """Identifier values in several formats; `rng` and `fake` are seeded by the caller."""

    def __init__(self, rng: random.Random, fake: Names) -> None:
        self.rng = rng
        self.fake = fake

    def digits(self, n: int) -> str:
        return "".join(self.rng.choice(string.digits) for _ in range(n))

    def pick(self, *options):
        return self.rng.choice(options)

    # -- identity documents -------------------------------------------------------------
    def dni(self, section: str, wrong: bool = False, wrap: bool = False) -> Ent:
        number = self.digits(8)
        letter = std_dni.calc_check_digit(number)
        if wrong:
            letter = self.rng.choice([c for c in "TRWAGMYFPDXBNJZSQVHLCKE" if c != letter])
        if wrap:
            return Ent(
                f"{number}-\n{letter}", KIND_LABELS["dni"], "dni", "0" if wrong else "1", "wrapped"
            )
        fmt = self.pick("plain", "space", "hyphen", "dotted")
        text = {
            "plain": f"{number}{letter}",
            "space": f"{number} {letter}",
            "hyphen": f"{number}-{letter}",
            "dotted": f"{number[:2]}.{number[2:5]}.{number[5:]}-{letter}",
        }[fmt]
        return Ent(text, KIND_LABELS["dni"], "dni", "0" if wrong else "1", fmt)

    def nie(self, section: str, wrong: bool = False) -> Ent:
        body = self.rng.choice("XYZ") + self.digits(7)
        letter = std_nie.calc_check_digit(body)
        if wrong:
            letter = self.rng.choice([c for c in "TRWAGMYFPDXBNJZSQVHLCKE" if c != letter])
        fmt = self.pick("plain", "hyphen", "space")
        text = {
            "plain": f"{body}{letter}",
            "hyphen": f"{body[0]}-{body[1:]}-{letter}",
            "space": f"{body[0]} {body[1:]} {letter}",
        }[fmt]
        return Ent(text, KIND_LABELS["nie"], "nie", "0" if wrong else "1", fmt)

    def passport(self) -> Ent:
        fmt = self.pick("es", "foreign")
        if fmt == "es":
            text = "".join(self.rng.choice(string.ascii_uppercase) for _ in range(3)) + self.digits(
                6
            )
        else:
            text = "".join(self.rng.choice(string.ascii_uppercase) for _ in range(2)) + self.digits(
                7
            )
        return Ent(text, KIND_LABELS["passport"], "passport", "na", fmt)

    def nhc(self, fmt: str | None = None) -> Ent:
        fmt = fmt or self.pick("plain6", "plain7", "plain8")
        return Ent(self.digits(int(fmt[-1])), KIND_LABELS["nhc"], "nhc", "na", fmt)

    def cip(self) -> tuple[str, Ent]:
        """(key, value): a regional code or the 16-character CIP-SNS shape."""
        fmt = self.pick("cip_sns", "tsi", "cipa_digits", "cipa_nhc", "nuhsa")
        letters = "".join(self.rng.choice(string.ascii_uppercase) for _ in range(4))
        if fmt == "cip_sns":
            return "CIP-SNS: ", Ent(letters + self.digits(12), KIND_LABELS["cip"], "cip", "na", fmt)
        if fmt == "tsi":
            return "TSI: ", Ent(letters + self.digits(12), KIND_LABELS["cip"], "cip", "na", fmt)
        if fmt == "cipa_digits":
            return "CIPA: ", Ent(self.digits(10), KIND_LABELS["cip"], "cip", "na", fmt)
        if fmt == "cipa_nhc":  # guidelines N17.1: the nhc- prefix is not annotated
            return "CIPA: nhc-", Ent(self.digits(6), KIND_LABELS["cip"], "cip", "na", fmt)
        return "NUHSA: ", Ent("AN" + self.digits(10), KIND_LABELS["cip"], "cip", "na", fmt)

    def nass(self) -> Ent:
        province = f"{self.rng.randint(1, 52):02d}"
        body = self.digits(8)
        check = f"{int(province + body) % 97:02d}"  # the NUSS control digits (as Faker es_ES)
        fmt = self.pick("slashes", "space2", "plain", "spaces", "hyphens")
        text = {
            "slashes": f"{province}/{body}/{check}",
            "space2": f"{province} {body}{check}",
            "plain": f"{province}{body}{check}",
            "spaces": f"{province} {body} {check}",
            "hyphens": f"{province}-{body}-{check}",
        }[fmt]
        return Ent(text, KIND_LABELS["nass"], "nass", "1", fmt)

    def episode(self) -> Ent:
        fmt = self.pick("digits8", "digits10", "year_prefixed")
        text = {
            "digits8": self.digits(8),
            "digits10": self.digits(10),
            "year_prefixed": f"{self.rng.randint(2015, 2024)}{self.digits(6)}",
        }[fmt]
        return Ent(text, KIND_LABELS["episode"], "episode", "na", fmt)

    # -- bank accounts --------------------------------------------------------------------
    def _ccc_number(self) -> str:
        raw = self.digits(8) + "00" + self.digits(10)
        return raw[:8] + std_ccc.calc_check_digits(raw) + raw[10:]

    def ccc(self) -> Ent:
        number = self._ccc_number()
        fmt = self.pick("hyphens", "spaces", "plain")
        text = {
            "hyphens": f"{number[:4]}-{number[4:8]}-{number[8:10]}-{number[10:]}",
            "spaces": f"{number[:4]} {number[4:8]} {number[8:10]} {number[10:]}",
            "plain": number,
        }[fmt]
        return Ent(text, KIND_LABELS["ccc"], "ccc", "1", fmt)

    def iban(self) -> Ent:
        country = self.pick("ES", "ES", "ES", "DE", "GB", "NL", "PT")
        if country == "ES":
            number = std_ccc.to_iban(self._ccc_number())
        else:
            bban = {
                "DE": lambda: self.digits(18),
                "GB": lambda: "".join(self.rng.choice(string.ascii_uppercase) for _ in range(4))
                + self.digits(14),
                "NL": lambda: "".join(self.rng.choice(string.ascii_uppercase) for _ in range(4))
                + self.digits(10),
                "PT": lambda: "0035" + self.digits(17),
            }[country]()
            if country == "PT":  # the Portuguese BBAN ends with its own mod-97 check
                bban = bban[:19] + f"{98 - int(bban[:19]) * 100 % 97:02d}"
            number = country + std_iban.calc_check_digits(country + "00" + bban) + bban
            if not std_iban.is_valid(
                number
            ):  # a national check stdnum knows and we do not: drop it
                number = std_ccc.to_iban(self._ccc_number())
        grouped = self.rng.random() < 0.6
        text = " ".join(number[i : i + 4] for i in range(0, len(number), 4)) if grouped else number
        return Ent(
            text,
            KIND_LABELS["iban"],
            "iban",
            "1",
            f"{number[:2].lower()}_{'grouped' if grouped else 'plain'}",
        )

    # -- phones, fax, e-mail, internet ------------------------------------------------------
    def _es_number(self, mobile: bool) -> str:
        if mobile:
            return self.pick("6", "6", "7") + self.digits(8)
        return self.pick("91", "93", "96", "95", "98", "94") + self.digits(7)

    def _format_es(self, number: str) -> tuple[str, str]:
        fmt = self.pick(
            "3-3-3",
            "compact",
            "3-2-2-2",
            "hyphen",
            "dots",
            "plus34",
            "plus34_compact",
            "0034",
            "paren34",
            "2-3-2-2",
        )
        a = number
        text = {
            "3-3-3": f"{a[:3]} {a[3:6]} {a[6:]}",
            "compact": a,
            "3-2-2-2": f"{a[:3]} {a[3:5]} {a[5:7]} {a[7:]}",
            "hyphen": f"{a[:3]}-{a[3:5]}-{a[5:7]}-{a[7:]}",
            "dots": f"{a[:3]}.{a[3:6]}.{a[6:]}",
            "plus34": f"+34 {a[:3]} {a[3:6]} {a[6:]}",
            "plus34_compact": f"+34{a}",
            "0034": f"0034 {a[:3]} {a[3:5]} {a[5:7]} {a[7:]}",
            "paren34": f"(+34) {a[:3]} {a[3:6]} {a[6:]}",
            "2-3-2-2": f"{a[:2]} {a[2:5]} {a[5:7]} {a[7:]}",
        }[fmt]
        return text, fmt

    def phone(self) -> Ent:
        mobile = self.rng.random() < 0.6
        text, fmt = self._format_es(self._es_number(mobile))
        return Ent(
            text, KIND_LABELS["phone"], "phone", "na", ("mobile_" if mobile else "landline_") + fmt
        )

    def phone_foreign(self) -> tuple[str, Ent]:
        country, text = self.pick(
            (
                "Francia",
                f"+33 6 {self.digits(2)} {self.digits(2)} {self.digits(2)} {self.digits(2)}",
            ),
            ("Reino Unido", f"+44 20 {self.digits(4)} {self.digits(4)}"),
            ("Alemania", f"+49 30 {self.digits(8)}"),
            ("Portugal", f"+351 912 {self.digits(3)} {self.digits(3)}"),
            ("Marruecos", f"00212 6{self.digits(2)} {self.digits(3)} {self.digits(3)}"),
        )
        return country, Ent(
            text,
            KIND_LABELS["phone_foreign"],
            "phone_foreign",
            "na",
            country.lower().replace(" ", "_"),
        )

    def fax(self) -> Ent:
        text, fmt = self._format_es(self._es_number(False))
        return Ent(text, KIND_LABELS["fax"], "fax", "na", fmt)

    def email(self) -> Ent:
        user = self.fake.user_name()
        fmt = self.pick("free", "institutional", "dotted")
        if fmt == "free":
            text = f"{user}@{self.fake.free_email_domain()}"
        elif fmt == "institutional":
            text = f"{user}@{self.fake.domain_word()}-salud.{self.pick(*TLDS)}"
        else:
            given, family = self.fake.first_name().lower(), self.fake.last_name().lower()
            text = f"{given}.{family}@{self.fake.domain_word()}.es"
        text = text.translate(str.maketrans("áéíóúñü ", "aeiounu_"))
        return Ent(text, KIND_LABELS["email"], "email", "na", fmt)

    def url(self) -> Ent:
        domain = f"{self.fake.domain_word()}.{self.pick(*TLDS)}".translate(
            str.maketrans("áéíóúñü", "aeiounu")
        )
        fmt = self.pick("www", "www_path", "https", "http", "ftp")
        path = self.pick("citas", "pacientes/portal", "informes", "docs/consentimiento.pdf")
        text = {
            "www": f"www.{domain}",
            "www_path": f"www.{domain}/{path}",
            "https": f"https://www.{domain}/{path}",
            "http": f"http://{domain}/{path}",
            "ftp": f"ftp://ftp.{domain}/{path}",
        }[fmt]
        label = "URL_WEB" if fmt.startswith("www") else "DIREC_PROT_INTERNET"
        return Ent(text, label, "url", "na", fmt)

    def ipv4(self) -> Ent:
        private = self.rng.random() < 0.5
        text = self.fake.ipv4_private() if private else self.fake.ipv4_public()
        return Ent(text, KIND_LABELS["ipv4"], "ipv4", "na", "private" if private else "public")

    def ipv6(self) -> Ent:
        full = self.rng.random() < 0.5
        if full:
            text = self.fake.ipv6()
        else:
            text = (
                f"fe80::{self.digits(1)}{self.rng.choice('abcdef')}2b:{self.digits(2)}ff:"
                f"fe{self.digits(2)}:{self.digits(3)}{self.rng.choice('abcdef')}"
            )
        return Ent(text, KIND_LABELS["ipv6"], "ipv6", "na", "full" if full else "compressed")

    def mac(self) -> Ent:
        octets = [f"{self.rng.randrange(256):02x}" for _ in range(6)]
        fmt = self.pick("colons", "hyphens_upper", "cisco")
        text = {
            "colons": ":".join(octets),
            "hyphens_upper": "-".join(octets).upper(),
            "cisco": ".".join("".join(octets[i : i + 2]) for i in range(0, 6, 2)),
        }[fmt]
        return Ent(text, KIND_LABELS["mac"], "mac", "na", fmt)

    def serial(self) -> Ent:
        fmt = self.pick("sn_hex", "letters_digits", "groups")
        hexd = "0123456789ABCDEF"
        text = {
            "sn_hex": "SN-" + "".join(self.rng.choice(hexd) for _ in range(8)),
            "letters_digits": "".join(self.rng.choice(string.ascii_uppercase) for _ in range(3))
            + self.digits(6)
            + self.rng.choice(string.ascii_uppercase),
            "groups": "-".join("".join(self.rng.choice(hexd) for _ in range(4)) for _ in range(3)),
        }[fmt]
        return Ent(text, KIND_LABELS["serial"], "serial", "na", fmt)

    # -- vehicles, staff, other -------------------------------------------------------------
    def plate(self) -> Ent:
        fmt = self.pick("space", "hyphen", "compact", "old_province", "old_space")
        letters = "".join(self.rng.choice(PLATE_LETTERS) for _ in range(3))
        num = self.digits(4)
        prov = self.rng.choice(PROVINCE_CODES)
        text = {
            "space": f"{num} {letters}",
            "hyphen": f"{num}-{letters}",
            "compact": f"{num}{letters}",
            "old_province": f"{prov}-{num}-{letters[:2]}",
            "old_space": f"{prov} {num} {letters[:2]}",
        }[fmt]
        return Ent(text, KIND_LABELS["plate"], "plate", "na", fmt)

    def vin(self) -> Ent:
        return Ent(self.fake.vin(), KIND_LABELS["vin"], "vin", "na", "vin17")

    def employee(self) -> Ent:
        fmt = self.pick("u_digits", "e_digits", "hyphen")
        text = {
            "u_digits": "u" + self.digits(6),
            "e_digits": "e" + self.digits(6),
            "hyphen": "E-" + self.digits(5),
        }[fmt]
        return Ent(text, KIND_LABELS["employee"], "employee", "na", fmt)

    def member(self) -> Ent:
        fmt = self.pick("digits10", "digits8", "letter_hyphen")
        text = {
            "digits10": self.digits(10),
            "digits8": self.digits(8),
            "letter_hyphen": "B-" + self.digits(6),
        }[fmt]
        return Ent(text, KIND_LABELS["member"], "member", "na", fmt)


def keyed(values: Values, kind: str, section: str, wrap: bool = False) -> list[Part]:
    """The parts that plant one identifier of `kind`: its key (or phrase) and its value.

    Header and footer use `Clave: valor`; the body uses a phrase of free text.
    """
    v = values
    body = section == "body"
    if kind == "dni":
        wrong = not wrap and v.rng.random() < 0.2
        ent = v.dni(section, wrong=wrong, wrap=wrap)
        if body:
            return _body_dni(v, ent)
        return [v.pick("DNI: ", "NIF: ", "D.N.I.: "), ent]
    if kind == "nie":
        ent = v.nie(section, wrong=v.rng.random() < 0.2)
        if body:
            before, after = v.pick(
                ("Es ciudadano extranjero residente, con NIE ", ", y vive solo."),
                ("Presenta tarjeta de residencia (NIE ", ") en vigor."),
            )
            return [before, ent, after]
        return [v.pick("NIE: ", "N.I.E.: "), ent]
    if kind == "passport":
        ent = v.passport()
        if body:
            return [
                "Al no disponer de tarjeta sanitaria se registra con el pasaporte nº ",
                ent,
                ".",
            ]
        return [v.pick("Pasaporte: ", "Nº pasaporte: "), ent]
    if kind == "nhc":
        if v.rng.random() < 0.3:
            ent = v.nhc("plain7")
            ent.fmt = "nhc_prefix"
            if body:
                return ["Se revisa la historia previa (", "nhc-", ent, ") en el archivo."]
            return ["Historia: nhc-", ent]
        ent = v.nhc()
        if body:
            return [
                v.pick("Consta en la historia clínica nº ", "Con número de historia "),
                ent,
                " figura un ingreso anterior.",
            ]
        return [v.pick("Nº historia: ", "N.H.C.: "), ent]
    if kind == "cip":
        key, ent = v.cip()
        if body:
            name, _, prefix = key.partition(": ")
            return [
                "Su código de identificación (",
                name,
                " ",
                prefix,
                ent,
                ") se comprueba en admisión.",
            ]
        return [key, ent]
    if kind == "nass":
        ent = v.nass()
        if body:
            return [
                v.pick(
                    "Su número de afiliación a la Seguridad Social es el ",
                    "Se tramita la baja con el NUSS ",
                ),
                ent,
                ".",
            ]
        return [v.pick("NUSS: ", "Nº Seg. Social: ", "NASS: "), ent]
    if kind == "episode":
        ent = v.episode()
        if body:
            return [
                v.pick(
                    "El ingreso se registra con el nº de episodio ",
                    "Se abre el proceso asistencial nº ",
                ),
                ent,
                ".",
            ]
        return [v.pick("Nº episodio: ", "Episodio: "), ent]
    if kind == "iban":
        ent = v.iban()
        if body:
            return [
                "La familia facilita la cuenta ",
                ent,
                " para el reintegro de los gastos de transporte.",
            ]
        return [v.pick("IBAN: ", "Cuenta (IBAN): "), ent]
    if kind == "ccc":
        ent = v.ccc()
        if body:
            return ["El copago de la ortesis se carga en la cuenta corriente ", ent, "."]
        return [v.pick("CCC: ", "Nº de cuenta: "), ent]
    if kind == "phone":
        ent = v.phone()
        if body:
            return [
                v.pick(
                    "Se contacta con su hija en el teléfono ",
                    "El paciente queda localizable en el ",
                    "Se deja aviso a su esposo al ",
                ),
                ent,
                ".",
            ]
        return [v.pick("Teléfono: ", "Tel.: ", "Móvil: ", "Tfno. "), ent]
    if kind == "phone_foreign":
        country, ent = v.phone_foreign()
        if body:
            return [f"Su hermano, que reside en {country}, pide ser avisado al ", ent, "."]
        return [f"Teléfono ({country}): ", ent]
    if kind == "fax":
        ent = v.fax()
        if body:
            return ["Se remite el informe por fax al ", ent, " del centro de destino."]
        return [v.pick("Fax: ", "FAX: ", "Nº de fax: "), ent]
    if kind == "email":
        ent = v.email()
        if body:
            return ["Envía las fotografías de la lesión a ", ent, "."]
        return [v.pick("E-mail: ", "Correo electrónico: ", "email: "), ent]
    if kind == "url":
        ent = v.url()
        if body:
            return ["Se le indica que puede consultar los resultados en ", ent, "."]
        return [v.pick("Web: ", "url: ", "Portal del paciente: "), ent]
    if kind == "ipv4":
        ent = v.ipv4()
        if body:
            return ["Las imágenes se envían al servidor PACS ", ent, " para su valoración."]
        return [v.pick("IP: ", "Dirección IP: "), ent]
    if kind == "ipv6":
        ent = v.ipv6()
        if body:
            return ["El monitor domiciliario transmite desde la dirección ", ent, "."]
        return ["IPv6: ", ent]
    if kind == "mac":
        ent = v.mac()
        if body:
            return ["El glucómetro se empareja con el equipo de MAC ", ent, "."]
        return [v.pick("MAC: ", "mac: "), ent]
    if kind == "serial":
        ent = v.serial()
        if body:
            return [
                v.pick(
                    "Portador de marcapasos bicameral (nº de serie ",
                    "Se implanta neuroestimulador con número de serie ",
                ),
                ent,
                v.pick(") sin incidencias.", "."),
            ]
        return [v.pick("Nº de serie: ", "S/N: "), ent]
    if kind == "plate":
        ent = v.plate()
        if body:
            return [
                "Sufre un atropello por el turismo de matrícula ",
                ent,
                " al cruzar la calzada.",
            ]
        return [v.pick("Matrícula: ", "Vehículo matrícula "), ent]
    if kind == "vin":
        ent = v.vin()
        if body:
            return ["El atestado recoge el número de bastidor ", ent, " del vehículo implicado."]
        return [v.pick("Nº bastidor: ", "VIN: "), ent]
    if kind == "employee":
        ent = v.employee()
        if body:
            return ["Atiende la urgencia la enfermera con nº de empleado ", ent, "."]
        return [v.pick("Nº empleado: ", "Nº de empleado: "), ent]
    if kind == "member":
        ent = v.member()
        if body:
            return ["Es miembro de la asociación de pacientes con nº de socio ", ent, "."]
        return [v.pick("NºSocio: ", "Nº socio: "), ent]
    raise ValueError(f"unknown kind {kind}")


def _body_dni(v: Values, ent: Ent) -> list[Part]:
    if ent.fmt == "wrapped":
        return ["Acude sin tarjeta sanitaria y se le identifica con el DNI ", ent, " en admisión."]
    return [
        v.pick("Aporta DNI ", "Se identifica con su NIF ", "Consta su DNI "),
        ent,
        " en la hoja de ingreso.",
    ]


# ---- the non-identifier PHI and the look-alikes ------------------------------------------


def date_ent(v: Values, year: int) -> Ent:
    d, m = v.rng.randint(1, 28), v.rng.randint(1, 12)
    text = v.pick(
        f"{d:02d}/{m:02d}/{year}",
        f"{d}-{m}-{year}",
        f"{d} de {MONTHS[m - 1]} de {year}",
        f"{d:02d}.{m:02d}.{year}",
    )
    return Ent(text, "FECHAS")


def lookalike(v: Values, which: str) -> list[Part]:
    """A sentence with one or more numbers that are not PHI (NO_PHI entities)."""

    def n(text, kind):
        return Ent(text, NO_PHI, kind=kind)

    if which == "lab":
        return [
            "Analítica: leucocitos ",
            n(f"{v.rng.randint(4, 19)}.{v.digits(3)}/mm3", "lab_value"),
            ", hemoglobina ",
            n(f"{v.rng.randint(8, 16)},{v.digits(1)} g/dl", "lab_value"),
            ", plaquetas ",
            n(f"{v.rng.randint(120, 450)}.000/mm3", "lab_value"),
            ", creatinina ",
            n(f"{v.rng.randint(0, 2)},{v.digits(2)} mg/dl", "lab_value"),
            ".",
        ]
    if which == "gas":
        return [
            "Gasometría venosa con pH ",
            n(f"7,{v.rng.randint(20, 45)}", "ph"),
            ", pCO2 ",
            n(f"{v.rng.randint(32, 60)} mmHg", "lab_value"),
            " y bicarbonato ",
            n(f"{v.rng.randint(18, 30)} mEq/l", "lab_value"),
            ".",
        ]
    if which == "vitals":
        return [
            "A la exploración, TA ",
            n(f"{v.rng.randint(100, 170)}/{v.rng.randint(55, 100)} mmHg", "blood_pressure"),
            ", FC ",
            n(f"{v.rng.randint(55, 120)} lpm", "vital"),
            ", SatO2 ",
            n(f"{v.rng.randint(88, 100)}%", "percentage"),
            " y temperatura ",
            n(f"{v.rng.randint(36, 39)},{v.digits(1)} ºC", "vital"),
            ".",
        ]
    if which == "dose":
        return [
            "Se pauta amoxicilina-clavulánico ",
            n(f"{v.pick('500', '875')} mg/8h", "dose"),
            " y enoxaparina ",
            n(f"{v.pick('40', '60', '80')} mg/24h", "dose"),
            " por vía subcutánea.",
        ]
    if which == "icd":
        code = v.pick("C34.1", "C61", "I21.4", "J18.9", "N18.3", "K80.20", "E11.9", "C50.41")
        return ["Diagnóstico principal codificado como ", n(code, "icd10"), " (CIE-10)."]
    if which == "size":
        return [
            "La TC muestra una masa de ",
            n(f"{v.rng.randint(1, 9)},{v.digits(1)} x {v.rng.randint(1, 5)} cm", "size"),
            " con un Ki-67 del ",
            n(f"{v.rng.randint(5, 60)}%", "percentage"),
            ".",
        ]
    if which == "ui":
        return [
            "Recibe penicilina G benzatina ",
            n(f"{v.pick('1.200.000', '2.400.000', '1.000.000')} UI", "dose"),
            " por vía intramuscular.",
        ]
    if which == "time":
        return [
            "La primera dosis se administra a las ",
            n(f"{v.rng.randint(7, 23):02d}:{v.pick('00', '15', '30', '45')} h", "time"),
            " con buena tolerancia.",
        ]
    if which == "psa":
        return [
            "PSA de ",
            n(f"{v.rng.randint(1, 40)},{v.digits(1)} ng/ml", "lab_value"),
            " y filtrado glomerular de ",
            n(f"{v.rng.randint(30, 110)} ml/min/1,73 m2", "lab_value"),
            ".",
        ]
    if which == "atc":
        return [
            "Tratamiento habitual: atorvastatina (ATC ",
            n(v.pick("C10AA05", "C09AA02", "A10BA02", "N02BE01"), "atc"),
            ") y omeprazol.",
        ]
    if which == "tnm":
        return [
            "Estadificación ",
            n(v.pick("pT2N1M0", "cT3N0M0", "ypT1bN0", "pT1cN1aM0"), "tnm"),
            " tras la cirugía.",
        ]
    if which == "variant":
        gene, var = v.pick(
            ("BRCA1", "c.68_69delAG"), ("EGFR", "p.L858R"), ("KRAS", "c.35G>A"), ("TP53", "p.R175H")
        )
        return [
            f"Se detecta la variante {gene} ",
            n(var, "variant"),
            " (",
            n(f"rs{v.digits(8)}", "dbsnp"),
            ").",
        ]
    if which == "loinc":
        return [
            "Determinación de glucosa (LOINC ",
            n(v.pick("2345-7", "4548-4", "2160-0"), "loinc"),
            ") y SNOMED CT ",
            n(v.pick("22298006", "44054006", "38341003"), "snomed"),
            ".",
        ]
    if which == "karyotype":
        return [
            "Cariotipo ",
            n(v.pick("46,XX", "46,XY", "47,XY,+21"), "karyotype"),
            " en sangre periférica.",
        ]
    if which == "lot":
        return [
            "Vacuna administrada, lote ",
            n(f"{v.pick('FH', 'EW', 'AB')}{v.digits(4)}", "lot"),
            ", y prótesis REF ",
            n(f"{v.digits(4)}-{v.digits(2)}-{v.digits(3)}", "catalogue"),
            ".",
        ]
    raise ValueError(which)


# ---- clinical codes that identify no one (the code reports) ------------------------------
# Each is valid by its own rule (pipeline/clinical_codes.py): SNOMED CT ids with their Verhoeff
# digit and a concept partition, LOINC with its Luhn digit, MedDRA in its range, trial numbers
# in their format, HGVS variants and karyotypes in their grammar.
SNOMED_TERMS = (
    "hipertensión arterial",
    "diabetes mellitus tipo 2",
    "asma",
    "fibrilación auricular",
    "insuficiencia cardiaca",
    "enfermedad renal crónica",
    "EPOC",
    "dislipemia",
    "anemia ferropénica",
)
MEDDRA_TERMS = (
    "náuseas",
    "exantema",
    "cefalea",
    "neutropenia febril",
    "hepatotoxicidad",
    "mareo",
    "diarrea",
)
LOINC_TESTS = (
    "glucosa en suero",
    "hemoglobina glicada",
    "creatinina",
    "potasio",
    "TSH",
    "ferritina",
    "PCR",
)
ICD10_CODES = (
    ("C34.1", "neoplasia de lóbulo superior de pulmón"),
    ("I21.4", "infarto sin elevación del ST"),
    ("J18.9", "neumonía"),
    ("N18.3", "enfermedad renal crónica estadio 3"),
    ("E11.9", "diabetes tipo 2"),
    ("K80.20", "colelitiasis"),
    ("S72.001A", "fractura de cuello femoral"),
    ("U07.1", "COVID-19"),
    ("F32.1", "episodio depresivo moderado"),
    ("G40.909", "epilepsia"),
)
ICD10_CATEGORIES = ("I10", "C61", "J45", "E66", "N39", "K21", "M54", "R51")
ATC_CODES = (
    ("atorvastatina", "C10AA05"),
    ("enalapril", "C09AA02"),
    ("metformina", "A10BA02"),
    ("paracetamol", "N02BE01"),
    ("omeprazol", "A02BC01"),
    ("amoxicilina", "J01CA04"),
    ("levotiroxina", "H03AA01"),
    ("salbutamol", "R03AC02"),
)
AMINO = (
    "Ala",
    "Arg",
    "Asn",
    "Asp",
    "Cys",
    "Gln",
    "Glu",
    "Gly",
    "His",
    "Ile",
    "Leu",
    "Lys",
    "Met",
    "Phe",
    "Pro",
    "Ser",
    "Thr",
    "Trp",
    "Tyr",
    "Val",
)
ONE_LETTER = "ARNDCQEGHILKMFPSTWYV"
GENES = ("TP53", "BRCA1", "BRCA2", "KRAS", "EGFR", "BRAF", "CFTR", "PIK3CA", "NRAS", "MLH1")
KARYOTYPES = (
    "46,XX",
    "46,XY",
    "45,X",
    "47,XY,+21",
    "47,XX,+21",
    "47,XXY",
    "46,XX,t(9;22)(q34;q11)",
    "46,XY,del(5)(q13q33)",
    "46,XX,inv(16)(p13q22)",
    "47,XX,+18",
    "47,XY,+13",
)
VACCINES = (
    "la vacuna antigripal",
    "la vacuna frente a neumococo",
    "la dosis de recuerdo de tétanos",
    "la vacuna frente a hepatitis B",
)
DEVICES = (
    ("marcapasos", "Medtronic", "Adapta"),
    ("DAI", "Boston Scientific", "Resonate"),
    ("marcapasos", "Biotronik", "Edora"),
    ("sensor de glucosa", "Dexcom", "G"),
    ("implante coclear", "Cochlear", "Nucleus"),
    ("bomba de insulina", "Medtronic", "MiniMed"),
    ("prótesis de cadera", "Zimmer Biomet", "Taperloc"),
)
LOT_SUFFIXES = "ABCDEGJKLNPRSTXZ"  # not M or H, which a tokenizer may cut off as a sex
EHR_PRODUCTS = ("Diraya", "Millennium", "HCIS", "Orion Clinic", "Abucasis", "Osabide Global")
CODE_KINDS = (
    "snomed",
    "meddra",
    "loinc",
    "eudract",
    "euct",
    "nct",
    "icd10",
    "icd10_category",
    "atc",
    "variant",
    "karyotype",
    "lot",
    "model",
    "bed",
    "room",
    "ehr",
)


def snomed_code(v: Values, extension: bool = False) -> str:
    body = (
        str(v.rng.randint(1, 9))
        + v.digits(v.rng.randint(4, 7))
        + v.pick(*(("10", "11") if extension else ("00", "01")))
    )
    return body + verhoeff.calc_check_digit(body)


def loinc(v: Values) -> str:
    number = str(v.rng.randint(100, 99999))
    return f"{number}-{luhn.calc_check_digit(number)}"


def hgvs(v: Values) -> str:
    position = v.rng.randint(12, 2400)
    ref, alt = v.rng.sample("ACGT", 2)
    a1, a2 = v.rng.sample(AMINO, 2)
    return v.pick(
        f"c.{position}{ref}>{alt}",
        f"c.{position}_{position + 1}del{ref}{alt}",
        f"c.{position}dup{ref}",
        f"c.{position}+{v.rng.randint(1, 5)}{ref}>{alt}",
        f"p.({a1}{position // 3}{a2})",
        f"p.{a1}{position // 3}{a2}",
        f"p.{v.pick(*ONE_LETTER)}{position // 3}{v.pick(*ONE_LETTER)}",
        f"p.({a1}{position // 3}{a2}fs*{v.rng.randint(2, 40)})",
        f"p.{a1}{position // 3}*",
        f"NM_00{v.digits(4)}.{v.rng.randint(1, 9)}:c.{position}{ref}>{alt}",
    )


def clinical_code(v: Values, which: str) -> list[Part]:
    """A sentence with one or two clinical codes (NO_PHI look-alikes of type `which`)."""

    def n(text, kind=which):
        return Ent(text, NO_PHI, kind=kind)

    if which == "snomed":
        t1, t2 = v.rng.sample(SNOMED_TERMS, 2)
        return v.pick(
            [
                "Problemas activos (SNOMED CT): ",
                n(snomed_code(v)),
                f" ({t1}), ",
                n(snomed_code(v)),
                f" ({t2}).",
            ],
            [
                f"Se registra {t1} con el concepto SNOMED CT ",
                n(snomed_code(v, v.rng.random() < 0.3)),
                ".",
            ],
            ["Código SCTID ", n(snomed_code(v)), f" para {t1}."],
        )
    if which == "meddra":
        code = str(v.rng.randint(10000001, 10099999))
        return v.pick(
            [f"Se notifica a farmacovigilancia {v.pick(*MEDDRA_TERMS)} (MedDRA PT ", n(code), ")."],
            [f"Reacción adversa: {v.pick(*MEDDRA_TERMS)}, LLT ", n(code), "."],
        )
    if which == "loinc":
        return v.pick(
            [f"Se solicita {v.pick(*LOINC_TESTS)} (LOINC ", n(loinc(v)), ")."],
            [f"Resultado de {v.pick(*LOINC_TESTS)} [", n(loinc(v)), "] dentro de la normalidad."],
        )
    if which == "eudract":
        return [
            "Participa en el ensayo clínico con número EudraCT ",
            n(f"{v.rng.randint(2005, 2021)}-{v.digits(6)}-{v.digits(2)}"),
            ".",
        ]
    if which == "euct":
        return [
            "Se incluye en el ensayo EU CT ",
            n(f"{v.rng.randint(2022, 2025)}-5{v.digits(5)}-{v.digits(2)}-00"),
            ".",
        ]
    if which == "nct":
        return [
            "Ensayo registrado en el registro estadounidense como ",
            n(f"NCT0{v.digits(7)}"),
            ".",
        ]
    if which == "icd10":
        code, term = v.pick(*ICD10_CODES)
        return v.pick(
            [f"Diagnóstico al alta: {term} (", n(code), ")."],
            [f"Se codifica {term} como ", n(code), "."],
        )
    if which == "icd10_category":
        return [
            "Diagnósticos secundarios CIE-10: ",
            n(v.pick(*ICD10_CATEGORIES)),
            " y ",
            n(v.pick(*ICD10_CATEGORIES)),
            ".",
        ]
    if which == "atc":
        drug, code = v.pick(*ATC_CODES)
        return [f"Tratamiento con {drug} (ATC ", n(code), ") desde hace años."]
    if which == "variant":
        return [
            f"El estudio genético detecta en {v.pick(*GENES)} la variante ",
            n(hgvs(v)),
            " en heterocigosis.",
        ]
    if which == "karyotype":
        return ["Cariotipo en sangre periférica: ", n(v.pick(*KARYOTYPES)), "."]
    if which == "lot":
        letters = "".join(v.rng.choice(string.ascii_uppercase) for _ in range(2))
        return v.pick(
            [f"Se administra {v.pick(*VACCINES)}, lote ", n(f"{letters}{v.digits(4)}"), "."],
            [
                "Apósito hemostático L. ",
                n(f"{v.digits(4)}{v.rng.choice(LOT_SUFFIXES)}"),
                " sin incidencias.",
            ],
        )
    if which == "model":
        device, brand, line = v.pick(*DEVICES)
        letters = "".join(v.rng.choice(string.ascii_uppercase) for _ in range(v.rng.randint(2, 4)))
        model = f"{letters}{v.digits(2)}"
        return v.pick(
            [f"Portador de {device} {brand} {line} ", n(model), "."],
            [f"Se implanta {device} {brand}, modelo ", n(f"{v.digits(4)}-{v.digits(2)}"), "."],
        )
    if which == "bed":
        return [
            v.pick("Ingresa en la cama ", "Se traslada a la cama ", "Ocupa la cama "),
            n(str(v.rng.randint(1, 40))),
            " de la unidad.",
        ]
    if which == "room":
        return v.pick(
            ["Ubicado en la hab. ", n(str(v.rng.randint(101, 640))), " de planta."],
            ["Permanece en observación en el box ", n(str(v.rng.randint(1, 24))), "."],
            ["Se traslada a la habitación ", n(str(v.rng.randint(101, 640))), "."],
        )
    if which == "ehr":
        return [
            v.pick("Informe generado en ", "Datos extraídos de la estación clínica ", "Consta en "),
            n(v.pick(*EHR_PRODUCTS)),
            ".",
        ]
    raise ValueError(which)


# lab values, vitals, doses, sizes, times, and clinical codes that identify no one
LOOKALIKES = (
    "lab",
    "gas",
    "vitals",
    "dose",
    "icd",
    "size",
    "ui",
    "time",
    "psa",
    "atc",
    "tnm",
    "variant",
    "loinc",
    "karyotype",
    "lot",
)
BODY_OPENINGS = (
    "Informe clínico del paciente: {sexo} de {edad} que consulta por disnea de esfuerzo "
    "progresiva.",
    "Antecedentes personales: {sexo} de {edad}, exfumador{a}, con hipertensión arterial en "
    "tratamiento.",
    "Enfermedad actual: {sexo} de {edad} remitid{o} a consultas por hematuria macroscópica "
    "indolora.",
    "Informe clínico del paciente: {sexo} de {edad} que ingresa por dolor torácico opresivo.",
    "Motivo de consulta: {sexo} de {edad} con astenia, pérdida de peso y fiebre vespertina.",
)
BODY_FILLERS = (
    "Se solicita estudio de extensión.",
    "Se inicia tratamiento empírico con buena respuesta clínica.",
    "Durante el ingreso permanece hemodinámicamente estable.",
    "Se comenta el caso en el comité multidisciplinar.",
    "No presenta alergias medicamentosas conocidas.",
    "Evoluciona favorablemente y se decide el alta.",
)
BODY_CLOSINGS = (
    "Se recomienda control en consultas externas en {meses} meses.",
    "Se pauta revisión con nueva analítica en {meses} meses.",
    "Se deriva a su médico de atención primaria para seguimiento.",
)


def gendered(template: str, female: bool) -> str:
    """Spanish agreement: `{o}` -> o/a, `{a}` -> ""/a."""
    return template.replace("{o}", "a" if female else "o").replace("{a}", "a" if female else "")


def split_opening(template: str, sexo: str, edad: str) -> list[Part]:
    """The opening sentence with its SEXO and EDAD entities."""
    before, rest = template.split("{sexo}")
    middle, after = rest.split("{edad}")
    return [
        before,
        Ent(sexo, "SEXO_SUJETO_ASISTENCIA"),
        middle,
        Ent(edad, "EDAD_SUJETO_ASISTENCIA"),
        after,
    ]


def make_report(index: int, v: Values, codes: int = 0) -> Report:
    """One report; with `codes`, a code report: that many clinical code sentences replace the
    three look-alike sentences, and the NHC is a number that passes SNOMED CT's checks (after its
    key it is the patient's)."""
    rng, fake = v.rng, v.fake
    r = Report()
    female = rng.random() < 0.5
    first = fake.first_name_female() if female else fake.first_name_male()
    surnames = f"{fake.last_name()} {fake.last_name()}"
    age = rng.randint(18, 89)
    year = rng.randint(2016, 2024)
    doctor_female = rng.random() < 0.5
    doctor_first = fake.first_name_female() if doctor_female else fake.first_name_male()
    doctor = f"{doctor_first} {fake.last_name()} {fake.last_name()}"
    hospital = rng.choice(HOSPITALS)
    n = len(KINDS)
    header_kinds = [KINDS[(3 * index + j) % n] for j in range(3)]
    body_kinds = [KINDS[(4 * index + j + 7) % n] for j in range(4)]
    footer_kinds = [KINDS[(3 * index + j + 14) % n] for j in range(3)]
    # a few values broken by a line break, always in the body (a wrapped line)
    wrap_body_dni = index % 12 == 5
    if wrap_body_dni and "dni" not in body_kinds:
        body_kinds[0] = "dni"

    # ---- header: every line starts with a title the section segmenter knows -------------
    r.section = "header"
    extras = [keyed(v, kind, "header") for kind in header_kinds]
    hosts: dict[str, list[list[Part]]] = {
        "Domicilio": [],
        "Edad": [],
        "Fecha de Ingreso": [],
        "Médico": [],
    }
    for i, parts in enumerate(extras):
        hosts[list(hosts)[i % len(hosts)]].append(parts)

    def with_extras(title: str, line: list[Part]) -> None:
        r.add(*line)
        for parts in hosts.get(title, []):
            r.add(" ", *parts, ".")
        r.add("\n")

    r.add("Datos del paciente.\n")
    r.add("Nombre: ", Ent(first, "NOMBRE_SUJETO_ASISTENCIA"), ".\n")
    r.add("Apellidos: ", Ent(surnames, "NOMBRE_SUJETO_ASISTENCIA"), ".\n")
    nhc = Ent(snomed_code(v), KIND_LABELS["nhc"], "nhc", "na", "code_like") if codes else v.nhc()
    r.add("NHC: ", nhc, ".\n")
    city = fake.city()
    with_extras(
        "Domicilio",
        ["Domicilio: ", Ent(f"{fake.street_name()}, {rng.randint(1, 120)}", "CALLE"), "."],
    )
    r.add("Localidad/ Provincia: ", Ent(city, "TERRITORIO"), ".\n")
    r.add("CP: ", Ent(f"{rng.randint(1, 52):02d}{v.digits(3)}", "TERRITORIO"), "\n")
    with_extras(
        "Edad",
        [
            "Edad: ",
            Ent(f"{age} años", "EDAD_SUJETO_ASISTENCIA"),
            " Sexo: ",
            Ent("M" if female else "H", "SEXO_SUJETO_ASISTENCIA"),
            ".",
        ],
    )
    admission = [Ent(f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{year}", "FECHAS")]
    if index % 4 == 0:  # a time is not PHI (guidelines: hours are left out)
        admission += [
            " a las ",
            Ent(f"{rng.randint(0, 23):02d}:{rng.choice(['05', '20', '40'])}", NO_PHI, kind="time"),
        ]
    with_extras("Fecha de Ingreso", ["Fecha de Ingreso: ", *admission, "."])
    with_extras(
        "Médico",
        [
            "Médico: ",
            Ent(doctor, "NOMBRE_PERSONAL_SANITARIO"),
            " NºCol: ",
            Ent(f"{v.digits(2)} {v.digits(2)} {v.digits(5)}", "ID_TITULACION_PERSONAL_SANITARIO"),
            ".",
        ],
    )
    r.add("\n")

    # ---- body ---------------------------------------------------------------------------
    r.section = "body"
    sexo = "mujer" if female else "varón"
    r.add(*split_opening(gendered(rng.choice(BODY_OPENINGS), female), sexo, f"{age} años"), " ")
    looks = (
        [CODE_KINDS[(index + j) % len(CODE_KINDS)] for j in range(codes)]
        if codes
        else rng.sample(LOOKALIKES, 3)
    )
    planted = []
    for kind in body_kinds:
        planted.append(keyed(v, kind, "body", wrap=(wrap_body_dni and kind == "dni")))
    sentence = clinical_code if codes else lookalike
    sentences: list[list[Part]] = [*planted, *(sentence(v, w) for w in looks)]
    sentences.append(
        [
            gendered("Fue intervenid{o} en el ", female),
            Ent(hospital, "HOSPITAL"),
            " en ",
            Ent(str(year - rng.randint(1, 6)), "FECHAS"),
            ".",
        ]
    )
    rng.shuffle(sentences)
    for i, sentence in enumerate(sentences):
        r.add(*sentence)
        r.add("\n" if i % 3 == 2 else " ")
        if i == 2:
            r.add(rng.choice(BODY_FILLERS), " ")
    r.add(rng.choice(BODY_CLOSINGS).format(meses=rng.choice(["3", "6", "tres", "seis"])), "\n\n")

    # ---- footer: starts with "Remitido por" and runs to the end --------------------------
    r.section = "footer"
    r.add(
        "Remitido por: ",
        rng.choice(["Dra. " if doctor_female else "Dr. ", ""]),
        Ent(doctor, "NOMBRE_PERSONAL_SANITARIO"),
        ". ",
        "Servicio de ",
        rng.choice(SERVICES),
        ". ",
        Ent(hospital, "HOSPITAL"),
        ". ",
        Ent(f"{fake.street_name()} {rng.randint(1, 80)}", "CALLE"),
        ". ",
        Ent(f"{rng.randint(1, 52):02d}{v.digits(3)}", "TERRITORIO"),
        " ",
        Ent(fake.city(), "TERRITORIO"),
        ".\n",
    )
    for parts in (keyed(v, kind, "footer") for kind in footer_kinds):
        r.add(*parts, ". ")
    r.add("Fecha del informe: ", date_ent(v, year))
    if index % 3 == 1:
        r.add(
            ", firmado a las ",
            Ent(f"{rng.randint(8, 21):02d}:{rng.choice(['10', '35', '50'])}", NO_PHI, kind="time"),
            " h",
        )
    if index % 5 == 2:
        r.add(
            ". Código de alta: ",
            Ent(rng.choice(["C34.1", "I50.9", "N20.0", "C18.7"]), NO_PHI, kind="icd10"),
        )
    r.add(".\n")
    return r


# ---- the Americas: identifiers and phones of the Spanish-speaking countries and the US ----
# kind -> label, by the label conventions of the third round (assets/corpus/BRIEF_AMERICAS.md)
AMERICAS_LABELS: dict[str, str] = {
    "curp": "ID_SUJETO_ASISTENCIA",
    "rfc": "ID_SUJETO_ASISTENCIA",
    "nss_mx": "ID_ASEGURAMIENTO",
    "run_cl": "ID_SUJETO_ASISTENCIA",
    "dni_ar": "ID_SUJETO_ASISTENCIA",
    "cuit": "ID_SUJETO_ASISTENCIA",
    "cc_co": "ID_SUJETO_ASISTENCIA",
    "nit_co": "ID_SUJETO_ASISTENCIA",
    "dni_pe": "ID_SUJETO_ASISTENCIA",
    "ruc_pe": "ID_SUJETO_ASISTENCIA",
    "ci_ec": "ID_SUJETO_ASISTENCIA",
    "ruc_ec": "ID_SUJETO_ASISTENCIA",
    "cedula_do": "ID_SUJETO_ASISTENCIA",
    "ci_uy": "ID_SUJETO_ASISTENCIA",
    "rut_uy": "ID_SUJETO_ASISTENCIA",
    "ci_ve": "ID_SUJETO_ASISTENCIA",
    "rif_ve": "ID_SUJETO_ASISTENCIA",
    "ni_cu": "ID_SUJETO_ASISTENCIA",
    "cedula_cr": "ID_SUJETO_ASISTENCIA",
    "cedula_other": "ID_SUJETO_ASISTENCIA",
    "ssn": "ID_SUJETO_ASISTENCIA",
    "mbi": "ID_ASEGURAMIENTO",
    "medicaid": "ID_ASEGURAMIENTO",
    "affiliation": "ID_ASEGURAMIENTO",
    "plan_member": "NUMERO_BENEF_PLAN_SALUD",
    "record_americas": "ID_SUJETO_ASISTENCIA",
    "phone_national": "NUMERO_TELEFONO",
    "phone_cc": "NUMERO_TELEFONO",
}
# country -> the kinds its reports plant (rotated over header, body and footer)
AMERICAS_KINDS: dict[str, tuple[str, ...]] = {
    "MX": ("curp", "rfc", "nss_mx", "affiliation", "record_americas", "phone_national", "phone_cc"),
    "AR": ("dni_ar", "cuit", "plan_member", "record_americas", "phone_national", "phone_cc"),
    "CL": ("run_cl", "plan_member", "record_americas", "phone_national", "phone_cc"),
    "CO": ("cc_co", "nit_co", "plan_member", "record_americas", "phone_national", "phone_cc"),
    "PE": ("dni_pe", "ruc_pe", "affiliation", "plan_member", "phone_national", "phone_cc"),
    "EC": ("ci_ec", "ruc_ec", "affiliation", "record_americas", "phone_national", "phone_cc"),
    "DO": ("cedula_do", "plan_member", "record_americas", "phone_national", "phone_cc"),
    "UY": ("ci_uy", "rut_uy", "plan_member", "record_americas", "phone_national", "phone_cc"),
    "VE": ("ci_ve", "rif_ve", "affiliation", "record_americas", "phone_national", "phone_cc"),
    "CU": ("ni_cu", "record_americas", "phone_national", "phone_cc"),
    "CR": ("cedula_cr", "record_americas", "phone_national", "phone_cc"),
    "US": ("ssn", "mbi", "medicaid", "record_americas", "phone_national", "phone_cc"),
    "GT": ("cedula_other", "record_americas", "phone_national", "phone_cc"),
    "SV": ("cedula_other", "record_americas", "phone_national", "phone_cc"),
    "HN": ("cedula_other", "record_americas", "phone_national", "phone_cc"),
    "NI": ("cedula_other", "record_americas", "phone_national", "phone_cc"),
    "PA": ("cedula_other", "record_americas", "phone_national", "phone_cc"),
    "PY": ("cedula_other", "plan_member", "phone_national", "phone_cc"),
    "BO": ("cedula_other", "plan_member", "phone_national", "phone_cc"),
}
# the reports of each country, in this order: six of each country with kinds of its own (Cuba
# and Costa Rica four), two of each of the others
AMERICAS_COUNTRIES = tuple(
    country
    for country, n in (
        ("MX", 6),
        ("AR", 6),
        ("CL", 6),
        ("CO", 6),
        ("PE", 6),
        ("EC", 6),
        ("DO", 6),
        ("UY", 6),
        ("VE", 6),
        ("US", 6),
        ("CU", 4),
        ("CR", 4),
        ("GT", 2),
        ("SV", 2),
        ("HN", 2),
        ("NI", 2),
        ("PA", 2),
        ("PY", 2),
        ("BO", 2),
    )
    for _ in range(n)
)
# the kinds that count without a key, valid: their look-alike fails the check
FAILED_CHECK_KINDS: dict[str, tuple[str, ...]] = {
    "MX": ("curp", "rfc"),
    "AR": ("cuit",),
    "CL": ("run_cl",),
    "CO": ("nit_co",),
    "EC": ("ci_ec",),
    "DO": ("cedula_do",),
    "UY": ("ci_uy", "rut_uy"),
    "VE": ("rif_ve",),
    "US": ("ssn", "mbi"),
}
# the checks of the kinds that count without a key (configs/patterns/identifiers.jsonl)
KEYLESS_CHECKS = (
    "mx_curp",
    "mx_rfc",
    "cl_run",
    "ar_cuit",
    "co_nit",
    "ec_ci",
    "do_cedula",
    "uy_ci",
    "uy_rut",
    "ve_rif",
    "us_ssn",
    "us_mbi",
)
AMERICAS_CITIES = {
    "MX": ("Guadalajara", "Puebla", "Mérida", "Querétaro", "Toluca"),
    "AR": ("Rosario", "Córdoba", "Mendoza", "La Plata", "Salta"),
    "CL": ("Valparaíso", "Temuco", "Antofagasta", "Talca", "Rancagua"),
    "CO": ("Medellín", "Cali", "Barranquilla", "Bucaramanga", "Pereira"),
    "PE": ("Arequipa", "Trujillo", "Chiclayo", "Piura", "Cusco"),
    "EC": ("Guayaquil", "Cuenca", "Ambato", "Loja", "Manta"),
    "DO": ("Santiago de los Caballeros", "La Romana", "San Cristóbal", "Puerto Plata"),
    "UY": ("Salto", "Paysandú", "Rivera", "Maldonado", "Tacuarembó"),
    "VE": ("Maracaibo", "Valencia", "Barquisimeto", "Mérida", "Cumaná"),
    "CU": ("Camagüey", "Holguín", "Santa Clara", "Cienfuegos"),
    "CR": ("Alajuela", "Heredia", "Cartago", "Liberia"),
    "US": ("Houston", "El Paso", "Miami", "San Antonio", "Albuquerque"),
    "GT": ("Quetzaltenango", "Escuintla"),
    "SV": ("Santa Ana", "San Miguel"),
    "HN": ("San Pedro Sula", "La Ceiba"),
    "NI": ("León", "Matagalpa"),
    "PA": ("David", "Colón"),
    "PY": ("Encarnación", "Ciudad del Este"),
    "BO": ("Cochabamba", "Sucre"),
}
AMERICAS_HOSPITALS = (
    "Hospital General Regional Río Verde",
    "Hospital Municipal San Lorenzo",
    "Clínica Santa Rosalía",
    "Hospital Regional Docente Los Andes",
    "Sanatorio Monte Claro",
    "Hospital de Especialidades del Pacífico",
)
# insurers and plans: (country, the phrase that names the plan before its member number)
PLANS = {
    "AR": (
        "Obra social OSDE, nº de afiliado ",
        "Prepaga Galeno, nº de afiliado ",
        "PAMI nº de afiliado ",
    ),
    "CL": ("Isapre Colmena, nº de afiliado ", "Fonasa, nº de beneficiario "),
    "CO": ("EPS Sura, nº de afiliado ", "EPS Sanitas, nº de afiliado "),
    "PE": ("SIS, nº de afiliado ",),
    "DO": ("ARS Humano, nº de afiliado ", "SENASA, nº de afiliado "),
    "UY": ("Mutualista CASMU, nº de socio ",),
    "PY": ("Prepaga Asismed, nº de afiliado ",),
    "BO": ("Mutualista del Sur, nº de socio ",),
}
AFFILIATIONS = {
    "MX": ("Nº de afiliación al ISSSTE: ", "Nº de afiliación al IMSS: "),
    "PE": ("Nº de asegurado de EsSalud: ",),
    "EC": ("Nº de afiliación al IESS: ",),
    "VE": ("Nº de afiliación al IVSS: ",),
}
# the keys of the other countries' identity documents
OTHER_CEDULA_KEYS = {
    "GT": "DPI: ",
    "SV": "DUI: ",
    "HN": "DNI: ",
    "NI": "Cédula de identidad: ",
    "PA": "Cédula: ",
    "PY": "C.I.: ",
    "BO": "C.I.: ",
}


class AmericasValues(Values):
    """The identifiers of the Americas, valid by their check (python-stdnum, the kind's
    published rule; phones valid in their plan by phonenumbers), in their country's shapes;
    `wrong=True`: the same shape with a failing check."""

    def letters(self, n: int, alphabet: str = string.ascii_uppercase) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def birth(self) -> dt.date:
        return dt.date(1940, 1, 1) + dt.timedelta(days=self.rng.randrange(365 * 62))

    def curp(self, birth: dt.date, female: bool, wrong: bool = False) -> str:
        while True:
            body = (
                self.rng.choice("BCDFGHJLMNPRSTVZ")
                + self.rng.choice("AEIOU")
                + self.letters(2, "BCDFGHJLMNPRSTVZ")
                + birth.strftime("%y%m%d")
                + ("M" if female else "H")
                + self.pick("DF", "JC", "NL", "PL", "VZ", "YN", "GT", "MC")
                + self.letters(3, "BCDFGHJKLMNPQRSTVWXYZ")
                + (self.digits(1) if birth.year < 2000 else self.letters(1))
            )
            check = std_curp.calc_check_digit(body)
            if wrong:
                check = self.rng.choice([d for d in string.digits if d != check])
            if std_curp.is_valid(body + check, validate_check_digits=False):
                return body + check

    def wrong_last_digit(self, value: str) -> str:
        return value[:-1] + self.rng.choice([d for d in string.digits if d != value[-1]])

    def rfc(self, curp: str, wrong: bool = False) -> str:
        while True:
            body = curp[:10] + self.rng.choice("123456789ABCDEFGHJKLMNPRSTUV") + self.letters(1)
            check = std_rfc.calc_check_digit(body)
            if wrong:
                check = self.rng.choice([d for d in string.digits if d != check])
            if std_rfc.is_valid(body + check) and (
                wrong or std_rfc.is_valid(body + check, validate_check_digits=True)
            ):
                return body + check

    def with_check(self, body_fn, check_fn, valid_fn, wrong: bool, alphabet=string.digits) -> str:
        """A body and its check character (`wrong`: another one), valid by `valid_fn` or not."""
        while True:
            body = body_fn()
            check = check_fn(body)
            if check is None or len(check) != 1:
                continue
            if wrong:
                check = self.rng.choice([c for c in alphabet if c != check])
            if valid_fn(body + check) != wrong:
                return body + check

    def run_cl(self, wrong: bool = False) -> tuple[str, str]:
        number = self.with_check(
            lambda: str(self.rng.randint(5_000_000, 25_999_999)),
            std_cl_rut.calc_check_digit,
            std_cl_rut.is_valid,
            wrong,
            string.digits + "K",
        )
        fmt = self.pick("dotted", "hyphen")
        body, check = number[:-1], number[-1]
        if fmt == "dotted":
            grouped = f"{int(body):,}".replace(",", ".")
            return f"{grouped}-{check}", fmt
        return f"{body}-{check}", fmt

    def cuit(self, female: bool, wrong: bool = False) -> tuple[str, str]:
        kind = "27" if female else "20"
        number = self.with_check(
            lambda: kind + self.digits(8),
            std_ar_cuit.calc_check_digit,
            std_ar_cuit.is_valid,
            wrong,
        )
        return f"{number[:2]}-{number[2:10]}-{number[10]}", "hyphens"

    def nit_co(self, wrong: bool = False) -> tuple[str, str]:
        number = self.with_check(
            lambda: self.pick("8", "9") + self.digits(8),
            std_co_nit.calc_check_digit,
            std_co_nit.is_valid,
            wrong,
        )
        return f"{number[:3]}.{number[3:6]}.{number[6:9]}-{number[9]}", "dotted"

    def ci_ec(self, wrong: bool = False) -> tuple[str, str]:
        def check(body: str) -> str | None:
            return next((d for d in string.digits if std_ec_ci.is_valid(body + d)), None)

        number = self.with_check(
            lambda: f"{self.rng.randint(1, 24):02d}{self.rng.randint(0, 5)}{self.digits(6)}",
            check,
            std_ec_ci.is_valid,
            wrong,
        )
        fmt = "hyphen" if wrong else self.pick("hyphen", "plain")
        return (f"{number[:9]}-{number[9]}" if fmt == "hyphen" else number), fmt

    def cedula_do(self, wrong: bool = False) -> tuple[str, str]:
        number = self.with_check(
            lambda: self.pick("001", "402", "031", "223", "047") + self.digits(7),
            luhn.calc_check_digit,
            std_do_cedula.is_valid,
            wrong,
        )
        return f"{number[:3]}-{number[3:10]}-{number[10]}", "hyphens"

    def ci_uy(self, wrong: bool = False) -> tuple[str, str]:
        number = self.with_check(
            lambda: str(self.rng.randint(1_000_000, 6_999_999)),
            uy_ci_key,
            lambda v: uy_ci_key(v[:-1]) == v[-1],
            wrong,
        )
        fmt = "dotted" if wrong else self.pick("dotted", "hyphen")
        if fmt == "dotted":
            return f"{number[0]}.{number[1:4]}.{number[4:7]}-{number[7]}", fmt
        return f"{number[:7]}-{number[7]}", fmt

    def rut_uy(self, wrong: bool = False) -> tuple[str, str]:
        number = self.with_check(
            lambda: f"{self.rng.randint(1, 21):02d}{self.rng.randint(100000, 999999)}001",
            std_uy_rut.calc_check_digit,
            std_uy_rut.is_valid,
            wrong,
        )
        return f"{number[:2]}-{number[2:8]}-{number[8:11]}-{number[11]}", "hyphens"

    def rif_ve(self, wrong: bool = False) -> tuple[str, str]:
        number = self.with_check(
            lambda: "V" + self.digits(8),
            std_ve_rif.calc_check_digit,
            std_ve_rif.is_valid,
            wrong,
        )
        return f"{number[0]}-{number[1:9]}-{number[9]}", "hyphens"

    def ssn(self, wrong: bool = False) -> tuple[str, str]:
        if wrong:  # an area the SSA never issues
            area = self.pick("666", "000", f"9{self.digits(2)}")
        else:
            area = f"{self.rng.choice([a for a in range(1, 900) if a != 666]):03d}"
        return f"{area}-{self.rng.randint(1, 99):02d}-{self.rng.randint(1, 9999):04d}", "hyphens"

    def mbi(self, wrong: bool = False) -> tuple[str, str]:
        a = "ACDEFGHJKMNPQRTUVWXY"
        an = a + string.digits
        chars = [
            self.rng.choice("123456789"),
            self.rng.choice(a),
            self.rng.choice(an),
            self.digits(1),
            self.rng.choice(a),
            self.rng.choice(an),
            self.digits(1),
            self.rng.choice(a),
            self.rng.choice(a),
            self.digits(1),
            self.digits(1),
        ]
        if wrong:  # a letter the scheme leaves out
            chars[self.pick(1, 4, 7, 8)] = self.rng.choice("SLOIBZ")
        value = "".join(chars)
        fmt = "dashes" if wrong else self.pick("dashes", "plain")
        return (f"{value[:4]}-{value[4:7]}-{value[7:]}" if fmt == "dashes" else value), fmt

    def ni_cu(self, birth: dt.date, female: bool) -> str:
        century = (
            "9" if birth.year < 1900 else self.pick("0", "3", "5") if birth.year < 2000 else "7"
        )
        sex = self.rng.choice("13579" if female else "02468")
        while True:
            value = birth.strftime("%y%m%d") + century + self.digits(2) + sex + self.digits(1)
            if std_cu_ni.is_valid(value):
                return value

    def cedula_cr(self) -> str:
        while True:
            value = f"{self.rng.randint(1, 7)}-{self.digits(4)}-{self.digits(4)}"
            if std_cr_cpf.is_valid(value):
                return value

    def cedula_other(self, country: str) -> tuple[str, str]:
        rng, digits = self.rng, self.digits
        if country == "GT":  # DPI: 4, 5 and 4 digits (department and municipality last)
            text = f"{digits(4)} {digits(5)} {rng.randint(1, 22):02d}{digits(2)}"
        elif country == "SV":  # DUI
            text = f"0{digits(7)}-{digits(1)}"
        elif country == "HN":  # DNI: municipality, year of registration, entry
            text = f"0{rng.randint(101, 999)}-{rng.randint(1950, 2005)}-{digits(5)}"
        elif country == "NI":  # municipality, birth date, entry and a letter
            birth = f"{rng.randint(10, 28)}0{rng.randint(1, 9)}{rng.randint(50, 99)}"
            text = f"{digits(3)}-{birth}-{digits(4)}{self.letters(1)}"
        elif country == "PA":  # province, volume, entry
            text = f"{rng.randint(1, 9)}-{rng.randint(100, 999)}-{digits(4)}"
        elif country == "PY":
            text = f"{rng.randint(1, 6)}.{digits(3)}.{digits(3)}"
        else:  # Bolivia
            text = str(rng.randint(1_000_000, 9_999_999))
        return text, country.lower()

    def phone_plan(self, country: str, international: bool) -> tuple[str, str]:
        """A valid number of `country`'s plan, mobile or fixed, national or international."""
        region = country
        kind = self.pick(PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE)
        example = phonenumbers.example_number_for_type(region, kind) or (
            phonenumbers.example_number(region)
        )
        national = phonenumbers.national_significant_number(example)
        while True:
            digits = national[: self.rng.randint(1, 2)]
            digits += self.digits(len(national) - len(digits))
            number = phonenumbers.parse("+" + str(example.country_code) + digits, None)
            if phonenumbers.is_valid_number_for_region(number, region) and phonenumbers.number_type(
                number
            ) in (kind, PhoneNumberType.FIXED_LINE_OR_MOBILE):
                break
        style = (
            phonenumbers.PhoneNumberFormat.INTERNATIONAL
            if international
            else phonenumbers.PhoneNumberFormat.NATIONAL
        )
        text = phonenumbers.format_number(number, style)
        return text, ("international" if international else "national")


def americas_ent(v: AmericasValues, kind: str, text: str, fmt: str, country: str, valid="na"):
    return Ent(text, AMERICAS_LABELS[kind], kind, valid, fmt, country)


def americas_keyed(v: AmericasValues, kind: str, section: str, person: dict) -> list[Part]:
    """The parts that plant one identifier of `kind` of `person["country"]`: its key and its
    value in the header and footer (`Clave: valor`), a phrase in the body. A keyless kind is
    planted without its key in the body half the time; a checked one with a wrong check
    after its key one time in five."""
    country, female, birth = person["country"], person["female"], person["birth"]
    body = section == "body"
    bare = body and v.rng.random() < 0.5

    def ent(text, fmt, valid="na"):
        return americas_ent(v, kind, text, fmt, country, valid)

    wrong = v.rng.random() < 0.2 and not bare
    if kind == "curp":  # the patient's: the one CURP of the report, or it with a wrong check
        text = person["curp"] if not wrong else v.wrong_last_digit(person["curp"])
        e = ent(text, "plain", "0" if wrong else "1")
        if bare:
            return [
                "Se registra en el expediente electrónico con la clave ",
                e,
                " de la paciente." if female else " del paciente.",
            ]
        return ["CURP: ", e] if not body else ["Presenta su CURP ", e, " en la ventanilla."]
    if kind == "rfc":  # the patient's, agreeing with the CURP
        text = person["rfc"] if not wrong else v.wrong_last_digit(person["rfc"])
        e = ent(text, "plain", "0" if wrong else "1")
        if bare:
            return ["La factura se emite a nombre de ", e, " por el estudio."]
        return ["RFC: ", e] if not body else ["Para la factura proporciona su RFC ", e, "."]
    if kind == "nss_mx":
        number = v.digits(10)
        value = number + luhn.calc_check_digit(number)
        fmt = v.pick("plain", "grouped")
        text = (
            value
            if fmt == "plain"
            else f"{value[:2]}-{value[2:4]}-{value[4:6]}-{value[6:10]}-{value[10]}"
        )
        e = ent(text, fmt, "1")
        return (
            ["NSS: ", e]
            if not body
            else ["Derechohabiente del IMSS con número de seguro social ", e, "."]
        )
    if kind in (
        "run_cl",
        "cuit",
        "nit_co",
        "ci_ec",
        "cedula_do",
        "ci_uy",
        "rut_uy",
        "rif_ve",
        "ssn",
        "mbi",
    ):
        maker = {
            "run_cl": v.run_cl,
            "cuit": lambda wrong: v.cuit(female, wrong),
            "nit_co": v.nit_co,
            "ci_ec": v.ci_ec,
            "cedula_do": v.cedula_do,
            "ci_uy": v.ci_uy,
            "rut_uy": v.rut_uy,
            "rif_ve": v.rif_ve,
            "ssn": v.ssn,
            "mbi": v.mbi,
        }[kind]
        text, fmt = maker(wrong)
        if bare:  # keyless: the shape that counts without a key
            while (
                fmt not in ("dotted", "hyphens", "hyphen", "dashes")
                or (kind == "ci_uy" and fmt != "dotted")
                or (kind == "run_cl" and fmt not in ("dotted", "hyphen"))
            ):
                text, fmt = maker(False)
        e = ent(text, fmt, "0" if wrong else "1")
        key = {
            "run_cl": ("RUN: ", "RUT "),
            "cuit": ("CUIL: ", "CUIT "),
            "nit_co": ("NIT: ", "NIT "),
            "ci_ec": ("Cédula: ", "cédula "),
            "cedula_do": ("Cédula: ", "cédula "),
            "ci_uy": ("C.I.: ", "C.I. "),
            "rut_uy": ("RUT: ", "RUT "),
            "rif_ve": ("RIF: ", "RIF "),
            "ssn": ("SSN: ", "SSN "),
            "mbi": ("Medicare MBI: ", "MBI "),
        }[kind]
        if bare:
            return [
                v.pick("Trae consigo el comprobante ", "En la hoja de admisión consta "),
                e,
                v.pick(" para el trámite.", "."),
            ]
        if body:
            return [f"Se identifica con su {key[1]}", e, " en la admisión."]
        return [key[0], e]
    if kind == "dni_ar":
        number = str(v.rng.randint(5_000_000, 45_999_999))
        fmt = v.pick("dotted", "plain")
        text = f"{int(number):,}".replace(",", ".") if fmt == "dotted" else number
        e = ent(text, fmt)
        return ["DNI: ", e] if not body else ["Se identifica con DNI ", e, " en la guardia."]
    if kind == "cc_co":
        number = str(v.rng.randint(10_000_000, 1_099_999_999))
        fmt = v.pick("dotted", "plain")
        text = f"{int(number):,}".replace(",", ".") if fmt == "dotted" else number
        e = ent(text, fmt)
        return (
            ["C.C.: ", e]
            if not body
            else ["Paciente identificado con cédula de ciudadanía ", e, "."]
        )
    if kind == "dni_pe":
        number = v.digits(8)
        fmt = v.pick("plain", "check")
        text = number if fmt == "plain" else f"{number}-{std_pe_cui.calc_check_digits(number)[0]}"
        e = ent(text, fmt, "1" if fmt == "check" else "na")
        return ["DNI: ", e] if not body else ["Acude con su DNI ", e, " al establecimiento."]
    if kind == "ruc_pe":
        body_digits = "10" + v.digits(8)
        e = ent(body_digits + std_pe_ruc.calc_check_digit(body_digits), "plain", "1")
        return ["RUC: ", e] if not body else ["La boleta se emite con el RUC ", e, "."]
    if kind == "ruc_ec":
        cedula, _fmt = v.ci_ec()
        e = ent(cedula.replace("-", "") + "001", "plain", "1")
        return ["RUC: ", e] if not body else ["La factura se emite con su RUC ", e, "."]
    if kind == "ci_ve":
        number = str(v.rng.randint(5_000_000, 29_999_999))
        fmt = v.pick("dotted", "plain")
        text = "V-" + (f"{int(number):,}".replace(",", ".") if fmt == "dotted" else number)
        e = ent(text, fmt)
        if bare:
            return ["Firma el consentimiento con su documento ", e, " como consta."]
        return ["C.I.: ", e] if not body else ["Se identifica con cédula ", e, " en la emergencia."]
    if kind == "ni_cu":
        e = ent(v.ni_cu(birth, female), "plain", "1")
        return (
            ["Carné de identidad: ", e]
            if not body
            else ["Se registra con su carné de identidad ", e, "."]
        )
    if kind == "cedula_cr":
        e = ent(v.cedula_cr(), "hyphens", "1")
        return ["Cédula: ", e] if not body else ["Se identifica con la cédula ", e, " en el EBAIS."]
    if kind == "cedula_other":
        text, fmt = v.cedula_other(country)
        e = ent(text, fmt)
        key = OTHER_CEDULA_KEYS[country]
        return [key, e] if not body else [f"Se identifica con su {key.rstrip(': ')} ", e, "."]
    if kind == "medicaid":
        text = v.letters(2) + v.digits(6) + v.letters(1)
        e = ent(text, "letters_digits")
        return (
            ["Medicaid #: ", e] if not body else ["Tiene cobertura de Medicaid # ", e, " vigente."]
        )
    if kind == "affiliation":
        e = ent(v.digits(10), "digits10")
        return [v.pick(*AFFILIATIONS[country]), e] + (["."] if body else [])
    if kind == "plan_member":
        fmt = v.pick("digits", "groups")
        text = v.digits(9) if fmt == "digits" else f"{v.digits(2)}-{v.digits(6)}-{v.digits(2)}"
        e = ent(text, fmt)
        return [v.pick(*PLANS[country]), e] + (["."] if body else [])
    if kind == "record_americas":
        e = ent(str(v.rng.randint(10_000, 9_999_999)), "digits")
        key = v.pick("Expediente: ", "Ficha clínica nº ", "HC: ", "Nº de expediente: ")
        return (
            [key, e]
            if not body
            else ["Consta en el expediente clínico nº ", e, " un ingreso previo."]
        )
    if kind in ("phone_national", "phone_cc"):
        text, fmt = v.phone_plan(country, kind == "phone_cc")
        e = ent(text, fmt)
        if kind == "phone_cc" and body:
            return [v.pick("Se deja aviso a su hija al ", "Localizable en el "), e, "."]
        if kind == "phone_cc":
            return ["Contacto: ", e]
        return (
            [v.pick("Tel.: ", "Celular: ", "Teléfono: "), e]
            if not body
            else ["Se llama a su esposo al celular ", e, "."]
        )
    raise ValueError(f"unknown kind {kind}")


def failed_check(v: AmericasValues, kind: str, person: dict) -> list[Part]:
    """A value written in the keyless shape of `kind` whose check fails, without a key: a
    look-alike (`type=failed_check of=<kind>`)."""
    make = {
        "curp": lambda: v.curp(person["birth"], person["female"], wrong=True),
        "rfc": lambda: v.rfc(person["curp"], wrong=True),
        "run_cl": lambda: v.run_cl(True)[0],
        "cuit": lambda: v.cuit(person["female"], True)[0],
        "nit_co": lambda: v.nit_co(True)[0],
        "ci_ec": lambda: v.ci_ec(True)[0],
        "cedula_do": lambda: v.cedula_do(True)[0],
        "ci_uy": lambda: v.ci_uy(True)[0],
        "rut_uy": lambda: v.rut_uy(True)[0],
        "rif_ve": lambda: v.rif_ve(True)[0],
        "ssn": lambda: v.ssn(True)[0],
        "mbi": lambda: v.mbi(True)[0],
    }[kind]
    wrong = make()
    while any(CHECKS[check](wrong) for check in KEYLESS_CHECKS):
        wrong = make()  # one that another kind's check reads (a RUT that is a CI) is no look-alike
    e = Ent(wrong, NO_PHI, kind="failed_check", fmt=kind, country=person["country"])
    return [
        v.pick("En el sobre del laboratorio figura el código ", "El lector devuelve la secuencia "),
        e,
        v.pick(", que no corresponde.", " sin validar."),
    ]


AMERICAS_LOOKALIKES = ("lab", "dose", "icd", "size", "ui", "vitals", "ges", "form", "registration")


def americas_lookalike(v: AmericasValues, which: str) -> list[Part]:
    """A sentence with clinical or administrative numbers of the Americas that identify no one."""

    def n(text, kind):
        return Ent(text, NO_PHI, kind=kind)

    if which == "ges":
        return [
            "Se notifica como problema de salud GES nº ",
            n(str(v.rng.randint(1, 85)), "ges"),
            " (diabetes mellitus tipo 2).",
        ]
    if which == "form":
        return [
            "Se llena el formato ",
            n(f"{v.rng.randint(1, 9)}-{v.rng.randint(10, 40)}-{v.rng.randint(1, 9)}", "form"),
            " para la incapacidad.",
        ]
    if which == "registration":
        agency, code = v.pick(
            ("INVIMA", f"{v.rng.randint(2010, 2023)}M-{v.digits(7)}"),
            ("ISP", f"F-{v.digits(5)}/{v.rng.randint(10, 23)}"),
            ("COFEPRIS", f"{v.digits(3)}M{v.rng.randint(2010, 2023)}"),
        )
        return [
            f"Se dispensa el medicamento con registro sanitario {agency} ",
            n(code, "drug_registration"),
            ".",
        ]
    return lookalike(v, which)


def make_americas_report(index: int, v: AmericasValues, country: str) -> Report:
    """One report of `country`: a header of `Título: valor` lines, a body of phrases and a
    footer, planting the country's identifiers (rotated over the sections), one look-alike
    whose check fails where the country has a keyless kind, and clinical look-alikes."""
    rng, fake = v.rng, v.fake
    r = Report()
    female = rng.random() < 0.5
    birth = v.birth()
    person = {"country": country, "female": female, "birth": birth}
    person["curp"] = v.curp(birth, female)
    person["rfc"] = v.rfc(person["curp"])
    first = fake.first_name_female() if female else fake.first_name_male()
    surnames = f"{fake.last_name()} {fake.last_name()}"
    year = rng.randint(2019, 2025)
    age = year - birth.year
    doctor_female = rng.random() < 0.5
    doctor_first = fake.first_name_female() if doctor_female else fake.first_name_male()
    doctor = f"{doctor_first} {fake.last_name()}"
    hospital = rng.choice(AMERICAS_HOSPITALS)
    kinds = AMERICAS_KINDS[country]
    n = len(kinds)
    header_kinds = [kinds[(3 * index + j) % n] for j in range(3)]
    body_kinds = [kinds[(4 * index + j + 1) % n] for j in range(4)]
    footer_kinds = [kinds[(3 * index + j + 2) % n] for j in range(3)]

    r.section = "header"
    r.add("Datos del paciente.\n")
    r.add("Nombre: ", Ent(first, "NOMBRE_SUJETO_ASISTENCIA"), ".\n")
    r.add("Apellidos: ", Ent(surnames, "NOMBRE_SUJETO_ASISTENCIA"), ".\n")
    r.add("Fecha de nacimiento: ", Ent(birth.strftime("%d/%m/%Y"), "FECHAS"), ".\n")
    r.add("Sexo: ", Ent("Femenino" if female else "Masculino", "SEXO_SUJETO_ASISTENCIA"), ".\n")
    for kind in header_kinds:
        r.add(*americas_keyed(v, kind, "header", person), ".\n")
    city = rng.choice(AMERICAS_CITIES[country])
    r.add("Localidad: ", Ent(city, "TERRITORIO"), ".\n\n")

    r.section = "body"
    sexo = "mujer" if female else "varón"
    r.add(*split_opening(gendered(rng.choice(BODY_OPENINGS), female), sexo, f"{age} años"), " ")
    sentences: list[list[Part]] = [americas_keyed(v, kind, "body", person) for kind in body_kinds]
    failing = FAILED_CHECK_KINDS.get(country)
    if failing:
        sentences.append(failed_check(v, failing[index % len(failing)], person))
    sentences += [americas_lookalike(v, w) for w in rng.sample(AMERICAS_LOOKALIKES, 2)]
    sentences.append(
        [
            "Fue atendid",
            "a" if female else "o",
            " en ",
            Ent(hospital, "HOSPITAL"),
            " en ",
            Ent(str(year - rng.randint(1, 4)), "FECHAS"),
            ".",
        ]
    )
    rng.shuffle(sentences)
    for i, sentence in enumerate(sentences):
        r.add(*sentence)
        r.add("\n" if i % 3 == 2 else " ")
    r.add(rng.choice(BODY_CLOSINGS).format(meses=rng.choice(["3", "6", "tres", "seis"])), "\n\n")

    r.section = "footer"
    r.add(
        "Remitido por: ",
        Ent(doctor, "NOMBRE_PERSONAL_SANITARIO"),
        ". ",
        Ent(hospital, "HOSPITAL"),
        ".\n",
    )
    for kind in footer_kinds:
        r.add(*americas_keyed(v, kind, "footer", person), ". ")
    r.add("Fecha del informe: ", date_ent(v, year), ".\n")
    return r


def main(
    output_dir: Annotated[Path, typer.Argument(help="Folder for the <id>.txt / <id>.ann files")],
    n_reports: Annotated[int, typer.Option(help="Number of reports (at least 80)")] = 96,
    seed: Annotated[
        int, typer.Option(help="Random seed: the same seed writes the same files")
    ] = 20240,
    n_code_reports: Annotated[
        int, typer.Option(help="Code reports after them (clinical codes as look-alikes)")
    ] = 40,
    codes_per_report: Annotated[
        int, typer.Option(help="Clinical code sentences in a code report")
    ] = 13,
    n_americas_reports: Annotated[
        int,
        typer.Option(
            help="Reports of the Americas after them (identifiers and phones of each country)"
        ),
    ] = len(AMERICAS_COUNTRIES),
) -> None:
    if n_reports < 1:
        typer.echo("--n-reports must be at least 1", err=True)
        raise typer.Exit(1)
    rng = random.Random(seed)
    values = Values(rng, Names(rng))
    output_dir.mkdir(parents=True, exist_ok=True)
    for old in list(output_dir.glob("idset_*.txt")) + list(output_dir.glob("idset_*.ann")):
        old.unlink()
    for index in range(n_reports):
        report = make_report(index, values)
        doc_id = f"idset_{index:03d}"
        (output_dir / f"{doc_id}.txt").write_text(report.text, encoding="utf-8", newline="")
        (output_dir / f"{doc_id}.ann").write_text(report.ann(), encoding="utf-8", newline="")
    # the code reports draw from a generator of their own, so the reports above stay as they were
    code_values = Values(random.Random(seed + 1), Names(random.Random(seed + 1)))
    for index in range(n_reports, n_reports + n_code_reports):
        report = make_report(index, code_values, codes=codes_per_report)
        doc_id = f"idset_{index:03d}"
        (output_dir / f"{doc_id}.txt").write_text(report.text, encoding="utf-8", newline="")
        (output_dir / f"{doc_id}.ann").write_text(report.ann(), encoding="utf-8", newline="")
    # the reports of the Americas draw from a generator of their own (seed + 2)
    americas = AmericasValues(random.Random(seed + 2), Names(random.Random(seed + 2)))
    first = n_reports + n_code_reports
    for i in range(n_americas_reports):
        country = AMERICAS_COUNTRIES[i % len(AMERICAS_COUNTRIES)]
        report = make_americas_report(i, americas, country)
        doc_id = f"idset_{first + i:03d}"
        (output_dir / f"{doc_id}.txt").write_text(report.text, encoding="utf-8", newline="")
        (output_dir / f"{doc_id}.ann").write_text(report.ann(), encoding="utf-8", newline="")
    typer.echo(
        f"{n_reports} reports, {n_code_reports} code reports and {n_americas_reports} reports of"
        f" the Americas -> {output_dir}"
    )


if __name__ == "__main__":
    typer.run(main)
