"""Policy files: validation (one error per wrong key), per-label operators, labels off,
allow and deny lists, date range and age threshold. All texts are invented."""

import json
import re

import pytest
import spacy

from meddocan_deid.deid import Record, deidentify, deidentify_records
from meddocan_deid.deid.operators import apply_operator
from meddocan_deid.deid.options import DeidOptions, needs_key
from meddocan_deid.deid.policy import Policy, PolicyError, load_policy, parse_policy, prepare_spans

KEY = b"0123456789abcdef0123456789abcdef"
TEXT = (
    "Paciente: Lucía Berrocal Pinto. Mujer de 93 años. Ingresa el 12/03/2019 en la Clínica Sol "
    "de Poniente por enfermedad de Parkinson y síndrome de Brugada. Profesión: carpintera."
)


def make_doc(text, ents):
    nlp = spacy.blank("es")
    doc = nlp(text)
    spans = []
    for label, surface in ents:
        start = text.index(surface)
        spans.append(
            doc.char_span(start, start + len(surface), label=label, alignment_mode="expand")
        )
    doc.ents = spans
    return doc


ENTS = [
    ("NOMBRE_SUJETO_ASISTENCIA", "Lucía Berrocal Pinto"),
    ("SEXO_SUJETO_ASISTENCIA", "Mujer"),
    ("EDAD_SUJETO_ASISTENCIA", "93 años"),
    ("FECHAS", "12/03/2019"),
    ("HOSPITAL", "Clínica Sol"),
    ("NOMBRE_PERSONAL_SANITARIO", "Parkinson"),
    ("NOMBRE_PERSONAL_SANITARIO", "Brugada"),
    ("PROFESION", "carpintera"),
]


def write(tmp_path, text, suffix=".toml"):
    path = tmp_path / f"policy{suffix}"
    path.write_text(text, encoding="utf-8")
    return path


VALID = [
    ("", Policy),
    ("age_threshold = 80\n", lambda p: p.age_threshold == 80),
    (
        '[operators]\nSEXO_SUJETO_ASISTENCIA = "keep"\nFECHAS = "surrogate"\n',
        lambda p: dict(p.operators) == {"SEXO_SUJETO_ASISTENCIA": "keep", "FECHAS": "surrogate"},
    ),
    ("[labels]\nPROFESION = false\nPAIS = true\n", lambda p: p.disabled == {"PROFESION"}),
    (
        "[allow]\nstrings = [\"Parkinson\"]\nregexes = ['(?i)brugada']\n",
        lambda p: p.allow_strings == {"Parkinson"} and len(p.allow_regexes) == 1,
    ),
    (
        '[[deny]]\nlabel = "HOSPITAL"\nstrings = ["Clínica Sol de Poniente"]\n',
        lambda p: p.deny[0].label == "HOSPITAL"
        and p.deny[0].strings == ("Clínica Sol de Poniente",),
    ),
    ("[date_shift]\nmin_days = 10\nmax_days = 10\n", lambda p: p.date_shift == (10, 10)),
    ('privacy = "high"\n', lambda p: p.privacy == "high"),
    ('privacy = "balanced"\n', lambda p: p.privacy == "balanced"),
    ("age_threshold = 80\n", lambda p: p.privacy is None),
]


@pytest.mark.parametrize("text,check", VALID)
def test_valid_policies(tmp_path, text, check):
    policy = load_policy(write(tmp_path, text))
    assert isinstance(policy, Policy)
    if check is not Policy:
        assert check(policy)


