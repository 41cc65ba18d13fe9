# The two commands every newcomer needs: `make run` and `make test`. Both set everything up themselves.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run run-scaled test faults bench bench-leaderboard bench-export loadtest lint messages migrate services clean

# A stamp per requirements set: the venv is (re)installed only when a requirements file changes.
$(VENV)/.runtime: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt $(VENV)/.runtime
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

$(VENV)/.bench: requirements-bench.txt $(VENV)/.dev
	$(PY) -m pip install -q -r requirements-bench.txt || echo "bench extras (rlcard) not installed; the comparison is skipped"
	touch $@

messages: $(VENV)/.runtime
	$(PY) manage.py compilemessages --ignore=$(VENV) -v 0

migrate: $(VENV)/.runtime messages
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py createcachetable

## Serve the site on http://$(HOST):$(PORT) with daphne; the referee (turn timers, computer players) runs
## inside it (no Redis: the in-memory channel layer). With REDIS_URL set, start `manage.py referee` beside it.
run: migrate
	@echo "Serving on http://$(HOST):$(PORT)/ (Ctrl-C stops it)"
	@$(VENV)/bin/daphne -e tcp:port=$(PORT):interface=$(HOST):backlog=1024 ginsite.asgi:application

## The site at scale on one machine: nginx in front of $(DAPHNES) daphne processes, $(REFEREES) referee(s),
## PostgreSQL and Redis (deploy/services.sh installs and starts them; root the first time), DEBUG=0.
## RUN_SECONDS=N stops it by itself after N seconds (0: Ctrl-C stops it). See docs/scale.md.
DAPHNES ?= 2
REFEREES ?= 1
RUN_SECONDS ?= 0
run-scaled: $(VENV)/.runtime messages
	bash deploy/services.sh
	$(PY) deploy/run_scaled.py --daphnes $(DAPHNES) --referees $(REFEREES) --host $(HOST) --port $(PORT) --seconds $(RUN_SECONDS)

## Load test: scripted players on the site and on the bare stack (../shared/stackbench) in the same run,
## every profile on both stacks; LOADTEST_ARGS="--profile ceiling --stack embedded" for one. See docs/scale.md.
LOADTEST_ARGS ?=
loadtest: $(VENV)/.dev messages
	bash deploy/services.sh || echo "PostgreSQL/Redis not available: the scaled stack will be skipped"
	$(PY) -m loadtest $(LOADTEST_ARGS)

## Lint and run the whole test suite (browser tests need /usr/bin/chromium; REQUIRE_BROWSER=1 makes it a must):
## the tests that need no server of their own on $(TEST_WORKERS) workers, then those that start servers or a
## browser (marked `serial`, tests/conftest.py) one at a time, so their timings are not shared with a neighbour.
## SERIAL_WORKERS=2 runs those on two workers instead, each one test at a time, a module at a time, the longest
## first and each worker taking the next module as it finishes (tests/conftest.py). .ci/run uses it on both stacks.
## TEST_SELECT narrows both parts by marks: .ci/run's PostgreSQL + Redis pass gives "not stackless" (the tests
## that run the same on every stack ran in its SQLite pass).
TEST_WORKERS ?= 2
SERIAL_WORKERS ?= 0
TEST_SELECT ?=
test: $(VENV)/.dev messages
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) manage.py makemigrations --check --dry-run -v 0
	$(VENV)/bin/pytest -n $(TEST_WORKERS) -m "not serial$(if $(TEST_SELECT), and ($(TEST_SELECT)))"
	$(VENV)/bin/pytest $(if $(filter-out 0,$(SERIAL_WORKERS)),-n $(SERIAL_WORKERS) --dist loadgroup --no-loadscope-reorder) -m "serial$(if $(TEST_SELECT), and ($(TEST_SELECT)))"

## Fault tests (minutes): daphne killed, Redis and PostgreSQL restarted, the referee killed or doubled, under
## running matches, on a PostgreSQL cluster and a Redis server of their own (needs their programs installed).
faults: $(VENV)/.dev messages
	GINSITE_FAULTS=1 $(VENV)/bin/pytest tests/faults -m faults

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .

## Benchmarks: the meld solvers, self-play speed and the bots' strength (figures for the notes, no pass/fail).
## The bots' tournament is bounded: every count is a flag (python -m bench.gin --help), e.g.
## make bench GIN_BENCH_ARGS="--matches 400" ROMME_BENCH_ARGS="--lists 100" (gin's level crosstable: --full plays
## 2,000 mirrored matches per pairing, hours with the expert's search), ANALYSIS_BENCH_ARGS="--matches 5
## --seconds 0.5" (the post-match analysis's time per match and decision). At most 2 processes. Both games print
## their level crosstable with 95 % intervals (Rommé: --level-lists); --no-slips plays the lower levels' heuristics
## without their designed slips (the expert's old reference).
GIN_BENCH_ARGS ?=
ROMME_BENCH_ARGS ?=
ANALYSIS_BENCH_ARGS ?=
bench: $(VENV)/.bench
	nice -n 10 $(PY) -m bench.gin $(GIN_BENCH_ARGS)
	nice -n 10 $(PY) -m bench.romme $(ROMME_BENCH_ARGS)
	nice -n 10 $(PY) -m bench.analysis $(ANALYSIS_BENCH_ARGS)
	$(MAKE) bench-leaderboard

## The leaderboard page at size: an SQLite file in artifacts/ seeded once (100,000 players, 1,000,000 rated
## matches; minutes), then p50/p95 of /bestenliste/. With DATABASE_URL set it measures that database instead.
BENCH_USERS ?= 100000
BENCH_MATCHES ?= 1000000
bench-leaderboard: $(VENV)/.dev messages
	mkdir -p artifacts
	SQLITE_PATH=$(CURDIR)/artifacts/bench-leaderboard.sqlite3 $(PY) manage.py migrate --noinput -v 0
	SQLITE_PATH=$(CURDIR)/artifacts/bench-leaderboard.sqlite3 $(PY) manage.py createcachetable
	SQLITE_PATH=$(CURDIR)/artifacts/bench-leaderboard.sqlite3 $(PY) -m bench.leaderboard --seed-users $(BENCH_USERS) --seed-matches $(BENCH_MATCHES)

## The NDJSON export's peak memory and queries at 1,000 and 10,000 matches (its own throwaway SQLite file; minutes).
bench-export: $(VENV)/.dev
	nice -n 10 $(PY) -m bench.export

## PostgreSQL + Redis on 127.0.0.1 (Debian packages; needs root). Prints the URLs to export.
services:
	bash .ci/services.sh

clean:
	rm -rf $(VENV) staticfiles artifacts .pytest_cache .ruff_cache .hypothesis
