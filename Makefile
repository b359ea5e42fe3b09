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

.PHONY: venv tools-os test bench sim deploy bundle clean

venv: $(STAMP)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

# tmux drives the simulator's end-to-end test in a real terminal; install it
# where we may (root with apt-get), otherwise that test says what is missing.
tools-os:
	@command -v tmux >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && apt-get install -y -qq tmux >/dev/null) \
	  || echo "note: tmux is not installed; the simulator's terminal test will be skipped"; }

test: $(STAMP) tools-os
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m bench.run

# The clock in the terminal (keys: a / l players, space pause, e end, r referee, q quit):
#   make sim ARGS="--profile pfs --base 15:00 --speed 10 --lang pl --board sim_2004"
#   make sim ARGS="--replay examples/sdev_overtime.replay --speed 100"
ARGS ?=
sim: $(STAMP)
	$(PY) -m host_sim sim $(ARGS)

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

# -- docs: pictures of the real screens for the quick-reference cards
#   make screens                                regenerate docs/screens/*.svg (tools/screens.py)
.PHONY: screens
screens: $(STAMP)
	$(PY) tools/screens.py
