"""Whether the three ways in for a scan give the same text: invented reports (ocr_figures.py's,
Faker es_ES, a seed) rendered as scanned PDFs, PNG and TIFF, de-identified by the command
line's run (`meddocan_deid.engine.run`, its `.txt`), by the service's POST /deidentify/scan
(FastAPI's in-process client, nothing listens on a port) and by Spark (local mode,
`deidentify_dataframe(text_format="scan")` over the `binaryFile` reader's rows). Prints one line
of counts, never text:

    python scripts/scan_paths_agree.py /tmp/ocr_pipe --reports 6 --seed 0

MODEL: a saved pipeline's path (Spark's executors load it from there), or `rules` for the rule
part of configs/pipeline.cfg, saved to the work folder first.
"""

import argparse
import random
import tempfile
from pathlib import Path

import spacy
from faker import Faker
from fastapi.testclient import TestClient
from ocr_figures import CONDITIONS, CONTAINERS, degrade, draw_page, invented_report, save_scan

import meddocan_deid  # noqa: F401  (registers the factories)
from meddocan_deid.engine import run
from meddocan_deid.pipeline.rules_only import build_rule_pipeline
from meddocan_deid.service.app import create_app
from meddocan_deid.service.settings import ServiceSettings
from meddocan_deid.spark import deidentify_dataframe, make_session

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "token-of-this-script-only-0123456789"  # a token for the in-process client
MEDIA = {".pdf": "application/pdf", ".png": "image/png", ".tif": "image/tiff"}


def pipeline(model: str, work: Path) -> tuple[object, str]:
    """(the loaded pipeline, the path Spark's executors load it from)."""
    if model != "rules":
        return spacy.load(model), model
    nlp = build_rule_pipeline(ROOT / "configs" / "pipeline.cfg", ROOT / "configs" / "patterns")
    nlp.to_disk(work / "rules")
    return nlp, str(work / "rules")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="pipeline path or name, or `rules`")
    parser.add_argument("--reports", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    fake = Faker("es_ES")
    fake.seed_instance(args.seed)
    rng = random.Random(args.seed)
    work = Path(tempfile.mkdtemp(prefix="scan-paths-"))
    scans = work / "scans"
    scans.mkdir()
    for n in range(args.reports):
        condition, container = CONDITIONS[n % len(CONDITIONS)], CONTAINERS[n % len(CONTAINERS)]
        page, _angle = degrade(draw_page(invented_report(fake, rng)), condition, rng)
        save_scan(page, container, scans / f"informe{n:02d}")
    files = sorted(scans.iterdir())
    nlp, model_path = pipeline(args.model, work)

    report = run(scans, work / "out", "tag", None, nlp=nlp, progress=False)
    cli = {p.name: (work / "out" / p.stem).with_suffix(".txt").read_text("utf-8") for p in files}
    cli_review = report["scanned"]["pages_to_review"]

    (work / "tokens.txt").write_text(TOKEN + "\n", encoding="utf-8")
    settings = ServiceSettings(token_file=work / "tokens.txt")
    route, route_review = {}, 0
    with TestClient(create_app(settings, nlp=nlp)) as client:
        for p in files:
            answer = client.post(
                "/deidentify/scan",
                files={"file": (p.name, p.read_bytes(), MEDIA[p.suffix])},
                data={"mode": "tag"},
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
            answer.raise_for_status()
            route[p.name] = answer.json()["text"]
            route_review += answer.json()["pages_to_review"]

    spark = make_session("local[2]", app_name="scan-paths-agree")
    try:
        frame = spark.read.format("binaryFile").load(str(scans))
        rows = deidentify_dataframe(
            frame,
            "tag",
            None,
            model=model_path,
            id_col="path",
            text_col="content",
            text_format="scan",
        ).collect()
    finally:
        spark.stop()
    on_spark = {Path(r["path"]).name: r["deid_text"] for r in rows}
    spark_review = sum(sum(bool(p["review"]) for p in r["ocr_pages"] or []) for r in rows)

    kinds = {s: sum(p.suffix == s for p in files) for s in MEDIA}
    print(
        f"scans: {len(files)} ({kinds['.pdf']} PDF, {kinds['.png']} PNG, {kinds['.tif']} TIFF); "
        f"route text == CLI text: {sum(route.get(k) == v for k, v in cli.items())}/{len(cli)}; "
        f"Spark text == CLI text: {sum(on_spark.get(k) == v for k, v in cli.items())}/{len(cli)}; "
        f"pages to review: CLI {cli_review}, route {route_review}, Spark {spark_review}"
    )


if __name__ == "__main__":
    main()
