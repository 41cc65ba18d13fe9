"""Settings for the whole site, read from the environment in this one place.

Nothing here is edited by hand per machine: ``DATABASE_URL`` picks PostgreSQL (else SQLite in the project
folder), ``REDIS_URL`` picks channels-redis (else the in-memory channel layer), and ``DEBUG`` off turns on
every production safety that ``manage.py check --deploy`` asks for.
"""

import os
from pathlib import Path
from typing import Any, cast

import csp.constants
import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)

_DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = _DEV_SECRET_KEY

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "channels",
    "csp",
    "allauth",
    "allauth.account",
    "accounts",
    "games",
    # One app per game: each registers its entry in the games registry when ready, in this order.
    "games.kinds.gin",
    "games.kinds.romme",
    "ratings",
    "tournaments",
    # The public read API (/api/v1/) and django-ninja, whose templates and static files serve its docs page.
    "ninja",
    "api",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    "ginsite.routers.ReplicaReadsMiddleware",
]

ROOT_URLCONF = "ginsite.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "ginsite.asgi.application"
WSGI_APPLICATION = None

# --- Database: DATABASE_URL or an SQLite file in the project folder -------------------------------------
# Row locks do not exist on SQLite; IMMEDIATE transactions serialise writers instead, and the timeout lets a
# second writer (the referee beside daphne) wait rather than fail at once with "database is locked".
# Write-ahead log: readers never wait for the writer, and a commit appends to the log instead of syncing the
# journal and the database file (synchronous=NORMAL syncs at checkpoints). A crashed process loses nothing
# committed; only a power cut can take the last commits back.
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


def with_sqlite_guarantees(database: dict[str, Any]) -> dict[str, Any]:
    """Give an SQLite database the same OPTIONS however it was named (``SQLITE_PATH`` or ``sqlite:///``);
    options the URL sets itself win. Other engines are returned as they are."""
    if database.get("ENGINE") == "django.db.backends.sqlite3":
        database["OPTIONS"] = {**SQLITE_OPTIONS, **database.get("OPTIONS", {})}
    return database


DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    # Persistent connections (one per thread that talks to the database, reused for ``CONN_MAX_AGE``
    # seconds) with a health check before each request's first query. With conn_max_age=0 every database
    # call of a socket opened a new PostgreSQL connection: measured 8.7 ms and 2.8 ms of CPU per call here,
    # against 0.5 ms and 0.4 ms reused (Django's psycopg pool with its checks measured 1.1 ms).
    DATABASES = {
        # The parser's DBConfig is a TypedDict; Django reads it as the plain dict it is at run time.
        "default": with_sqlite_guarantees(cast(dict[str, Any], dj_database_url.parse(
            DATABASE_URL,
            conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
            conn_health_checks=env_bool("CONN_HEALTH_CHECKS", True),
        )))
    }
else:
    DATABASES = {
        "default": with_sqlite_guarantees({
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # One connection per thread for the life of the process (opening one costs more than most queries).
            "CONN_MAX_AGE": None,
        })
    }
# Behind a pooler in transaction mode (PgBouncer's `pool_mode = transaction`, as `make run-scaled` runs it:
# DATABASE_POOL_MODE=transaction) consecutive transactions of one Django connection may run on different
# server connections, so nothing may outlive a transaction: no server-side cursors (a named cursor of
# `.iterator()` would be gone at the next statement). Django's psycopg backend already binds parameters on
# the client and prepares nothing (prepare_threshold None), and PgBouncer carries the time zone it sets.
DATABASE_POOL_MODE = os.environ.get("DATABASE_POOL_MODE", "session")
if DATABASE_POOL_MODE not in ("session", "transaction"):
    raise ImproperlyConfigured("DATABASE_POOL_MODE is 'session' (the default) or 'transaction'.")
if DATABASE_POOL_MODE == "transaction":
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
# Where each Django connection keeps its server connection (straight to PostgreSQL, or PgBouncer pooling
# sessions, as `make run-scaled` runs it), the statements the live layer runs on every move and handshake
# (``games.reads.prepared.server_cursor``: bound on the server, their text the same on every call) are
# prepared by psycopg the second time a connection runs them, and so planned once per connection instead of
# on every call: planning was a third of PostgreSQL's CPU in the scaled load test (docs/scale.md, "Prepared
# statements"). Django's own queries bind on the client and are never prepared. Behind transaction pooling a
# prepared statement could be asked for on a server connection that never saw it (PgBouncer 1.18, Debian's,
# does not carry them; 1.21 and later can, with ``max_prepared_statements``), so nothing is prepared there.
if "postgresql" in DATABASES["default"]["ENGINE"] and DATABASE_POOL_MODE == "session":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 1)

