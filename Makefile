# Two commands: `make run` serves the site on http://127.0.0.1:8000 (`make run PORT=8100`: on
# another port), `make test` runs every test.
# Both set up what they need first (virtualenv, packages, database, Chromium for browser tests).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install lint format worker

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || { echo "Python's venv module is missing: apt-get install python3-venv"; exit 1; }
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

run: install
	$(MANAGE) migrate --noinput
	$(MANAGE) demo_data
	@echo "Grey Circle Games on http://$(HOST):$(PORT)/ (e-mail, such as the link to confirm a sign-up, is printed below)"
	$(MANAGE) serve --host $(HOST) --port $(PORT)

worker: install
	$(MANAGE) games_worker

test: install
	bash scripts/ensure-chromium
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