INVALID = [
    (
        'colour = "red"\n',
        "colour: unknown key (allowed: operators, labels, allow, deny, date_shift, "
        "age_threshold, privacy, keep_kinship, field_keys, country, release, tables, fhir_rules, "
        "hl7_rules)",
    ),
    ('privacy = "maximum"\n', "privacy: unknown level 'maximum' (allowed: balanced, high)"),
    ("privacy = 3\n", "privacy: unknown level '3' (allowed: balanced, high)"),
    (
        '[operators]\nNOMBRE = "tag"\n',
        "operators.NOMBRE: unknown key (allowed: NOMBRE_SUJETO_ASISTENCIA",
    ),
    (
        '[operators]\nFECHAS = "blur"\n',
        "operators.FECHAS: unknown operator 'blur' (allowed: tag, mask, redact, surrogate, keep)",
    ),
    ('[labels]\nFECHAS = "no"\n', "labels.FECHAS: expected true (PHI) or false (off: not PHI)"),
    ('[allow]\nwords = ["x"]\n', "allow.words: unknown key (allowed: strings, regexes)"),
    (
        "[allow]\nregexes = ['(abc']\n",
        "allow.regexes[0]: bad regex (missing ), unterminated subpattern at position 0)",
    ),
    ("[allow]\nregexes = ['a*']\n", "allow.regexes[0]: the regex matches the empty string"),
    ('[allow]\nstrings = "Parkinson"\n', "allow.strings: expected a list of non-empty strings"),
    ('[[deny]]\nlabel = "CLINICA"\nstrings = ["x"]\n', "deny[0].label: unknown label 'CLINICA'"),
    ('[[deny]]\nstrings = ["x"]\n', "deny[0].label: missing"),
    ('[[deny]]\nlabel = "HOSPITAL"\n', "deny[0]: give strings or regexes"),
    ("[[deny]]\nlabel = \"HOSPITAL\"\nregexes = ['[z-a]']\n", "deny[0].regexes[0]: bad regex"),
    (
        "[date_shift]\nmin_days = 400\nmax_days = 100\n",
        "date_shift: bad range: min_days (400) is above max_days (100)",
    ),
    (
        "[date_shift]\nmin_days = 0\nmax_days = 100\n",
        "date_shift.min_days: out of range (0; allowed: 1 to 36525)",
    ),
    ("[date_shift]\nmin_days = 10\n", "date_shift.max_days: missing"),
    (
        "[date_shift]\nmin_days = 10\nmax_days = 20\nstep = 1\n",
        "date_shift.step: unknown key (allowed: min_days, max_days)",
    ),
    ('age_threshold = "old"\n', "age_threshold: expected an integer from 1 to 150"),
    ("age_threshold = 200\n", "age_threshold: out of range (200; allowed: 1 to 150)"),
    ("[operators\n", "not valid TOML"),
]


