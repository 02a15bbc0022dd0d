"""Calls to partners' servers (core/outbound.py): signed, no redirect followed, public addresses
only (checked when called, the connection going to the address that was checked), explicit
timeouts; real servers on this machine, over HTTP and TLS."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import ssl

import pytest
import trustme
from django.core.exceptions import ValidationError

from core.outbound import address_refusal, outbound_post, outbound_url_validate
from tests.servers import Answer, PartnerServer

SECRET = "partner-secret"


def post(url, **kwargs):
    return outbound_post(url=url, secret=SECRET, nonce="nonce-123456", body=b'{"a":1}', **kwargs)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "224.0.0.1",
        "239.255.255.250",
        "240.0.0.1",
        "255.255.255.255",
        "192.0.2.1",
        "198.18.0.1",
        "::1",
        "::",
        "fe80::1",
        "fc00::1",
        "fd12:3456::1",
        "fec0::1",
        "ff02::1",
        "2001:db8::1",
        "::ffff:127.0.0.1",
        "::ffff:10.1.2.3",
        "::ffff:169.254.169.254",
        "2002:7f00:1::1",
        "64:ff9b::a00:1",
    ],
)
def test_every_non_global_address_is_refused(address):
    assert address_refusal(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2001:4860:4860::8888", "::ffff:8.8.8.8"])
def test_public_addresses_are_called(address):
    assert address_refusal(ipaddress.ip_address(address)) is None


def test_a_redirect_is_not_followed_and_the_signature_stays_with_the_first_server(outbound_private):
    with PartnerServer() as elsewhere, PartnerServer(Answer(302, {"Location": elsewhere.url("/stolen")})) as partner:
        answer = post(partner.url("/hooks"))
    assert not answer.ok and answer.status_code == 302 and "not followed" in answer.error
    assert elsewhere.url("/stolen") in answer.error
    assert len(partner.received) == 1 and elsewhere.received == []


def test_the_call_is_signed_over_timestamp_nonce_method_path_and_body(outbound_private):
    with PartnerServer() as partner:
        answer = post(partner.url("/hooks/casino?x=1"))
    assert answer.ok and answer.status_code == 200 and answer.error == ""
    [received] = partner.received
    headers = received.headers
    expected = hmac.new(
        SECRET.encode(),
        f"{headers['X-Timestamp']}.nonce-123456.POST./hooks/casino.".encode() + b'{"a":1}',
        hashlib.sha256,
    ).hexdigest()
    assert received.method == "POST" and received.path == "/hooks/casino?x=1" and received.body == b'{"a":1}'
    assert headers["X-Signature"] == expected and headers["X-Nonce"] == "nonce-123456"


@pytest.mark.parametrize("address", ["127.0.0.1", "10.20.30.40", "169.254.169.254", "::1", "::ffff:127.0.0.1"])
def test_a_name_resolving_to_a_private_address_is_refused_when_called(fake_dns, address):
    fake_dns["partner.example"] = address
    with PartnerServer() as partner:
        answer = post(f"http://partner.example:{partner.port}/hooks", connect_timeout=0.5)
        literal = post(partner.url("/hooks"))  # the address itself, without a name
    assert answer.refused and answer.status_code is None and answer.error.startswith("refused: ")
    assert address in answer.error
    assert literal.refused and "loopback" in literal.error
    assert partner.received == []


def test_one_private_address_among_public_ones_is_enough_to_refuse(fake_dns):
    fake_dns["partner.example"] = ["93.184.215.14", "10.0.0.7"]
    answer = post("http://partner.example/hooks")
    assert answer.refused and "10.0.0.7" in answer.error


def test_the_name_is_resolved_once_and_the_connection_goes_to_that_address(fake_dns, outbound_private):
    """DNS rebinding: the address checked is the address connected to; the name travels in Host."""
    fake_dns["partner.example"] = "127.0.0.1"
    with PartnerServer() as partner:
        answer = post(f"http://partner.example:{partner.port}/hooks")
    assert answer.ok and fake_dns.lookups == {"partner.example": 1}
    assert partner.received[0].headers["Host"] == f"partner.example:{partner.port}"


@pytest.fixture
def certificate_authority(monkeypatch, tmp_path):
    """A test CA that the client trusts through OpenSSL's SSL_CERT_FILE, as it would the system's."""
    authority = trustme.CA()
    bundle = tmp_path / "ca.pem"
    authority.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    return authority


def tls_server_context(authority, name: str) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    authority.issue_cert(name).configure_cert(context)
    return context


def test_tls_goes_to_the_checked_address_with_the_name_in_sni_and_the_certificate_check(
    fake_dns, outbound_private, certificate_authority
):
    fake_dns["partner.example"] = "127.0.0.1"
    with PartnerServer(tls=tls_server_context(certificate_authority, "partner.example")) as partner:
        answer = post(partner.url("/hooks", host="partner.example"))
    assert answer.ok, answer.error
    assert partner.server_names == ["partner.example"] and fake_dns.lookups == {"partner.example": 1}
    assert partner.received[0].headers["Host"] == f"partner.example:{partner.port}"


def test_tls_refuses_a_certificate_for_another_name(fake_dns, outbound_private, certificate_authority):
    fake_dns["partner.example"] = "127.0.0.1"
    with PartnerServer(tls=tls_server_context(certificate_authority, "other.example")) as partner:
        answer = post(partner.url("/hooks", host="partner.example"))
    assert not answer.ok and answer.status_code is None and "doesn't match 'other.example'" in answer.error
    assert partner.received == []


def test_tls_refuses_a_certificate_from_an_authority_nobody_trusts(fake_dns, outbound_private):
    fake_dns["partner.example"] = "127.0.0.1"
    with PartnerServer(tls=tls_server_context(trustme.CA(), "partner.example")) as partner:
        answer = post(partner.url("/hooks", host="partner.example"))
    assert not answer.ok and "CERTIFICATE_VERIFY_FAILED" in answer.error
    assert partner.received == []


def test_a_partner_that_does_not_answer_in_time_is_a_failed_call(outbound_private):
    with PartnerServer(Answer(200, delay_s=2)) as partner:
        answer = post(partner.url("/hooks"), read_timeout=0.3)
    assert not answer.ok and answer.status_code is None and "timed out" in answer.error.lower()
    assert answer.duration_ms < 1500


def test_an_error_status_and_an_oversized_answer_are_failed_calls(outbound_private):
    with PartnerServer(500, Answer(200, body=b"x" * 70_000)) as partner:
        failed = post(partner.url("/hooks"))
        oversized = post(partner.url("/hooks"))
        after = post(partner.url("/hooks"))  # the pool still works after a connection was dropped
    assert (failed.ok, failed.status_code, failed.error) == (False, 500, "HTTP 500")
    assert not oversized.ok and "over 65536 bytes" in oversized.error
    assert after.ok


@pytest.mark.parametrize(
    "url", ["ftp://partner.example/x", "http://user:pw@partner.example/x", "http://partner.example:99999/x", "/x"]
)
def test_urls_that_are_not_plain_http_are_refused(url, outbound_private):
    assert post(url).refused
    with pytest.raises(ValidationError):
        outbound_url_validate(url)


def test_a_url_is_checked_when_saved(fake_dns, settings):
    fake_dns["public.example"] = "93.184.215.14"
    fake_dns["internal.example"] = "10.1.2.3"
    outbound_url_validate("https://public.example/hooks")
    for url in ("https://internal.example/hooks", "http://127.0.0.1:8000/", "http://[::1]/", "http://169.254.169.254/"):
        with pytest.raises(ValidationError, match="not accepted"):
            outbound_url_validate(url)
    with pytest.raises(ValidationError, match="does not resolve"):
        outbound_url_validate("https://no-such-name.invalid/hooks")
    settings.OUTBOUND_ALLOW_PRIVATE = True  # development: anything well formed
    outbound_url_validate("https://internal.example/hooks")
    outbound_url_validate("https://no-such-name.invalid/hooks")
