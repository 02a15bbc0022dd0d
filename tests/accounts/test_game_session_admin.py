"""The back office of game launch: a partner's origins (shown on its page, changed by four eyes) and
its players' game sessions (who, started, last seen, ended how), which an operator can end."""

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from accounts.game_sessions import game_session_create, game_session_open
from accounts.models import GameSession, IdentityChangeStatus, PartnerOriginChange
from accounts.roles import AUDITOR, OPERATOR, SUPPORT
from accounts.services import partner_create, player_create, roles_sync
from core.models import AuditEvent
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db


def staff(role):
    user = StaffFactory()
    user.groups.add(Group.objects.get(name=role))
    return type(user).objects.get(pk=user.pk)


@pytest.fixture
def partner(db):
    roles_sync()
    partner, _ = partner_create(name="Framing Casino", origins=["https://casino.example"])
    return partner


def test_the_partner_page_shows_its_origins_and_the_way_to_change_them(client, partner):
    client.force_login(staff(OPERATOR))
    page = client.get(f"/admin/accounts/partner/{partner.pk}/change/").content.decode()
    assert "https://casino.example" in page and "Propose a change (maker-checker)" in page
    assert "game sessions</a>" in page


def test_origins_change_by_four_eyes(client, partner):
    maker, checker = staff(OPERATOR), staff(OPERATOR)
    client.force_login(maker)
    form = client.get(f"/admin/accounts/partneroriginchange/add/?partner={partner.pk}")
    assert form.context["adminform"].form.initial["origins"] == "https://casino.example"
    refused = client.post(
        "/admin/accounts/partneroriginchange/add/",
        {
            "partner": partner.pk,
            "origins": "https://casino.example/path",
            "reason": "typo",
        },
    )
    assert refused.status_code == 200 and not PartnerOriginChange.objects.exists()
    response = client.post(
        "/admin/accounts/partneroriginchange/add/",
        {
            "partner": partner.pk,
            "origins": "https://casino.example\nhttps://Play.Casino.example:8443\n",
            "reason": "their new game page; ticket 12",
        },
    )
    assert response.status_code == 302, response.content.decode()
    change = PartnerOriginChange.objects.get()
    listing = "/admin/accounts/partneroriginchange/"
    client.post(listing, {"action": "approve_selected", "_selected_action": [change.pk]})
    partner.refresh_from_db()
    assert partner.origins == ["https://casino.example"]  # the maker cannot approve
    client.force_login(checker)
    client.post(listing, {"action": "approve_selected", "_selected_action": [change.pk]})
    partner.refresh_from_db()
    change.refresh_from_db()
    assert change.status == IdentityChangeStatus.APPROVED
    assert partner.origins == ["https://casino.example", "https://play.casino.example:8443"]
    assert AuditEvent.objects.filter(action="partner.origins_changed", actor_id=str(checker.pk)).exists()
    # Nobody edits a partner's origins on its own page.
    client.post(f"/admin/accounts/partner/{partner.pk}/change/", {"origins": "[]"})
    partner.refresh_from_db()
    assert partner.origins == ["https://casino.example", "https://play.casino.example:8443"]


def test_game_sessions_are_listed_and_an_operator_ends_one(client, partner):
    player = player_create(username="framed", password=None, partner=partner, external_id="ext-9")
    session, launch = game_session_create(partner=partner, player=player)
    game_session_open(launch_token=launch)
    waiting, _ = game_session_create(partner=partner, player=player)
    listing = "/admin/accounts/gamesession/"
    client.force_login(staff(SUPPORT))
    page = client.get(listing).content.decode()
    assert "framed" in page and "link not opened" in page and "open" in page
    assert client.post(listing, {"action": "end_selected", "_selected_action": [session.pk]}).status_code == 200
    assert GameSession.objects.get(pk=session.pk).ended_at is None  # support only looks
    client.force_login(staff(AUDITOR))
    assert client.get(listing).status_code == 200
    operator = staff(OPERATOR)
    client.force_login(operator)
    client.post(listing, {"action": "end_selected", "_selected_action": [session.pk]})
    ended = GameSession.objects.get(pk=session.pk)
    assert ended.ended_reason == "operator" and ended.ended_at <= timezone.now()
    assert ended.ended_by == f"operator:{operator.pk}"
    assert AuditEvent.objects.filter(
        action="game_session.ended", actor_id=str(operator.pk), object_id=str(session.pk)
    ).exists()
    assert "Ended by an operator" in client.get(listing).content.decode()
    detail = client.get(f"/admin/accounts/gamesession/{waiting.pk}/change/")
    assert detail.status_code == 200 and not detail.context["adminform"].form.fields
