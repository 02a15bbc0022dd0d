import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import CommandError, call_command

from accounts.models import Partner, Player, User
from casino.models import Table
from ledger.models import JournalEntry
from ledger.selectors import player_wallet_summary
from ledger.verification import ledger_verify

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_demo_data_loads_a_table_a_funded_player_and_staff_and_can_run_again():
    call_command("demo_data", "--yes-demo-logins")
    call_command("demo_data", "--yes-demo-logins")
    table = Table.objects.get(name="Classic EUR")
    assert table.is_open and table.currency == "EUR" and (table.decks, table.burn, table.tie_pays) == (6, 3, 10)
    demo = Player.objects.get(user__username="demo")
    assert player_wallet_summary(player=demo)["balance"] == 100_000  # funded once, not twice
    operator = User.objects.get(username="operator")
    assert operator.is_staff and operator.groups.filter(name="operator").exists()
    assert operator.check_password("casino-war-demo")
    assert ledger_verify().ok


def test_demo_data_is_refused_with_debug_off_unless_the_server_says_it_is_a_demo(settings):
    """Issue #28: the demo logins (a published password) and a funded player never reach a
    production database by mistake; nothing at all is written when refused."""
    settings.DEBUG, settings.DEMO_DATA = False, False
    with pytest.raises(CommandError, match="--yes-demo-logins"):
        call_command("demo_data")
    assert not User.objects.exists() and not Table.objects.exists() and not Group.objects.exists()
    assert not JournalEntry.objects.exists()
    settings.DEMO_DATA = True  # a demo server, said so
    call_command("demo_data")
    assert User.objects.filter(username="demo").exists()


@pytest.mark.parametrize(("debug", "flag"), [("true", False), ("false", True)])
def test_demo_data_runs_with_debug_on_or_when_asked_for(settings, debug, flag):
    settings.DEBUG = debug == "true"
    settings.DEMO_DATA = False
    call_command("demo_data", *(["--yes-demo-logins"] if flag else []))
    assert Table.objects.filter(name="Classic EUR").exists()


@pytest.mark.django_db(transaction=True)
def test_demo_data_refused_exits_non_zero_and_says_why(tmp_path):
    """As an operator runs it: `manage.py demo_data` on a production configuration."""
    from django.conf import settings as django_settings

    env = {
        **os.environ,
        "DEBUG": "false",
        "DEMO_DATA": "false",
        "DATABASE_URL": _database_url(django_settings.DATABASES["default"]),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "demo_data"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0 and "--yes-demo-logins" in result.stderr
    assert not User.objects.exists()


def _database_url(database: dict) -> str:
    host, port = database["HOST"] or "127.0.0.1", database["PORT"] or 5432
    return f"postgres://{database['USER']}@{host}:{port}/{database['NAME']}"


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
