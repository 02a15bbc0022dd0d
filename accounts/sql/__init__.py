"""Every hand-written SQL statement of accounts, one named function each, each tested in
`tests/accounts/test_sql.py`: the reads that start every API request (a player's token, a
partner's key with the player it acts for), where building the ORM query costs more CPU than
PostgreSQL spends running it. The rules around them live in `tokens.py` and `partners.py`."""

from __future__ import annotations

import functools

from django.db import connection

from accounts.models import ApiToken, Partner, Player, User
from core.rows import instances_from_row, select_list


@functools.cache
def _token_user_player_sql() -> str:
    return (
        f"SELECT {select_list(ApiToken, 't')}, {select_list(User, 'u')}, {select_list(Player, 'p')}"
        f" FROM {ApiToken._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id"
        f" LEFT JOIN {Player._meta.db_table} p ON p.user_id = u.id WHERE t.digest = %s"
    )


def token_user_player(*, digest: str) -> tuple[ApiToken, User, Player | None] | None:
    """The token of this digest, its user and the user's player (None for a user who is not a
    player), related to each other as select_related would: `token.user.player` reads nothing more."""
    row = token_user_player_row(digest=digest)
    return None if row is None else token_user_player_from_row(row)


def token_user_player_row(*, digest: str) -> tuple | None:
    """The row `token_user_player` makes its instances from (what accounts/auth_cache.py keeps)."""
    with connection.cursor() as cursor:
        cursor.execute(_token_user_player_sql(), [digest])
        return cursor.fetchone()


def token_user_player_from_row(row: tuple) -> tuple[ApiToken, User, Player | None]:
    """New instances from a row of `token_user_player_row`, each time: nothing is shared between requests."""
    token, user, player = instances_from_row(row, (ApiToken, User, Player))
    ApiToken.user.field.set_cached_value(token, user)
    if player is not None:
        User.player.related.set_cached_value(user, player)
        Player.user.field.set_cached_value(player, user)
    return token, user, player


@functools.cache
def _partner_player_sql() -> str:
    return (
        f"SELECT {select_list(Partner, 'pa')}, {select_list(Player, 'p')}, {select_list(User, 'u')}"
        f" FROM {Partner._meta.db_table} pa"
        f" LEFT JOIN {Player._meta.db_table} p ON p.partner_id = pa.id AND p.external_id = %s"
        f" LEFT JOIN {User._meta.db_table} u ON u.id = p.user_id"
        " WHERE pa.key_id = %s AND pa.is_active"
    )


def partner_and_player(*, key_id: str, external_id: str | None) -> tuple[Partner, Player | None] | None:
    """The active partner of `key_id` and its player `external_id` (with its user), if both exist;
    (partner, None) without such a player; None without such a partner."""
    row = partner_and_player_row(key_id=key_id, external_id=external_id)
    return None if row is None else partner_and_player_from_row(row)


def partner_and_player_row(*, key_id: str, external_id: str | None) -> tuple | None:
    """The row `partner_and_player` makes its instances from (what accounts/auth_cache.py keeps)."""
    with connection.cursor() as cursor:
        cursor.execute(_partner_player_sql(), [external_id or "", key_id])
        return cursor.fetchone()


def partner_and_player_from_row(row: tuple) -> tuple[Partner, Player | None]:
    """New instances from a row of `partner_and_player_row`, each time."""
    partner, player, user = instances_from_row(row, (Partner, Player, User))
    if player is not None:
        Player.user.field.set_cached_value(player, user)
        Player.partner.field.set_cached_value(player, partner)
    return partner, player
