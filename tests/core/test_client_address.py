"""The caller's address (core/client_address.py): REMOTE_ADDR, unless the peer is a trusted proxy,
and then the right-most X-Forwarded-For hop that is not one; what rate limits and attempt
counters count by."""

import ipaddress

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import RequestFactory, override_settings
from hypothesis import given
from hypothesis import strategies as st

from core.client_address import client_address

pytestmark = pytest.mark.django_db


def address_of(remote: str, forwarded: str | None = None) -> str:
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return client_address(RequestFactory().get("/", REMOTE_ADDR=remote, **extra))


def test_without_trusted_proxies_x_forwarded_for_is_never_read(settings):
    settings.TRUSTED_PROXIES = []
    assert address_of("203.0.113.9", "198.51.100.1") == "203.0.113.9"


def test_a_peer_that_is_not_a_trusted_proxy_is_the_caller(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    assert address_of("203.0.113.9", "10.1.1.1, 198.51.100.1") == "203.0.113.9"


@pytest.mark.parametrize(
    ("forwarded", "caller"),
    [
        ("198.51.100.7", "198.51.100.7"),
        ("1.2.3.4, 198.51.100.7", "198.51.100.7"),  # the left hop is the caller's own writing
        ("1.2.3.4, 198.51.100.7, 10.0.0.9", "198.51.100.7"),  # two proxies of ours
        ("not-an-address, 198.51.100.7", "198.51.100.7"),
        ("198.51.100.7, garbage", "10.0.0.1"),  # no proxy of ours writes that: count by the proxy
        ("", "10.0.0.1"),
        ("[2001:db8::7]:443", "2001:db8::7"),
        ("198.51.100.7:5555", "198.51.100.7"),
        ("::ffff:198.51.100.7", "198.51.100.7"),
    ],
)
def test_behind_trusted_proxies_the_right_most_hop_they_did_not_add_is_the_caller(settings, forwarded, caller):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8", "fd00::/8"]
    assert address_of("10.0.0.1", forwarded) == caller


@given(forged=st.lists(st.ip_addresses().map(str), max_size=5), caller=st.ip_addresses(v=4))
def test_whatever_a_caller_writes_in_front_it_is_counted_by_the_hop_the_proxy_added(forged, caller):
    if caller in ipaddress.ip_network("10.0.0.0/8"):
        return
    with override_settings(TRUSTED_PROXIES=["10.0.0.0/8"]):
        assert address_of("10.0.0.1", ", ".join([*forged, str(caller)])) == str(caller)


def test_a_forged_address_per_request_does_not_pass_the_rate_limit(client, settings, throttle_rates):
    """The attack of issue #28: 300 requests, each with a new X-Forwarded-For, against a limit of 20."""
    settings.TRUSTED_PROXIES = []
    throttle_rates.update(anon="20/min")
    statuses = [
        client.get("/api/v1/tables/", HTTP_X_FORWARDED_FOR=f"198.51.{i // 250}.{i % 250}").status_code
        for i in range(300)
    ]
    assert statuses.count(200) == 20 and statuses.count(429) == 280


def test_behind_a_trusted_proxy_each_client_has_its_own_limit(client, settings, throttle_rates):
    settings.TRUSTED_PROXIES = ["10.0.0.1"]
    throttle_rates.update(anon="2/min")

    def get(forwarded):
        return client.get("/api/v1/tables/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=forwarded).status_code

    assert [get(f"{n}.{n}.{n}.{n}, 198.51.100.1") for n in range(1, 4)] == [200, 200, 429]
    assert get("198.51.100.2") == 200


def test_sign_in_attempts_are_counted_by_the_callers_address_not_a_forged_one(client, settings):
    from accounts.services import SIGN_IN_FAILURES_ALLOWED
    from tests.factories import make_player

    settings.TRUSTED_PROXIES = []
    player = make_player(username="victim")
    player.user.set_password("the-right-passphrase-9")
    player.user.save()
    for i in range(SIGN_IN_FAILURES_ALLOWED):
        client.post(
            "/api/v1/auth/token/",
            {"username": "victim", "password": "wrong"},
            content_type="application/json",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}",
        )
    answer = client.post(
        "/api/v1/auth/token/",
        {"username": "victim", "password": "the-right-passphrase-9"},
        content_type="application/json",
        HTTP_X_FORWARDED_FOR="198.51.100.200",
    )
    assert answer.status_code == 429


def test_a_trusted_proxy_setting_that_is_no_address_stops_the_checks(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8", "proxy.example"]
    with pytest.raises(SystemCheckError, match=r"proxy\.example"):
        call_command("check")
