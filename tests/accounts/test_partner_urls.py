"""A partner's webhook URL is checked when it is saved (partner_create and the admin): one that
resolves to a loopback, private or link-local address is refused unless OUTBOUND_ALLOW_PRIVATE."""

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Partner
from accounts.services import partner_create
from core.errors import InvalidInput

pytestmark = pytest.mark.django_db
PRIVATE = ["127.0.0.1", "10.20.30.40", "169.254.169.254", "::1"]


@pytest.mark.parametrize("address", PRIVATE)
def test_partner_create_refuses_a_url_resolving_to_a_private_address(fake_dns, address):
    fake_dns["hooks.partner.example"] = address
    with pytest.raises(InvalidInput, match="not accepted"):
        partner_create(name="Lucky", webhook_url="https://hooks.partner.example/casino")
    with pytest.raises(CommandError, match=address):
        call_command("partner_create", "--name", "Lucky", "--webhook-url", "https://hooks.partner.example/casino")
    with pytest.raises(InvalidInput):
        partner_create(name="Lucky", webhook_url=f"http://{address if ':' not in address else f'[{address}]'}/hooks")
    assert not Partner.objects.exists()


def test_development_may_save_private_urls(fake_dns, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True
    partner, _ = partner_create(name="Local", webhook_url="http://127.0.0.1:8001/hooks")
    assert partner.webhook_url == "http://127.0.0.1:8001/hooks"


@pytest.mark.parametrize("address", PRIVATE)
def test_the_admin_refuses_a_url_resolving_to_a_private_address(admin_client, fake_dns, address):
    fake_dns["public.partner.example"] = "93.184.215.14"
    fake_dns["hooks.partner.example"] = address
    partner, _ = partner_create(name="Lucky", webhook_url="https://public.partner.example/casino")
    change = f"/admin/accounts/partner/{partner.pk}/change/"
    form = {"name": "Lucky", "webhook_url": "https://hooks.partner.example/casino", "is_active": "on"}
    response = admin_client.post(change, form)
    assert response.status_code == 200 and "This URL is not accepted" in response.content.decode()
    partner.refresh_from_db()
    assert partner.webhook_url == "https://public.partner.example/casino"
    form["webhook_url"] = "https://public.partner.example/v2"
    assert admin_client.post(change, form).status_code == 302  # a public one is saved
    partner.refresh_from_db()
    assert partner.webhook_url == "https://public.partner.example/v2"
