"""Starting and stopping what the load test measures, all on 127.0.0.1: the site (daphne processes running
``ginsite.asgi:application``, and a referee process where the site runs one) and the bare stack
(``../shared/stackbench/stack.py`` under daphne, run from its own read-only folder), each on a fresh database.

Two stacks, as the issue names them:

- ``embedded``: SQLite and the in-memory channel layer, one daphne (the site as ``make run`` serves it);
- ``scaled``: PostgreSQL and Redis, two daphne processes (the site as ``make run-scaled`` serves it, without
  nginx, so that site and bare stack are driven the same way; ``--nginx`` is the scale-out test's business):
  the serving processes reach PostgreSQL through PgBouncer (``LOADTEST_PGBOUNCER``, default 127.0.0.1:6432,
  session pooling, as ``deploy/services.sh`` runs it) and shard the channel layer over both Redis
  servers (``REDIS_CHANNEL_URLS``: ``LOADTEST_REDIS_SHARDS``, default :6379 and :6380, the same database
  number on each); migrations, seeding and the record check go straight to PostgreSQL, as ``run_scaled``'s
  migrations do. The bare stack's daphne processes go through the same PgBouncer to the same PostgreSQL (its
  settings take one Redis: it has no sharded layer to compare with). Both stacks reach Redis the same way:
  over the Unix sockets ``deploy/services.sh`` gives the servers where they listen on them, else over TCP
  (``LOADTEST_REDIS`` and ``LOADTEST_REDIS_SHARDS`` take either kind of URL). Both run in this virtualenv
  (``sys.executable``), so both parse Redis's replies with hiredis when ``requirements.txt`` installed it.

``LOADTEST_SITE_DB``, ``LOADTEST_BARE_DB`` and ``LOADTEST_REDIS_DB`` name the databases and the Redis
database number a run uses (several people sharing a machine each take their own).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STACKBENCH = Path(os.environ.get("STACKBENCH_DIR", ROOT.parent / "shared" / "stackbench"))
#: The bare stack's checkout may sit beside another folder than this one (a worktree): look there too.
if not STACKBENCH.exists():
    for candidate in (ROOT.parent.parent / "shared" / "stackbench", Path("/work/shared/stackbench")):
        if candidate.exists():
            STACKBENCH = candidate
            break

PG_BASE = os.environ.get("LOADTEST_PG", "postgres://ginsite:ginsite@127.0.0.1:5432")
#: Where ``deploy/services.sh`` lets each Redis listen on a Unix socket besides its TCP port.
REDIS_SOCKET_DIR = "/run/redis-ginsite"


def _answers(path: str) -> bool:
    """Whether something accepts connections on the Unix socket ``path`` (a file left by a stopped server
    does not)."""
    with socket.socket(socket.AF_UNIX) as probe:
        probe.settimeout(1)
        return probe.connect_ex(path) == 0


def local_redis(port: int) -> str:
    """The Redis of ``deploy/services.sh`` on ``port``: its Unix socket when it listens on one (a command costs
    less there than over loopback TCP), else 127.0.0.1:``port``. Both stacks take the same."""
    path = f"{REDIS_SOCKET_DIR}/redis-{port}.sock"
    return f"unix://{path}" if os.path.exists(path) and _answers(path) else f"redis://127.0.0.1:{port}"


def redis_url(base: str, db: int, **params) -> str:
    """``base`` (``redis://host:port`` or ``unix:///path``) with database ``db`` and query ``params``."""
    from urllib.parse import urlencode

    if base.startswith("unix://"):
        return f"{base}?{urlencode({'db': db, **params})}"
    return f"{base}/{db}" + (f"?{urlencode(params)}" if params else "")


REDIS_BASE = os.environ.get("LOADTEST_REDIS") or local_redis(6379)
#: The scaled stack's pooler (host:port; '' : the serving processes go straight to PostgreSQL) and the Redis
#: servers its channel layer is sharded over (as ``deploy/services.sh`` starts them for ``make run-scaled``).
PGBOUNCER = os.environ.get("LOADTEST_PGBOUNCER", "127.0.0.1:6432")
REDIS_SHARDS = [url.strip().rstrip("/") for url in
                (os.environ.get("LOADTEST_REDIS_SHARDS") or f"{REDIS_BASE},{local_redis(6380)}").split(",")
                if url.strip()]
#: Databases and Redis database numbers of their own, so a load run never touches the site's or the tests'.
SITE_PG_DB = os.environ.get("LOADTEST_SITE_DB", "ginsite_loadtest")
BARE_PG_DB = os.environ.get("LOADTEST_BARE_DB", "ginsite_stackbench")
SITE_REDIS_DB = int(os.environ.get("LOADTEST_REDIS_DB", "14"))
BARE_REDIS_DB = SITE_REDIS_DB + 1  # the bare stack: the next one (LOADTEST_REDIS_DB names the site's)

#: The scaled stack's daphne processes (both sides): LOADTEST_DAPHNES, 2 by default (the capacity model's
#: 1 → 2 → 4 run, docs/scale.md).
SCALED_DAPHNES = int(os.environ.get("LOADTEST_DAPHNES", "2"))
STACKS = {
    "embedded": {"label": "SQLite + in-memory, 1 daphne", "daphnes": 1},
    "scaled": {"label": f"PostgreSQL + Redis, {SCALED_DAPHNES} daphne", "daphnes": SCALED_DAPHNES},
}


#: ``LOADTEST_PORT_BASE``: take the servers' ports from this one up (the first free ones), for a machine where
#: each user of it has ports of their own; unset, the system picks free ones.
_PORT_BASE = int(os.environ.get("LOADTEST_PORT_BASE", "0"))
_ports_taken: set[int] = set()


def free_port() -> int:
    port = _PORT_BASE
    while port:
        if port not in _ports_taken:
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    pass
                else:
                    _ports_taken.add(port)
                    return port
        port += 1
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def server_environ(*, drop: tuple[str, ...]) -> dict:
    """This process's environment for a server of the load test, without the names in ``drop`` (prefixes) and
    without pytest's: run from the test suite's worker ``gw1``, a daphne that inherited ``PYTEST_XDIST_WORKER``
    moved its ``REDIS_URL`` to the worker's own database (``ginsite.settings.redis_url_of_worker``: 14 became 16,
    which Redis has not), away from where the load test put the sessions, and answered HTTP 500."""
    return {k: v for k, v in os.environ.items() if not k.startswith((*drop, "PYTEST_"))}


def _wait_listening(port: int, process: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server on port {port} stopped at start:\n{log.read_text(errors='replace')[-3000:]}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def _run(args: list[str], *, env: dict, cwd: Path, timeout: float = 600) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
    return done.stdout


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _pg_recreate(name: str) -> str:
    """Drop and create database ``name`` (the role needs CREATEDB); returns its URL."""
    import psycopg

    with psycopg.connect(f"{PG_BASE}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{PG_BASE}/{name}"


def pooled(database_url: str, pgbouncer: str | None = None) -> str:
    """``database_url`` through the pooler (its host and port replaced by ``pgbouncer``'s; '' : unchanged)."""
    from urllib.parse import urlsplit, urlunsplit

    pgbouncer = PGBOUNCER if pgbouncer is None else pgbouncer
    if not pgbouncer:
        return database_url
    parts = urlsplit(database_url)
    credentials = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return urlunsplit(parts._replace(netloc=credentials + pgbouncer))


def channel_urls(db: int) -> list[str]:
    """The channel layer's shards: database ``db`` on each of :data:`REDIS_SHARDS`."""
    return [redis_url(shard, db) for shard in REDIS_SHARDS]


def _redis_flush(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


#: The shared services a scaled stack talks to (PostgreSQL's backends and its own processes, PgBouncer, Redis):
#: their CPU during a run is the stack's too, though the load test does not start them.
SERVICE_PROCESSES = ("postgres", "pgbouncer", "redis-server")


def _process_cpu(pid: str, *, children: bool = False) -> tuple[str, float]:
    """(command name, CPU seconds user + system) of one process, from /proc; ("", 0) when it is gone. With
    ``children``, its children that ended (and were waited for) are counted too."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except OSError:
        return "", 0.0
    name = text[text.index("(") + 1:text.rindex(")")]
    fields = text.rsplit(")", 1)[1].split()
    ticks = sum(int(value) for value in fields[11:15 if children else 13])
    return name, ticks / os.sysconf("SC_CLK_TCK")


def _descendants(pids: list[int]) -> list[str]:
    """``pids`` and every live process below them, from /proc."""
    parents: dict[str, list[str]] = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    parent = fh.read().rsplit(")", 1)[1].split()[1]
            except OSError:
                continue
            parents.setdefault(parent, []).append(pid)
    found, todo = [], [str(pid) for pid in pids]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(parents.get(pid, []))
    return found


def services_cpu_seconds() -> float:
    """CPU time the shared services' processes have used so far. PostgreSQL's backends come and go: one that
    ended lives on in its postmaster's children's time, so the sum does not drop when a backend exits."""
    total = 0.0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            name, seconds = _process_cpu(pid, children=True)
            if name in SERVICE_PROCESSES:
                total += seconds
    return total


def _proc_stat_cpu() -> list[int]:
    """The machine's first line of /proc/stat: user, nice, system, idle, iowait, irq, softirq, steal (ticks)."""
    with open("/proc/stat") as fh:
        return [int(v) for v in fh.readline().split()[1:9]]


def machine_cpu_seconds() -> float:
    """CPU time the whole machine has spent busy so far (every core, every process, the kernel, and the time the
    host gave to others while this machine wanted it: steal): /proc/stat."""
    values = _proc_stat_cpu()
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def machine_steal() -> tuple[float, float]:
    """Seconds so far that the host took from this virtual machine's cores for its other guests while they had
    work (/proc/stat's steal), and the seconds of every core in all (both in ticks' resolution). Between two
    readings: the share of the machine a run did not have, which a ratio of two runs cannot see."""
    values = _proc_stat_cpu()
    tick = os.sysconf("SC_CLK_TCK")
    return values[7] / tick, sum(values) / tick


def stolen_share(before: tuple[float, float], after: tuple[float, float]) -> float:
    """The share of the machine's time stolen between two ``machine_steal`` readings (0 when none passed)."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else 0.0


def services_available() -> str | None:
    """None if PostgreSQL and Redis answer on 127.0.0.1, else why not."""
    try:
        import psycopg

        with psycopg.connect(f"{PG_BASE}/postgres", connect_timeout=3):
            pass
    except Exception as error:  # noqa: BLE001 - any failure means: not there
        return f"PostgreSQL at {PG_BASE} does not answer ({error.__class__.__name__}); run `make services`"
    if PGBOUNCER:
        try:
            with psycopg.connect(f"{pooled(PG_BASE)}/postgres", connect_timeout=3):
                pass
        except Exception as error:  # noqa: BLE001
            return (f"PgBouncer at {PGBOUNCER} does not answer ({error.__class__.__name__}); run "
                    "`bash deploy/services.sh` (or LOADTEST_PGBOUNCER='' to go straight to PostgreSQL)")
    import redis

    for url in dict.fromkeys([REDIS_BASE, *REDIS_SHARDS]):
        try:
            redis.Redis.from_url(redis_url(url, 0), socket_connect_timeout=3).ping()
        except Exception as error:  # noqa: BLE001
            return f"Redis at {url} does not answer ({error.__class__.__name__}); run `bash deploy/services.sh`"
    return None


@dataclass
class Servers:
    """The processes of one stack under test; ``ports`` are the daphne ports the clients spread over."""

    kind: str  # "site" or "bare"
    stack: str
    env: dict
    workdir: Path
    ports: list[int] = field(default_factory=list)
    processes: list[subprocess.Popen] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    def stop(self) -> None:
        for process in self.processes:
            _stop(process)
        self.processes.clear()

    def spawn_daphnes(self, application: str, cwd: Path, backlog: int, stages: Path | None) -> None:
        """The stack's daphne processes (``STACKS``), each on a free port, each noting its moves' stages in
        ``stages`` (``{kind}-daphne{i}.jsonl``) when given."""
        for i in range(STACKS[self.stack]["daphnes"]):
            port = free_port()
            self.ports.append(port)
            trace = stages / f"{self.kind}-daphne{i}.jsonl" if stages else None
            self._spawn(f"daphne{i}", daphne_args(port, application, backlog, trace), cwd, port=port)

    @contextlib.contextmanager
    def stopped_on_failure(self):
        """Starting: whatever was spawned is stopped if the start fails or is interrupted (the caller never got
        these servers to stop)."""
        try:
            yield
        except BaseException:
            self.stop()
            raise

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the stack's processes and every process they started have used so far
        (daphne's handshake helper, the previews' and the computer players' workers; one that ended counts in
        its parent's children's time)."""
        return sum(_process_cpu(pid, children=True)[1] for pid in _descendants([p.pid for p in self.processes]))

    def settle(self, *, quiet: float = 0.05, timeout: float = 30.0) -> float:
        """Wait until the stack's processes have started up: their CPU over half a second is under ``quiet`` of
        one core (a process without a port, the referee, imports and checks the site for a second or more after
        it is spawned; counted, that start would be charged to the run's changes). Returns the seconds waited."""
        started = time.perf_counter()
        before = self.cpu_seconds()
        while time.perf_counter() - started < timeout:
            time.sleep(0.5)
            now = self.cpu_seconds()
            if now - before < quiet * 0.5:
                break
            before = now
        return time.perf_counter() - started

    def log_tail(self, lines: int = 30) -> str:
        out = []
        for log in self.logs:
            text = log.read_text(errors="replace").splitlines()
            if text:
                out.append(f"--- {log.name}\n" + "\n".join(text[-lines:]))
        return "\n".join(out)

    def errors_logged(self) -> int:
        """Tracebacks and error lines the servers wrote (the site logs at WARNING)."""
        count = 0
        for log in self.logs:
            for line in log.read_text(errors="replace").splitlines():
                if line.startswith("Traceback") or " ERROR " in line or line.startswith("ERROR"):
                    count += 1
        return count

    def arena_passes(self) -> list[dict]:
        """The arena's pairing passes the servers logged (``tournaments.passes``: one JSON line per pass, in
        whichever process runs the referee), in the order they began."""
        passes = []
        for log in self.logs:
            for line in log.read_text(errors="replace").splitlines():
                head, _, tail = line.partition("arena pass ")
                if tail and not head.strip():
                    passes.append(json.loads(tail))
        return sorted(passes, key=lambda p: p["at"])

    def _spawn(self, name: str, args: list[str], cwd: Path, *, port: int | None = None) -> None:
        log = self.workdir / f"{self.kind}-{name}.log"
        self.logs.append(log)
        with open(log, "wb") as fh:
            process = subprocess.Popen(args, cwd=cwd, env=self.env, stdout=fh, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        self.processes.append(process)
        if port is not None:
            _wait_listening(port, process, log)


def daphne_args(port: int, application: str, backlog: int, stages: Path | None = None) -> list[str]:
    """``stages``: a file the process notes a move's stages in (``loadtest.stages`` wraps daphne)."""
    # An endpoint string, not -b/-p: the listen backlog is Twisted's 50 otherwise, and a burst of a
    # thousand handshakes then waits on SYN retries (1 s, 3 s, ...) before the server sees it at all.
    runner = ["-m", "daphne"] if stages is None else [
        "-m", "loadtest.stages", "site" if application.startswith("ginsite") else "bare", str(stages)]
    return [sys.executable, *runner, "-e", f"tcp:port={port}:interface=127.0.0.1:backlog={backlog}",
            "--websocket_connect_timeout", "5", application]


class SiteStack:
    """The site on a fresh database: migrate once, seed per profile, then serve."""

    def __init__(self, stack: str, workdir: Path, *, referee: str = "auto", backlog: int = 2048):
        self.stack = stack
        self.workdir = workdir
        self.backlog = backlog
        self.referee = referee
        env = server_environ(drop=("DJANGO_", "GAMES_"))
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        env.update({
            "DJANGO_SETTINGS_MODULE": "ginsite.settings",
            # Production settings, as the site is served: no query log, no debug pages.
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "RECORDS_SIGNING_KEY": secrets.token_hex(32),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            "PYTHONUNBUFFERED": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "LOG_LEVEL": "WARNING",
        })
        if stack == "embedded":
            env["SQLITE_PATH"] = str(workdir / "site.sqlite3")
        self.env = env
        self.prepared = False

    def prepare(self) -> None:
        if self.stack == "scaled":
            self.env["DATABASE_URL"] = _pg_recreate(SITE_PG_DB)
            self.env["REDIS_URL"] = redis_url(REDIS_BASE, SITE_REDIS_DB)
            for url in dict.fromkeys([self.env["REDIS_URL"], *channel_urls(SITE_REDIS_DB)]):
                _redis_flush(url)
        _run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], env=self.env, cwd=ROOT)
        _run([sys.executable, "manage.py", "createcachetable"], env=self.env, cwd=ROOT)  # sign-in limits' counts
        self.prepared = True

    def serving_env(self) -> dict:
        """The environment of the daphne processes and the referee: on the scaled stack as ``make
        run-scaled`` runs them (``deploy/run_scaled.py``): PostgreSQL through PgBouncer in session
        pooling, the channel layer sharded over :data:`REDIS_SHARDS`; the cache and the sessions on
        ``REDIS_URL``. Migrations, seeding and the record check keep ``self.env`` (straight to PostgreSQL)."""
        env = dict(self.env)
        if self.stack == "scaled":
            if PGBOUNCER:  # session pooling (deploy/services.sh), as make run-scaled: DATABASE_POOL_MODE "session"
                env["DATABASE_URL"] = pooled(env["DATABASE_URL"])
            env["REDIS_CHANNEL_URLS"] = ",".join(channel_urls(SITE_REDIS_DB))
        return env

    def seeding_env(self) -> dict:
        """The seeding process's environment: straight to PostgreSQL and without ``REDIS_URL`` (it sends its table
        events nowhere: no socket is open yet), but told where the site's cache keeps sessions
        (``LOADTEST_SESSION_CACHE_URL``: the scaled stack's sessions are Django's ``cached_db``), so that it
        puts them there as signing in does (``loadtest.site``)."""
        env = {k: v for k, v in self.env.items() if k != "REDIS_URL"}
        if self.stack == "scaled":
            env["LOADTEST_SESSION_CACHE_URL"] = self.env.get("REDIS_CACHE_URL") or self.env["REDIS_URL"]
        return env

    def seed(self, tables: int, prefix: str) -> list[dict]:
        if not self.prepared:
            self.prepare()
        out = self.workdir / f"seed-{prefix}.json"
        env = self.seeding_env()
        _run([sys.executable, "-m", "loadtest.site", "seed", str(tables), prefix, str(out)], env=env, cwd=ROOT)
        return json.loads(out.read_text())["tables"]

    def seed_tournament(self, players: int, prefix: str) -> dict:
        """A gin Swiss of ``players`` people, registered and checked in, not yet started (loadtest.site)."""
        if not self.prepared:
            self.prepare()
        out = self.workdir / f"tournament-{prefix}.json"
        env = self.seeding_env()
        _run([sys.executable, "-m", "loadtest.site", "seed_tournament", str(players), prefix, str(out)], env=env,
             cwd=ROOT, timeout=1800)
        return json.loads(out.read_text())

    def seed_arena(self, players: int, prefix: str, minutes: int) -> dict:
        """A gin arena of ``minutes`` and ``players`` people (not registered yet) and its staff (loadtest.site)."""
        if not self.prepared:
            self.prepare()
        out = self.workdir / f"arena-{prefix}.json"
        env = self.seeding_env()
        _run([sys.executable, "-m", "loadtest.site", "seed_arena", str(players), prefix, str(minutes), str(out)],
             env=env, cwd=ROOT, timeout=1800)
        return json.loads(out.read_text())

    def register_arena(self, tournament: int, users: list[int]) -> None:
        """Register ``users`` for the arena (through the services, in a process of its own, with the servers
        running: a registration marks its player present, so it comes just before the start)."""
        path = self.workdir / f"register-{tournament}.json"
        path.write_text(json.dumps(users))
        env = {k: v for k, v in self.env.items() if k != "REDIS_URL"}
        _run([sys.executable, "-m", "loadtest.site", "register_arena", str(tournament), str(path)], env=env,
             cwd=ROOT, timeout=1800)

    def verify_arena(self, record: dict, name: str) -> dict:
        path, out = self.workdir / f"arena-record-{name}.json", self.workdir / f"arena-verify-{name}.json"
        path.write_text(json.dumps(record))
        env = {k: v for k, v in self.env.items() if k != "REDIS_URL"}
        _run([sys.executable, "-m", "loadtest.site", "verify_arena", str(path), str(out)], env=env, cwd=ROOT)
        return json.loads(out.read_text())

    def verify(self, record: dict, name: str) -> dict:
        path, out = self.workdir / f"record-{name}.json", self.workdir / f"verify-{name}.json"
        path.write_text(json.dumps({"tables": record}))
        env = {k: v for k, v in self.env.items() if k != "REDIS_URL"}
        _run([sys.executable, "-m", "loadtest.site", "verify", str(path), str(out)], env=env, cwd=ROOT)
        return json.loads(out.read_text())

    def start(self, stages: Path | None = None, *, log_level: str | None = None) -> Servers:
        """Serve. ``stages``: a folder the daphne processes note each move's stages in (``loadtest.stages``);
        ``log_level`` (e.g. ``"INFO"``: the arena's pass lines) instead of the WARNING of the others."""
        env = self.serving_env()
        if log_level:
            env["LOG_LEVEL"] = log_level
        servers = Servers("site", self.stack, env, self.workdir)
        with servers.stopped_on_failure():
            servers.spawn_daphnes("ginsite.asgi:application", ROOT, self.backlog, stages)
            referee = self.referee
            if referee == "auto":
                # With Redis the referee is its own process (as `make run-scaled` runs it); without, it runs
                # inside daphne (the embedded default) and needs no process here.
                referee = "process" if self.stack == "scaled" else "none"
            if referee == "process":
                servers._spawn("referee", [sys.executable, "manage.py", "referee"], ROOT)
        return servers


class BareStack:
    """``../shared/stackbench`` on a fresh database of its own (its folder is read-only: files go elsewhere)."""

    def __init__(self, stack: str, workdir: Path, *, backlog: int = 2048):
        if not (STACKBENCH / "stack.py").exists():
            raise RuntimeError(f"the bare stack is not at {STACKBENCH} (set STACKBENCH_DIR)")
        self.stack = stack
        self.workdir = workdir
        self.backlog = backlog
        env = server_environ(drop=("DJANGO_",))
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        env.update({"PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(STACKBENCH)})
        if stack == "embedded":
            env["SQLITE"] = str(workdir / "stack.sqlite3")
        self.env = env

    def seed(self, tables: int) -> None:
        if self.stack == "scaled":
            self.env["DATABASE_URL"] = _pg_recreate(BARE_PG_DB)
            # Stock channels-redis waits 5 s in its blocking pop, redis-py 8 reads every reply within 5 s by
            # default: the reference's consumers died of "Timeout reading" on idle channels. A socket timeout
            # above the pop's (rq's fix, PR #2120) keeps it alive; the site's layer reads that reply with a
            # timeout of its own (ginsite/layers.py).
            self.env["REDIS_URL"] = redis_url(REDIS_BASE, BARE_REDIS_DB, socket_timeout=10)
            _redis_flush(self.env["REDIS_URL"])
        _run([sys.executable, "setup_db.py", str(tables)], env=self.env, cwd=STACKBENCH)

    def start(self, stages: Path | None = None) -> Servers:
        env = dict(self.env)
        if self.stack == "scaled":  # the same PostgreSQL by the same road as the site's daphne processes
            env["DATABASE_URL"] = pooled(env["DATABASE_URL"])
        if stages:  # the wrapper (loadtest.stages) is imported from here, the bare stack from its folder
            env["PYTHONPATH"] = f"{env['PYTHONPATH']}{os.pathsep}{ROOT}"
        servers = Servers("bare", self.stack, env, self.workdir)
        with servers.stopped_on_failure():
            servers.spawn_daphnes("stack:application", STACKBENCH, self.backlog, stages)
        return servers


@contextlib.contextmanager
def workspace(keep: bool = False):
    path = Path(tempfile.mkdtemp(prefix="ginsite-loadtest-"))
    try:
        yield path
    finally:
        if not keep:
            import shutil

            shutil.rmtree(path, ignore_errors=True)
