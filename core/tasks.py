from celery import shared_task

from core.idempotency import idempotency_records_purge


@shared_task(name="core.purge_idempotency_records")
def purge_idempotency_records_task() -> int:
    return idempotency_records_purge()
