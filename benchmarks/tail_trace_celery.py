"""The Celery app for `http_rounds.py --trace-tail`: production's (config/celery.py), plus signals that
write each task's start (Unix time), wall time, CPU time of its process and name, a line per task,
to a file per process in TAIL_TRACE_DIR. Started as `celery -A tail_trace_celery` with benchmarks/ on
PYTHONPATH."""

import os
import time
from pathlib import Path

from celery.signals import task_postrun, task_prerun

from config.celery import app  # noqa: F401 - the app Celery looks for here

_TRACE_DIR = Path(os.environ["TAIL_TRACE_DIR"])
_started: dict[str, tuple[float, float]] = {}


@task_prerun.connect
def _task_started(task_id=None, **kwargs) -> None:
    _started[task_id] = (time.time(), time.process_time())


@task_postrun.connect
def _task_ended(task_id=None, task=None, **kwargs) -> None:
    started = _started.pop(task_id, None)
    if started is None:
        return
    wall, cpu = time.time() - started[0], time.process_time() - started[1]
    with (_TRACE_DIR / f"tasks.{os.getpid()}").open("a") as trace:
        trace.write(f"{started[0]:.6f} {wall:.6f} {cpu:.6f} {task.name}\n")
