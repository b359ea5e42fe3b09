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

.PHONY: venv tools-os target-check test bench sim deploy bundle clean

venv: $(STAMP)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

# System tools the tests drive: tmux (the simulator's end-to-end test in a real
# terminal) and qemu-system-arm (the suites on a 32-bit MicroPython image).
# Installed where we may (root with apt-get), otherwise the tests say what is
# missing.
OS_TOOLS := tmux qemu-system-arm
tools-os:
	@missing=""; for t in $(OS_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	[ -z "$$missing" ] || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 \
	  && (apt-get update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $$missing >/dev/null) \
	  || echo "note:$$missing not installed; the tests that need them will be skipped"; }

# The emulated Pico (target/, the npm rp2040js package) and the MicroPython
# images in ../shared/emu or $$SCRABBLE_EMU_DIR (host_sim/target.py).
target-check:
	@if command -v npm >/dev/null 2>&1; then (cd target && npm ci --silent --no-audit --no-fund >/dev/null) \
	  || echo "note: npm ci in target/ failed; the emulated Pico run will say so"; fi
	@$(PY) -c "from host_sim import target as t; m = t.missing(images=[t.PICO_UF2, t.BOOTROM, t.QEMU_ELF]); m and print(m)"

test: $(STAMP) tools-os target-check
	$(PY) -m pytest -q

bench: $(STAMP) tools-os target-check
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