# A read replica (DATABASE_REPLICA_URL, e.g. a PostgreSQL streaming standby, through its own PgBouncer pool)
# for the pages that only read and may be a moment behind: the leaderboard and the profiles. Only their
# selectors read there (ginsite.routers.replica_reads); every write, and every read inside a transaction,
# goes to "default". Tests use "default" for it (TEST MIRROR): a replica has no test database of its own.
DATABASE_REPLICA_URL = os.environ.get("DATABASE_REPLICA_URL", "")
if DATABASE_REPLICA_URL:
    DATABASES["replica"] = with_sqlite_guarantees(cast(dict[str, Any], dj_database_url.parse(
        DATABASE_REPLICA_URL,
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "600")),
        conn_health_checks=env_bool("CONN_HEALTH_CHECKS", True),
    )))
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    if DATABASE_POOL_MODE == "transaction":
        DATABASES["replica"]["DISABLE_SERVER_SIDE_CURSORS"] = True
# PostgreSQL through ginsite.postgresql: Django's backend with its health check at most once a second per
# connection (not before every socket's database call: see that module).
for _database in DATABASES.values():
    if _database.get("ENGINE") == "django.db.backends.postgresql":
        _database["ENGINE"] = "ginsite.postgresql"
DATABASE_ROUTERS = ["ginsite.routers.ReplicaRouter"]
# The pages whose reads may go to the replica (ginsite.routers.ReplicaReadsMiddleware), and the apps whose
# tables they read there (never sessions, users or allauth's addresses).
REPLICA_READ_VIEWS = ["leaderboard", "leaderboard_game", "accounts:profile", "accounts:public"]
REPLICA_READ_APPS = ["ratings", "games", "tournaments", "accounts"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channel layer: REDIS_URL or in-memory --------------------------------------------------------------


def redis_url_of_worker(url: str, worker: str | None) -> str:
    """The test suite's parallel workers (pytest-xdist: ``PYTEST_XDIST_WORKER`` is ``gw0``, ``gw1``, ...) each
    take a Redis database of their own, the URL's number + 1 + the worker's: the lobby group is site-wide and
    a test's ``cache.clear()`` empties a whole database, so workers sharing one would hear each other (their
    SQL databases are apart already: pytest-django names one per worker). Anything else keeps the URL."""
    if not url or not worker or not worker.startswith("gw") or not worker[2:].isdigit():
        return url
    head, _, tail = url.rpartition("/")
    base = int(tail) if tail.isdigit() else 0
    return f"{head if tail.isdigit() else url.rstrip('/')}/{base + 1 + int(worker[2:])}"


REDIS_URL = redis_url_of_worker(os.environ.get("REDIS_URL", ""), os.environ.get("PYTEST_XDIST_WORKER"))
# The site's keys in Redis, the channel layer's and the cache's (several sites or test runs can share one Redis).
REDIS_PREFIX = os.environ.get("REDIS_PREFIX", "asgi")
# The channel layer's Redis servers: REDIS_CHANNEL_URLS, comma-separated, else REDIS_URL alone. With several,
# channels-redis shards over them (its `hosts` list): each group and each process's receive channel lives on
# one server, picked by a hash of its name, so every process must list the same servers in the same order.
REDIS_CHANNEL_URLS = env_list("REDIS_CHANNEL_URLS", [REDIS_URL] if REDIS_URL else [])
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis's layer, sending a move's frames in two round trips (see ginsite/layers.py).
            "BACKEND": "ginsite.layers.RedisChannelLayer",
            "CONFIG": {
                # Per server and event loop, a pool of REDIS_MAX_CONNECTIONS; a command finding them all busy
                # waits for one, up to REDIS_WAIT_SECONDS (ginsite.layers.RedisChannelLayer.create_pool).
                "hosts": [{"address": url, "max_connections": int(os.environ.get("REDIS_MAX_CONNECTIONS", "32")),
                           "timeout": float(os.environ.get("REDIS_WAIT_SECONDS", "20"))}
                          for url in REDIS_CHANNEL_URLS],
                "capacity": 1500,
                "expiry": 30,
                "prefix": REDIS_PREFIX,
            },
        }
    }
