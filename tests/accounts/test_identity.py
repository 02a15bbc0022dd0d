"""Whose a player is (its login, partner, the partner's id of it) and its currency: read-only in the
back office for every role; a change is proposed by one staff member, approved by another, audited
(accounts/identity.py)."""

import pytest
from django.contrib.auth.models import Group

from accounts.identity import (
    player_identity_change_approve,
    player_identity_change_propose,
    player_identity_change_reject,
)
from accounts.models import IdentityChangeStatus, Player, PlayerIdentityChange
from accounts.roles import OPERATOR, SUPPORT
from accounts.services import partner_create, player_create, roles_sync
from core.errors import InvalidInput, StateConflict
from core.models import AuditEvent
from ledger.models import Account, AccountKind
from tests.casino.helpers import sign
from tests.factories import StaffFactory, make_player

pytestmark = pytest.mark.django_db


def staff(role):
    user = StaffFactory()
    user.groups.add(Group.objects.get(name=role))
    return type(user).objects.get(pk=user.pk)


@pytest.fixture
def roles(db):
    roles_sync()


@pytest.fixture
def partners(db):
    return partner_create(name="P1"), partner_create(name="P2")


def partner_get(client, partner_pair, path):
    partner, secret = partner_pair
    return client.get(path, **sign(partner, secret, "GET", path, b""))


def test_an_operator_cannot_hand_a_web_player_to_a_partner_from_the_player_page(client, roles, partners):
    """The issue: the change page took `partner` and `external_id`, and P2 then read the wallet."""
    player = player_create(username="webby", password="a-long-pass-phrase")
    client.force_login(staff(OPERATOR))
    p2, _ = partners[1]
    page = f"/admin/accounts/player/{player.pk}/change/"
    response = client.post(page, {"user": player.user_id, "partner": p2.pk, "external_id": "hijack", "currency": "USD"})
    assert response.status_code == 403
    player.refresh_from_db()
    assert (player.partner, player.external_id, player.currency) == (None, "", "EUR")
    assert partner_get(client, partners[1], "/api/v1/partner/players/hijack/wallet/").status_code == 404


def test_the_player_page_is_read_only_for_every_role_superusers_too(client, roles, admin_user):
    player = make_player(username="readonly")
    for user in (staff(OPERATOR), staff(SUPPORT), admin_user):
        client.force_login(user)
        response = client.get(f"/admin/accounts/player/{player.pk}/change/")
        assert response.status_code == 200
        assert not response.context["adminform"].form.fields, user  # nothing to edit
        assert "Propose an identity change" in response.content.decode()
        assert client.post(f"/admin/accounts/player/{player.pk}/change/", {"currency": "USD"}).status_code == 403
        assert client.get("/admin/accounts/player/add/").status_code == 403
        assert client.post(f"/admin/accounts/player/{player.pk}/delete/", {"post": "yes"}).status_code == 403


def test_support_proposes_in_the_admin_and_an_operator_approves_then_the_partner_reaches_the_player(
    client, roles, partners
):
    player = player_create(username="mover", password="a-long-pass-phrase")
    p2, _ = partners[1]
    maker, checker = staff(SUPPORT), staff(OPERATOR)
    client.force_login(maker)
    form = client.get(f"/admin/accounts/playeridentitychange/add/?player={player.pk}")
    assert form.context["adminform"].form.initial["currency"] == "EUR"
    response = client.post(
        "/admin/accounts/playeridentitychange/add/",
        {
            "player": player.pk,
            "partner": p2.pk,
            "external_id": "ext-77",
            "currency": "EUR",
            "reason": "the player joined P2's casino; ticket 4711",
        },
    )
    assert response.status_code == 302, response.content.decode()
    change = PlayerIdentityChange.objects.get()
    assert change.status == IdentityChangeStatus.PROPOSED and change.proposed_by == maker
    listing = "/admin/accounts/playeridentitychange/"
    client.post(listing, {"action": "approve_selected", "_selected_action": [change.pk]})
    change.refresh_from_db()
    assert change.status == IdentityChangeStatus.PROPOSED  # support cannot approve
    client.force_login(checker)
    client.post(listing, {"action": "approve_selected", "_selected_action": [change.pk]})
    change.refresh_from_db()
    player.refresh_from_db()
    assert change.status == IdentityChangeStatus.APPROVED and change.decided_by == checker
    assert (player.partner, player.external_id) == (p2, "ext-77")
    assert partner_get(client, partners[1], "/api/v1/partner/players/ext-77/wallet/").status_code == 200
    applied = AuditEvent.objects.get(action="player.identity_changed")
    assert applied.actor_id == str(checker.pk) and applied.data["proposed_by"] == maker.pk
    assert applied.data["before"] == {"partner": None, "external_id": "", "currency": "EUR"}
    assert applied.data["after"] == {"partner": p2.pk, "external_id": "ext-77", "currency": "EUR"}
    assert AuditEvent.objects.filter(action="player.identity_change_proposed", actor_id=str(maker.pk)).exists()


