"""The process ``make run`` starts warms up once its event loop runs (``games.web.warmup``): its database threads
and the prepared reads are ready before the first socket asks for them, and it says so once in its log."""

from __future__ import annotations

import re
import time

import pytest

from tests.live.test_clocks_make_run import make_run_environment, start_as_make_run
from tests.servers import free_port, stop

# `make run`'s own stack (an SQLite file, the in-memory layer) whatever the run's DATABASE_URL and REDIS_URL: stackless.
pytestmark = [pytest.mark.slow, pytest.mark.stackless]


def test_the_process_make_run_starts_warms_up_before_its_first_socket(tmp_path):
    env = make_run_environment(tmp_path)
    env.pop("LOG_LEVEL", None)
    log = tmp_path / "daphne.log"
    daphne = start_as_make_run(free_port(), env, log)
    try:
        deadline = time.monotonic() + 20
        found = None
        while found is None and time.monotonic() < deadline:
            found = re.search(r"warmed up in (\d+) ms: (\d+) prepared reads, (\d+) reader threads, (\d+) Redis servers",
                              log.read_text(errors="replace"))
            time.sleep(0.1)
    finally:
        stop(daphne)
    text = log.read_text(errors="replace")
    assert found is not None, text[-3000:]
    assert "warming up failed" not in text
    milliseconds, reads, readers, redis = map(int, found.groups())
    assert reads >= 10
    assert readers == 1  # SQLite in a file: the handshakes read on a thread of their own (GAMES_DB_READERS)
    assert redis == 0  # make run: the in-memory channel layer
    assert text.count("warmed up in") == 1  # once per process
