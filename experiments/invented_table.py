"""An invented table of patients for the re-identification risk figures: age, sex, postal code,
town, admission date and a diagnosis, made with Faker's random generator (es_ES) and the Spanish
towns of each province the surrogates use (deid/surrogates/data/towns.tsv), so that a town and
its postal code agree.

    PYTHONPATH=components python experiments/invented_table.py OUT.csv --n 1000 --seed 3
"""

import argparse
import csv
from pathlib import Path

from faker import Faker

from meddocan_deid.deid.surrogates.places import geo

DIAGNOSES = (
    "neumonía",
    "insuficiencia cardiaca",
    "fractura de cadera",
    "diabetes tipo 2",
    "EPOC",
    "apendicitis",
    "ictus",
    "infección urinaria",
)
# a handful of provinces, most patients from the first (a hospital's catchment area)
PROVINCES = ("28", "45", "19", "40", "05")
PROVINCE_WEIGHTS = (0.6, 0.15, 0.1, 0.1, 0.05)


def rows(n: int, seed: int) -> list[dict]:
    fake = Faker("es_ES")
    Faker.seed(seed)
    rng = fake.random
    towns = {code: geo().towns[code][:12] for code in PROVINCES}  # a dozen towns each
    out = []
    for i in range(n):
        code = rng.choices(PROVINCES, PROVINCE_WEIGHTS)[0]
        out.append(
            {
                "id": f"P{i + 1:05d}",
                "age": rng.randint(18, 95),
                "sex": rng.choice(("M", "F")),
                "cp": f"{code}{rng.randint(0, 999):03d}",
                "town": rng.choice(towns[code]),
                "date": fake.date_between("-3y", "today").isoformat(),
                "diagnosis": rng.choice(DIAGNOSES),
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    table = rows(args.n, args.seed)
    with open(args.out, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    print(f"{args.n} invented rows -> {args.out}")


if __name__ == "__main__":
    main()
