# Two commands do everything: `make book` and `make test`.
# Both create .venv/ and install the pinned environment the first time.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
JOBS   ?= auto

.PHONY: book test lint install clean

install: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $@

book: $(STAMP)
	$(BIN)/jupyter-book build -W -n --keep-going book/
	@echo "Open book/_build/html/index.html"

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check --fix src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks || true

clean:
	rm -rf book/_build .pytest_cache .hypothesis
