"""The workarounds of config/kombu_redis.py: a Celery worker whose broker connection is lost with a
task in flight and a BRPOP pending survives (issue #16: in some Redis outages it died with
AttributeError 'hostname'), and a late acknowledgement for a lost connection is dropped.

The first test runs kombu without the workaround and expects the defect: when it fails, a kombu
release has fixed it, and the workaround (and its lines in docs/RELIABILITY.md) can go."""

import time
import warnings
from types import SimpleNamespace

import pytest
import redis
from celery import Celery
from celery.worker.consumer import Consumer as CeleryConsumer
from django.conf import settings
from kombu import Connection, Consumer, Exchange, Producer, Queue
from kombu.transport import redis as kombu_redis

import config.celery  # noqa: F401 - installs the workarounds on kombu's Redis channel
from tests.redis_server import RedisServer


@pytest.fixture
def redis_server():
    server = RedisServer().start()
    yield server
    server.close()


def a_worker_with_a_task_in_flight(url: str):
    """Celery's consumer with the broker connection of a worker that runs one task (received, not yet
    acknowledged: tasks acknowledge late), listens to the remote control (a broadcast queue) and,
    able to take one more task, has a BRPOP pending on the task channel."""
    app = Celery("kombu-redis-test", broker=url, set_as_current=False)
    app.conf.broker_transport_options = settings.CELERY_BROKER_TRANSPORT_OPTIONS
    worker = SimpleNamespace(use_eventloop=False, semaphore=None, pool=None)
    consumer = CeleryConsumer(lambda *args: None, app=app, hostname="test@worker", controller=worker)
    consumer.pool = SimpleNamespace(num_processes=2)  # prefork, as the service's workers run
    connection = app.connection_for_read()
    connection.ensure_connection()
    tasks = connection.default_channel
    queue = Queue("celery", Exchange("celery", "direct"), "celery", channel=tasks)
    queue.declare()
    Producer(tasks).publish({"task": "settle"}, exchange="celery", routing_key="celery")
    received = []
    Consumer(tasks, [queue], callbacks=[lambda body, message: received.append(message)], no_ack=False).consume()
    connection.drain_events(timeout=5)
    control = connection.channel()
    broadcast = Queue(
        "test@worker.celery.pidbox", Exchange("celery.pidbox", "fanout"), auto_delete=True, channel=control
    )
    broadcast.declare()
    Consumer(control, [broadcast], no_ack=True).consume()
    tasks._brpop_start()
    assert received and tasks._in_poll and len(tasks.qos._delivered) == 1
    consumer.connection = connection
    return consumer, tasks, received[0]


def celery_handles_the_lost_connection(consumer) -> None:
    """What Celery's consumer does when the event loop raised a connection error (then it reconnects)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)  # worker_cancel_long_running_tasks_on_...
        consumer.on_connection_error_after_connected(redis.ConnectionError("Connection closed by server."))


def test_kombu_without_the_workaround_still_kills_the_worker(redis_server, monkeypatch):
    monkeypatch.setattr(kombu_redis.Channel, "close", kombu_redis.Channel.close.__wrapped__)
    consumer, _, _ = a_worker_with_a_task_in_flight(redis_server.url)
    redis_server.stop()  # the pub/sub connection noticed first: the BRPOP is still pending
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'hostname'"):
        celery_handles_the_lost_connection(consumer)  # not a connection error: the worker would exit


def test_a_worker_with_a_task_in_flight_and_a_brpop_pending_survives_a_lost_connection(redis_server, caplog):
    consumer, tasks, in_flight = a_worker_with_a_task_in_flight(redis_server.url)
    redis_server.stop()
    started = time.monotonic()
    celery_handles_the_lost_connection(consumer)  # no AttributeError: the worker goes on to reconnect
    assert consumer.connection is None and tasks.closed
    assert "a BRPOP pending: its reply is lost" in caplog.text
    redis_server.start()
    in_flight.ack()  # the task finishes after the outage: its acknowledgement is dropped, nothing raises
    assert "dropped (it will run again)" in caplog.text
    assert time.monotonic() - started < 5


def received_message(url: str):
    connection = Connection(url, transport_options={"visibility_timeout": 300, "socket_timeout": 1})
    channel = connection.channel()
    queue = Queue("outage-test", channel=channel)
    queue.declare()
    Producer(channel).publish({"task": "x"}, routing_key="outage-test")
    return connection, channel, queue.get(no_ack=False)


def test_an_ack_after_the_connection_was_closed_is_dropped(redis_server, caplog):
    connection, channel, message = received_message(redis_server.url)
    redis_server.stop()  # the broker goes away ...
    connection.close()  # ... and the worker closes the connection, as Celery does on connection loss
    assert channel.closed
    redis_server.start()  # back, on the same port: a new connection is made elsewhere
    started = time.monotonic()
    message.ack()  # no AttributeError, no timeout on a socket of the dead connection
    message.channel.basic_reject(message.delivery_tag, requeue=True)
    assert time.monotonic() - started < 0.5
    assert "dropped (it will run again)" in caplog.text


def test_an_ack_on_a_live_channel_still_acknowledges(redis_server):
    connection, _, message = received_message(redis_server.url)
    assert redis.Redis.from_url(redis_server.url).hlen("unacked") == 1
    message.ack()
    assert redis.Redis.from_url(redis_server.url).hlen("unacked") == 0
    connection.close()


def test_a_live_connection_still_closes_and_restores_its_unacknowledged_messages(redis_server):
    connection, channel, _ = received_message(redis_server.url)
    connection.close()  # a warm shutdown: the message in flight goes back to its queue
    assert channel.closed
    assert redis.Redis.from_url(redis_server.url).llen("outage-test") == 1
