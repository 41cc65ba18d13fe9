"""The site at scale on one machine (``make run-scaled``): nginx in front of N daphne processes, one or more
referees, PostgreSQL and Redis, production settings (``DEBUG=0``).

    python deploy/run_scaled.py [--daphnes 2] [--referees 1] [--host 127.0.0.1] [--port 8000] [--seconds 0]

- nginx listens on ``--host:--port``, serves ``/static/`` from collectstatic's folder and passes everything
  else (pages and WebSockets) to the daphne processes on the next ports, round robin: no stickiness, any
  process serves any table (the database is the truth, Redis carries every frame to every process).
- The referees are ``manage.py referee`` processes (with Redis the referee does not run inside daphne).
- The daphne processes and referees reach PostgreSQL through PgBouncer (``--pgbouncer``, default
  127.0.0.1:6432 as ``deploy/services.sh`` starts it, session pooling, so the site's prepared statements stay;
  ``--pgbouncer ''`` connects them straight to PostgreSQL); migrations go straight to PostgreSQL. The channel
  layer is sharded over ``REDIS_CHANNEL_URLS`` (default: ``REDIS_URL`` and the same database number on the
  second Redis, 127.0.0.1:6380); the cache and the sessions stay on ``REDIS_URL``.
- ``DATABASE_URL`` and ``REDIS_URL`` default to the services ``deploy/services.sh`` starts (Redis over the Unix
  sockets it gives them, /run/redis-ginsite/redis-PORT.sock, when they listen on them, else over TCP). A ``SECRET_KEY``
  is generated for the local run unless one is given (kept in the run folder, so sessions survive a
  restart), ``ALLOWED_HOSTS`` is
  the host, ``SECURE_SSL_REDIRECT`` is off (plain HTTP on the loopback; behind TLS set it to 1).
- It stops cleanly on Ctrl-C or SIGTERM, or by itself after ``--seconds`` (0: until stopped), and stops
  everything if one of its processes dies. It prints one line ``SCALED {json}`` with the URL and the ports
  once nginx answers, for scripts and the scale-out test.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATABASE_URL = "postgres://ginsite:ginsite@127.0.0.1:5432/ginsite"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
DEFAULT_PGBOUNCER = "127.0.0.1:6432"
SECOND_REDIS = "127.0.0.1:6380"
#: The Unix sockets deploy/services.sh gives the two Redis servers (6379, 6380).
REDIS_SOCKETS = ("/run/redis-ginsite/redis-6379.sock", "/run/redis-ginsite/redis-6380.sock")


def pooled_url(database_url: str, pgbouncer: str) -> str:
    """``database_url`` with its host and port replaced by PgBouncer's (same role, password and database)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(database_url)
    credentials = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return urlunsplit(parts._replace(netloc=credentials + pgbouncer))


def _socket_answers(path: str) -> bool:
    """Whether a server accepts connections on the Unix socket ``path``."""
    if not os.path.exists(path):
        return False
    with socket.socket(socket.AF_UNIX) as probe:
        probe.settimeout(1)
        return probe.connect_ex(path) == 0


def default_redis_url() -> str:
    """``deploy/services.sh``'s first Redis, database 0: over its Unix socket when it listens on one (a command
    costs the serving processes and Redis less there than over loopback TCP), else over TCP."""
    return f"unix://{REDIS_SOCKETS[0]}?db=0" if _socket_answers(REDIS_SOCKETS[0]) else DEFAULT_REDIS_URL


def channel_urls(redis_url: str) -> list[str]:
    """The channel layer's shards: ``REDIS_CHANNEL_URLS`` if set, else ``redis_url`` and the same database on
    the second Redis (over its Unix socket when ``redis_url`` is the first one's socket and the second
    listens on one too)."""
    if os.environ.get("REDIS_CHANNEL_URLS"):
        return [url.strip() for url in os.environ["REDIS_CHANNEL_URLS"].split(",") if url.strip()]
    from urllib.parse import parse_qs, urlsplit, urlunsplit

    parts = urlsplit(redis_url)
    if parts.scheme == "unix":
        if parts.path == REDIS_SOCKETS[0] and _socket_answers(REDIS_SOCKETS[1]):
            return [redis_url, f"unix://{REDIS_SOCKETS[1]}" + (f"?{parts.query}" if parts.query else "")]
        db = parse_qs(parts.query).get("db", ["0"])[0]
        return [redis_url, f"redis://{SECOND_REDIS}/{db}"]
    credentials = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return [redis_url, urlunsplit(parts._replace(netloc=credentials + SECOND_REDIS))]


def nginx_binary() -> str | None:
    return shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)


