"""Property tests (hypothesis): date and ID surrogates keep their shape; no PHI string
survives `mask`, `redact` or `surrogate`."""

import datetime as dt
import re
import string

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from meddocan_deid.deid import DeidOptions, apply_operator
from meddocan_deid.deid.surrogates import shift_date
from meddocan_deid.deid.surrogates.common import bounded_find
from meddocan_deid.lexicon import lookup_key, words
from meddocan_deid.number_words import number_runs

KEY = b"property-key-0123456789abcdef"
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,  # no .hypothesis/ folder in the repo
    suppress_health_check=[HealthCheck.too_slow],
)
MONTHS = tuple(words("months", "es"))  # January first


def shape(text):
    return re.sub(r"[A-Z]", "A", re.sub(r"[a-z]", "a", re.sub(r"\d", "9", text)))


# (format, regex the shifted text must match)
DATE_FORMATS = [
    (lambda d: d.strftime("%d/%m/%Y"), r"\d\d/\d\d/\d{4}"),
    (lambda d: d.strftime("%d-%m-%y"), r"\d\d-\d\d-\d\d"),
    (lambda d: f"{d.day}-{d.month}-{d.year}", r"\d{1,2}-\d{1,2}-\d{4}"),
    (lambda d: d.strftime("%Y-%m-%d"), r"\d{4}-\d\d-\d\d"),
    (
        lambda d: f"{d.day} de {MONTHS[d.month - 1]} de {d.year}",
        rf"\d{{1,2}} de ({'|'.join(MONTHS)}) de \d{{4}}",
    ),
    (lambda d: f"{MONTHS[d.month - 1]} de {d.year}", rf"({'|'.join(MONTHS)}) de \d{{4}}"),
    (lambda d: f"{MONTHS[d.month - 1].capitalize()} {d.year}", r"[A-Z][a-z]+ \d{4}"),
    (lambda d: str(d.year), r"\d{4}"),
    (lambda d: f"{str(d.year)[0]}.{str(d.year)[1:]}", r"\d\.\d{3}"),
]


@SETTINGS
@given(
    st.dates(min_value=dt.date(1950, 1, 1), max_value=dt.date(2030, 12, 31)),
    st.sampled_from(range(len(DATE_FORMATS))),
    st.integers(min_value=32, max_value=18263),
    st.booleans(),
)
def test_shifted_dates_keep_their_format_and_change(date, fmt_i, days, negative):
    fmt, pattern = DATE_FORMATS[fmt_i]
    text = fmt(date)
    new = shift_date(text, -days if negative else days)
    assert new is not None and new != text
    assert re.fullmatch(pattern, new), (shape(text), shape(new))
    if pattern.startswith(r"\d\d/") or pattern.startswith(r"\d{4}-"):
        expected = date + dt.timedelta(days=-days if negative else days)
        assert new == fmt(expected)


@SETTINGS
@given(st.integers(1, 31), st.integers(1, 12), st.integers(1950, 2030), st.integers(32, 730))
def test_invalid_dates_become_valid_dates_of_the_same_shape(day, month, year, days):
    text = f"{day:02d}/{month:02d}/{year}"
    new = shift_date(text, days)
    assert shape(new) == shape(text)
    dt.datetime.strptime(new, "%d/%m/%Y")  # a real date, even from 31/02


ID_LABELS = [
    "ID_SUJETO_ASISTENCIA",
    "ID_ASEGURAMIENTO",
    "ID_TITULACION_PERSONAL_SANITARIO",
    "NUMERO_TELEFONO",
    "NUMERO_FAX",
    "ID_CONTACTO_ASISTENCIAL",
    "OTRO_NUMERO_IDENTIF",
    "IDENTIF_DISPOSITIVOS_NRSERIE",
]


def spelled_code(value: str) -> bool:
    """A value without digits whose number words read as three digits or
    more over two words or more."""
    runs = [] if any(c.isdigit() for c in value) else number_runs(value)
    return len("".join(r.digits for r in runs)) >= 3 and len(value.split()) >= 2


# codes as written; a code spelled in number words (`seis uno cero ...`) is replaced in words,
# not kept in shape (tests/deid/test_spelled_surrogates.py)
ID_TEXT = st.text(
    alphabet=string.digits + string.ascii_letters + " -/.", min_size=1, max_size=20
).filter(lambda s: any(c.isalnum() for c in s) and s == s.strip() and not (spelled_code(s)))


