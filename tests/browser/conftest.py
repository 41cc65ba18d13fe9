"""Real-browser test harness: the real ASGI app under daphne, driven by Debian's Chromium through Playwright.

Fixtures for browser tests (this folder):

- ``daphne_server`` (session; not pytest-django's ``live_server``, which is WSGI only): a daphne process
  serving ``ginsite.asgi.application`` (HTTP and WebSocket) on 127.0.0.1 and a free port, against the test
  database. ``.url``, ``.ws_url``, ``.mail_dir``, ``.log_path``.
- ``live_server_url`` (function): the server's base URL; brings ``transactional_db``, because the server is
  another process and sees only committed rows (each test starts from empty tables).
- ``live_server_env`` (session): extra environment for the server (e.g. ``GAMES_TEST_DEAL_SEED``, or
  ``LIVE_SERVER_EXTRA_APPS``: apps of the test suite to install, comma-separated); override it in a conftest
  of a subfolder.
- ``browser`` (module): Chromium. Skipped with a reason when ``/usr/bin/chromium`` is missing, failed instead
  when ``REQUIRE_BROWSER=1``.
- ``new_page(locale="de-DE")`` (function): a fresh context and page per call, base URL set, so
  ``page.goto("/profil/")`` works; ``page`` is one German page.
- ``read_mails(to=None, wait=5.0)``: the mails the server sent during this test (subject and text decoded).
- ``screenshot(page, name)``: saves ``artifacts/screenshots/<name>.png`` (git-ignored) and returns the path.

A failing test's report ends with the last lines of the server's log (tracebacks of server errors included).

Two things to know. Playwright's sync API marks an asyncio loop as running between its calls, which makes
Django refuse ORM calls ("async context") and pytest-asyncio refuse to start its own loop; so the browser
lives per test module (not per session) and sets ``DJANGO_ALLOW_ASYNC_UNSAFE`` only while it lives. Keep
``async def`` tests out of modules that use the browser. And on SQLite the test database must be a file for
a second process to open it, so this conftest names one before the test database is created.
"""

import email
import email.policy
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
PROJECT_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT_DIR = PROJECT_ROOT / "artifacts" / "screenshots"
SERVER_START_TIMEOUT = 30.0
DEFAULT_TIMEOUT_MS = 10_000

# The SQLite test database is in memory unless named; a daphne process cannot open that one. This runs at
# collection, before pytest-django creates the test database (which appends an xdist worker's suffix).
_default_db = settings.DATABASES["default"]
if _default_db["ENGINE"] == "django.db.backends.sqlite3" and not _default_db.get("TEST", {}).get("NAME"):
    _default_db.setdefault("TEST", {})["NAME"] = str(
        Path(tempfile.gettempdir()) / f"ginsite-browser-test-{os.getpid()}.sqlite3"
    )

# Runs inside the server process: point the project's own settings at the test database and a mail folder,
# then hand over to daphne's command line. Everything else is the real settings and the real ASGI app.
SERVER_BOOT = """
import os, sys
from django.conf import settings
settings.DATABASES["default"]["NAME"] = os.environ["LIVE_SERVER_DB_NAME"]
settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
settings.EMAIL_FILE_PATH = os.environ["LIVE_SERVER_MAIL_DIR"]
if "127.0.0.1" not in settings.ALLOWED_HOSTS:
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
# Apps of the test suite (a game of its own: its entry, its static files), before Django sets up the apps.
extra_apps = [app for app in os.environ.get("LIVE_SERVER_EXTRA_APPS", "").split(",") if app]
settings.INSTALLED_APPS = [*settings.INSTALLED_APPS, *extra_apps]
from daphne.cli import CommandLineInterface
CommandLineInterface().run(sys.argv[1:])
"""


@dataclass
class LiveServer:
    url: str
    ws_url: str
    mail_dir: Path
    log_path: Path
    process: subprocess.Popen

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


@dataclass
class Mail:
    to: list[str]
    subject: str
    body: str

    @property
    def links(self) -> list[str]:
        return [word.strip("<>") for word in self.body.split() if word.startswith(("http://", "https://"))]


@pytest.fixture(autouse=True)
def _the_servers_password_hashers(settings, _fast_password_hashing):
    # The server is another process with the real settings: a password set here is hashed as it checks them
    # (by the real hasher, its hashes remembered when it is PBKDF2's: tests/browser/hashers.py).
    real = list(_fast_password_hashing)
    if real and real[0] == "django.contrib.auth.hashers.PBKDF2PasswordHasher":
        real[0] = "tests.browser.hashers.RememberingPBKDF2PasswordHasher"
    settings.PASSWORD_HASHERS = real


@pytest.fixture(scope="session")
def live_server_env() -> dict[str, str]:
    return {}


# The referee, in its own process against the test database, as `make run` starts it beside daphne.
REFEREE_BOOT = """
import os
import django
from django.conf import settings
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
settings.DATABASES["default"]["NAME"] = os.environ["LIVE_SERVER_DB_NAME"]
django.setup()
from django.core.management import call_command
call_command("referee", interval=0.1)
"""