else:
    # channels' in-memory layer with cheaper bookkeeping for many sockets (see ginsite/layers.py).
    CHANNEL_LAYERS = {"default": {"BACKEND": "ginsite.layers.InMemoryChannelLayer"}}

# --- Cache: one for the whole site, whatever the number of processes ------------------------------------
# allauth counts sign-in attempts in the cache (ACCOUNT_RATE_LIMITS below): each process's own memory would
# let every daphne behind the proxy count for itself. With REDIS_URL the cache is Redis (REDIS_CACHE_URL may
# name another Redis database; note that cache.clear() empties the whole database it names); without it, a
# table in the site's database, made by `manage.py createcachetable` (`make run` runs it after migrating; the
# test runner makes it in the test database).
CACHES: dict[str, dict[str, Any]]
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's Redis cache, its client made once per pool, not per call (ginsite/cache.py).
            "BACKEND": "ginsite.cache.KeptClientRedisCache",
            "LOCATION": os.environ.get("REDIS_CACHE_URL") or REDIS_URL,
            "KEY_PREFIX": REDIS_PREFIX,
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "ginsite_cache",
            # Django's default of 300 entries would drop counts as soon as a few hundred addresses signed in.
            "OPTIONS": {"MAX_ENTRIES": int(os.environ.get("CACHE_MAX_ENTRIES", "50000"))},
        }
    }

# --- Sessions ---------------------------------------------------------------------------------------------
# With Redis, sessions are read from the cache and written to both (Django's cached_db): a socket's handshake
# and a page find the session without a database trip, and a session survives a flushed cache. Sessions
# written straight to the database (a script, the load test's seeding) are found there and cached on first
# use. Without Redis the database alone, as before (its cache is a database table: nothing to gain).
if REDIS_URL:
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# --- Authentication (django-allauth) --------------------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
# A duplicate address gets a clear message on the sign-up page (the issue asks for it; user names are
# public anyway). allauth would otherwise hide it and only mail the owner.
ACCOUNT_PREVENT_ENUMERATION = False
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
# Confirming the address from the mail signs the person in (allauth does so in the browser that signed up).
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS = 3
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_USERNAME_MIN_LENGTH = 3
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# Sign-in limits (allauth's own, counted in the cache): failed sign-ins 10 a minute per address and 5 in 5
# minutes per account (then even the right password is refused until the window has passed), and any sign-in
# POST 30 a minute per address (then allauth's 429 page). Several web processes need a shared CACHES for the
# counts to be the site's, not each process's.
ACCOUNT_RATE_LIMITS = {"login": "30/m/ip", "login_failed": "10/m/ip,5/300s/key", "signup": "20/m/ip"}
# Behind a proxy every request comes from the proxy's address: count the client's (X-Forwarded-For) instead.
ALLAUTH_TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))
# The public API (/api/v1/, api.limits): requests per window and client address, counted in CACHES.
API_RATE_LIMIT = int(os.environ.get("API_RATE_LIMIT", "120"))
API_RATE_WINDOW = int(os.environ.get("API_RATE_WINDOW", "60"))
# A request with a personal API token (made on the profile page) is counted per token instead, against this.
API_TOKEN_RATE_LIMIT = int(os.environ.get("API_TOKEN_RATE_LIMIT", "600"))
LOGIN_REDIRECT_URL = "/"
LOGIN_URL = "account_login"

# --- E-mail (console by default) ------------------------------------------------------------------------
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Gin Rommé <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Internationalisation: German first, English second -------------------------------------------------
LANGUAGE_CODE = "de"
LANGUAGES = [("de", _("Deutsch")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "Europe/Berlin"
USE_TZ = True

# --- Static files (whitenoise) --------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
# Under daphne there is no runserver static handler: whitenoise serves from the finders while developing.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- Security: everything check --deploy asks for once DEBUG is off -------------------------------------
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Content-Security-Policy (django-csp 4): scripts, styles and everything else only from this site, no inline
# script or style anywhere; sockets to this host only ('self' covers ws:// and wss:// of the same host).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [csp.constants.SELF],
        "script-src": [csp.constants.SELF],
        "style-src": [csp.constants.SELF],
        "img-src": [csp.constants.SELF],
        "connect-src": [csp.constants.SELF],
        "object-src": [csp.constants.NONE],
        "base-uri": [csp.constants.SELF],
        "form-action": [csp.constants.SELF],
        "frame-ancestors": [csp.constants.NONE],
    },
}

