"""`manage.py check --deploy` refuses a secret key published in this repository and logins that
still have the demo password."""

import pytest
from django.contrib.auth.hashers import make_password
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from accounts.models import User
from casino.checks import check_no_demo_password, check_secret_key_not_published

pytestmark = pytest.mark.django_db  # the demo-password check reads the users
OLD_COMPOSE_FALLBACK = "change-me-in-production-this-default-is-only-for-a-local-trial-run"


@pytest.mark.parametrize(
    "key",
    [
        "dev-insecure-key-only-for-local-debug-use-do-not-deploy-7f3a9c1e5b",  # settings' development key
        OLD_COMPOSE_FALLBACK,
        "build-only",  # the Dockerfile's collectstatic
        "test-only-secret-key-" + "0" * 40,  # bin/test's
    ],
)
def test_the_deploy_check_refuses_a_published_secret_key(settings, key):
    settings.SECRET_KEY = key
    with pytest.raises(SystemCheckError, match=r"casino\.E001"):
        call_command("check", deploy=True)


def test_a_published_key_among_the_fallbacks_is_refused_too(settings):
    settings.SECRET_KEY = "a-fresh-random-key-k3Jd9Qm2xLp0vR7tYw4zNa8sBc6eGh1uIo5"
    assert check_secret_key_not_published(None) == []
    settings.SECRET_KEY_FALLBACKS = [OLD_COMPOSE_FALLBACK]
    assert [e.id for e in check_secret_key_not_published(None)] == ["casino.E001"]


def test_the_deploy_check_refuses_logins_with_the_demo_password(settings, monkeypatch):
    settings.SECRET_KEY = "a-fresh-random-key-k3Jd9Qm2xLp0vR7tYw4zNa8sBc6eGh1uIo5"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast, for the test only
    monkeypatch.delenv("DEMO_PASSWORD", raising=False)
    call_command("demo_data", "--yes-demo-logins")
    User.objects.create(username="cashier", is_staff=True, password=make_password("casino-war-demo"))
    User.objects.create(username="player-who-chose-it", password=make_password("casino-war-demo"))  # not checked
    [error] = check_no_demo_password(None)
    assert error.id == "casino.E002" and "admin, auditor, cashier, demo, operator" in error.msg
    with pytest.raises(SystemCheckError, match=r"casino\.E002"):
        call_command("check", deploy=True)
    settings.DEMO_DATA = True  # a demo server, said so: its demo logins are meant
    assert check_no_demo_password(None) == []
    settings.DEMO_DATA = False
    for user in User.objects.filter(username__in=["admin", "auditor", "cashier", "demo", "operator"]):
        user.set_password("a long private passphrase")
        user.save()
    assert check_no_demo_password(None) == []
