"""Each statement of accounts/sql/, on real PostgreSQL."""

import pytest

from accounts import sql
from accounts.partners import partner_player_upsert
from accounts.services import partner_create
from accounts.tokens import token_digest, token_issue
from tests.factories import StaffFactory, make_player

pytestmark = pytest.mark.django_db


def test_token_user_player_reads_all_three_related_as_select_related_would(django_assert_num_queries):
    player = make_player(username="reader")
    digest = token_digest(token_issue(user=player.user))
    with django_assert_num_queries(1):
        token, user, found = sql.token_user_player(digest=digest)
        assert (token.pk, user.username, found.pk, token.user.player.currency) == (digest, "reader", player.pk, "EUR")
    staff = StaffFactory()
    token, user, found = sql.token_user_player(digest=token_digest(token_issue(user=staff)))
    assert (user.pk, found) == (staff.pk, None)
    assert sql.token_user_player(digest=token_digest("0" * 64)) is None


def test_partner_and_player_reads_the_active_partner_and_its_player(django_assert_num_queries):
    partner, _ = partner_create(name="Reads")
    other, _ = partner_create(name="Other")
    player, _ = partner_player_upsert(partner=partner, external_id="ext-1", currency="EUR")
    partner_player_upsert(partner=other, external_id="ext-2", currency="EUR")
    with django_assert_num_queries(1):
        found_partner, found_player = sql.partner_and_player(key_id=partner.key_id, external_id="ext-1")
        assert (found_partner.pk, found_player.pk, found_player.user.username, found_player.partner.pk) == (
            partner.pk,
            player.pk,
            player.user.username,
            partner.pk,
        )
    assert sql.partner_and_player(key_id=partner.key_id, external_id="ext-2") == (partner, None)  # not its player
    assert sql.partner_and_player(key_id=partner.key_id, external_id=None) == (partner, None)
    partner.is_active = False
    partner.save()
    assert sql.partner_and_player(key_id=partner.key_id, external_id="ext-1") is None
    assert sql.partner_and_player(key_id="pk_unknown", external_id="ext-1") is None
