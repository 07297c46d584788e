# Two entry points for a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test lint typecheck bench clean

$(BIN)/toolgate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/toolgate

run: $(BIN)/toolgate
	$(BIN)/toolgate dev

test: $(BIN)/toolgate
	$(BIN)/ruff check toolgate tests benchmarks
	$(BIN)/ruff format --check toolgate tests benchmarks
	$(BIN)/mypy
	$(BIN)/pytest -q

lint: $(BIN)/toolgate
	$(BIN)/ruff check --fix toolgate tests benchmarks
	$(BIN)/ruff format toolgate tests benchmarks

typecheck: $(BIN)/toolgate
	$(BIN)/mypy

bench: $(BIN)/toolgate
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