def missing_services(database_url: str, redis_url: str, *, pgbouncer: str = "",
                     channel_redis: list[str] | None = None) -> str | None:
    """None when nginx is installed and PostgreSQL (and PgBouncer, if named) and every Redis answer, else what
    is missing."""
    if nginx_binary() is None:
        return "nginx is not installed (apt-get install nginx, or bash deploy/services.sh)"
    try:
        import psycopg

        with psycopg.connect(database_url.replace("postgres://", "postgresql://", 1), connect_timeout=3):
            pass
    except Exception as error:  # noqa: BLE001 - any failure means: not there
        return f"PostgreSQL does not answer at {database_url} ({error.__class__.__name__}; bash deploy/services.sh)"
    if pgbouncer:
        pooled = pooled_url(database_url, pgbouncer)
        try:
            with psycopg.connect(pooled.replace("postgres://", "postgresql://", 1), connect_timeout=3):
                pass
        except Exception as error:  # noqa: BLE001
            return f"PgBouncer does not answer at {pgbouncer} ({error.__class__.__name__}; bash deploy/services.sh)"
    import redis

    for url in [redis_url, *(channel_redis or [])]:
        try:
            redis.Redis.from_url(url, socket_connect_timeout=3).ping()
        except Exception as error:  # noqa: BLE001
            return f"Redis does not answer at {url} ({error.__class__.__name__}; bash deploy/services.sh)"
    return None


