from celery import shared_task

from accounts.game_sessions import game_sessions_end_idle
from accounts.partners import partner_nonces_purge
from accounts.tokens import tokens_purge_idle


@shared_task(name="accounts.purge_partner_nonces")
def purge_partner_nonces_task() -> int:
    return partner_nonces_purge()


@shared_task(name="accounts.purge_idle_tokens")
def purge_idle_tokens_task() -> int:
    return tokens_purge_idle()


@shared_task(name="accounts.end_idle_game_sessions")
def end_idle_game_sessions_task() -> int:
    return game_sessions_end_idle()
