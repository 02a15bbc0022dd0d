import functools
import logging
import os

from celery import Celery
from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections
from kombu.transport import redis as kombu_redis

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("casino_war")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def keep_database_connections(task=None, **kwargs) -> None:
    """Around a task, as Django does around a request: close the connection only if it is broken
    or older than CONN_MAX_AGE. (Celery's own fixup would close it around every task unless
    CELERY_DB_REUSE_MAX is set, and a new PostgreSQL connection costs more than a settlement.)
    An eager task runs inside its caller's transaction, whose connection is not ours to close."""
    if task is not None and getattr(task.request, "is_eager", False):
        return
    close_old_connections()


logger = logging.getLogger(__name__)


def _dropped_on_a_closed_channel(method):
    """An acknowledgement (or rejection) of a message whose channel is closed is dropped.

    Tasks are acknowledged late. When the broker connection drops, the worker closes it (its
    channels are marked closed; their unacknowledged messages are restored, or come back after the
    visibility timeout) and connects anew, while the tasks it had started run on; each then
    acknowledges on its old, closed channel. kombu's Redis transport (5.7.0) does not refuse that:
    the channel rebuilds a connection pool from a transport it has already detached, and the
    worker dies with `AttributeError: 'NoneType' object has no attribute 'hostname'` (or waits out
    a socket timeout on a connection that is gone). The message runs again, which every task of
    the service allows (docs/RELIABILITY.md)."""

    @functools.wraps(method)
    def guarded(self, delivery_tag, *args, **kwargs):
        if self.closed:
            logger.warning("broker connection was lost: %s of %s dropped (it will run again)", method.__name__,
                           delivery_tag)  # fmt: skip
            return None
        return method(self, delivery_tag, *args, **kwargs)

    return guarded


kombu_redis.Channel.basic_ack = _dropped_on_a_closed_channel(kombu_redis.Channel.basic_ack)
kombu_redis.Channel.basic_reject = _dropped_on_a_closed_channel(kombu_redis.Channel.basic_reject)
