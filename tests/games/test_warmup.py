"""A serving process warms up before its first socket (``games.web.warmup``): every prepared read compiled,
the handshake batch's statements run once for no table on the readers' threads, the channel layer's Redis
connections opened. Through the process ``make run`` starts: tests/live/test_warmup_make_run.py."""

from __future__ import annotations

import logging

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.reads import prepared, selectors
from games.web import handshakes, warmup


@pytest.mark.django_db(transaction=True)  # the warm-up's database calls run on threads of their own
def test_the_warm_up_compiles_every_prepared_read_before_any_move_or_handshake():
    reads = list(prepared._instances)
    assert len(reads) >= 10  # the moves' and the handshakes' reads are all imported with the site
    for read in reads:
        read._compiled.clear()
    done = async_to_sync(warmup.warm)()
    assert "failed" not in done
    assert done["compiled"] == len(reads)
    alias_and_vendor = ("default", connection.vendor)
    assert [read for read in reads if alias_and_vendor not in read._compiled] == []


@pytest.mark.django_db(transaction=True)
def test_the_warm_up_opens_connections_to_every_redis_server_of_the_channel_layer():
    layer = get_channel_layer()
    done = async_to_sync(warmup.warm)()
    # channels-redis (CI's PostgreSQL + Redis run, sharded over two servers): each one; in memory: none.
    assert done["redis"] == getattr(layer, "ring_size", 0)


@pytest.mark.django_db
def test_the_readers_warm_up_runs_a_handshake_batchs_statements_for_no_table():
    with CaptureQueriesContext(connection) as queries:
        handshakes.warm_reads()
    sent = [query["sql"] for query in queries.captured_queries]
    expected = [read.compiled().sql for read, _ in
                [(handshakes._USERS, []), *selectors.opening_reads([]), *selectors.snapshot_reads([], [])]]
    # The statements a batch sends, in its order (the compiled SQL with the values filled in by the driver).
    assert len(sent) == len(expected) == 6
    for statement, sql in zip(sent, expected, strict=True):
        assert statement.split(" WHERE ")[0] == sql.split(" WHERE ")[0]


@pytest.mark.django_db(transaction=True)
def test_a_warm_up_that_fails_is_logged_and_the_process_serves_on(monkeypatch, caplog):
    def broken(using="default"):
        raise RuntimeError("no database")

    monkeypatch.setattr(prepared, "compile_all", broken)
    with caplog.at_level(logging.INFO, logger="games.web.warmup"):
        done = async_to_sync(warmup.warm)()
    assert done["failed"] is True
    messages = [record.getMessage() for record in caplog.records]
    assert any("warming up failed" in message for message in messages)
    assert any(message.startswith("warmed up in") for message in messages)
