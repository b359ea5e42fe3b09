# Scrabble tournament clock — developer entry points.
#   make sim      the clock in the terminal (the simulator)
#   make test     every check: pytest on CPython, the MicroPython runs, mpy-cross
#   make bench    the published figures, printed (make bench-docs: into docs/benchmarks.md)
#   make hall     the tournament hall: Mosquitto + the director's page (docs/hall.md)
#   make firmware BOARD=pico                     build/firmware/pico.uf2: MicroPython + the app, one file
#   make deploy BOARD=pico [PORT=/dev/ttyACM0]   copy the app onto a board (developers)
#   make bundle BOARD=pico                       a folder of files for Thonny users

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
BOARD  ?= pico
PORT   ?=

.PHONY: venv deps tools-os target-check test bench bench-docs sim deploy bundle clean firmware firmware-tables

venv: $(STAMP)

# requirements.txt: the runtime's pins (pyproject.toml's dependencies);
# requirements-test.txt: the tests', the bench's and the tools' (it includes
# the runtime's).  The hall and the simulator alone: pip install . (README).
$(STAMP): requirements.txt requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-test.txt
	touch $(STAMP)

# make deps: the Debian packages the tests drive, one explicit step that
# `make test`, `make bench` and `make hall` call first: tmux (the simulator's
# terminal test), qemu-system-arm (the suites on a 32-bit MicroPython image),
# mosquitto (the tournament hall's broker), mosquitto-clients (mosquitto_sub:
# the instrument of make bench's hall_messages_per_second), chromium + chromium-driver (the
# director's page in a real browser), npm (the page's MQTT library and the
# emulated Pico), poppler-utils (pdftoppm: the printable cards' pages), the
# ARM toolchain and cmake (make firmware: gcc-arm-none-eabi, its newlib and
# libstdc++, cmake, build-essential).  As root with apt-get it installs the missing ones and says
# so; otherwise it prints one line naming what to install, and the tests that
# need them are skipped; under CI=true a missing one fails the run.
OS_TOOLS := tmux:tmux qemu-system-arm:qemu-system-arm mosquitto:mosquitto \
            mosquitto_passwd:mosquitto mosquitto_sub:mosquitto-clients chromium:chromium chromedriver:chromium-driver npm:npm \
            pdftoppm:poppler-utils arm-none-eabi-gcc:gcc-arm-none-eabi cmake:cmake c++:build-essential \
            /usr/lib/arm-none-eabi/newlib/libc.a:libnewlib-arm-none-eabi \
            /usr/lib/arm-none-eabi/newlib/libstdc++.a:libstdc++-arm-none-eabi-newlib
deps:
	@missing() { m=""; for t in $(OS_TOOLS); do command -v $${t%%:*} >/dev/null 2>&1 \
	  || [ -x /usr/sbin/$${t%%:*} ] || [ -f $${t%%:*} ] || case " $$m " in *" $${t#*:} "*) ;; *) m="$$m $${t#*:}";; esac; done; echo $$m; }; \
	need=$$(missing); \
	if [ -n "$$need" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "deps: apt-get install $$need"; \
	  apt-get update -qq && apt-get -o DPkg::Lock::Timeout=600 install -y -qq $$need >/dev/null \
	    || echo "deps: apt-get failed"; \
	  left=$$(missing); for p in $$need; do case " $$left " in *" $$p "*) ;; *) done="$$done $$p";; esac; done; \
	  [ -n "$$done" ] && echo "deps: installed$$done"; need=$$left; fi; \
	if [ -n "$$need" ]; then \
	  if [ "$$CI" = true ]; then echo "error: missing Debian packages:$$(printf ' %s' $$need) (CI=true: nothing may be skipped)"; exit 1; fi; \
	  echo "note: install the Debian packages$$(printf ' %s' $$need) (as root: make deps); the tests that need them are skipped"; fi
tools-os: deps   # its former name

