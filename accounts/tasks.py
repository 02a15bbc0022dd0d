from celery import shared_task

from accounts.partners import partner_nonces_purge
from accounts.tokens import tokens_purge_idle


@shared_task(name="accounts.purge_partner_nonces")
def purge_partner_nonces_task() -> int:
    return partner_nonces_purge()


@shared_task(name="accounts.purge_idle_tokens")
def purge_idle_tokens_task() -> int:
    return tokens_purge_idle()
