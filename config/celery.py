import os

from celery import Celery
from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections

from config.kombu_redis import kombu_redis_workarounds_install

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Workers ride out broker outages only with these (config/kombu_redis.py says why).
kombu_redis_workarounds_install()

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
