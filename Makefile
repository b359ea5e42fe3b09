# Scrabble tournament clock — developer entry points.
#   make sim      the clock in the terminal (the simulator)
#   make test     every check: pytest on CPython, the MicroPython runs, mpy-cross
#   make bench    the published figures (docs/benchmarks.md)
#   make deploy BOARD=pico [PORT=/dev/ttyACM0]   flash the app onto a board
#   make bundle BOARD=pico                       a folder of files for Thonny users

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BOARD  ?= pico
PORT   ?=

.PHONY: venv test bench sim deploy bundle replay clean

venv: $(STAMP)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

clean:
	rm -rf build .pytest_cache .hypothesis
	find . -name __pycache__ -prune -exec rm -rf {} +

# -- boards: deploy / bundle (tools/deploy.py), wiring pictures (tools/wiring.py)
#   make deploy BOARD=esp32 PORT=/dev/ttyUSB0   SOURCES=1 copies .py instead of .mpy
#   make deploy BOARD=pico DRY_RUN=1            print the mpremote commands only
#   make wiring                                 regenerate docs/wiring/*.svg + docs/build.md tables
SOURCES ?=
DRY_RUN ?=
DEPLOY  := PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) tools/deploy.py

deploy: $(STAMP)
	@$(DEPLOY) deploy --board $(BOARD) $(if $(PORT),--port $(PORT)) $(if $(SOURCES),--sources) $(if $(DRY_RUN),--dry-run)

bundle: $(STAMP)
	@$(DEPLOY) bundle --board $(BOARD) $(if $(SOURCES),--sources)

.PHONY: wiring
wiring: $(STAMP)
	$(PY) tools/wiring.py --all
