"""The floor's bet (`../shared/baselines/minimal_bet`) with the guarantees a round must keep added
one at a time (FLOOR_PLUS, a comma-separated list): what each costs on this stack, before any of
this service's own code. See benchmarks/floor_guarantees.py."""

import os
import tempfile

GUARANTEES = {g for g in os.environ.get("FLOOR_PLUS", "").split(",") if g}
# The `seamless` step's partner wallet (benchmarks/floor_guarantees.py starts it)
FLOOR_PLUS_WALLET = os.environ.get("FLOOR_PLUS_WALLET", "")
FLOOR_PLUS_WALLET_SECRET = os.environ.get("FLOOR_PLUS_WALLET_SECRET", "")
SECRET_KEY = "floor-plus-benchmark-" + "x" * 40
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "benchmarks.floor_plus.urls"
INSTALLED_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "rest_framework",
    "rest_framework.authtoken",
    "benchmarks.floor_plus",
]
MIDDLEWARE = ["django.middleware.common.CommonMiddleware"]
if "middleware" in GUARANTEES:  # a product's stack: security headers, static files, sessions, CSRF, locale
    MIDDLEWARE = [
        "django.middleware.security.SecurityMiddleware",
        "django.middleware.gzip.GZipMiddleware",
        "whitenoise.middleware.WhiteNoiseMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.locale.LocaleMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    ]
STATIC_URL = "/static/"
STATIC_ROOT = os.path.join(tempfile.gettempdir(), "floor-plus-static")  # none served; WhiteNoise wants one
os.makedirs(STATIC_ROOT, exist_ok=True)
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ.get("FLOOR_PLUS_DB", "floor_plus"),
        "USER": "postgres",
        "HOST": "127.0.0.1",
        "PORT": "5432",
        "CONN_MAX_AGE": 600,
        # the `sql` step as this service runs PostgreSQL: statements prepared on the server
        "OPTIONS": {"server_side_binding": True, "prepare_threshold": 5} if "sql" in GUARANTEES else {},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
}