# --- Game settings --------------------------------------------------------------------------------------
# Tests may fix the deal (a seed for the shuffles). The site refuses to start with it when DEBUG is off.
GAMES_TEST_DEAL_SEED = os.environ.get("GAMES_TEST_DEAL_SEED", "")
if GAMES_TEST_DEAL_SEED and not DEBUG:
    raise ImproperlyConfigured("GAMES_TEST_DEAL_SEED is a test-only setting and is refused when DEBUG is off.")
# Seconds a computer player waits before moving, so its moves read naturally.
GAMES_BOT_DELAY_SECONDS = float(os.environ.get("GAMES_BOT_DELAY_SECONDS", "1.2"))
# The wall-clock budget of a searching computer player's decision (gin's Experte), in the referee's worker
# process (games.thinking); the search's own iteration budget usually ends it sooner.
GAMES_BOT_THINK_SECONDS = float(os.environ.get("GAMES_BOT_THINK_SECONDS", "0.5"))
# The post-match analysis (games.analysis): each decision's wall-clock budget in seconds, in the referee's
# analysis worker process (one match at a time, niced); 0: the referee's clock analyses nothing (manage.py
# analyse still does).
GAMES_ANALYSIS_SECONDS = float(os.environ.get("GAMES_ANALYSIS_SECONDS", "0.5"))
# Where the referee runs: "auto" (inside the daphne process exactly when there is no Redis, because the
# in-memory channel layer cannot carry a referee process's frames to the sockets), "1" or "0".
GAMES_REFEREE_IN_PROCESS = os.environ.get("GAMES_REFEREE_IN_PROCESS", "auto")
# Seconds between the in-process referee's passes when nothing was due (one indexed query each).
GAMES_REFEREE_INTERVAL = float(os.environ.get("GAMES_REFEREE_INTERVAL", "0.25"))
# Without Redis the daphne process also looks for changes made by other processes (a shell, a command):
# one query for all its tables every GAMES_WATCH_SECONDS, the lobby every GAMES_LOBBY_WATCH_SECONDS.
GAMES_WATCH_SECONDS = float(os.environ.get("GAMES_WATCH_SECONDS", "1"))
GAMES_LOBBY_WATCH_SECONDS = float(os.environ.get("GAMES_LOBBY_WATCH_SECONDS", "2"))
# Seconds between a socket's own checks of its table's version; 0 (the default) = never: every change
# reaches the sockets through the channel layer.
GAMES_STATE_POLL_SECONDS = float(os.environ.get("GAMES_STATE_POLL_SECONDS", "0"))
# The token bucket of every socket (games/delivery/limits.py): GAMES_SOCKET_BURST messages at once, then
# GAMES_SOCKET_RATE a second; moves and chat lines that go through give their token back, ping is free.
GAMES_SOCKET_RATE = float(os.environ.get("GAMES_SOCKET_RATE", "5"))
GAMES_SOCKET_BURST = int(os.environ.get("GAMES_SOCKET_BURST", "60"))
# Open table and notice sockets at once per signed-in person and per client address (games/web/handshakes.py);
# over a cap a socket is accepted, told why and closed with 4430. Addresses in GAMES_SOCKET_CAP_EXEMPT (the
# machine itself: a proxy that does not pass the client's address, the load test) are not counted; behind
# nginx daphne runs with --proxy-headers, so the address is the client's.
GAMES_SOCKETS_PER_PERSON = int(os.environ.get("GAMES_SOCKETS_PER_PERSON", "20"))
GAMES_SOCKETS_PER_ADDRESS = int(os.environ.get("GAMES_SOCKETS_PER_ADDRESS", "60"))
GAMES_SOCKET_CAP_EXEMPT = [a for a in os.environ.get("GAMES_SOCKET_CAP_EXEMPT", "127.0.0.1,::1").split(",") if a]
# Handshakes of table and notice sockets arriving within this many seconds share one trip to the database
# (0: those of the same turn of the event loop; all that arrive while a batch is in the database go next,
# together, whatever it says). 0 measured best: the embedded evening's connect p99 went from 110 to 50 ms
# with 5 ms (docs/scale.md). Presence changes of one table within GAMES_PRESENCE_BATCH_SECONDS go out as one frame.
GAMES_HANDSHAKE_BATCH_SECONDS = float(os.environ.get("GAMES_HANDSHAKE_BATCH_SECONDS", "0"))
GAMES_PRESENCE_BATCH_SECONDS = float(os.environ.get("GAMES_PRESENCE_BATCH_SECONDS", "0.25"))
# The garbage collector's thresholds in a serving process (generation 0, 1, 2; ginsite/collector.py sets them
# once the application is built and frozen): larger than Python's 700, 10, 10 so that a move's objects die
# young instead of being promoted and walked by full collections (docs/scale.md, "Garbage collection"); 100,000
# stalled the scaled evening less but the tournament's moves more (docs/scale.md, "The scaled evening's tail and
# the collector").
_gc_thresholds = env_list("GC_THRESHOLDS", ["20000", "20", "10"])
if len(_gc_thresholds) != 3 or not all(n.isdigit() for n in _gc_thresholds) or int(_gc_thresholds[0]) < 1:
    raise ImproperlyConfigured(f"GC_THRESHOLDS must be three whole numbers (the first at least 1), not {_gc_thresholds!r}")
