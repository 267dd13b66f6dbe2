"""Settings for Grey Circle Games.

With no environment variables the site runs embedded: SQLite, an in-memory channel layer, a
local-memory cache and console e-mail. Production sets DATABASE_URL (PostgreSQL), REDIS_URL
(channel layer and cache), EMAIL_URL, SECRET_KEY, ALLOWED_HOSTS and DEBUG=0; see README.md.
"""

import os
import tempfile
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

import dj_database_url
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from greycircle.converters import ROW_ID_SCHEMA

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEBUG = env_bool("DEBUG", "SECRET_KEY" not in os.environ)
SECRET_KEY = os.environ.get("SECRET_KEY", "insecure-development-key-do-not-use-in-production")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc served from our static files
    "channels",
    "django_tasks",
    "django_tasks_db",
    "accounts",  # before allauth, so that accounts/templates/ overrides allauth's templates
    "allauth",
    "allauth.account",
    "allauth.headless",
    "greycircle.games",
    "greycircle.notifications",
    "greycircle.push",  # notifications beyond the site: Web Push
    "greycircle.ratings",
    "greycircle.profiles",
    "greycircle.moderation",
    "greycircle.players",  # above accounts and the platform: the flows that span both
    "greycircle.lobby",  # beside players: seeks and quick pairing, above the games
    "greycircle.chat",  # game chat and the screening of every message, above the platform
    "greycircle.conversations",  # messages between friends, beside chat, above the platform
    "greycircle.reports",  # above chat and conversations: players' reports, automatic signals
    "circles",
    "kingscorner",
    "cirkis",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Before anything reads a body: caps /api/ and /_allauth/ bodies, refuses deep JSON.
    "greycircle.api.middleware.request_limits",
    "greycircle.api.middleware.retry_after",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The request's user made the changes it announces: they are not notified of their own.
    "greycircle.notifications.actors.request_actor",
    "accounts.middleware.guest_activity",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

