"""The provably fair stream and shuffle of RULES.md section 2, byte for byte.

stream  = HMAC-SHA256(key=seed bytes, msg="{client_seed}:{nonce}:{counter}") for counter = 0, 1, ...
uniform = next 4 bytes big-endian as u; rejected while u >= 2**32 - 2**32 % m; then u % m
shuffle = forward Fisher-Yates: for i in 0..n-2, j = i + uniform(n - i), swap i and j

The engine never calls `random`: every chance it needs comes from a `ChanceStream` it is given.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Sequence
from typing import Protocol, TypeVar

from casino.engine.errors import EngineError, ShoeExhaustedError

T = TypeVar("T")
_TWO_32 = 1 << 32
_UNPACK_BLOCK = struct.Struct(">8I").unpack
try:  # the C function behind hmac.digest, without its Python wrapper: one call per 8 draws
    from _hashlib import hmac_digest as _hmac_sha256_raw

    _hmac_raw = _hmac_sha256_raw
except ImportError:  # pragma: no cover - Pythons built without OpenSSL
    _hmac_raw = hmac.digest


class ChanceStream(Protocol):
    def uniform(self, m: int) -> int:
        """A uniform integer in [0, m)."""


def parse_server_seed(server_seed: str | bytes) -> bytes:
    """The 32 seed bytes from 64 hex digits (or the bytes themselves)."""
    if isinstance(server_seed, bytes):
        seed = server_seed
    else:
        if not isinstance(server_seed, str) or len(server_seed) != 64:
            raise EngineError("a server seed is 64 hex digits")
        try:
            seed = bytes.fromhex(server_seed)
        except ValueError:
            raise EngineError("a server seed is 64 hex digits") from None
    if len(seed) != 32:
        raise EngineError("a server seed is 32 bytes")
    return seed


def server_seed_hash(server_seed: str | bytes) -> str:
    """What the service publishes before the seed is used: SHA-256 of the 32 seed bytes, in hex."""
    return hashlib.sha256(parse_server_seed(server_seed)).hexdigest()


class HmacStream:
    """The provably fair byte stream, read four bytes at a time as uniform integers."""

    __slots__ = ("_block", "_counter", "_index", "_key", "_prefix")

    def __init__(self, server_seed: str | bytes, client_seed: str = "", nonce: int = 0) -> None:
        # Validation stays cheap: a round creates one stream.
        if type(nonce) is not int or nonce < 0:
            raise EngineError("the nonce is an integer >= 0")
        if not isinstance(client_seed, str):
            raise EngineError("the client seed is a string")
        self._key = parse_server_seed(server_seed)
        self._prefix = f"{client_seed}:{nonce}:"
        self._counter = 0
        self._block: tuple[int, ...] = ()
        self._index = 8

    def block(self, counter: int) -> bytes:
        """HMAC block number `counter` of this stream (for verifiers and docs)."""
        return hmac.digest(self._key, f"{self._prefix}{counter}".encode(), "sha256")

    def next_u32(self) -> int:
        if self._index == 8:
            self._refill()
        value = self._block[self._index]
        self._index += 1
        return value

    def _refill(self) -> None:
        self._block = _UNPACK_BLOCK(_hmac_raw(self._key, f"{self._prefix}{self._counter}".encode(), "sha256"))
        self._counter += 1
        self._index = 0

    def uniform(self, m: int) -> int:
        if m <= 0 or m > _TWO_32:
            raise EngineError(f"uniform() needs 1 <= m <= 2**32, not {m}")
        limit = _TWO_32 - (_TWO_32 % m)
        # The block read is inlined (rather than calling next_u32) because this is the hot path of
        # every shuffle; a subclass overriding next_u32 still gets its values used.
        if type(self) is not HmacStream:
            u = self.next_u32()
            while u >= limit:
                u = self.next_u32()
            return u % m
        while True:
            if self._index == 8:
                self._refill()
            u = self._block[self._index]
            self._index += 1
            if u < limit:
                return u % m


def shuffle(items: Sequence[T], stream: ChanceStream) -> list[T]:
    """A new list: the forward Fisher-Yates shuffle of `items` on `stream`."""
    result = list(items)
    uniform = stream.uniform
    n = len(result)
    for i in range(n - 1):
        j = i + uniform(n - i)
        result[i], result[j] = result[j], result[i]
    return result


class LazyShuffle:
    """Draws the shuffle of `items` one position at a time, consuming the stream only as needed.

    Drawing k items gives exactly the first k items of `shuffle(items, stream)`.
    """

    __slots__ = ("_items", "_n", "_position", "_stream", "_swapped")

    def __init__(self, items: Sequence[T], stream: ChanceStream) -> None:
        self._items = items
        self._n = len(items)
        self._stream = stream
        self._position = 0
        self._swapped: dict[int, int] = {}  # position -> index into items now lying there

    @property
    def drawn(self) -> int:
        return self._position

    @property
    def remaining(self) -> int:
        return self._n - self._position

    def draw(self) -> T:
        i = self._position
        n = self._n
        if i >= n:
            raise ShoeExhaustedError("the shoe is empty")
        swapped = self._swapped
        j = i + self._stream.uniform(n - i) if i < n - 1 else i
        at_j = swapped.get(j, j)
        if j != i:
            swapped[j] = swapped.get(i, i)
        self._position = i + 1
        return self._items[at_j]
