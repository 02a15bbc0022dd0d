"""Settings for the Casino War service, read from the environment.

Always PostgreSQL, with Celery workers and beat on Redis. `bin/serve` and `bin/manage` run an
embedded PostgreSQL and Redis under var/ when DATABASE_URL and REDIS_URL are not set
(`config/embedded.py`), and keep this checkout's local settings in `.env` (a generated
SECRET_KEY, DEBUG and those servers' addresses), which is read here: the environment wins.
"""

import os
from pathlib import Path
from urllib.parse import quote

import dj_database_url
from celery.schedules import crontab
from csp.constants import NONE, SELF
from dotenv import load_dotenv

BASE_DIR = Path(__file__).resolve().parent.parent
load_dotenv(BASE_DIR / ".env", override=False)
VAR_DIR = Path(os.environ.get("VAR_DIR") or BASE_DIR / "var")


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", default=False)
# A development key is only acceptable while DEBUG is on; production must set SECRET_KEY (and
# `check --deploy` refuses this key and every other key published in the repository: casino/checks.py).
DEVELOPMENT_SECRET_KEY = "dev-insecure-key-only-for-local-debug-use-do-not-deploy-7f3a9c1e5b"
SECRET_KEY = os.environ.get("SECRET_KEY") or (DEVELOPMENT_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "core.apps.CasinoAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from here (no CDN)
    "csp",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_zxcvbn_password_validator",  # its messages in every language
    "core",
    "accounts",
    "ledger",
    "casino",
    "protection",
    "web",
]

MIDDLEWARE = [
    "core.request_id.RequestIdMiddleware",  # first: every later error and log line has the id
    "core.middleware.NonceMiddleware",  # a signed request's nonce is spent even when its work never ran
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.ContentSecurityPolicyMiddleware",  # the Content-Security-Policy of every response (below)
    "django.middleware.gzip.GZipMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "core.middleware.ProductErrorPagesMiddleware",  # the product's 404 and 500 pages with DEBUG on too
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "core.middleware.PageMessageMiddleware",  # Django's messages, for pages only
    "core.middleware.StaffSessionTimeoutMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
AUTH_USER_MODEL = "accounts.User"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "web.context_processors.player",
            ],
        },
    },
]

# --- Database (embed) ---
# PostgreSQL only. Unset, DATABASE_URL names the embedded server's socket in var/postgres, which
# bin/serve and bin/manage start (and write to .env); manage.py alone says when it is not running.
EMBEDDED_DATABASE_URL = f"postgres://postgres@{quote(str(VAR_DIR / 'postgres'), safe='')}/casino_war"
DATABASE_URL = os.environ.get("DATABASE_URL") or EMBEDDED_DATABASE_URL
# Persistent connections: a new PostgreSQL connection per request costs more than the request.
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=600, conn_health_checks=True)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with a health check that looks at the socket instead of a `SELECT 1` round trip
    DATABASES["default"]["ENGINE"] = "core.postgresql"
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# Server-side binding with prepared statements: psycopg sends parameters apart from the statement
# and prepares a statement the fifth time a connection runs it, so PostgreSQL parses and plans each
# statement of the round path once per connection instead of every time (docs/BENCHMARKS.md: a
# third of the database's CPU per round went to planning statements it had planned before).
if DATABASES["default"]["ENGINE"] == "core.postgresql":  # (bin/test's deploy check reads no database)
    # Added to what DATABASE_URL's query says (`?application_name=...`, `sslmode`...), never instead of it.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"server_side_binding": True, "prepare_threshold": 5})
    # DATABASE_POOL=true: a pool of connections per process (psycopg's) instead of one persistent
    # connection per thread. A request waiting on a seamless partner's wallet then gives its
    # connection back for the wait (core.transactions.connection_release_for_wait), so a slow
    # wallet ties up threads but not database connections (docs/RELIABILITY.md).
    if env_bool("DATABASE_POOL", default=False):
        DATABASES["default"]["CONN_MAX_AGE"] = 0  # the pool keeps the connections
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": 1,
            "max_size": int(os.environ.get("DATABASE_POOL_SIZE", "4")),
            "timeout": 10,
        }