# The director's page uses the npm mqtt package's browser build (MIT), pinned
# by tools/hall-npm/package-lock.json and installed into build/npm.
MQTT_JS := build/npm/node_modules/mqtt/dist/mqtt.min.js
.PHONY: hall-page hall
hall-page: $(MQTT_JS)
$(MQTT_JS): tools/hall-npm/package.json tools/hall-npm/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
	  mkdir -p build/npm && cp tools/hall-npm/package.json tools/hall-npm/package-lock.json build/npm/ \
	  && (cd build/npm && npm ci --no-audit --no-fund --silent) && touch $@; \
	elif [ "$$CI" = true ]; then echo "error: npm missing: the director's page cannot be built"; exit 1; \
	else echo "note: npm missing: the director's page cannot be built; the hall tests will be skipped"; fi

# The tournament hall (docs/hall.md): Mosquitto + the director's page.
#   make hall ARGS="--clocks 100"        ... with 100 simulated clocks
hall: $(STAMP) deps hall-page
	$(PY) -m hall $(ARGS)

# The emulated Pico (target/, the npm rp2040js package) and the MicroPython
# images in ../shared/emu or $$SCRABBLE_EMU_DIR (host_sim/target.py).
target-check:
	@if command -v npm >/dev/null 2>&1; then (cd target && npm ci --silent --no-audit --no-fund >/dev/null) \
	  || echo "note: npm ci in target/ failed; the emulated Pico run will say so"; fi
	@$(PY) -c "from host_sim import target as t; m = t.missing(images=[t.PICO_UF2, t.BOOTROM, t.QEMU_ELF]); m and print(m)"

# The test modules run on two workers (pytest-xdist, each module whole on
# one of them, --dist loadfile, so a module's emulated boards, hall or
# browser are built once); TEST_JOBS=0 runs them all in this one process.
TEST_JOBS ?= 2
test: $(STAMP) deps hall-page target-check
	$(PY) -m pytest -q $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist loadfile)

# Everything the figures need is a dependency, so `make bench` works on a
# fresh clone: the hall figures load the director's page (hall-page), the
# target figures the emulated Pico (target-check).  tests/test_bench.py
# checks it with `make -n bench` in a fresh clone.
# Baselines of older firmware are measured once and kept in
# bench/baselines.json; `make bench ARGS=--baselines` measures them again.
bench: $(STAMP) deps hall-page target-check
	$(PY) -m bench.run $(ARGS)

# The same figures written into the tracked docs/benchmarks.md (with the date
# and the commit measured): only when asked, so a bench run changes no file.
bench-docs: $(STAMP) deps hall-page target-check
	$(PY) -m bench.run --write $(ARGS)

# The clock in the terminal (keys: a / l players, space pause, e end, r referee, q quit):
#   make sim ARGS="--profile pfs --base 15:00 --speed 10 --lang pl --board sim_2004"
#   make sim ARGS="--replay examples/sdev_overtime.replay --speed 100"
ARGS ?=
# make sim TABLE=7: the simulator joins the hall running in $(HALL_DIR) as
# clock account 7 (python -m hall sim, docs/hall.md "A person's clock in the hall")
sim: $(STAMP)
	$(if $(TABLE),$(PY) -m hall sim --dir $(HALL_DIR) --table $(TABLE) $(ARGS),$(PY) -m host_sim sim $(ARGS))

clean:
	rm -rf build .pytest_cache .hypothesis
	find . -name __pycache__ -prune -exec rm -rf {} +

# -- boards: deploy / bundle (tools/deploy.py), wiring pictures (tools/wiring.py)
#   make deploy BOARD=esp32 PORT=/dev/ttyUSB0   SOURCES=1 copies .py instead of .mpy
#   make deploy BOARD=pico DRY_RUN=1            print the mpremote commands only
#   make wiring                                 regenerate docs/wiring/*.svg + docs/build.md tables
# What goes onto the board: the firmware package the board's WIFI flag names:
# clock-core (no network code: pico, pico_2004) or clock-net (pico_w, esp32),
# plus the display families its DISPLAY names (host_sim.board_files).
SOURCES ?=
DRY_RUN ?=
DEPLOY  := PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(PY) tools/deploy.py