@contextmanager
def serving(folder: Path, *, extra_env: dict[str, str] | None = None, referee: bool = False) -> Iterator[LiveServer]:
    """daphne serving the real ASGI app against the test database (and, if asked, the referee beside it),
    as `make run` does; mails land in ``folder/mails``. Everything started is stopped on exit."""
    mail_dir = folder / "mails"
    mail_dir.mkdir()
    log_path = folder / "daphne.log"
    # The parent binds the port and hands the listening socket over: no race for a "free" port.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(128)
    port = listener.getsockname()[1]
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "ginsite.settings",
        # The server runs as in development: no HTTPS redirect, test-only settings allowed.
        "DEBUG": "1",
        "LIVE_SERVER_DB_NAME": str(connections["default"].settings_dict["NAME"]),
        "LIVE_SERVER_MAIL_DIR": str(mail_dir),
        "PYTHONUNBUFFERED": "1",
        **(extra_env or {}),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    # A referee's clock analyses finished matches in a worker process: only where a test asks for it.
    env.setdefault("GAMES_ANALYSIS_SECONDS", "0")
    if not referee:
        # Without Redis daphne keeps time itself (games/web/timekeeper.py); a server asked for no referee must not,
        # or it plays the computer players of other tests' tables in the shared test database.
        env.setdefault("GAMES_REFEREE_IN_PROCESS", "0")
    commands = [[sys.executable, "-c", SERVER_BOOT, "--fd", str(listener.fileno()), "ginsite.asgi:application"]]
    if referee:
        commands.append([sys.executable, "-c", REFEREE_BOOT])
    processes = []
    with open(log_path, "wb") as log:
        for command in commands:
            processes.append(subprocess.Popen(
                command, cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                pass_fds=[listener.fileno()],
            ))
    listener.close()
    server = LiveServer(
        url=f"http://127.0.0.1:{port}",
        ws_url=f"ws://127.0.0.1:{port}",
        mail_dir=mail_dir,
        log_path=log_path,
        process=processes[0],
    )
    try:
        _wait_until_serving(server)
        yield server
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def elsewhere(function: Callable, /, *args, **kwargs):
    """``function(*args, **kwargs)`` as another process would call it while a page is open: on a thread of its own.
    Playwright's sync API leaves its event loop marked running on the test's thread, where asgiref refuses
    ``async_to_sync``: a service called there commits, but its frames are logged as "could not send" and dropped,
    so a page could see the change only by chance (a refresh already under way). The thread's connection closes
    with it."""

    def call():
        try:
            return function(*args, **kwargs)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(call).result()


@pytest.fixture(scope="session")
def daphne_server(django_db_setup, django_db_blocker, tmp_path_factory, live_server_env):
    with serving(tmp_path_factory.mktemp("daphne_server"), extra_env=live_server_env) as server:
        yield server


def _wait_until_serving(server: LiveServer) -> None:
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"The live server stopped at start:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(server.url + "/", timeout=2):
                return
        except urllib.error.HTTPError:
            return  # It answered; the status is the test's business.
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(
        f"The live server did not answer within {SERVER_START_TIMEOUT} s:\n{server.log_tail()}"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    # A failing browser test often has its cause in the server: show the end of daphne's log with the failure.
    # And the JavaScript errors of every page still open: a page whose script stopped half-way through drawing
    # a frame looks, to the test, like a page that never got it.
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    funcargs = getattr(item, "funcargs", {})
    for name, server in funcargs.items():
        if isinstance(server, LiveServer):
            report.sections.append((f"{name} log (last lines)", server.log_tail()))
    browser = funcargs.get("browser")
    errors = [f"{page.url}: {error}" for context in (browser.contexts if browser is not None else [])
              for page in context.pages for error in getattr(page, "errors", [])]
    if errors:
        report.sections.append(("JavaScript errors of the open pages", "\n".join(errors)))


@pytest.fixture
def live_server_url(daphne_server, transactional_db) -> str:
    if daphne_server.process.poll() is not None:
        pytest.fail(f"The live server has died:\n{daphne_server.log_tail()}")
    return daphne_server.url


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"REQUIRE_BROWSER=1 but {message}")
        pytest.skip(f"browser tests skipped: {message}")
    from playwright.sync_api import sync_playwright

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def new_page(browser, live_server_url):
    contexts = []

    def make(locale: str = "de-DE"):
        context = browser.new_context(
            base_url=live_server_url, locale=locale, viewport={"width": 1280, "height": 860}
        )
        context.set_default_timeout(DEFAULT_TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_page):
    return new_page()


@pytest.fixture
def read_mails(daphne_server):
    for old in daphne_server.mail_dir.iterdir():
        old.unlink()

    def read(to: str | None = None, wait: float = 5.0) -> list[Mail]:
        deadline = time.monotonic() + wait
        while True:
            mails = [mail for mail in _mails_in(daphne_server.mail_dir) if to is None or to in mail.to]
            if mails or time.monotonic() >= deadline:
                return mails
            time.sleep(0.1)

    return read


def _mails_in(folder: Path) -> list[Mail]:
    # Django's file backend writes one file per connection: messages separated by a line of 79 dashes.
    separator = b"\n" + b"-" * 79 + b"\n"
    mails = []
    for path in sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime_ns):
        for chunk in path.read_bytes().split(separator):
            if not chunk.strip():
                continue
            message = email.message_from_bytes(chunk, policy=email.policy.default)
            body = message.get_body(preferencelist=("plain",))
            mails.append(
                Mail(
                    to=[address.addr_spec for address in message["To"].addresses],
                    subject=str(message["Subject"]),
                    body=body.get_content() if body is not None else "",
                )
            )
    return mails


@pytest.fixture
def screenshot():
    def save(page, name: str) -> Path:
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOT_DIR / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


def signed_in_page(browser, server_url: str, user, contexts: list, **options):
    """A browser window of its own (``options`` go to ``new_context``: locale, viewport, ...) on ``server_url``,
    signed in as ``user`` by a session cookie (None: anonymous); its JavaScript errors collect in
    ``page.errors``. The context is appended to ``contexts`` for the caller to close."""
    from django.test import Client

    context = browser.new_context(base_url=server_url, **options)
    context.set_default_timeout(10_000)
    if user is not None:
        client = Client()
        client.force_login(user)
        host = server_url.split("//", 1)[1].split(":")[0]
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "domain": host,
                              "path": "/"}])
    contexts.append(context)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return page
