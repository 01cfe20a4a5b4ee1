# The two commands of the README's quick start, and what they stand on.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
TEST_INSTALLED := $(VENV)/.installed-test

.PHONY: demo test lint typecheck contracts pytest bench chaos clean install

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(INSTALLED): setup.py pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(TEST_INSTALLED): setup.py pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@ $(INSTALLED)

## demo: set everything up and run the main job on SQLite and the simulated cloud
demo: $(INSTALLED)
	$(BIN)/python -m reconciler.cli.demo

## test: set everything up (PostgreSQL, Chromium, sshd and fuse2fs included) and run ruff, mypy, import-linter and pytest
test: $(TEST_INSTALLED)
	@url=$$(bash tests/ensure_postgres.sh) && \
	browser=$$(bash tests/ensure_chromium.sh) && \
	bash tests/ensure_sshd.sh >/dev/null && \
	bash tests/ensure_fuse2fs.sh >/dev/null && \
	export RECONCILER_TEST_DATABASE_URL="$$url" RECONCILER_TEST_CHROMIUM="$$browser" && \
	$(MAKE) --no-print-directory lint typecheck contracts pytest

lint: $(TEST_INSTALLED)
	$(BIN)/ruff check --no-cache .
	$(BIN)/ruff format --check --no-cache .

typecheck: $(TEST_INSTALLED)
	$(BIN)/mypy

contracts: $(TEST_INSTALLED)
	$(BIN)/lint-imports

pytest: $(TEST_INSTALLED)
	$(BIN)/pytest

## bench: the soak tests the default run skips (benchmarks: python -m bench.<name>)
bench: $(TEST_INSTALLED)
	bash tests/ensure_sshd.sh >/dev/null
	bash tests/ensure_fuse2fs.sh >/dev/null
	$(BIN)/pytest -m slow -s

## chaos: the chaos suite, each scenario once (CHAOS_ARGS="--runs 3 --members 250", see docs/chaos.md)
CHAOS_ARGS ?= --runs 1
chaos: $(TEST_INSTALLED)
	bash tests/ensure_postgres.sh >/dev/null
	$(BIN)/python -m bench.chaos $(CHAOS_ARGS)

## install: the service's files, as systemd/README.md describes (DESTDIR=scratch root to stage them)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= /opt/reconciler
UNITDIR ?= /etc/systemd/system
CONFDIR ?= /etc/reconciler
install:
	$(PYTHON) -m venv --clear $(DESTDIR)$(LIBDIR)
	$(DESTDIR)$(LIBDIR)/bin/pip install --quiet $(PIP_INSTALL_OPTIONS) .
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR)
	printf '#!/bin/sh\nexec %s/bin/python -m reconciler.cli.main "$$@"\n' '$(LIBDIR)' > $(DESTDIR)$(BINDIR)/reconciler
	chmod 0755 $(DESTDIR)$(BINDIR)/reconciler
	sed -e 's|/usr/local/bin/reconciler|$(BINDIR)/reconciler|' -e 's|/etc/reconciler/|$(CONFDIR)/|g' \
		systemd/reconciler.service > $(DESTDIR)$(UNITDIR)/reconciler.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/reconciler.service
	install -d -m 0750 $(DESTDIR)$(CONFDIR)
	test -e $(DESTDIR)$(CONFDIR)/reconciler.toml || install -m 0640 systemd/reconciler.toml $(DESTDIR)$(CONFDIR)/
	test -e $(DESTDIR)$(CONFDIR)/clouds.yaml || install -m 0640 systemd/clouds.yaml $(DESTDIR)$(CONFDIR)/

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
