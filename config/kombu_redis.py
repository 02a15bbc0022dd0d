"""Workarounds for kombu's Redis transport, so that a Celery worker rides out a broker outage.

Both defects are in kombu 5.7.0 with celery 5.7.0, the newest releases (docs/RELIABILITY.md says
how each was found; tests/config/test_kombu_redis.py checks that kombu still needs them, and fails
once a release fixes one). They are installed on kombu's Redis channel when config/celery.py loads.
"""

import functools
import logging
from queue import Empty

from kombu.transport import redis as kombu_redis

logger = logging.getLogger(__name__)


def _closes_after_a_lost_brpop(close):
    """A channel's close() goes on when the reply to its pending BRPOP is lost with the connection.

    This is what killed workers in Redis outages. The worker's event loop keeps a BRPOP pending on
    the task channel whenever the worker can take one more task. When the connection breaks and
    Celery notices on another socket first (the remote control's pub/sub), its consumer calls
    `connection.collect()`, then `connection.close()`. kombu's close() of the task channel first
    reads that BRPOP's reply; the read fails, so the close is given up before the channel is
    marked closed. The remote control channel's close fails too (Redis is gone), which ends the
    closing of the remaining channels, and collect() then detaches the transport
    (`transport.client = None`). Celery's close() closes the task channel once more, and this time
    it gets as far as restoring its unacknowledged messages (the tasks in flight: they acknowledge
    late), through a connection pool it builds from the detached transport:
    `AttributeError: 'NoneType' object has no attribute 'hostname'`. Celery does not treat that as
    a lost connection, so the worker exits ("Unrecoverable error").

    The reply was lost anyway, with the connection. Reading it here and carrying on when the read
    fails lets the first close finish while the transport is still attached: the channel is closed
    and the restore of its messages is attempted (and fails while Redis is down: the messages wait
    in Redis's unacked set and come back after the visibility timeout, and every task of the
    service may run twice)."""

    @functools.wraps(close)
    def closing(self):
        if self._in_poll and not self.closed:
            try:
                self._brpop_read()
            except Empty:
                pass
            except self.connection_errors as exc:
                logger.warning("broker connection was lost with a BRPOP pending: its reply is lost (%r)", exc)
        return close(self)

    return closing


def _dropped_on_a_closed_channel(method):
    """An acknowledgement (or rejection) of a message whose channel is closed is dropped.

    Tasks are acknowledged late. When the broker connection drops, the worker closes it and connects
    anew while the tasks it had started run on; each then acknowledges on its old, closed channel.
    kombu does not refuse that: the channel may rebuild a connection pool from a transport that
    `connection.collect()` has detached (the worker then dies of the same AttributeError), or wait
    out a socket timeout on a connection to a Redis that is gone. The message stays in Redis's
    unacked set and runs again after the visibility timeout, which every task of the service
    allows (docs/RELIABILITY.md)."""

    @functools.wraps(method)
    def guarded(self, delivery_tag, *args, **kwargs):
        if self.closed:
            logger.warning(
                "broker connection was lost: %s of %s dropped (it will run again)", method.__name__, delivery_tag
            )
            return None
        return method(self, delivery_tag, *args, **kwargs)

    return guarded


@functools.cache  # installed once: later calls change nothing
def kombu_redis_workarounds_install() -> None:
    """Install both workarounds on kombu's Redis channel."""
    channel = kombu_redis.Channel
    channel.close = _closes_after_a_lost_brpop(channel.close)
    channel.basic_ack = _dropped_on_a_closed_channel(channel.basic_ack)
    channel.basic_reject = _dropped_on_a_closed_channel(channel.basic_reject)
