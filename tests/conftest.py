import socket

import pytest

# Chromium fixtures for the browser tests (web, back office); a seamless partner with its real wallet.
pytest_plugins = ["tests.browser", "tests.casino.seamless"]


@pytest.fixture
def fake_dns(monkeypatch):
    """Names resolved as the test says: `fake_dns["partner.example"] = "10.0.0.7"` (other names and
    address literals resolve as usual). `fake_dns.lookups` counts the lookups of each faked name."""

    class Names(dict):
        lookups: dict

    names = Names()
    names.lookups = {}
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host in names:
            names.lookups[host] = names.lookups.get(host, 0) + 1
            addresses = [names[host]] if isinstance(names[host], str) else names[host]
            return [info for address in addresses for info in real(address, port, *args, **kwargs)]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return names


@pytest.fixture
def outbound_private(settings):
    """Calls to partners' servers may go to this machine (the tests' partner servers listen here)."""
    settings.OUTBOUND_ALLOW_PRIVATE = True


@pytest.fixture
def play_money(settings):
    """A play-money service, as the demo runs (PLAY_MONEY is off unless asked for)."""
    settings.PLAY_MONEY = True


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    """Tests run with DEBUG off but without `collectstatic`: no manifest to look names up in."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the default language: a page or a command that activated another one
    does not carry it into the next test of the same worker (whichever tests came before)."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Passwords are hashed with a cheap hasher in the tests' own process (PBKDF2's million rounds
    cost a third of a second a sign-in, and some tests sign in dozens of times); hashes already
    stored still verify with the production hashers behind it. Servers a test starts as processes
    (bin/serve, gunicorn) hash as production does."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", *settings.PASSWORD_HASHERS]


@pytest.fixture(autouse=True)
def eager_celery():
    """Tasks run in-process unless a test starts a real worker (tests/casino/test_celery_worker.py)."""
    from casino.services import rounds, settlement
    from config.celery import app

    previous = app.conf.task_always_eager, app.conf.broker_url
    app.conf.task_always_eager = True
    settlement._broker_retry_at = settlement._known_window_ends = 0.0
    rounds._known_deadline_windows = frozenset()
    yield app
    app.conf.task_always_eager, app.conf.broker_url = previous
    settlement._broker_retry_at = settlement._known_window_ends = 0.0
    rounds._known_deadline_windows = frozenset()


@pytest.fixture(autouse=True)
def throttle_rates(monkeypatch):
    """DRF binds the rates to the throttle class at import; tests get generous ones and a clean
    cache (the counters live in Redis under bin/test), and can set their own through this dict."""
    from django.core.cache import cache
    from rest_framework.throttling import SimpleRateThrottle

    rates = {
        "anon": "100000/min",
        "user": "100000/min",
        "partner": "100000/min",
        "matches": "100000/min",
        "match_battles": "100000000/min",
        "match_battles_anonymous": "100000000/min",
    }
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)
    cache.clear()
    yield rates
    cache.clear()


@pytest.fixture(autouse=True)
def generous_password_checks(settings):
    """Tests sign in and up many times from one address; tests of the bound set their own."""
    settings.PASSWORD_CHECKS_PER_MINUTE = 100_000


@pytest.fixture(autouse=True)
def forget_authentication():
    """What a process remembers of tokens and partners (accounts/auth_cache.py) stays with its test."""
    from accounts.auth_cache import auth_forget_everything

    auth_forget_everything()
    yield
    auth_forget_everything()


@pytest.fixture
def table(db):
    from tests.factories import TableFactory

    return TableFactory(name="Test EUR", min_bet=100, max_bet=100_000, bet_step=100, max_tie_bet=10_000)


@pytest.fixture
def player(db):
    from tests.factories import make_player

    return make_player(balance=100_000, username="alice")


@pytest.fixture
def player_client(client, player):
    from accounts.tokens import token_issue

    client.defaults["HTTP_AUTHORIZATION"] = f"Token {token_issue(user=player.user)}"
    return client


@pytest.fixture(autouse=True)
def staff_pass_second_factor(monkeypatch):
    """`force_login` of a staff user also marks the session verified by their TOTP device, as the
    admin's two-factor sign-in does: such tests are about what staff may do once signed in. The
    sign-in itself (password and code) is tested in tests/core/test_admin_site.py."""
    from django.test import Client
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    original = Client.force_login

    def force_login(self, user, backend=None):
        original(self, user, backend)
        if user.is_staff:
            device = TOTPDevice.objects.filter(user=user).first() or TOTPDevice.objects.create(
                user=user, name="test", confirmed=True
            )
            session = self.session
            session[DEVICE_ID_SESSION_KEY] = device.persistent_id
            session.save()

    monkeypatch.setattr(Client, "force_login", force_login)
    monkeypatch.setattr(Client, "force_login_password_only", original, raising=False)