GC_THRESHOLDS = tuple(int(n) for n in _gc_thresholds)
# A socket refused this many times in a row for an empty bucket is closed (4429, docs/protocol.md).
GAMES_SOCKET_REFUSALS_TO_CLOSE = int(os.environ.get("GAMES_SOCKET_REFUSALS_TO_CLOSE", "20"))
# Open or running tables one person may have opened at once (too_many_tables); 0: no cap.
GAMES_MAX_OPEN_TABLES = int(os.environ.get("GAMES_MAX_OPEN_TABLES", "5"))
# The live layer's database calls side by side in a thread pool (PostgreSQL only; SQLite has one writer and
# its in-memory test database must stay on one thread). Off (the default) keeps them on one thread per process,
# as the bare stack does: on two cores the pool made every thread, the event loop's included, wait for the
# interpreter's lock, and the scaled evening's connects took twice as long (docs/scale.md, "Two lanes").
GAMES_DB_PARALLEL = env_bool("GAMES_DB_PARALLEL", False)
# Threads of the handshakes' reads, beside the moves' thread (PostgreSQL, a SQLite file; games.web.dbthread):
# as many handshake batches may be in the database at once. 0: the reads share the moves' thread.
GAMES_DB_READERS = int(os.environ.get("GAMES_DB_READERS", "1"))
# The handshakes' reads in a helper process (games.web.handshake_process): "auto" where the site is one daphne
# process on an SQLite file and the in-memory channel layer (`make run`), whose other core would idle; 1 or 0
# force it on (a database file or PostgreSQL) or off.
GAMES_HANDSHAKE_PROCESS = os.environ.get("GAMES_HANDSHAKE_PROCESS", "auto")

# --- Tournament settings --------------------------------------------------------------------------------
# How long an arena player's last sign of life (a page of the arena or of its table open) counts as present,
# in seconds (tournaments.formats.arena): who is not present is not paired.
TOURNAMENTS_ARENA_PRESENT_SECONDS = float(os.environ.get("TOURNAMENTS_ARENA_PRESENT_SECONDS", "30"))
# Rounds per list staff may choose for a Rommé series (tournaments.md: 6, 12, 18 or 24, so that every seat
# deals equally often at tables of 3 and of 4); the tests widen it to keep their tournaments short. Not read
# from the environment: the spec fixes it.
TOURNAMENTS_ROMME_ROUNDS = (6, 12, 18, 24)

# The largest request body (bytes) the site reads: a pasted record (games.web.match_views.RECORD_MAX_BYTES) and
# any form fit. Larger bodies get 413 before they are read, also by daphne (ginsite/body_limit.py).
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", str(1024 * 1024)))

