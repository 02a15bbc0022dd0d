"""The permission matrix: each staff role can do exactly what it should, in the back office."""

import pytest
from django.contrib.auth.models import Group

from accounts.roles import AUDITOR, OPERATOR, SUPPORT
from accounts.services import roles_sync
from core.models import AuditEvent
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db

# (permission, operator, auditor, support)
MATRIX = [
    ("casino.view_table", True, True, True),
    ("casino.change_table", True, False, False),
    ("casino.add_table", False, False, False),  # a new table is a proposal
    ("casino.delete_table", False, False, False),
    ("casino.view_tablechange", True, True, False),
    ("casino.add_tablechange", True, False, False),  # proposing new rules, limits or a new table
    ("casino.change_tablechange", True, False, False),  # approving and rejecting
    ("casino.delete_tablechange", False, False, False),
    ("casino.view_round", True, True, True),
    ("casino.change_round", False, False, False),
    ("casino.view_webhookdelivery", True, True, False),
    ("casino.view_revenue", True, True, False),  # stakes, GGR, RTP: the dashboard's revenue and the reports
    ("accounts.view_player", True, True, True),
    ("accounts.change_player", False, False, False),  # nobody: identity changes are maker-checker
    ("accounts.add_player", False, False, False),
    ("accounts.view_playeridentitychange", True, True, True),
    ("accounts.add_playeridentitychange", True, False, True),  # proposing
    ("accounts.change_playeridentitychange", True, False, False),  # approving and rejecting
    ("accounts.delete_playeridentitychange", False, False, False),
    ("accounts.view_credentialreset", True, True, False),
    ("accounts.add_credentialreset", True, False, False),  # proposing a colleague's password or second factor reset
    ("accounts.change_credentialreset", True, False, False),  # approving and rejecting
    ("accounts.delete_credentialreset", False, False, False),
    ("accounts.view_partner", True, True, False),
    ("accounts.change_partner", False, False, False),  # its origins change by four eyes:
    ("accounts.add_partneroriginchange", True, False, False),  # proposing
    ("accounts.change_partneroriginchange", True, False, False),  # approving and rejecting
    ("accounts.delete_partneroriginchange", False, False, False),
    ("accounts.view_gamesession", True, True, True),
    ("accounts.change_gamesession", True, False, False),  # ending one
    ("accounts.delete_gamesession", False, False, False),
    ("ledger.view_journalentry", True, True, True),
    ("ledger.change_journalentry", False, False, False),
    ("ledger.view_verificationrun", True, True, False),
    ("ledger.view_adjustment", True, True, True),
    ("ledger.add_adjustment", True, False, True),
    ("ledger.change_adjustment", True, False, False),  # approving and rejecting
    ("protection.view_playerlimit", True, True, True),
    ("protection.change_playerlimit", False, False, False),
    ("core.view_auditevent", True, True, False),
    ("admin.view_logentry", False, True, False),
    ("auth.change_user", False, False, False),
]


def staff(role):
    user = StaffFactory()
    user.groups.add(Group.objects.get(name=role))
    return type(user).objects.get(pk=user.pk)  # fresh permission cache


@pytest.mark.parametrize(("permission", "operator", "auditor", "support"), MATRIX)
def test_permission_matrix(permission, operator, auditor, support):
    roles_sync()
    for role, expected in ((OPERATOR, operator), (AUDITOR, auditor), (SUPPORT, support)):
        assert staff(role).has_perm(permission) is expected, (role, permission)


def test_an_auditor_reads_everything_in_the_admin_and_changes_nothing(client):
    roles_sync()
    auditor = staff(AUDITOR)
    client.force_login(auditor)
    for page in (
        "casino/round",
        "casino/table",
        "ledger/journalentry",
        "ledger/account",
        "accounts/player",
        "protection/playerlimit",
        "core/auditevent",
        "admin/logentry",
        "ledger/verificationrun",
    ):
        assert client.get(f"/admin/{page}/").status_code == 200, page
    assert client.get("/admin/casino/table/add/").status_code == 403
    assert client.get("/admin/ledger/adjustment/add/").status_code == 403


def test_support_cannot_open_the_ledger_verification_runs(client):
    roles_sync()
    client.force_login(staff(SUPPORT))
    assert client.get("/admin/ledger/verificationrun/").status_code == 403
    assert client.get("/admin/ledger/adjustment/add/").status_code == 200


def test_sign_ins_failures_and_permission_changes_are_recorded(client):
    roles_sync()
    user = StaffFactory(username="olga")
    user.set_password("a-long-pass-phrase")
    user.save()
    from accounts.services import staff_totp_enroll
    from tests.core.test_admin_site import code

    device, _ = staff_totp_enroll(username="olga")
    client.post("/admin/login/", {"username": "olga", "password": "wrong"})
    client.post("/admin/login/", {"username": "olga", "password": "a-long-pass-phrase", "otp_token": code(device)})
    user.groups.add(Group.objects.get(name=OPERATOR))
    actions = list(AuditEvent.objects.values_list("action", flat=True))
    assert "sign_in.failed" in actions and "staff.signed_in" in actions and "user.groups.add" in actions


def test_the_player_page_shows_wallet_rounds_limits_exclusions_and_adjustments(admin_client, admin_user, table):
    from casino.services.rounds import round_place
    from core.actors import Actor
    from ledger.services import adjustment_propose
    from protection.services import exclusion_start, limit_set
    from tests.factories import make_player

    player = make_player(balance=5_000, username="paula")
    caller = Actor.player(player)
    round_place(player=player, table_id=table.pk, main_bet=1000, actor=caller)
    limit_set(player=player, kind="loss", period="week", amount=7_700, actor=caller)
    exclusion_start(player=player, kind="timeout", days=3, actor=caller)
    adjustment_propose(player=player, amount=250, reason="goodwill for a slow payout", proposed_by=admin_user)
    page = admin_client.get(f"/admin/accounts/player/{player.pk}/change/").content.decode()
    for expected in (
        "available",
        "in play",
        "Deposit",
        "running balance",
        "Test EUR",
        "€77.00",  # money in its currency, never minor units
        "€40.00 available, €10.00 in play",
        "€2.50",
        "Time-out",
        "goodwill for a slow payout",
    ):
        assert expected in page, expected
