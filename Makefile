# The two commands of the README. Both set up a virtual environment in .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test setup lint bench

$(BIN)/companion: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

setup: $(BIN)/companion

demo: setup
	$(BIN)/companion demo

test: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/python bench/rules_speed.py