# The Ed25519 key that signs exported game records (docs/protocol.md): 64 hex digits (the 32-byte private
# seed), the same for every daphne of a site. Required when DEBUG is off (`manage.py check --deploy` says how
# to make one: `manage.py records_signing_key`; daphne refuses to start without it). With DEBUG on and no
# key: a random key made once and kept in RECORDS_SIGNING_KEY_FILE (never derived from SECRET_KEY).
RECORDS_SIGNING_KEY = os.environ.get("RECORDS_SIGNING_KEY", "")
RECORDS_SIGNING_KEY_FILE = os.environ.get("RECORDS_SIGNING_KEY_FILE") or (
    str(BASE_DIR / "records-signing-key.dev") if DEBUG else "")
# The public keys (64 hex digits each, comma-separated) of earlier signing keys: after a rotation the records
# they signed still hold, and the key page lists them.
RECORDS_RETIRED_PUBLIC_KEYS = [k for k in os.environ.get("RECORDS_RETIRED_PUBLIC_KEYS", "").split(",") if k.strip()]

# --- The clocks and the end of a match ----------------------------------------------------------------------
# Every referee (inside daphne, or `manage.py referee` with Redis) ticks the other apps' clocks
# (games.signals.referee_tick: the ranked pool, the tournaments) and the catch-up of lost match-end
# announcements at most once every GAMES_TICK_SECONDS.
GAMES_TICK_SECONDS = float(os.environ.get("GAMES_TICK_SECONDS", "1"))
# A match that ended this many seconds ago and is still not announced (a process died between the commit
# and the listeners, or a listener failed) is announced again by the clock; a failing one is retried with a
# wait that doubles, up to GAMES_ANNOUNCE_RETRY_MAX_SECONDS.
GAMES_ANNOUNCE_RETRY_SECONDS = float(os.environ.get("GAMES_ANNOUNCE_RETRY_SECONDS", "10"))
GAMES_ANNOUNCE_RETRY_MAX_SECONDS = float(os.environ.get("GAMES_ANNOUNCE_RETRY_MAX_SECONDS", "600"))
# Who hears of a match's end, in this order (their dispatch_uids on games.signals.match_ended): ratings
# first, because a tournament's next stage seeds by rating. Listeners not named here run after these.
GAMES_MATCH_ENDED_ORDER = ["ratings.rate_ended_match", "tournaments.record_match"]
# The ranked pool's waits (ratings.md): the window of who is close enough widens by this many Wertungszahl
# per second waited, and a Rommé table forms with one seat fewer (4, then 3, then 2) after each
# RATINGS_POOL_ROMME_STEP_SECONDS the longest waiter has waited.
RATINGS_POOL_WIDEN_PER_SECOND = float(os.environ.get("RATINGS_POOL_WIDEN_PER_SECOND", "5"))
RATINGS_POOL_ROMME_STEP_SECONDS = float(os.environ.get("RATINGS_POOL_ROMME_STEP_SECONDS", "60"))
# How many seconds a minute of the tournaments' clock lasts (check-in window, break_minutes,
# forfeit_minutes). 60 on every real site; the clock tests shorten it, the code paths stay the same.
# A test setting: refused when DEBUG is off (a real site's minute is 60 seconds), and a minute that is not a
# positive number of seconds is refused always (a negative clock would start every stage at once).
_minute_seconds = os.environ.get("TOURNAMENTS_MINUTE_SECONDS", "")
if _minute_seconds and not DEBUG:
    raise ImproperlyConfigured(
        "TOURNAMENTS_MINUTE_SECONDS is a test-only setting and is refused when DEBUG is off (a minute is 60 s)."
    )
try:
    TOURNAMENTS_MINUTE_SECONDS = float(_minute_seconds or "60")
except ValueError:
    raise ImproperlyConfigured(f"TOURNAMENTS_MINUTE_SECONDS must be a number of seconds, not {_minute_seconds!r}.") from None
if not 0 < TOURNAMENTS_MINUTE_SECONDS < float("inf"):
    raise ImproperlyConfigured(
        f"TOURNAMENTS_MINUTE_SECONDS must be a positive number of seconds, not {_minute_seconds!r}."
    )

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    # A serving process says once that it warmed up, and in how long (games.web.warmup), and when its handshakes'
    # helper process is ready (games.web.handshake_process: at the start, and after one died).
    "loggers": {"games.web.warmup": {"level": os.environ.get("LOG_LEVEL", "INFO")},
                "games.web.handshake_process": {"level": os.environ.get("LOG_LEVEL", "INFO")}},
}
