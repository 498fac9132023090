"""Figures of the HL7 v2 format on invented messages (Faker es_ES, a seed): ADT^A01 and ORU^R01
with report text, de-identified with a pipeline; prints counts only: PID and NK1 values left
anywhere in the output (must be 0) and the messages that parse after de-identification with the
same segments.

    python scripts/hl7v2_figures.py /tmp/fhir_pipe --messages 200 --seed 0
"""

import argparse
import re

import spacy
from faker import Faker

import meddocan_deid  # noqa: F401  (registers the factories)
from meddocan_deid import Deidentifier
from meddocan_deid.formats import hl7v2

KEY = b"hl7v2-figures-key-0123456789abcde"


def message_of(fake: Faker, n: int) -> tuple[str, dict[str, str]]:
    """An invented message (ADT^A01 for even n, ORU^R01 for odd) and its PID/NK1 values."""
    family, family2, given = fake.last_name(), fake.last_name(), fake.first_name()
    kin_family, kin_given = fake.last_name(), fake.first_name()
    nhc = f"NHC{fake.random_number(digits=7, fix_len=True)}"
    phone = re.sub(r"\D", "", fake.phone_number())[-9:]
    street, city, zipcode = fake.street_address(), fake.city(), fake.postcode()
    born = fake.date_of_birth(minimum_age=20, maximum_age=90)
    when = fake.date_time_between(start_date="-3y", end_date="-30d")
    doctor = f"{fake.random_number(digits=6)}^{fake.last_name()}^{fake.first_name()}"
    pid = (
        f"PID|1||{nhc}^^^HOSP^MR||{family} {family2}^{given}||{born:%Y%m%d}|F|||"
        f"{street}^^{city}^^{zipcode}^ESP||{phone}"
    )
    nk1 = f"NK1|1|{kin_family}^{kin_given}|HIJ|{street}^^{city}|{phone}"
    values = {
        "nhc": nhc,
        "family": f"{family} {family2}",
        "given": given,
        "kin_family": kin_family,
        "kin_given": kin_given,
        "phone": phone,
        "street": street,
        "born": f"{born:%Y%m%d}",
    }
    ts = f"{when:%Y%m%d%H%M%S}"
    if n % 2 == 0:
        segments = [
            f"MSH|^~\\&|HIS|HOSP|LAB|HOSP|{ts}||ADT^A01|A{n}|P|2.5",
            f"EVN|A01|{ts}",
            pid,
            nk1,
            f"PV1|1|I|MI^101^1||||{doctor}|||||||||||V{n}",
        ]
    else:
        report = (
            f"Paciente {given} {family} ({nhc}) ingresa por disnea. Se informa a su familiar "
            f"{kin_given} {kin_family} en el {phone}. Domicilio en {street}."
        )
        segments = [
            f"MSH|^~\\&|LAB|HOSP|HIS|HOSP|{ts}||ORU^R01|R{n}|P|2.5",
            pid,
            nk1,
            f"OBR|1|O{n}|R{n}|INF^Informe|||{ts}|||||||||{doctor}",  # OBR-16
            f"OBX|1|TX|INF^Informe||{report}||||||F",
            f"NTE|1||Revisado con {given} {family} y {kin_given}.",
        ]
    return "\r".join(segments), values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pipeline")
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    fake = Faker("es_ES")
    Faker.seed(args.seed)
    made = [message_of(fake, n) for n in range(args.messages)]
    hl7_deid = hl7v2.Hl7Deidentifier(Deidentifier(spacy.load(args.pipeline), "surrogate", key=KEY))
    parsed = same = 0
    left: dict[str, int] = {}
    for message, values in made:
        out = hl7_deid.message(message)
        folded = out.casefold()
        for kind, value in values.items():
            if re.search(rf"(?<!\w){re.escape(value.casefold())}(?!\w)", folded):
                left[kind] = left.get(kind, 0) + 1
        try:
            hl7v2.parse(out)
            parsed += 1
        except hl7v2.Hl7Error:
            continue
        same += [s.split("|")[0] for s in out.split("\r")] == [
            s.split("|")[0] for s in message.split("\r")
        ]
    print(f"messages: {len(made)} (ADT^A01 and ORU^R01 alternately)")
    print(
        f"PID/NK1 values left anywhere in the output: {sum(left.values())} "
        f"(by kind: {left or 'none'})"
    )
    print(f"messages that parse after de-identification: {parsed}/{len(made)}")
    print(f"... with the same segments in the same order: {same}/{len(made)}")


if __name__ == "__main__":
    main()
