"""A worker's late acknowledgement for a connection that was lost is dropped, not sent to the
closed channel (issue #16 item 7: kombu then killed the worker or left it consuming nothing)."""

import time

import pytest
import redis
from kombu import Connection, Producer, Queue

import config.celery  # noqa: F401 - installs the guard on kombu's Redis channel
from tests.redis_server import RedisServer


@pytest.fixture
def redis_server():
    server = RedisServer().start()
    yield server
    server.close()


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