@pytest.mark.parametrize("text,message", INVALID)
def test_invalid_policies_name_file_key_and_allowed(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(PolicyError) as err:
        load_policy(path)
    assert str(err.value).startswith(f"{path}: ")
    assert message in str(err.value)


def test_json_policy_and_bad_suffix(tmp_path):
    path = write(
        tmp_path, json.dumps({"operators": {"FECHAS": "keep"}, "labels": {"PAIS": False}}), ".json"
    )
    policy = load_policy(path)
    assert dict(policy.operators) == {"FECHAS": "keep"} and policy.disabled == {"PAIS"}
    bad = write(tmp_path, json.dumps({"operators": {"FECHAS": 3}}), ".json")
    with pytest.raises(
        PolicyError, match=re.escape(f"{bad}: operators.FECHAS: unknown operator '3'")
    ):
        load_policy(bad)
    yaml = write(tmp_path, "operators: {}", ".yaml")
    with pytest.raises(PolicyError, match="must be .toml or .json"):
        load_policy(yaml)


def labels_of(result):
    return [r.label for r in result.replacements]


@pytest.mark.parametrize(
    "label,operator,expected",
    [
        ("SEXO_SUJETO_ASISTENCIA", "keep", "Mujer"),
        ("SEXO_SUJETO_ASISTENCIA", "mask", "*****"),
        ("FECHAS", "redact", ""),
        ("HOSPITAL", "mask", "*******" + " " + "***"),
    ],
)
def test_per_label_operator_changes_exactly_that_label(label, operator, expected):
    doc = make_doc(TEXT, ENTS)
    plain = deidentify(doc, mode="tag")
    result = deidentify(doc, mode="tag", policy=parse_policy({"operators": {label: operator}}))
    assert len(result.replacements) == len(plain.replacements) == len(ENTS)
    for before, after in zip(plain.replacements, result.replacements):
        new = result.text[after.new_start : after.new_end]
        if after.label == label:
            assert new == expected
        else:
            assert new == plain.text[before.new_start : before.new_end] == f"[{after.label}]"


def test_keep_is_annotated_and_left_in_clear():
    doc = make_doc(TEXT, ENTS)
    result = deidentify(
        doc, mode="redact", policy=parse_policy({"operators": {"PROFESION": "keep"}})
    )
    kept = [r for r in result.replacements if r.label == "PROFESION"]
    assert len(kept) == 1 and result.text[kept[0].new_start : kept[0].new_end] == "carpintera"
    assert "Lucía" not in result.text


def test_label_off_is_neither_replaced_nor_annotated():
    doc = make_doc(TEXT, ENTS)
    result = deidentify(doc, mode="tag", policy=parse_policy({"labels": {"PROFESION": False}}))
    assert "PROFESION" not in labels_of(result)
    assert "carpintera" in result.text
    assert len(result.replacements) == len(ENTS) - 1


@pytest.mark.parametrize(
    "allow,dropped",
    [
        ({"strings": ["Parkinson"]}, 1),
        ({"strings": ["parkinson"]}, 0),  # exact strings are case-sensitive
        ({"regexes": ["(?i)parkinson|brugada"]}, 2),
        ({"regexes": ["Brug"]}, 0),  # a regex must match the whole entity text
        ({"strings": ["Brugada"], "regexes": ["Park.*"]}, 2),
    ],
)
def test_allow_list_drops_exactly_the_matching_entities(allow, dropped):
    doc = make_doc(TEXT, ENTS)
    result = deidentify(doc, mode="tag", policy=parse_policy({"allow": allow}))
    assert len(result.replacements) == len(ENTS) - dropped
    assert labels_of(result).count("NOMBRE_PERSONAL_SANITARIO") == 2 - dropped
    assert labels_of(result).count("NOMBRE_SUJETO_ASISTENCIA") == 1


def test_deny_list_adds_entities_winning_over_overlapping_ones():
    doc = make_doc(TEXT, ENTS)
    policy = parse_policy(
        {
            "deny": [
                {"label": "HOSPITAL", "strings": ["clinica sol de PONIENTE"]},
                {"label": "OTRO_NUMERO_IDENTIF", "regexes": [r"\b\d{2}/\d{2}/\d{4}\b"]},
            ]
        }
    )
    result = deidentify(doc, mode="tag", policy=policy)
    spans = [(r.label, TEXT[r.start : r.end]) for r in result.replacements]
    assert ("HOSPITAL", "Clínica Sol de Poniente") in spans
    assert ("HOSPITAL", "Clínica Sol") not in spans
    assert ("OTRO_NUMERO_IDENTIF", "12/03/2019") in spans and "FECHAS" not in labels_of(result)
    assert len(spans) == len(ENTS)


def test_deny_strings_are_whole_words_and_add_where_nothing_was_found():
    text = "Vive en Villaverde Alto; la villaverdeña no es PHI. Villaverde alto otra vez."
    policy = parse_policy({"deny": [{"label": "TERRITORIO", "strings": ["Villaverde Alto"]}]})
    spans = prepare_spans(text, [], policy.apply())
    assert [text[s:e] for _l, s, e in spans] == ["Villaverde Alto", "Villaverde alto"]


def test_trimmed_entity_keeps_its_outside_part():
    text = "Remitido desde el Hospital Río Claro Norte."
    start = text.index("Hospital")
    policy = parse_policy({"deny": [{"label": "TERRITORIO", "strings": ["Río Claro Norte"]}]})
    spans = prepare_spans(text, [("HOSPITAL", start, text.index(" Claro"))], policy.apply())
    assert [(lab, text[s:e]) for lab, s, e in spans] == [
        ("HOSPITAL", "Hospital"),
        ("TERRITORIO", "Río Claro Norte"),
    ]


@pytest.mark.parametrize(
    "keep,expected",
    [
        (
            False,
            [("HOSPITAL", "Hospital Río Claro Norte")],
        ),  # strictly inside a larger span: already covered
        (
            True,
            [("HOSPITAL", "Hospital"), ("TERRITORIO", "Río Claro Norte")],
        ),  # unless that span is left in clear
    ],
)
def test_deny_match_inside_a_larger_entity(keep, expected):
    text = "Remitido desde el Hospital Río Claro Norte."
    start = text.index("Hospital")
    data = {"deny": [{"label": "TERRITORIO", "strings": ["Río Claro Norte"]}]}
    if keep:
        data["operators"] = {"HOSPITAL": "keep"}
    spans = prepare_spans(
        text, [("HOSPITAL", start, text.index(".", start))], parse_policy(data).apply()
    )
    assert [(lab, text[s:e]) for lab, s, e in spans] == expected


@pytest.mark.parametrize("low,high", [(5, 5), (40, 60), (1000, 1200)])
def test_date_shift_range(low, high):
    doc = make_doc("Visto el 10/01/2020.", [("FECHAS", "10/01/2020")])
    import datetime as dt

    policy = parse_policy({"date_shift": {"min_days": low, "max_days": high}})
    for scope in ("a", "b", "c", "d"):
        result = deidentify(doc, mode="surrogate", key=KEY, scope=scope, policy=policy)
        r = result.replacements[0]
        shifted = dt.datetime.strptime(result.text[r.new_start : r.new_end], "%d/%m/%Y")
        assert low <= abs((shifted - dt.datetime(2020, 1, 10)).days) <= high


@pytest.mark.parametrize("threshold,aggregated", [(95, False), (94, False), (93, True), (80, True)])
def test_age_threshold(threshold, aggregated):
    doc = make_doc(TEXT, ENTS)
    result = deidentify(
        doc, mode="surrogate", key=KEY, policy=parse_policy({"age_threshold": threshold})
    )
    age = [r for r in result.replacements if r.label == "EDAD_SUJETO_ASISTENCIA"][0]
    assert (result.text[age.new_start : age.new_end] == "90 años o más") is aggregated


@pytest.mark.parametrize(
    "mode,operators,needed",
    [
        ("tag", {}, False),
        ("tag", {"FECHAS": "surrogate"}, True),
        ("surrogate", {"FECHAS": "tag"}, True),
        ("redact", {"NOMBRE_SUJETO_ASISTENCIA": "keep"}, False),
    ],
)
def test_key_needed_only_when_some_label_uses_surrogate(mode, operators, needed):
    options = parse_policy({"operators": operators}).apply()
    assert needs_key(mode, options) is needed
    nlp = spacy.blank("es")
    records = [Record("r1", "Texto inventado.")]
    if needed:
        with pytest.raises(ValueError, match="needs a key"):
            deidentify_records(nlp, records, mode, None, options=options)
    else:
        assert [
            r.status for r in deidentify_records(nlp, records, mode, None, options=options)
        ] == ["ok"]


def test_apply_operator_label_modes_without_policy():
    text = "Ana vino el 01/02/2003."
    spans = [("NOMBRE_SUJETO_ASISTENCIA", 0, 3), ("FECHAS", 12, 22)]
    out = apply_operator(text, spans, "tag", options=DeidOptions(label_modes={"FECHAS": "mask"}))
    assert out.text == "[NOMBRE_SUJETO_ASISTENCIA] vino el **********."
    with pytest.raises(ValueError, match="unknown operator 'blur' for FECHAS"):
        apply_operator(text, spans, "tag", options=DeidOptions(label_modes={"FECHAS": "blur"}))


def test_policy_path_in_the_api(tmp_path):
    path = write(tmp_path, '[operators]\nFECHAS = "keep"\n')
    doc = make_doc(TEXT, ENTS)
    assert "12/03/2019" in deidentify(doc, mode="tag", policy=path).text
    assert "12/03/2019" in deidentify(doc, mode="tag", policy=str(path)).text


@pytest.mark.parametrize(
    "policy_text,mode,message",
    [
        ('[operators]\nFECHAS = "blur"\n', "tag", "operators.FECHAS: unknown operator 'blur'"),
        ('[operators]\nFECHAS = "surrogate"\n', "tag", "surrogate mode needs a key"),
    ],
)
def test_cli_policy_errors_stop_the_run(tmp_path, monkeypatch, policy_text, mode, message):
    from typer.testing import CliRunner

    from meddocan_deid.cli import app

    monkeypatch.delenv("MEDDOCAN_DEID_KEY", raising=False)
    path = write(tmp_path, policy_text)
    inp = tmp_path / "in.txt"
    inp.write_text("Texto inventado.", encoding="utf-8")
    result = CliRunner().invoke(
        app,
        [
            "deidentify",
            str(inp),
            str(tmp_path / "out"),
            "--mode",
            mode,
            "--policy",
            str(path),
            "--model",
            str(tmp_path / "no-model"),
        ],
    )
    assert result.exit_code == 2
    assert message in result.output
    assert not (tmp_path / "out").exists()


def test_cli_policy_run(tmp_path):
    from meddocan_deid.engine import resolve_key_and_options, run

    path = write(tmp_path, '[operators]\nTERRITORIO = "mask"\n[labels]\nPAIS = false\n')
    key, options = resolve_key_and_options(
        "tag",
        key_file=None,
        random_key=False,
        tag_table=None,
        flags=dict(
            tag_numbering=False,
            keep_sex=True,
            keep_age=True,
            age_aggregate="90 años o más",
            gazetteer=None,
            max_chars=1000,
        ),
        policy=path,
    )
    assert key is None
    nlp = spacy.blank("es")
    nlp.add_pipe("entity_ruler").add_patterns(
        [
            {"label": "TERRITORIO", "pattern": "Soria"},
            {"label": "PAIS", "pattern": "Chile"},
            {"label": "FECHAS", "pattern": "ayer"},
        ]
    )
    inp = tmp_path / "in.txt"
    inp.write_text("Llegó ayer de Soria, nacido en Chile.", encoding="utf-8")
    report = run(inp, tmp_path / "out", "tag", key, nlp=nlp, options=options, progress=False)
    assert (tmp_path / "out" / "in.txt").read_text(
        encoding="utf-8"
    ) == "Llegó [FECHAS] de *****, nacido en Chile."
    assert report["phi_per_label"] == {"FECHAS": 1, "TERRITORIO": 1}


def test_known_identifiers_win_over_the_deny_list():
    text = "Paciente Olga Paz Ríos, ingresa."
    policy = parse_policy({"deny": [{"label": "TERRITORIO", "strings": ["Paz Ríos"]}]})
    spans = prepare_spans(text, [], policy.apply(), {"NOMBRE_SUJETO_ASISTENCIA": ["Olga Paz Ríos"]})
    assert [(lab, text[s:e]) for lab, s, e in spans] == [
        ("NOMBRE_SUJETO_ASISTENCIA", "Olga Paz Ríos")
    ]
    spans = prepare_spans(text, [], policy.apply())
    assert [(lab, text[s:e]) for lab, s, e in spans] == [("TERRITORIO", "Paz Ríos")]
