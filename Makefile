# The two commands of the README. Both set up a virtual environment in .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Test processes (pytest-xdist): CI has two cores. JOBS=1 runs the suite in one process.
JOBS ?= 2

.PHONY: demo test quick setup browser bench

$(BIN)/companion: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

setup: $(BIN)/companion

demo: setup
	$(BIN)/companion demo

test: setup browser
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n $(JOBS)

# The quick loop: everything but the tests marked slow (many rendered scenes, the browser).
quick: setup
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n $(JOBS) -m "not slow"

# The browser tests drive Debian's Chromium (Playwright cannot download its own here).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "note: /usr/bin/chromium is missing, so the browser tests will be skipped (sudo apt-get install chromium)"; fi; \
	fi

bench: setup
	$(BIN)/python bench/rules_speed.py
	$(BIN)/python bench/odds_speed.py
	$(BIN)/python bench/vision_tiles.py --scenes 500
	$(BIN)/python bench/vision_pieces.py --scenes 500
	$(BIN)/python bench/peltapeeps_photos.py --scenes 300
	$(BIN)/python bench/live_latency.py
	$(BIN)/python bench/live_soak.py
	$(BIN)/python bench/egg_link.py
