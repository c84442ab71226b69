# Two entry points for a fresh machine: `make run` and `make test`.
# Each creates .venv on first use and installs exactly the versions in constraints.txt.
# PYTHON: python3.11 when present, else the newest python3.1x >= 3.11 on the PATH.
# TORCH_SPEC picks the torch build (see README, "GPU").
PYTHON ?= $(shell for v in 3.11 3.14 3.13 3.12; do command -v python$$v >/dev/null 2>&1 && { echo python$$v; exit; }; done; echo python3)
VENV ?= .venv
TORCH_SPEC ?= torch==2.13.0
CONSTRAINTS ?= constraints.txt
BIN := $(VENV)/bin

.PHONY: run test lock clean

$(BIN)/expert-gui: pyproject.toml $(CONSTRAINTS)
	@echo "Setting up $(VENV) with $(PYTHON) ($$($(PYTHON) --version 2>&1))"
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "expert-gui needs Python 3.11 or newer: make PYTHON=/path/to/python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) $(TORCH_SPEC)
	$(BIN)/pip install --quiet -c $(CONSTRAINTS) -e ".[dev]"
	touch $@

run: $(BIN)/expert-gui
	$(BIN)/expert-gui

test: $(BIN)/expert-gui
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

# Upgrade on purpose: newest releases the project's own ranges admit, in a scratch venv; the full
# suite must pass there before constraints.txt is rewritten. Review `git diff constraints.txt`.
lock:
	rm -rf .venv-lock
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet --upgrade pip
	.venv-lock/bin/pip install --quiet $(TORCH_SPEC)
	.venv-lock/bin/pip install --quiet -e ".[dev]"
	QT_QPA_PLATFORM=offscreen .venv-lock/bin/python -m pytest -q -x
	{ sed -n '/^#/p' $(CONSTRAINTS); .venv-lock/bin/pip freeze --exclude-editable | grep -v '^#' \
	  | sed -E 's/^(torch==[^+]*)\+.*/\1/'; } > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)
	rm -rf .venv-lock

clean:
	rm -rf $(VENV) .venv-lock .pytest_cache .ruff_cache
