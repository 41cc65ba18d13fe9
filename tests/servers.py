"""Real processes for the end-to-end tests, started one way: a free port, daphne (as ``make run`` starts it, or
bound with ``-b``/``-p``), the wait until it listens, its stop, and ``manage.py`` calls (``migrate``, a shell
script whose answer is one ``<TAG> <json>`` line, a signed-in session made inside such a script).

Standard library only at the top: a ``manage.py shell`` script imports :func:`session_key` from here."""

from __future__ import annotations

import atexit
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: daphne of the virtual environment the tests run in.
DAPHNE = Path(sys.executable).with_name("daphne")
#: How long a server may take to listen.
START_SECONDS = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def wait_for_port(port: int, *, process: subprocess.Popen | None = None, timeout: float = START_SECONDS,
                  log: Path | None = None, interval: float = 0.05) -> None:
    """Until something listens on 127.0.0.1:``port``. Fails with the end of ``log`` (or the process's
    stderr, when it is a pipe) if ``process`` stops first, and when ``timeout`` runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the process on port {port} stopped at start:\n{_output(process, log)}")
        if listening(port):
            return
        time.sleep(interval)
    raise AssertionError(f"nothing listens on port {port} after {timeout} s:\n{_output(process, log)}")


def _output(process: subprocess.Popen | None, log: Path | None) -> str:
    if log is not None and log.exists():
        return log.read_text(errors="replace")[-3000:]
    if process is not None and process.stderr is not None and process.poll() is not None:
        return process.stderr.read().decode(errors="replace")[-3000:]
    return ""


def start_daphne(port: int, env: dict, *, log: Path | None = None, make_run: bool = False) -> subprocess.Popen:
    """daphne serving the site on 127.0.0.1:``port``, once it listens. ``make_run``: the Makefile's ``run``
    line (``-e tcp:port=…:interface=…:backlog=1024``), else ``-b``/``-p``. Its output goes to ``log`` (else
    stdout is dropped and stderr kept for a start that fails)."""
    where = (["-e", f"tcp:port={port}:interface=127.0.0.1:backlog=1024"] if make_run
             else ["-b", "127.0.0.1", "-p", str(port)])
    command = [str(DAPHNE), *where, "ginsite.asgi:application"]
    if log is not None:
        with log.open("ab") as out:
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    else:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(port, process=process, log=log, interval=0.1)
    except AssertionError:
        stop(process)
        raise
    return process


def stop(process: subprocess.Popen) -> None:
    """Terminate, and kill what does not end within 10 seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def migrate(env: dict) -> None:
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


_sqlite_template: Path | None = None


def migrated_sqlite(env: dict) -> None:
    """The SQLite file ``env["SQLITE_PATH"]`` as ``migrate`` leaves it on an empty one: the first call of this
    process migrates a template, every call copies it (the same schema and rows, without Django's start and the
    migrations each time)."""
    global _sqlite_template
    assert "DATABASE_URL" not in env, "for the SQLite file of SQLITE_PATH only"
    if _sqlite_template is None:
        folder = Path(tempfile.mkdtemp(prefix="ginsite-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        migrate({**env, "SQLITE_PATH": str(folder / "template.sqlite3")})
        _sqlite_template = folder / "template.sqlite3"
    for suffix in ("", "-wal"):
        source = _sqlite_template.with_name(_sqlite_template.name + suffix)
        if source.exists():
            shutil.copyfile(source, env["SQLITE_PATH"] + suffix)


def manage_shell(code: str, env: dict, *, tag: str = "E2E", timeout: float = 60) -> Any:
    """Run ``code`` in ``manage.py shell``; its answer is the JSON on its output line starting ``<tag> ``."""
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith(f"{tag} "))
    return json.loads(line[len(tag) + 1:])


def session_key(user: Any) -> str:
    """Inside a ``manage.py shell`` script: a stored session signed in as ``user``, as a browser's cookie
    carries it after signing in (the key)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    assert session.session_key is not None
    return session.session_key


def children_of(pid: int) -> dict[int, str]:
    """The live processes whose parent is ``pid``, with their command lines (from /proc)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found[int(entry.name)] = cmdline
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (neither gone nor a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
