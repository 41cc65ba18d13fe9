"""The request body cap through a real daphne (issue 25): a body announced or sent past
DATA_UPLOAD_MAX_MEMORY_SIZE gets 413 before it is read, and daphne's memory does not grow by its size (an
anonymous 200 MB POST used to take daphne from 170 to 370 MB before its 403). Figures of one run: the
growth is compared with the body's size, not with a fixed time or speed."""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.games.test_live_daphne import ROOT, free_port, start_daphne, stop

BIG = 64 * 1024 * 1024  # the body a client sends (or announces): 64 MiB, 64 times the cap
PIECE = 64 * 1024


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def daphne(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("body-cap")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "ginsite.settings", "DEBUG": "1", "PYTHONUNBUFFERED": "1",
           "SQLITE_PATH": str(tmp_path / "db.sqlite3"), "RECORDS_SIGNING_KEY_FILE": str(tmp_path / "key")}
    env.pop("DATABASE_URL", None)
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=300)
    assert migrated.returncode == 0, migrated.stderr
    port = free_port()
    process = start_daphne(port, env)
    yield port, process
    stop(process)


def post(port: int, headers: list[str], pieces) -> tuple[bytes, int]:
    """Sends the headers, then the body piece by piece while the server has not answered; the answer, and how
    many body bytes went out before it."""
    sent = 0
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall(("\r\n".join(["POST /partie/ansehen/ HTTP/1.1", f"Host: 127.0.0.1:{port}", *headers])
                      + "\r\n\r\n").encode())
        try:
            for piece in pieces:
                if select.select([conn], [], [], 0)[0]:
                    break
                conn.sendall(piece)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            pass
        deadline = time.monotonic() + 20
        try:
            while time.monotonic() < deadline and b"\r\n\r\n" not in answer:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except ConnectionResetError:
            pass
    return answer, sent


def body(total: int, chunked: bool):
    block = b"record=" + b"x" * (PIECE - 7)
    for _ in range(total // PIECE):
        yield (b"%x\r\n%s\r\n" % (len(block), block)) if chunked else block
    if chunked:
        yield b"0\r\n\r\n"


def test_a_body_announced_past_the_cap_gets_413_and_is_not_read(daphne):
    port, process = daphne
    before = rss(process.pid)
    answer, sent = post(port, ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {BIG}"],
                        body(BIG, chunked=False))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert "Die Anfrage ist zu groß".encode() in answer or b"413" in answer
    grown = rss(process.pid) - before
    assert grown < BIG // 4, (grown, sent)


def test_a_chunked_body_past_the_cap_gets_413_and_the_rest_is_not_read(daphne):
    port, process = daphne
    before = rss(process.pid)
    answer, sent = post(port, ["Content-Type: application/x-www-form-urlencoded", "Transfer-Encoding: chunked"],
                        body(BIG, chunked=True))
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert sent < BIG  # refused while it arrived
    grown = rss(process.pid) - before
    assert grown < BIG // 4, (grown, sent)


def test_a_body_within_the_cap_still_reaches_the_site(daphne):
    port, _process = daphne
    small = b"record=" + b"%7B%7D"
    answer, _sent = post(port, ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(small)}",
                                "Connection: close"], [small])
    assert answer.startswith(b"HTTP/1.1 403"), answer[:200]  # CSRF: the site answered, not the cap