# --- end Database (embed) ---
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Every password a person chooses (sign-up, a password change, a staff reset link): Django's four
# (length, common, like the name, only digits), and zxcvbn's estimate of how long it would take
# to guess, at least "safely unguessable" (3 of 0-4): "zzzzzzzzzzzzzzz" or "qwertyuiop" are not.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "django_zxcvbn_password_validator.ZxcvbnPasswordValidator"},
]
PASSWORD_MINIMAL_STRENGTH = 3

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("pt-br", "Português (Brasil)"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
FORMAT_MODULE_PATH = ["config.formats"]  # one way to write a moment per language, with its time zone
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.GameSessionAuthentication",  # a launched game's page (accounts/game_sessions.py)
        "accounts.authentication.PlayerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON in and out, nothing else (a form or multipart body is 415): API.md, and client generators.
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JsonParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.negotiation.RememberedContentNegotiation",
    "DEFAULT_SCHEMA_CLASS": "core.schema.AutoSchema",
    "EXCEPTION_HANDLER": "core.problems.problem_exception_handler",
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "120/min"),
        "user": os.environ.get("THROTTLE_PLAYER", "1200/min"),
        "partner": os.environ.get("THROTTLE_PARTNER", "12000/min"),
        "matches": os.environ.get("THROTTLE_MATCHES", "120/min"),
        # War matches are replayed on every read: battles per caller, and for all anonymous callers
        # together (a battle with its events costs about 50 us of CPU; casino/api/matches.py).
        "match_battles": os.environ.get("THROTTLE_MATCH_BATTLES", "40000/min"),
        "match_battles_anonymous": os.environ.get("THROTTLE_MATCH_BATTLES_ANONYMOUS", "200000/min"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Casino War API",
    "DESCRIPTION": "Provably fair Casino War for players and partner casinos.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "ENUM_NAME_OVERRIDES": {
        "DecisionActionEnum": ["war", "surrender"],
        "LimitKindEnum": "protection.models.LimitKind",
        "ExclusionKindEnum": "protection.models.ExclusionKind",
        "TransferDirectionEnum": "accounts.models.TransferDirection",
    },
    "COMPONENT_SPLIT_REQUEST": True,
    # /api/docs/ serves Swagger UI from drf-spectacular-sidecar's static files: offline, same origin.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Problems every operation can answer, and nullable fields as strict OpenAPI 3.0 reads them.
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "core.schema.strict_openapi"],
}

# Redis: the Celery broker and the cache. Without it, settlement runs in-process.
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
    CACHES = {"default": {"BACKEND": "core.cache.PooledRedisCache", "LOCATION": REDIS_URL}}
else:
    CELERY_BROKER_URL = "memory://"
    CELERY_TASK_ALWAYS_EAGER = True
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Keep a worker's database connection across tasks (config/celery.py recycles a broken or old one).
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 300}
CELERY_TIMEZONE = "UTC"
# Publishing must not hang a request while Redis is down: fail fast, the sweepers catch up.
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = 1
CELERY_BROKER_TRANSPORT_OPTIONS["socket_connect_timeout"] = 1
CELERY_BROKER_TRANSPORT_OPTIONS["socket_timeout"] = 2
# Workers ride out broker outages (docs/RELIABILITY.md): they retry the broker for ever (by default
# a worker exits after 100 failed attempts), close a channel whose connection is gone and drop
# acknowledgements meant for it (config/kombu_redis.py), and run without gossip and mingle
# (compose, bin/serve, RELIABILITY): the service uses neither, and their broadcast channels break
# on outages (kombu's "'NoneType' object has no attribute ..." family of defects, still in
# 5.7.0). They keep the heartbeat: its timer wakes the worker's event loop, which then asks for
# messages again after a broker call failed; without it a worker reconnected after an outage and
# consumed nothing more.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BEAT_SCHEDULE = {
    "settle-overdue-rounds": {"task": "casino.settle_overdue", "schedule": 2.0},
    "decide-timed-out-rounds": {"task": "casino.decide_timed_out", "schedule": 2.0},
    "deliver-due-webhooks": {"task": "casino.deliver_due_webhooks", "schedule": 10.0},
    # Seamless wallets' credits and rollbacks that no message sent in time, and debits left pending.
    "send-due-wallet-calls": {"task": "casino.send_due_wallet_calls", "schedule": 2.0},
    "purge-idempotency-records": {"task": "core.purge_idempotency_records", "schedule": crontab(minute=17)},
    # Signed requests' nonces (core/nonces.py), once their timestamps are stale: every minute keeps the table small.
    "purge-partner-nonces": {"task": "accounts.purge_partner_nonces", "schedule": 60.0},
    "purge-idle-tokens": {"task": "accounts.purge_idle_tokens", "schedule": crontab(minute=21)},
    # Game sessions 30 minutes idle are refused already; this records how they ended (the admin shows it).
    "end-idle-game-sessions": {"task": "accounts.end_idle_game_sessions", "schedule": crontab(minute="*/5")},
    "purge-war-matches": {"task": "casino.purge_matches", "schedule": crontab(minute=23, hour=4)},
    # The back office's hourly totals: each hour of rounds is summed up once, soon after it ends.
    "sum-up-round-hours": {"task": "casino.sum_up_round_hours", "schedule": crontab(minute=12)},
    "ledger-seal": {"task": "ledger.tasks.ledger_seal_task", "schedule": 5.0},
    "ledger-verify-nightly": {
        "task": "ledger.tasks.ledger_verify_task",
        "schedule": crontab(hour=3, minute=0),
    },
}