def _port_free(host: str, port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def _wait_port(host: str, port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} stopped at start (exit {process.returncode})")
        with socket.socket() as probe:
            if probe.connect_ex((host, port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {host}:{port} after {timeout} s")


class Site:
    def __init__(self, args):
        self.args = args
        self.run_dir = Path(args.run_dir or Path(tempfile.gettempdir()) / f"ginsite-scaled-{args.port}")
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.processes: list[tuple[str, subprocess.Popen]] = []
        self.daphne_ports = [args.port + 1 + i for i in range(args.daphnes)]
        self.env = self._environment()

    def _environment(self) -> dict:
        key_file = self.run_dir / "secret_key"
        if os.environ.get("SECRET_KEY"):
            key_file.write_text(os.environ["SECRET_KEY"])
        elif not key_file.exists():
            key_file.write_text(secrets.token_urlsafe(50))
        key_file.chmod(0o600)
        records_key = self.run_dir / "records_signing_key"
        if os.environ.get("RECORDS_SIGNING_KEY"):
            records_key.write_text(os.environ["RECORDS_SIGNING_KEY"])
        elif not records_key.exists():
            records_key.write_text(secrets.token_hex(32))
        records_key.chmod(0o600)
        host, port = self.args.host, self.args.port
        redis_url = os.environ.get("REDIS_URL") or default_redis_url()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GAMES_TEST_", "DJANGO_ALLOW_ASYNC"))}
        env.update({
            "DJANGO_SETTINGS_MODULE": "ginsite.settings",
            "DEBUG": "0",
            "SECRET_KEY": key_file.read_text().strip(),
            "RECORDS_SIGNING_KEY": records_key.read_text().strip(),
            "ALLOWED_HOSTS": f"{host},localhost",
            "CSRF_TRUSTED_ORIGINS": f"http://{host}:{port},http://localhost:{port}",
            "SECURE_SSL_REDIRECT": os.environ.get("SECURE_SSL_REDIRECT", "0"),
            "DATABASE_URL": os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            "REDIS_URL": redis_url,
            "REDIS_CHANNEL_URLS": ",".join(channel_urls(redis_url)),
            "STATIC_ROOT": os.environ.get("STATIC_ROOT") or str(self.run_dir / "static"),
            "PYTHONUNBUFFERED": "1",
        })
        # Migrations, the cache table and collectstatic talk to PostgreSQL itself; the serving processes go
        # through PgBouncer.
        self.direct_env = dict(env)
        if self.args.pgbouncer:  # session pooling (deploy/services.sh): DATABASE_POOL_MODE stays "session"
            env["DATABASE_URL"] = pooled_url(env["DATABASE_URL"], self.args.pgbouncer)
        return env

    def manage(self, *command: str) -> None:
        done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=self.direct_env,
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(command)} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}")

    def spawn(self, name: str, args: list[str], *, port: int | None = None) -> None:
        log = open(self.run_dir / f"{name}.log", "ab")  # noqa: SIM115 - lives as long as the process
        process = subprocess.Popen(args, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.processes.append((name, process))
        if port is not None:
            _wait_port(self.args.host, port, process)

    def nginx_conf(self) -> Path:
        template = (ROOT / "deploy" / "nginx.conf.template").read_text()
        upstreams = "\n".join(f"        server {self.args.host}:{port};" for port in self.daphne_ports)
        mime = "/etc/nginx/mime.types"
        conf = (template.replace("@RUN_DIR@", str(self.run_dir)).replace("@UPSTREAMS@", upstreams)
                .replace("@HOST@", self.args.host).replace("@PORT@", str(self.args.port))
                .replace("@STATIC_ROOT@", self.env["STATIC_ROOT"]).replace("@MIME_TYPES@", mime))
        if not os.path.exists(mime):
            conf = conf.replace(f"    include {mime};\n", "")
        path = self.run_dir / "nginx.conf"
        path.write_text(conf)
        return path

    def start(self) -> None:
        for port in [self.args.port, *self.daphne_ports]:
            if not _port_free(self.args.host, port):
                raise RuntimeError(f"port {port} is taken (choose another with --port)")
        self.manage("migrate", "--noinput", "-v", "0")
        self.manage("createcachetable")  # the cache's table where the cache is the database (none for Redis)
        self.manage("collectstatic", "--noinput", "-v", "0")
        for i, port in enumerate(self.daphne_ports):
            self.spawn(f"daphne{i + 1}", [
                sys.executable, "-m", "daphne", "--proxy-headers",
                "-e", f"tcp:port={port}:interface={self.args.host}:backlog=2048",
                "ginsite.asgi:application",
            ], port=port)
        for i in range(self.args.referees):
            self.spawn(f"referee{i + 1}", [sys.executable, "manage.py", "referee"])
        conf = self.nginx_conf()
        nginx = nginx_binary()
        subprocess.run([nginx, "-t", "-q", "-p", str(self.run_dir), "-c", str(conf)], check=True,
                       capture_output=True, timeout=30)
        self.spawn("nginx", [nginx, "-p", str(self.run_dir), "-c", str(conf)], port=self.args.port)
        url = f"http://{self.args.host}:{self.args.port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url + "/", timeout=5):
                    break
            except urllib.error.HTTPError:
                break  # it answered
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        print("SCALED " + json.dumps({"url": url, "daphne_ports": self.daphne_ports, "run_dir": str(self.run_dir),
                                      "referees": self.args.referees, "pgbouncer": self.args.pgbouncer,
                                      "channel_redis": self.env["REDIS_CHANNEL_URLS"].split(",")}), flush=True)

    def watch(self, seconds: float) -> int:
        stop_at = time.monotonic() + seconds if seconds > 0 else None
        while stop_at is None or time.monotonic() < stop_at:
            for name, process in self.processes:
                if process.poll() is not None:
                    print(f"{name} stopped (exit {process.returncode}); stopping the site", file=sys.stderr)
                    return 1
            time.sleep(0.5)
        return 0

    def stop(self) -> None:
        # nginx first (no new requests), then the referees and daphne processes.
        for name, process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGQUIT if name == "nginx" else signal.SIGTERM)
        for _, process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daphnes", type=int, default=int(os.environ.get("DAPHNES", "2")))
    parser.add_argument("--referees", type=int, default=int(os.environ.get("REFEREES", "1")))
    parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("SECONDS_TO_RUN", "0")),
                        help="stop by itself after this many seconds (0: run until Ctrl-C / SIGTERM)")
    parser.add_argument("--pgbouncer", default=os.environ.get("PGBOUNCER", DEFAULT_PGBOUNCER),
                        help="host:port of PgBouncer for the serving processes ('' : straight to PostgreSQL)")
    parser.add_argument("--run-dir", help="logs, nginx.conf, the generated key, static files (default: a temp folder)")
    args = parser.parse_args(argv)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print("run_scaled serves on the loopback only (--host 127.0.0.1)", file=sys.stderr)
        return 2
    site = Site(args)
    missing = missing_services(site.direct_env["DATABASE_URL"], site.env["REDIS_URL"], pgbouncer=args.pgbouncer,
                               channel_redis=site.env["REDIS_CHANNEL_URLS"].split(","))
    if missing:
        print(missing, file=sys.stderr)
        return 2
    stopping = {"signal": None}

    def on_signal(signum, frame):
        stopping["signal"] = signum
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    try:
        site.start()
        print(f"Serving on http://{args.host}:{args.port}/ with {args.daphnes} daphne and {args.referees} "
              f"referee(s) behind nginx (logs in {site.run_dir}; Ctrl-C stops it)", flush=True)
        code = site.watch(args.seconds)
    except KeyboardInterrupt:
        code = 0
    except Exception as error:  # noqa: BLE001 - say why, stop what started
        print(f"run_scaled: {error}", file=sys.stderr)
        code = 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        site.stop()
    return code


if __name__ == "__main__":
    sys.exit(main())
