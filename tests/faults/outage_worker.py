"""The service's Celery app (its settings, the kombu workarounds of config/kombu_redis.py) with one
task more, which takes its time: a test holds it in flight while it breaks the broker."""

import time

from config.celery import app


@app.task(name="tests.faults.hold", acks_late=True)
def hold(seconds: float) -> float:
    time.sleep(seconds)
    return seconds
