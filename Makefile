# Two commands: `make run` serves the site on http://127.0.0.1:8000 (`make run PORT=8100`: on
# another port), `make test` runs every test.
# Both set up what they need first (virtualenv, packages, database, Chromium for browser tests).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install lint format worker api-types

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

# Two pytest-xdist workers, one per core, each with its own test database (and Redis database:
# tests/conftest.py); a test file stays on one worker, so a browser module starts one server
# and one Chromium. `make test PYTEST_WORKERS=0` runs the tests in this process alone.
PYTEST_WORKERS ?= 2

test: install
	bash scripts/ensure-chromium
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# The JavaScript's tooling (TypeScript, openapi-typescript) is for development only: npm installs
# it from package-lock.json into node_modules/; the site serves its modules as they are.
node_modules/.installed: package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm is missing: apt-get install nodejs npm"; exit 1; }
	npm ci --ignore-scripts --no-audit --no-fund
	touch $@

# Ruff; then the API's TypeScript types against the OpenAPI schema (scripts/api_types.py) and
# TypeScript's check of every page module against them (tsconfig.json), and of the service
# worker (tsconfig.sw.json: a worker's globals, not the DOM's).
lint: install node_modules/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python scripts/api_types.py --check
	node_modules/.bin/tsc --noEmit -p tsconfig.json
	node_modules/.bin/tsc --noEmit -p tsconfig.sw.json

# After a change to the API's schema: the types the page modules are checked against.
api-types: install node_modules/.installed
	$(BIN)/python scripts/api_types.py

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