# The tournament hall (docs/hall.md): TABLE=n also writes the clock's net.json
# (Wi-Fi, broker, event, table, its password from the hall folder) and copies it:
#   make deploy BOARD=pico_w TABLE=12 SSID=Hall WIFI_PASSWORD=... BROKER=192.168.1.10 [EVENT=open]
TABLE ?=
SSID ?=
WIFI_PASSWORD ?=
BROKER ?=
EVENT ?= open
HALL_DIR ?= build/hall
deploy: $(STAMP)
	@$(if $(TABLE),mkdir -p build && $(PY) -m hall clock-config --dir $(HALL_DIR) --event $(EVENT) --table $(TABLE) \
	  --host "$(BROKER)" --ssid "$(SSID)" --wifi-password "$(WIFI_PASSWORD)" --out build/net-$(TABLE).json &&) \
	$(DEPLOY) deploy --board $(BOARD) $(if $(PORT),--port $(PORT)) $(if $(SOURCES),--sources) $(if $(DRY_RUN),--dry-run) \
	  $(if $(TABLE),--net-json build/net-$(TABLE).json)

# Clock after clock for the hall, each with the next table (docs/hall.md):
#   make deploy-tables BOARD=pico_w TABLES=1-20 SSID=Hall WIFI_PASSWORD=... BROKER=192.168.1.10 [PORT=/dev/ttyACM0] [DRY_RUN=1]
TABLES ?=
.PHONY: deploy-tables
deploy-tables: $(STAMP)
	@$(DEPLOY) tables --board $(BOARD) --tables "$(TABLES)" $(if $(PORT),--port $(PORT)) $(if $(SOURCES),--sources) $(if $(DRY_RUN),--dry-run) \
	  --hall-dir $(HALL_DIR) --event $(EVENT) --broker "$(BROKER)" --ssid "$(SSID)" --wifi-password "$(WIFI_PASSWORD)"

bundle: $(STAMP)
	@$(DEPLOY) bundle --board $(BOARD) $(if $(SOURCES),--sources)

# -- one firmware file per clock (tools/fwimage.py, docs/build.md "Build one")
#   make firmware BOARD=pico|pico_w|pico_2004   build/firmware/<board>.uf2: MicroPython
#        v1.28.0 with the app and the board frozen; copy it onto the board in BOOTSEL mode
#   make firmware-tables BOARD=pico_w TABLES=1-40 SSID=Hall WIFI_PASSWORD=... BROKER=192.168.1.10 [EVENT=open]
#        build/firmware/tables-pico_w/table-NN.uf2: the image plus that table's net.json,
#        manifest.csv and labels.pdf; BROKER must be the hall computer's address (no loopback)
# The MicroPython sources: MICROPY_SRC (a tarball or a folder), default
# ../shared/micropython; the build is cached by a hash of what goes in
# (${XDG_CACHE_HOME:-~/.cache}/scrabble-clock/firmware).  PORT_BOARD=RPI_PICO
# builds a Wi-Fi board on the plain Pico (the emulated Pico has no CYW43).
MICROPY_SRC ?=
PORT_BOARD ?=
FIRMWARE := $(PY) tools/fwimage.py
firmware: $(STAMP)
	@$(FIRMWARE) build --board $(BOARD) $(if $(MICROPY_SRC),--src "$(MICROPY_SRC)") \
	  $(if $(PORT_BOARD),--port-board $(PORT_BOARD))

firmware-tables: $(STAMP)
	@$(FIRMWARE) tables --board $(BOARD) --tables "$(TABLES)" $(if $(MICROPY_SRC),--src "$(MICROPY_SRC)") \
	  $(if $(PORT_BOARD),--port-board $(PORT_BOARD)) --hall-dir $(HALL_DIR) --event $(EVENT) \
	  --broker "$(BROKER)" --ssid "$(SSID)" --wifi-password "$(WIFI_PASSWORD)"

.PHONY: wiring
wiring: $(STAMP)
	$(PY) tools/wiring.py --all

# -- docs: pictures of the real screens for the quick-reference cards
#   make screens                                regenerate docs/screens/*.svg (tools/screens.py)
.PHONY: screens
screens: $(STAMP)
	$(PY) tools/screens.py

# -- printable cards: a one-page player card and referee card per language, PDF
#   make cards                                  build/cards/<lang>-player.pdf, <lang>-referee.pdf
.PHONY: cards
cards: $(STAMP) deps
	$(PY) tools/cards.py
