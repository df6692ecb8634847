# Two commands for a fresh clone (see README.md):
#   make run   - install, migrate, load the benchmarks, start web + scoring and background workers + beat (Ctrl-C stops all)
#   make test  - install what the tests need and run the whole suite
# PYTHON picks the interpreter that creates .venv (Python 3.11); PORT the port make run serves on
# (make run PORT=8001); links in emails and exports follow it.

PYTHON ?= python3
PORT ?= 8000
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
CHROMIUM := /usr/bin/chromium
NGINX := /usr/sbin/nginx

.PHONY: run test lint check install install-dev chromium nginx clean bench-smoke

$(PY):
	$(PYTHON) -m venv $(VENV)

# Stamp files: reinstall only when a requirements file changed.
$(VENV)/.installed-run: requirements.txt | $(PY)
	$(PIP) install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(PY)
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.installed-run

install: $(VENV)/.installed-run

install-dev: $(VENV)/.installed-dev

# The setup commands print links too (demo e-mails): they use the port make run serves on.
run: export SITE_URL ?= http://127.0.0.1:$(PORT)
run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(PY) manage.py ensure_demo_user
	$(PY) manage.py load_benchmarks --demo
	$(PY) manage.py recompute_boards
	$(PY) manage.py runall --port $(PORT)

# Debian's chromium for the browser tests: installed only when missing and we are root.
# apt-get update runs only when needed: the lists do not know chromium, or the install fails on stale lists.
chromium:
	@if [ -x $(CHROMIUM) ]; then \
		echo "chromium: $(CHROMIUM) is installed"; \
	elif [ "$$(id -u)" = "0" ]; then \
		export DEBIAN_FRONTEND=noninteractive; \
		if apt-cache show chromium >/dev/null 2>&1 && apt-get install -y chromium; then :; \
		else apt-get update && apt-get install -y chromium; fi; \
	else \
		echo "chromium: $(CHROMIUM) is missing and we are not root; browser tests will be skipped (they fail under CI=true)"; \
	fi

# Debian's nginx for the tests behind a real proxy (tests/security/test_behind_nginx.py), the same way.
nginx:
	@if [ -x $(NGINX) ]; then \
		echo "nginx: $(NGINX) is installed"; \
	elif [ "$$(id -u)" = "0" ]; then \
		export DEBIAN_FRONTEND=noninteractive; \
		if apt-cache show nginx >/dev/null 2>&1 && apt-get install -y nginx; then :; \
		else apt-get update && apt-get install -y nginx; fi; \
	else \
		echo "nginx: $(NGINX) is missing and we are not root; the tests behind nginx will be skipped (they fail under CI=true)"; \
	fi

# mypy: --strict for scoring/, the default checks for leaderboard/ (config in pyproject.toml).
lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

check: install-dev
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run

# The suite runs in TEST_PROCESSES parallel processes (pytest-xdist; each has its own test database,
# Redis database and bucket prefix), a whole module to a process so a module's shared fixtures are
# built once; TEST_PROCESSES=0 runs it in this process alone. PHASE_TIMES names a file that gets
# "lint <seconds>" and "suite <seconds>" lines (.ci/run prints them).
# pytest exits 5 when it collected no test; that is not a failure of the code.
TEST_PROCESSES ?= 2
PHASE_TIMES ?= /dev/null

test: install-dev chromium nginx
	@start=$$(date +%s); status=0; $(MAKE) --no-print-directory lint check || status=$$?; \
	echo "lint $$(( $$(date +%s) - start ))" >>"$(PHASE_TIMES)"; exit $$status
	@start=$$(date +%s); status=0; \
	$(VENV)/bin/pytest -n $(TEST_PROCESSES) --dist loadfile || status=$$?; \
	echo "suite $$(( $$(date +%s) - start ))" >>"$(PHASE_TIMES)"; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests (exit 5): treated as success"; exit 0; fi; \
	exit $$status

# Every bench/ script once at its smallest size (bench/smoke): proves they still run, measures nothing.
bench-smoke: install-dev chromium
	PY=$(PY) bench/smoke

clean:
	rm -rf var/test-* .pytest_cache .ruff_cache test-artifacts
