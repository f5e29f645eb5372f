# The README's two commands: `make run` and `make test`. Both call `make install` first.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install system run test bench clean

install: system $(STAMP)

# Debian packages the sandbox needs (bubblewrap, libseccomp2); installed only when missing.
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

run: install
	@bash scripts/run.sh

test: install
	@bash scripts/test.sh

bench: install
	$(PY) bench/engines.py

clean:
	rm -rf $(VENV) var