@SETTINGS
@given(
    ID_TEXT,
    st.sampled_from(ID_LABELS),
    st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6),
)
@example("UN", "ID_SUJETO_ASISTENCIA", "a")  # letters that read as one number word keep their shape
@example("00058K0000F0DVU00", "ID_SUJETO_ASISTENCIA", "a")  # its 9th character is a valid VIN check
@example(
    "1m8gdm9axkp042788", "IDENTIF_DISPOSITIVOS_NRSERIE", "b"
)  # a VIN whose check is X, lower case
def test_id_surrogates_keep_their_shape(value, label, scope):
    text = f"ID: {value}\n"
    res = apply_operator(text, [(label, 4, 4 + len(value))], "surrogate", KEY, scope=scope)
    (r,) = res.replacements
    new = res.text[r.new_start : r.new_end]
    assert shape(new) == shape(value) and new != value
    assert res.text[:4] == "ID: " and res.text[r.new_end :] == "\n"


# random reports made of filler and PHI
FILLER = st.sampled_from(
    ["El paciente ", "refiere dolor ", "y fiebre. ", "\n", "Control en ", "consulta ", ", ", " "]
)
PHI = st.one_of(
    st.tuples(
        st.just("NOMBRE_SUJETO_ASISTENCIA"),
        st.sampled_from(["Ana", "Ruiz Gil", "Juan García López", "J. Pérez", "MARÍA SANZ"]),
    ),
    st.tuples(
        st.just("NOMBRE_PERSONAL_SANITARIO"),
        st.sampled_from(["Luis Albarrán Tejero", "Eva Martín", "Pedro"]),
    ),
    st.tuples(st.just("ID_SUJETO_ASISTENCIA"), st.from_regex(r"\d{6,9}", fullmatch=True)),
    st.tuples(
        st.just("FECHAS"),
        st.sampled_from(
            ["14/03/2001", "4-6-2003", "octubre de 2005", "1998", "2.003", "31/02/2001"]
        ),
    ),
    st.tuples(
        st.just("TERRITORIO"), st.sampled_from(["Madrid", "Toledo", "28029", "Gipuzkoa", "Tolosa"])
    ),
    st.tuples(st.just("CALLE"), st.sampled_from(["C/ Mayor, 12", "Avda. de América 5, 2º B"])),
    st.tuples(
        st.just("CORREO_ELECTRONICO"), st.sampled_from(["ana@example.com", "lalbarran@gmail.com"])
    ),
    st.tuples(
        st.just("HOSPITAL"), st.sampled_from(["Hospital Clínico San Carlos", "Hospital La Paz"])
    ),
    st.tuples(st.just("NUMERO_TELEFONO"), st.from_regex(r"9\d\d \d\d \d\d \d\d", fullmatch=True)),
    st.tuples(
        st.just("FAMILIARES_SUJETO_ASISTENCIA"), st.sampled_from(["madre", "hermano", "hija"])
    ),
)


@st.composite
def reports(draw):
    parts = draw(st.lists(st.tuples(FILLER, PHI), min_size=1, max_size=12))
    text, spans = "", []
    for filler, (label, value) in parts:
        text += filler
        spans.append((label, len(text), len(text) + len(value)))
        text += value
    text += draw(FILLER)
    return text, spans


@SETTINGS
@given(
    reports(),
    st.sampled_from(["mask", "redact", "surrogate"]),
    st.text(alphabet="abc123", min_size=1, max_size=4),
)
def test_no_phi_string_survives(report, mode, scope):
    text, spans = report
    # kinship words are kept by default (they identify no one): swapped here, so
    # that every PHI string is tested
    res = apply_operator(
        text, spans, mode, KEY, scope=scope, options=DeidOptions(keep_kinship=False)
    )
    # non-PHI text is kept, in order
    pos, npos = 0, 0
    for (_label, s, e), r in zip(spans, res.replacements):
        assert res.text[npos : r.new_start] == text[pos:s]
        pos, npos = e, r.new_end
    assert res.text[npos:] == text[pos:]
    non_phi = "\x00".join(
        text[a:b]
        for a, b in zip([0] + [e for _, _, e in spans], [s for _, s, _ in spans] + [len(text)])
    )
    folded_out = lookup_key(res.text)
    for label, s, e in spans:
        value = text[s:e]
        if not bounded_find(non_phi, value):
            assert not bounded_find(res.text, value), (mode, label, shape(value))
            if mode == "surrogate" and len(value) > 3:
                assert not bounded_find(folded_out, lookup_key(value)), (label, shape(value))
