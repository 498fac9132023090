"""Figures of the FHIR format on invented patients (Faker es_ES, a seed): writes bundles with
Spanish narratives, de-identifies them with a pipeline, and prints counts only: structured PHI
values left anywhere in the output (must be 0), bundles that validate as FHIR R4, intervals
between a patient's dates kept, references that resolve, and the recall of the identifying words
of the narratives with and without the patient's structured values as known PHI.

    python scripts/fhir_figures.py /tmp/fhir_pipe --patients 100 --seed 0
"""

import argparse
import base64
import itertools
import json
import re
import tempfile
from datetime import date, datetime, timedelta
from pathlib import Path

import spacy
from faker import Faker

import meddocan_deid  # noqa: F401  (registers the factories)
from meddocan_deid import Deidentifier
from meddocan_deid.formats import fhir

KEY = b"fhir-figures-key-0123456789abcdef"
DATE_KEYS = ("birthDate", "start", "end", "effectiveDateTime", "date", "recordedDate")


def bundle_of(fake: Faker, n: int) -> tuple[dict, dict]:
    """An invented patient's bundle and its identifying values (for the figures)."""
    given, family = fake.first_name(), f"{fake.last_name()} {fake.last_name()}"
    relative = f"{fake.first_name()} {fake.last_name()}"
    doctor_given, doctor_family = fake.first_name(), fake.last_name()
    nhc = f"NHC{fake.random_number(digits=7, fix_len=True)}"
    dni = fake.nif()
    phone = fake.phone_number()
    street = fake.street_address()
    city = fake.city()
    born = fake.date_of_birth(minimum_age=20, maximum_age=90)
    admitted = fake.date_time_between(start_date="-3y", end_date="-30d")
    days = fake.random_int(1, 20)
    hospital = f"Hospital {fake.last_name()}"
    pid = f"p{n}"
    narrative = (
        f"Paciente {given} {family}, DNI {dni}, historia {nhc}, con domicilio en {street} "
        f"({city}) y teléfono {phone}. Ingresa el {admitted:%d/%m/%Y} por dolor torácico. "
        f"Acompañado por {relative}. Le atiende el Dr. {doctor_given} {doctor_family}. "
        f"Alta a los {days} días con buena evolución."
    )
    resources = [
        {
            "resourceType": "Patient",
            "id": pid,
            "identifier": [
                {"system": "urn:nhc", "value": nhc},
                {"system": "urn:oid:1.3.6.1.4.1.19126.3", "value": dni},
            ],
            "name": [{"family": family, "given": [given]}],
            "telecom": [{"system": "phone", "value": phone}],
            "address": [{"line": [street], "city": city}],
            "birthDate": born.isoformat(),
            "text": {
                "status": "generated",
                "div": f'<div xmlns="http://www.w3.org/1999/xhtml"><p>{given} {family}, '
                f"{nhc}</p></div>",
            },
        },
        {
            "resourceType": "RelatedPerson",
            "id": f"r{n}",
            "patient": {"reference": f"Patient/{pid}"},
            "name": [{"text": relative}],
        },
        {
            "resourceType": "Practitioner",
            "id": f"dr{n}",
            "name": [{"family": doctor_family, "given": [doctor_given]}],
        },
        {"resourceType": "Organization", "id": f"org{n}", "name": hospital},
        {
            "resourceType": "Encounter",
            "id": f"e{n}",
            "status": "finished",
            "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "IMP"},
            "subject": {"reference": f"Patient/{pid}"},
            "serviceProvider": {"reference": f"Organization/org{n}"},
            "participant": [{"individual": {"reference": f"Practitioner/dr{n}"}}],
            "period": {
                "start": f"{admitted:%Y-%m-%dT%H:%M:%S}+01:00",
                "end": f"{admitted + timedelta(days=days):%Y-%m-%dT%H:%M:%S}+01:00",
            },
        },
        {
            "resourceType": "Observation",
            "id": f"o{n}",
            "status": "final",
            "code": {"text": "Evolución"},
            "subject": {"reference": f"Patient/{pid}"},
            "encounter": {"reference": f"Encounter/e{n}"},
            "effectiveDateTime": f"{admitted + timedelta(days=1):%Y-%m-%dT%H:%M:%S}+01:00",
            "valueString": f"{given} {family} refiere mejoría; llamar al {phone}.",
            "note": [{"text": f"Informado {relative} por el Dr. {doctor_family}."}],
        },
        {
            "resourceType": "DocumentReference",
            "id": f"d{n}",
            "status": "current",
            "subject": {"reference": f"Patient/{pid}"},
            "date": f"{admitted + timedelta(days=days):%Y-%m-%dT%H:%M:%S}+01:00",
            "content": [
                {
                    "attachment": {
                        "contentType": "text/plain",
                        "data": base64.b64encode(narrative.encode()).decode(),
                    }
                }
            ],
        },
    ]
    values = {
        "structured": dict(
            zip(
                ("given", "family", "relative", "doctor", "nhc", "dni", "phone", "street", "born"),
                (given, family, relative, doctor_family, nhc, dni, phone, street, born.isoformat()),
                strict=True,
            )
        ),
        "words": [
            w for v in (given, family, relative, doctor_given, doctor_family) for w in v.split()
        ]
        + [nhc, dni, phone, street],
    }
    entries = [{"fullUrl": f"urn:uuid:{fake.uuid4()}", "resource": r} for r in resources]
    return {"resourceType": "Bundle", "type": "collection", "entry": entries}, values