def test_the_proposer_cannot_approve_or_reject_their_own_change(roles, partners):
    maker = staff(OPERATOR)
    player = make_player(username="own")
    change = player_identity_change_propose(
        player=player, partner=partners[0][0], external_id="x-1", currency="EUR", reason="merge", proposed_by=maker
    )
    with pytest.raises(StateConflict, match="four eyes"):
        player_identity_change_approve(change=change, approved_by=maker)
    with pytest.raises(StateConflict, match="four eyes"):
        player_identity_change_reject(change=change, rejected_by=maker)
    player.refresh_from_db()
    assert player.partner is None


def test_a_rejected_change_changes_nothing_and_is_audited(roles, partners):
    player = make_player(username="stay")
    change = player_identity_change_propose(
        player=player,
        partner=partners[0][0],
        external_id="x-2",
        currency="EUR",
        reason="merge",
        proposed_by=staff(SUPPORT),
    )
    checker = staff(OPERATOR)
    player_identity_change_reject(change=change, rejected_by=checker)
    with pytest.raises(StateConflict, match="already decided"):
        player_identity_change_approve(change=change, approved_by=checker)
    player.refresh_from_db()
    assert player.partner is None
    assert AuditEvent.objects.filter(action="player.identity_change_rejected", actor_id=str(checker.pk)).exists()


def test_an_approval_applies_only_to_the_identity_it_was_proposed_for(roles, partners):
    player = make_player(username="stale")
    (p1, _), (p2, _) = partners
    first = player_identity_change_propose(
        player=player, partner=p1, external_id="a", currency="EUR", reason="one", proposed_by=staff(SUPPORT)
    )
    second = player_identity_change_propose(
        player=player, partner=p2, external_id="b", currency="EUR", reason="two", proposed_by=staff(SUPPORT)
    )
    checker = staff(OPERATOR)
    player_identity_change_approve(change=first, approved_by=checker)
    with pytest.raises(StateConflict, match="propose again"):
        player_identity_change_approve(change=second, approved_by=checker)
    player.refresh_from_db()
    assert (player.partner, player.external_id) == (p1, "a")


def test_a_partners_player_moves_with_its_login_name_and_cannot_leave_for_no_partner(roles, partners):
    (p1, _), (p2, _) = partners
    player = make_player(username=f"p{p1.pk}:old-id", partner=p1, external_id="old-id")
    with pytest.raises(InvalidInput, match="cannot leave its partner"):
        player_identity_change_propose(
            player=player, partner=None, external_id="", currency="EUR", reason="x", proposed_by=staff(SUPPORT)
        )
    change = player_identity_change_propose(
        player=player,
        partner=p2,
        external_id="new-id",
        currency="EUR",
        reason="P1 sold its book to P2",
        proposed_by=staff(SUPPORT),
    )
    player_identity_change_approve(change=change, approved_by=staff(OPERATOR))
    player.refresh_from_db()
    assert player.user.username == f"p{p2.pk}:new-id" and (player.partner, player.external_id) == (p2, "new-id")


