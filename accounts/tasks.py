from celery import shared_task

from accounts.partners import partner_nonces_purge


@shared_task(name="accounts.purge_partner_nonces")
def purge_partner_nonces_task() -> int:
    return partner_nonces_purge()
