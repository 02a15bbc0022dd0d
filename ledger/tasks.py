from celery import shared_task

from ledger.services import ledger_seal
from ledger.verification import ledger_verify


@shared_task(name="ledger.tasks.ledger_seal_task")
def ledger_seal_task() -> int:
    return ledger_seal()


@shared_task(name="ledger.tasks.ledger_verify_task")
def ledger_verify_task() -> bool:
    return ledger_verify(triggered_by="nightly").ok