@pytest.mark.parametrize(
    ("partner", "external_id", "currency", "message"),
    [
        (None, "", "EUR", "identity already"),
        (None, "x", "EUR", "belongs to a partner"),
        (0, "", "EUR", "external_id is"),
        (0, "bad id", "EUR", "external_id is"),
        (0, "taken", "EUR", "another player with this external id"),
        (None, "", "XXX", "ISO 4217"),
        (None, "", "JPY", "ISO 4217"),
    ],
)
def test_identities_a_player_cannot_take_are_refused_when_proposed(
    roles, partners, partner, external_id, currency, message
):
    p1 = partners[0][0]
    make_player(username="holder", partner=p1, external_id="taken")
    player = player_create(username="asker", password="a-long-pass-phrase")
    with pytest.raises(InvalidInput, match=message):
        player_identity_change_propose(
            player=player,
            partner=p1 if partner == 0 else partner,
            external_id=external_id,
            currency=currency,
            reason="r",
            proposed_by=staff(SUPPORT),
        )
    assert not PlayerIdentityChange.objects.exists()


def test_a_proposal_needs_a_reason_and_an_inactive_partner_is_refused(roles, partners):
    p1 = partners[0][0]
    player = make_player(username="noreason")
    with pytest.raises(InvalidInput, match="reason"):
        player_identity_change_propose(
            player=player, partner=p1, external_id="r-1", currency="EUR", reason="  ", proposed_by=staff(SUPPORT)
        )
    p1.is_active = False
    p1.save()
    with pytest.raises(InvalidInput, match="not active"):
        player_identity_change_propose(
            player=player, partner=p1, external_id="r-1", currency="EUR", reason="r", proposed_by=staff(SUPPORT)
        )


def test_the_currency_changes_only_for_a_wallet_that_never_moved_money(roles):
    fresh, funded = make_player(username="fresh"), make_player(username="funded", balance=100)
    with pytest.raises(InvalidInput, match="never moved money"):
        player_identity_change_propose(
            player=funded, partner=None, external_id="", currency="USD", reason="r", proposed_by=staff(SUPPORT)
        )
    change = player_identity_change_propose(
        player=fresh,
        partner=None,
        external_id="",
        currency="USD",
        reason="opened in the wrong currency",
        proposed_by=staff(SUPPORT),
    )
    player_identity_change_approve(change=change, approved_by=staff(OPERATOR))
    fresh.refresh_from_db()
    assert fresh.currency == "USD"
    assert set(Account.objects.filter(player=fresh, currency="USD").values_list("kind", flat=True)) == {
        AccountKind.PLAYER_WALLET,
        AccountKind.PLAYER_IN_PLAY,
    }


def test_the_admin_form_shows_why_a_proposal_is_refused(client, roles, partners):
    player = make_player(username="formy", balance=100)
    client.force_login(staff(OPERATOR))
    response = client.post(
        "/admin/accounts/playeridentitychange/add/",
        {
            "player": player.pk,
            "partner": "",
            "external_id": "",
            "currency": "USD",
            "reason": "r",
        },
    )
    assert response.status_code == 200 and "never moved money" in response.content.decode()
    assert not PlayerIdentityChange.objects.exists()
    assert Player.objects.get(pk=player.pk).currency == "EUR"


def test_a_proposal_is_never_edited_or_deleted(client, roles, partners):
    player = make_player(username="fixed")
    change = player_identity_change_propose(
        player=player, partner=partners[0][0], external_id="f-1", currency="EUR", reason="r", proposed_by=staff(SUPPORT)
    )
    client.force_login(staff(OPERATOR))
    page = f"/admin/accounts/playeridentitychange/{change.pk}/change/"
    assert client.get(page).status_code == 200  # to read
    assert client.post(page, {"external_id": "other", "reason": "r"}).status_code == 403
    assert client.post(f"/admin/accounts/playeridentitychange/{change.pk}/delete/", {"post": "yes"}).status_code == 403
