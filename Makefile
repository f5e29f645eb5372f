# The README's two commands: `make run` and `make test`. Both call `make install` first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Front-end libraries (package.json, pinned by package-lock.json) copied where Django finds them.
VENDOR := static/vendor
VENDOR_STAMP := $(VENDOR)/.installed

.PHONY: install system run test bench clean

install: system $(STAMP) $(VENDOR_STAMP)

# Debian packages the project needs (bubblewrap, libseccomp2, chromium, npm); installed only when missing.
system:
	@bash scripts/install-system-packages.sh

# elo 0.1.1's setup.py uses use_2to3, which setuptools>=58 dropped: build it first with an
# old setuptools and no build isolation; the requirements install then finds it satisfied.
$(STAMP): requirements.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check 'setuptools<58' wheel
	$(PY) -m pip install --quiet --disable-pip-version-check --no-build-isolation elo==0.1.1
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $(STAMP)

# npm ci installs exactly the lock file's versions into node_modules/; only the built files the
# pages load are copied into static/vendor/ (both ignored by git).
$(VENDOR_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	rm -rf $(VENDOR) && mkdir -p $(VENDOR)/uplot
	cp node_modules/uplot/dist/uPlot.iife.min.js node_modules/uplot/dist/uPlot.min.css node_modules/uplot/LICENSE $(VENDOR)/uplot/
	@touch $@

run: install
	@bash scripts/run.sh

test: install
	@bash scripts/test.sh

bench: install
	$(PY) bench/engines.py

clean:
	rm -rf $(VENV) var node_modules $(VENDOR)