# The operator's reverse proxies and load balancers (addresses or networks, comma-separated). Only
# when the peer is one of them is X-Forwarded-For read, and then only the hops they appended
# (core/client_address.py); otherwise rate limits and attempt counters count by REMOTE_ADDR.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", "")

# Production hardening; `manage.py check --deploy` passes with DEBUG off.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz(/live|/ready)?$"]
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

LOGIN_URL = "web:signin"
STAFF_LOGIN_URL = "/admin/login/"
# Staff sign in with a TOTP code as well as a password, and are signed out when idle. No page of
# the back office shows a second factor's secret (accounts/admin.py); django-otp is told so too.
OTP_TOTP_ISSUER = "Casino War"
OTP_ADMIN_HIDE_SENSITIVE_DATA = True
# E-mail: staff are told of resets of their password or second factor (accounts/credentials.py).
# Printed to the console unless an SMTP server (or any backend) is named.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Casino War <no-reply@localhost>")
# A reset link e-mailed to a staff member works once, for this long.
PASSWORD_RESET_TIMEOUT = int(os.environ.get("PASSWORD_RESET_TIMEOUT_S", str(24 * 3600)))
STAFF_SESSION_IDLE_MINUTES = int(os.environ.get("STAFF_SESSION_IDLE_MINUTES", "15"))
# Password hashes (sign-ins, sign-ups, staff sign-ins) one address may have computed per minute
# (core/attempts.py): each costs about a third of a second of CPU, whatever the name tried.
PASSWORD_CHECKS_PER_MINUTE = int(os.environ.get("PASSWORD_CHECKS_PER_MINUTE", "20"))
# Players' API tokens end after this long unused (accounts/tokens.py).
API_TOKEN_IDLE_MINUTES = int(os.environ.get("API_TOKEN_IDLE_MINUTES", "60"))
# Play money: players top their wallets up themselves. Only when asked for (bin/serve, the demo,
# sets PLAY_MONEY=true); a real-money casino never turns it on.
PLAY_MONEY = env_bool("PLAY_MONEY", default=False)
# The age a player confirms at sign-up (18, or a jurisdiction's higher minimum): recorded with the
# moment it was confirmed (accounts.Player.age_confirmed_at).
MINIMUM_AGE = int(os.environ.get("MINIMUM_AGE", "18"))
if MINIMUM_AGE < 18:
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured("MINIMUM_AGE is 18 or more.")

# --- Platform security (outbound calls, deployment defaults, Content-Security-Policy) ------------
# Calls to partners' servers (core/outbound.py) go only to public addresses; development and tests
# with partner servers on this machine set OUTBOUND_ALLOW_PRIVATE=true.
OUTBOUND_ALLOW_PRIVATE = env_bool("OUTBOUND_ALLOW_PRIVATE", default=False)
# A seamless partner's wallet has this long to answer a call (API.md: 5 s), connecting included.
WALLET_TIMEOUT_S = float(os.environ.get("WALLET_TIMEOUT_S", "5"))
# A demo server says so: its demo logins (published password) are meant, and `check --deploy`
# accepts them (casino/checks.py); compose's `migrate` loads the demo data only then.
DEMO_DATA = env_bool("DEMO_DATA", default=False)
# Content-Security-Policy of every response (django-csp): scripts, styles and everything else from
# this origin only; no inline script or style, no plugins, no <base>, never framed.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "media-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# --- end of platform security ---------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.request_id.RequestIdFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["request_id"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}
