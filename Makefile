# Two entry points for a fresh machine: `make run` and `make test`.
# Each creates .venv on first use. TORCH_SPEC picks the torch build (see README, "GPU").
PYTHON ?= python3.11
VENV ?= .venv
TORCH_SPEC ?= torch==2.13.0
BIN := $(VENV)/bin

.PHONY: run test lint bench clean

$(BIN)/expert-gui: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(TORCH_SPEC)
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $@

run: $(BIN)/expert-gui
	$(BIN)/expert-gui

test: $(BIN)/expert-gui
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
