import hashlib
import hmac
import struct

from hypothesis import given
from hypothesis import strategies as st

from casino.engine import HmacStream, LazyShuffle, server_seed_hash, shoe, shoe_cards, shuffle

SEED = "ab" * 32


def reference_uniforms(seed_hex: str, client_seed: str, nonce: int, ms: list[int]) -> list[int]:
    """An independent, literal reading of RULES.md section 2."""
    key = bytes.fromhex(seed_hex)
    stream = b""
    counter = 0
    out = []
    pos = 0
    for m in ms:
        while True:
            while len(stream) < pos + 4:
                stream += hmac.new(key, f"{client_seed}:{nonce}:{counter}".encode(), hashlib.sha256).digest()
                counter += 1
            (u,) = struct.unpack(">I", stream[pos : pos + 4])
            pos += 4
            if u < 2**32 - (2**32 % m):
                out.append(u % m)
                break
    return out


def reference_shuffle(items, seed_hex, client_seed, nonce):
    items = list(items)
    n = len(items)
    draws = reference_uniforms(seed_hex, client_seed, nonce, [n - i for i in range(n - 1)])
    for i, r in enumerate(draws):
        j = i + r
        items[i], items[j] = items[j], items[i]
    return items


def test_seed_hash_is_sha256_of_the_seed_bytes():
    assert server_seed_hash(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()


def test_first_block_is_hmac_of_client_seed_nonce_counter():
    stream = HmacStream(SEED, "lucky", 7)
    expected = hmac.new(bytes.fromhex(SEED), b"lucky:7:0", hashlib.sha256).digest()
    assert stream.block(0) == expected
    assert stream.next_u32() == struct.unpack(">I", expected[:4])[0]


def test_rejection_sampling_throws_away_biased_values():
    class Scripted(HmacStream):
        """The stream's u32 values are given: the first lies in the biased tail for m = 3."""

        def __init__(self, values):
            super().__init__(SEED)
            self.values = iter(values)

        def next_u32(self):
            return next(self.values)

    assert Scripted([2**32 - 1, 5]).uniform(3) == 5 % 3  # 2**32 - 1 >= 2**32 - (2**32 % 3)
    assert Scripted([2**32 - 2, 0]).uniform(3) == (2**32 - 2) % 3  # the largest value kept


@given(
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    client_seed=st.text(max_size=20),
    nonce=st.integers(min_value=0, max_value=10**6),
)
def test_shuffle_matches_a_literal_reading_of_the_rule_book(seed, client_seed, nonce):
    cards = shoe(1)
    assert shuffle(cards, HmacStream(seed, client_seed, nonce)) == reference_shuffle(cards, seed, client_seed, nonce)


@given(seed=st.binary(min_size=32, max_size=32).map(bytes.hex), k=st.integers(min_value=0, max_value=312))
def test_lazy_drawing_gives_the_first_cards_of_the_whole_shuffle(seed, k):
    full = shuffle(shoe(6), HmacStream(seed, "c", 3))
    lazy = LazyShuffle(shoe(6), HmacStream(seed, "c", 3))
    assert [lazy.draw() for _ in range(k)] == full[:k]


def test_known_vector_is_stable():
    # Pinned so that any change to the stream, the sampling or the shuffle is caught.
    cards = shoe_cards(server_seed=SEED, client_seed="x", nonce=7, decks=6, cards=10)
    assert [c.code for c in cards] == ["JD", "2S", "5C", "8H", "4C", "2H", "3D", "4C", "AD", "7D"]


def test_whole_shoe_is_a_permutation():
    cards = shoe_cards(server_seed=SEED, client_seed="", nonce=0, decks=2)
    assert sorted(c.id for c in cards) == sorted(c.id for c in shoe(2))


def test_the_worked_example_of_docs_fairness_holds():
    from casino.engine import verify_round

    seed = "768f1d3124d44f22cdc686d0959b96b29795599875419e62b41bfb634b55b574"
    result = verify_round(
        server_seed=seed,
        client_seed="lucky",
        nonce=0,
        published_hash="d6356b9f256537edd330616d2973e41b4cc1946242d7eab9001b45e69c6a5c13",
    )
    assert result.hash_matches is True
    cards = [
        result.cards.player,
        result.cards.dealer,
        *result.cards.burned,
        result.cards.player_war,
        result.cards.dealer_war,
    ]
    assert [c.code for c in cards] == ["5D", "8H", "8C", "JD", "9D", "3H", "7D"]
    stream = HmacStream(seed, "lucky", 0)
    assert stream.block(0).hex() == "11336141831392d846d1567b098e8080b5f36d69bfd5ea86666f51f5f8bd89cc"
