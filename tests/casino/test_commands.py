import json

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Partner, Player, User
from casino.models import Table
from ledger.selectors import player_wallet_summary
from ledger.verification import ledger_verify

pytestmark = pytest.mark.django_db


def test_demo_data_loads_a_table_a_funded_player_and_staff_and_can_run_again():
    call_command("demo_data")
    call_command("demo_data")
    table = Table.objects.get(name="Classic EUR")
    assert table.is_open and table.currency == "EUR" and (table.decks, table.burn, table.tie_pays) == (6, 3, 10)
    demo = Player.objects.get(user__username="demo")
    assert player_wallet_summary(player=demo)["balance"] == 100_000  # funded once, not twice
    operator = User.objects.get(username="operator")
    assert operator.is_staff and operator.groups.filter(name="operator").exists()
    assert operator.check_password("casino-war-demo")
    assert ledger_verify().ok


def test_partner_create_prints_key_and_secret_once(capsys, fake_dns):
    fake_dns["partner.example"] = "93.184.215.14"
    call_command("partner_create", "--name", "Lucky Partner", "--webhook-url", "https://partner.example/hooks")
    printed = json.loads(capsys.readouterr().out)
    partner = Partner.objects.get(name="Lucky Partner")
    assert printed == {"key": partner.key_id, "secret": partner.secret}
    with pytest.raises(CommandError):
        call_command("partner_create", "--name", "Lucky Partner")
    with pytest.raises(CommandError):
        call_command("partner_create", "--name", "Other", "--webhook-url", "not a url")
