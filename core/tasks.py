from celery import shared_task

from accounts.partners import partner_nonces_purge
from casino.api.idempotency import idempotency_records_purge


@shared_task(name="core.purge_idempotency_records")
def purge_idempotency_records_task() -> dict[str, int]:
    return {"idempotency_records": idempotency_records_purge(), "partner_nonces": partner_nonces_purge()}