def dates_of(bundle: dict) -> list[datetime]:
    found = []
    for entry in bundle["entry"]:
        res = entry["resource"]
        for key in DATE_KEYS:
            for holder in (res, res.get("period") or {}):
                value = holder.get(key)
                if isinstance(value, str):
                    found.append(
                        datetime.fromisoformat(value)
                        if "T" in value
                        else datetime.combine(date.fromisoformat(value), datetime.min.time())
                    )
    return [d.replace(tzinfo=None) for d in found]


def occurrences(value: str, text: str) -> int:
    """How often `value` occurs in `text` as whole words (both casefolded)."""
    return len(re.findall(rf"(?<!\w){re.escape(value.casefold())}(?!\w)", text.casefold()))


def free_text(bundle: dict) -> str:
    parts = []
    for entry in bundle["entry"]:
        res = entry["resource"]
        parts += [res.get("valueString", ""), *(n["text"] for n in res.get("note", []))]
        for content in res.get("content", []):
            parts.append(base64.b64decode(content["attachment"]["data"]).decode())
    return "\n".join(parts)


class WithoutKnown(fhir.FhirDeidentifier):
    """The same, without the structured values as known PHI: the model alone on free text."""

    def known_phi(self, pid):
        return {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline", type=Path)
    parser.add_argument("--patients", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    fake = Faker("es_ES")
    Faker.seed(args.seed)
    made = [bundle_of(fake, n) for n in range(args.patients)]
    nlp = spacy.load(args.pipeline)
    deid = Deidentifier(nlp, "surrogate", key=KEY)
    tmp = Path(tempfile.mkdtemp(prefix="fhir-figures-"))
    (tmp / "in").mkdir()
    for n, (bundle, _values) in enumerate(made):
        (tmp / "in" / f"b{n:03d}.json").write_text(json.dumps(bundle, ensure_ascii=False), "utf-8")
    results = {}
    for name, cls in (("with", fhir.FhirDeidentifier), ("without", WithoutKnown)):
        fhir.deidentify_paths([tmp / "in"], tmp / name, cls(deid))
        results[name] = [
            json.loads((tmp / name / f"b{n:03d}.json").read_text("utf-8")) for n in range(len(made))
        ]
    valid = intervals = refs_ok = refs = 0
    left: dict[str, int] = {}
    recall = {"with": [0, 0], "without": [0, 0]}
    for (bundle, values), out in zip(made, results["with"], strict=True):
        text = json.dumps(out, ensure_ascii=False) + "\n" + free_text(out)
        for kind, value in values["structured"].items():
            if occurrences(value, text):
                left[kind] = left.get(kind, 0) + 1
        try:
            fhir.validate(out)
            valid += 1
        except fhir.FhirError:
            pass
        before, after = dates_of(bundle), dates_of(out)
        intervals += all(
            b2 - b1 == a2 - a1
            for (b1, a1), (b2, a2) in itertools.combinations(zip(before, after, strict=True), 2)
        )
        ids = {f"{e['resource']['resourceType']}/{e['resource']['id']}" for e in out["entry"]}
        for ref in re.findall(r'"reference": "([^"]+)"', json.dumps(out)):
            refs += 1
            refs_ok += ref in ids
    for name in recall:
        for (bundle, values), out in zip(made, results[name], strict=True):
            source, target = free_text(bundle).casefold(), free_text(out).casefold()
            for word in values["words"]:
                word = word.casefold()
                present = occurrences(word, source)
                recall[name][0] += present - min(present, occurrences(word, target))
                recall[name][1] += present
    print(f"bundles: {len(made)}, resources: {sum(len(b['entry']) for b, _ in made)}")
    print(
        f"structured PHI values left anywhere in the output: {sum(left.values())} "
        f"(by kind: {left or 'none'})"
    )
    print(f"bundles valid FHIR R4 (fhir.resources R4B): {valid}/{len(made)}")
    print(f"patients whose date intervals are all kept: {intervals}/{len(made)}")
    print(f"references that resolve in their bundle: {refs_ok}/{refs}")
    for name, (removed, total) in recall.items():
        print(
            f"narrative identifying-word recall {name} the structured values as known PHI: "
            f"{removed}/{total} = {removed / max(total, 1):.3f}"
        )


if __name__ == "__main__":
    main()