# Request bodies sent to the REST API and to allauth headless are refused above this size (413,
# in the API's error shape); no request of ours comes near it. Other bodies (admin forms) keep
# Django's DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB), which also bounds what is read to check one.
API_MAX_BODY_BYTES = int(os.environ.get("API_MAX_BODY_BYTES", str(64 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440

ROOT_URLCONF = "greycircle.urls"
ASGI_APPLICATION = "greycircle.asgi.application"
# Threads per server process that run HTTP requests (greycircle.asgi), each with its own database
# connection: two overlap one request's waits on the database and Redis with another's work; more
# only fight over the GIL (bench/README.md, "Under load": 2 threads 88-100 moves/s, 8 threads
# 69-75, on two processes at 50 players).
HTTP_THREADS = int(os.environ.get("HTTP_THREADS", "2"))

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Data stores -----------------------------------------------------------------------------

# Each HTTP thread (greycircle.asgi) and worker keeps its database connection for a minute
# rather than opening one per request (a PostgreSQL connection costs more CPU than a move); a
# connection that broke meanwhile is noticed before it is reused.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
# A move's statements are prepared once per PostgreSQL session (greycircle.runtime.db_rows):
# behind a pooler in transaction mode (pgbouncer's default), which hands a session to other
# clients between transactions, set DATABASE_PREPARED_STATEMENTS=0.
DATABASE_PREPARED_STATEMENTS = env_bool("DATABASE_PREPARED_STATEMENTS", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and a busy timeout let the web process and the task worker share one SQLite file.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    # A file, not shared-cache memory: threads and live-server processes in tests then lock and
    # wait the way production connections do.
    # One file per test run, so parallel runs never share a database.
    DATABASES["default"]["TEST"] = {
        "NAME": os.path.join(tempfile.gettempdir(), f"greycircle-test-{os.getpid()}.sqlite3")
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


def redis_settings(url: str) -> dict[str, dict[str, object]]:
    """CHANNEL_LAYERS and CACHES on the Redis at `url`.

    Redis may go away: the cache then acts as an empty one (rate limits fail open, logged once;
    greycircle.runtime.cache) and sockets are closed with 4503 (greycircle.games.consumers). A
    Redis that is down refuses at once; one that is unreachable is given up on after a connect
    timeout.
    """
    return {
        "CHANNEL_LAYERS": {
            "default": {
                "BACKEND": "greycircle.runtime.channels.PipelinedRedisChannelLayer",
                # The sockets' read blocks in Redis for 1 s at a time (the layer's brpop_timeout)
                # and gives up on a Redis that has not answered in 2 s, no longer than a publish
                # waits (its SYNC_TIMEOUT): a hang that loses a publish on any server closes every
                # server's sockets with 4503, and they catch up by version.
                # A failed connection (one left stale in the pool by a restart of Redis) is
                # tried once more on a new one, at once, before it counts as Redis lost; a
                # timeout is not retried. Not the read of the sockets' queue, which has its own
                # connection: a restarted Redis has forgotten their groups, they must notice.
                "CONFIG": {
                    "hosts": [
                        {
                            "address": url,
                            "socket_timeout": 2,
                            "socket_connect_timeout": 1,
                            "retry": AsyncRetry(
                                NoBackoff(), 1, supported_errors=(RedisConnectionError,)
                            ),
                        }
                    ],
                    "prefix": "greycircle",
                    # A channel holds at most 1,000 messages (channels-redis: 100). All the sockets
                    # of a server process share one channel: 100 was a fraction of a second of a
                    # busy server's frames, and a process that got no CPU for that long (load
                    # average 19) lost 7 of 3,000 (bench/README.md, "Channel capacity"). 1,000 is
                    # 2 s of a busy server's ≈500 frames/s. More buys little, since messages expire
                    # after 60 s anyway (`expiry`), and costs Redis memory for a crashed process's
                    # channel, which its groups' messages fill until its memberships expire.
                    "capacity": 1000,
                },
            }
        },
        "CACHES": {
            "default": {
                "BACKEND": "greycircle.runtime.cache.ResilientRedisCache",
                "LOCATION": url,
                "OPTIONS": {
                    "socket_connect_timeout": 0.5,
                    "socket_timeout": 1,
                    "pool_class": "greycircle.runtime.cache.SharedConnectionPool",
                },
            }
        },
    }


REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    globals().update(redis_settings(REDIS_URL))
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "greycircle.runtime.channels.BatchingInMemoryChannelLayer"}
    }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Durable tasks (computer turns, e-mail) live in the database; `manage.py games_worker` runs them.
# Tests switch this to the immediate backend only where they say so.
TASKS = {
    "default": {
        "BACKEND": "greycircle.runtime.tasks_backend.DatabaseBackend",
        # "notifications": the players' notifications, with workers of their own besides those
        # that run every queue (greycircle.runtime.worker, "Queues"), so they never wait behind
        # the computers' turns.
        "QUEUES": ["default", "notifications"],
    }
}

# --- Accounts --------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
# Sessions (browsers' cookies and apps' session tokens) are read from the cache, written through
# to the database: a request reads its session without a database query, and a session outlives
# a cache that lost it (or is down: greycircle.runtime.cache fails open to the database). Cached
# copies live five minutes (greycircle.sessions), so the database has the last word after an
# outage.
SESSION_ENGINE = "greycircle.sessions"
AUTHENTICATION_BACKENDS = [
    "accounts.backends.ModelBackend",
    "accounts.backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"

ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_PRESERVE_USERNAME_CASING = True
ACCOUNT_UNIQUE_EMAIL = True
# Signing up with an address that already has an account answers exactly like a fresh sign-up
# (an account is created and signed in; the address gets allauth's confirmation mail), so sign-up
# does not tell who has an account. With optional verification allauth can only do that in
# "strict" mode, where several accounts may hold the same *unverified* address; a verified
# address stays unique. (Mandatory verification would avoid duplicates but stop every new player
# at "check your e-mail" before playing.)
ACCOUNT_PREVENT_ENUMERATION = "strict"
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
# NFKC usernames, no look-alikes (accounts.usernames); failed log-ins counted per address and
# per (address, login) so nobody can lock an owner out; the client address as DRF sees it.
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
# allauth's mails name the site by this (not by the host it was reached at; no Sites framework).
SITE_NAME = "Grey Circle Games"
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
ACCOUNT_RATE_LIMITS = {
    # Per client address: 10 a minute, 60 an hour; per address and login: 5 in 5 minutes.
    "login_failed": "10/m/ip,60/h/ip,5/5m/key",
}
# Proxies whose X-Forwarded-For is trusted, as REST_FRAMEWORK["NUM_PROXIES"]: 0 = peer address.
ALLAUTH_TRUSTED_PROXY_COUNT = int(os.environ.get("NUM_PROXIES", "0"))
# Guests ("Play now as a guest", accounts.guests) not seen for this many days are removed
# (greycircle.players.guests.guests_remove_idle).
GUESTS_IDLE_DAYS = float(os.environ.get("GUESTS_IDLE_DAYS", "30"))
HEADLESS_CLIENTS = ("app", "browser")
HEADLESS_ONLY = False
HEADLESS_FRONTEND_URLS = {
    "account_confirm_email": "/accounts/confirm-email/{key}/",
    "account_reset_password_from_key": "/accounts/password/reset/key/{key}/",
    "account_signup": "/accounts/signup/",
}

# --- E-mail ----------------------------------------------------------------------------------


def _email_settings(url: str) -> dict[str, object]:
    """Translate EMAIL_URL (smtp://user:pass@host:port?tls=1 or console://) into settings."""
    if not url or url.startswith("console:"):
        return {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"}
    parsed = urlparse(url)
    query = parse_qs(parsed.query)
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parsed.hostname or "localhost",
        "EMAIL_PORT": parsed.port or 25,
        "EMAIL_HOST_USER": unquote(parsed.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parsed.password or ""),
        "EMAIL_USE_TLS": query.get("tls", ["0"])[0] in {"1", "true"} or parsed.scheme == "smtp+tls",
        "EMAIL_USE_SSL": query.get("ssl", ["0"])[0] in {"1", "true"} or parsed.scheme == "smtps",
    }


globals().update(_email_settings(os.environ.get("EMAIL_URL", "")))
DEFAULT_FROM_EMAIL = os.environ.get(
    "DEFAULT_FROM_EMAIL", "Grey Circle Games <noreply@greycircle.games>"
)
# The site's address as players reach it, for the links in e-mail (no trailing slash). Unset,
# `manage.py serve` sets it to the host and port it serves on.
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

# Web Push (greycircle.push): the VAPID private key (PEM, or 32 base64url bytes as `manage.py
# push_vapid_keys` prints them; unset, the site makes its own once and keeps it in the database),
# the contact push services see, and hosts whose endpoints may be plain http on a local address
# (only the test suite's local push service).
WEBPUSH_VAPID_PRIVATE_KEY = os.environ.get("WEBPUSH_VAPID_PRIVATE_KEY", "")
WEBPUSH_VAPID_SUBJECT = os.environ.get(
    "WEBPUSH_VAPID_SUBJECT", "mailto:" + DEFAULT_FROM_EMAIL.rpartition("<")[2].rstrip(">")
)
WEBPUSH_INSECURE_HOSTS = env_list("WEBPUSH_INSECURE_HOSTS", [])
# App push (greycircle.push.fcm): Firebase's service account (its JSON key, or the file's path;
# unset, apps cannot register), FCM's address, and the ids of the site's own apps.
FCM_CREDENTIALS = os.environ.get("FCM_CREDENTIALS", "")
FCM_BASE_URL = os.environ.get("FCM_BASE_URL", "https://fcm.googleapis.com")
PUSH_APP_IDS = env_list("PUSH_APP_IDS", [])
# ... and Apple's (greycircle.push.apns): the team's APNs key (the .p8 file's text or path), its
# key id and team id (unset, iOS apps cannot register), and APNs' address (the sandbox's for
# development builds: https://api.sandbox.push.apple.com).
APNS_KEY = os.environ.get("APNS_KEY", "")
APNS_KEY_ID = os.environ.get("APNS_KEY_ID", "")
APNS_TEAM_ID = os.environ.get("APNS_TEAM_ID", "")
APNS_BASE_URL = os.environ.get("APNS_BASE_URL", "https://api.push.apple.com")

# --- REST API --------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "greycircle.api.authentication.SessionTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "greycircle.api.pagination.Pagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "greycircle.api.errors.exception_handler",
    # JSON only: forms and multipart get 415, and the schema offers apps nothing else.
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    # Proxies in front of the servers whose X-Forwarded-For is trusted; 0 = use the peer address.
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", "0")),
    "DEFAULT_THROTTLE_CLASSES": ["greycircle.api.throttling.RateLimits"],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "60/min"),
        "user": os.environ.get("THROTTLE_USER", "600/min"),
        "moves": os.environ.get("THROTTLE_MOVES", "120/min"),
        # Starting games and rematches: each one notifies the players it seats.
        "game_create": os.environ.get("THROTTLE_GAME_CREATE", "10/min"),
        # Seeks made in the lobby (greycircle.lobby), each one a pairing attempt.
        "seek_create": os.environ.get("THROTTLE_SEEK_CREATE", "30/min"),
        # Reports filed per player (greycircle.reports): staff read each one.
        "report_file": os.environ.get("THROTTLE_REPORT_FILE", "10/day"),
        # Messages per user (greycircle.chat.screening.message_allowance): a burst and a day's
        # worth, in game chat and between friends.
        "chat": os.environ.get("THROTTLE_CHAT", "5/10s"),
        "chat_daily": os.environ.get("THROTTLE_CHAT_DAILY", "200/day"),
        "conversations": os.environ.get("THROTTLE_CONVERSATIONS", "5/10s"),
        "conversations_daily": os.environ.get("THROTTLE_CONVERSATIONS_DAILY", "200/day"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Grey Circle Games API",
    "DESCRIPTION": "Play Circles, King's Corner and CirKis. Browsers authenticate with the session "
    "cookie and CSRF; apps sign in through allauth headless (/_allauth/app/v1/) and send "
    "X-Session-Token.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs page loads Swagger UI from our own static files (drf-spectacular-sidecar), not a
    # CDN: it works offline and sends nothing to other hosts.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # No validator badge either: Swagger UI would send the schema's address to swagger.io.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": "greycircle.games.models.GameStatus",
        "InvitationStatusEnum": "greycircle.games.models.InvitationStatus",
        "OnDeclineEnum": "greycircle.games.models.OnDecline",
        # Two sets of choices have fields called `reason`: each its own name.
        "ReasonEnum": "greycircle.ratings.models.UnratedReason",
        "ReportReasonEnum": "greycircle.reports.models.ReportReason",
        "ReportStatusEnum": "greycircle.reports.models.ReportStatus",
        "SanctionKindEnum": "greycircle.moderation.models.SanctionKind",
        "TakebackActionEnum": "greycircle.games.takebacks.TakebackAction",
    },
    # Row ids in paths (greycircle.converters) are integers, as ids are in every response.
    "PATH_CONVERTER_OVERRIDES": {"id": ROW_ID_SCHEMA},
    "POSTPROCESSING_HOOKS": [
        # First, so that the enums hook names the published components' enums too.
        "greycircle.api.schema.add_published_components",
        "drf_spectacular.hooks.postprocess_schema_enums",
        "greycircle.api.schema.declare_common_errors",
    ],
}

# --- Security (production) -------------------------------------------------------------------

if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True

# --- Static files, i18n, logging -------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Locally WhiteNoise serves straight from the apps' static folders; production runs collectstatic.
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
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# --- Game platform ---------------------------------------------------------------------------

# A computer seat whose turn has waited this long without its task finishing is re-queued.
GAMES_AI_STALL_SECONDS = int(os.environ.get("GAMES_AI_STALL_SECONDS", "30"))
# An invitation to a game not answered in this many days expires (the seat opens or the game is
# cancelled, as its creator chose).
GAMES_INVITATION_DAYS = float(os.environ.get("GAMES_INVITATION_DAYS", "7"))
# Live games (greycircle.games.clocks): each move is charged this much less than the time it took
# to arrive, for the network's delay; a seat's first turn has this long, past which the game is
# aborted, unrated.
GAMES_CLOCK_LAG_ALLOWANCE_MS = int(os.environ.get("GAMES_CLOCK_LAG_ALLOWANCE_MS", "300"))
GAMES_CLOCK_FIRST_MOVE_SECONDS = float(os.environ.get("GAMES_CLOCK_FIRST_MOVE_SECONDS", "30"))
# Every task worker's clocks' loop looks for due flags at least this often (seconds), however
# far off the next known one is (greycircle.runtime.timers).
GAMES_TIMERS_POLL_SECONDS = float(os.environ.get("GAMES_TIMERS_POLL_SECONDS", "0.2"))
# ...and a worker that lowered its CPU priority (the computers') runs that loop this far behind
# the clock (seconds), as the backup of the workers at full priority (the notifications').
GAMES_TIMERS_BACKUP_SECONDS = float(os.environ.get("GAMES_TIMERS_BACKUP_SECONDS", "0.15"))
# A person in a live game whose sockets have all been gone this long (seconds) lets the others
# claim the win (greycircle.games.abandonment).
GAMES_CLOCK_ABANDON_SECONDS = float(os.environ.get("GAMES_CLOCK_ABANDON_SECONDS", "30"))
# The lobby (greycircle.lobby): every task worker pairs waiting seekers this often (seconds), as
# their rating windows widen; a live seek whose seeker has no socket open this long after it was
# made expires (an app seeking over REST without a socket).
LOBBY_SWEEP_SECONDS = float(os.environ.get("LOBBY_SWEEP_SECONDS", "1"))
LOBBY_LIVE_SEEK_GRACE_SECONDS = float(os.environ.get("LOBBY_LIVE_SEEK_GRACE_SECONDS", "15"))
# Automatic reports (greycircle.reports): this many players reporting one within this many
# hours; this many live games lost on time by one player within this many hours.
REPORTS_BURST_COUNT = int(os.environ.get("REPORTS_BURST_COUNT", "5"))
REPORTS_BURST_HOURS = float(os.environ.get("REPORTS_BURST_HOURS", "24"))
REPORTS_STALLING_COUNT = int(os.environ.get("REPORTS_STALLING_COUNT", "3"))
REPORTS_STALLING_HOURS = float(os.environ.get("REPORTS_STALLING_HOURS", "24"))
# Thinking time of a computer player that searches, per move.
GAMES_AI_BUDGET_MS = int(os.environ.get("GAMES_AI_BUDGET_MS", "1000"))
# While computer turns queue up, each thinks less, down to this (greycircle.games.thinking).
GAMES_AI_MIN_BUDGET_MS = int(os.environ.get("GAMES_AI_MIN_BUDGET_MS", "100"))
# Each task worker records that it is alive this often (seconds)...
GAMES_WORKER_HEARTBEAT_SECONDS = float(os.environ.get("GAMES_WORKER_HEARTBEAT_SECONDS", "1"))
# ...and a task whose worker has been silent this long is failed and its computer turn re-queued.
GAMES_WORKER_DEAD_SECONDS = float(os.environ.get("GAMES_WORKER_DEAD_SECONDS", "3"))
# After a database (or other) error a worker retries after this pause, doubling up to the maximum.
GAMES_WORKER_RETRY_SECONDS = float(os.environ.get("GAMES_WORKER_RETRY_SECONDS", "0.5"))
GAMES_WORKER_RETRY_MAX_SECONDS = float(os.environ.get("GAMES_WORKER_RETRY_MAX_SECONDS", "10"))
