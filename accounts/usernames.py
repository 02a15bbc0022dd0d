"""Usernames people choose for themselves: normalised, of a few safe characters, and never one
that reads like a name already taken.

A name is stored in NFKC form (a full-width "demo" is the plain one). Two names collide when their
skeletons are equal: the skeleton of Unicode's security mechanisms (UTS #39, section 4) maps every
character to the prototype it can be mistaken for (Cyrillic o, U+043E, to Latin "o", "rn" stays "rn"
and "m" becomes "rn", "1" and "l" meet), after case folding. The confusable pairs are Unicode's
confusables.txt as the `confusable_homoglyphs` package ships it.
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables

MIN_LENGTH, MAX_LENGTH = 3, 150
PUNCTUATION = "._-"
RULES = "3 to 150 letters, digits, '.', '_' or '-' (NFKC-normalised; a name that reads like one taken is taken)"
_DIRECTION_MARK = "\u200e"  # the package wraps right-to-left characters in these for display


def username_normalize(name: str) -> str:
    return unicodedata.normalize("NFKC", name)


def username_is_valid(name: str) -> bool:
    """For a normalised name: the length and characters of RULES."""
    return MIN_LENGTH <= len(name) <= MAX_LENGTH and all(ch.isalnum() or ch in PUNCTUATION for ch in name)


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype. The package lists every pair both ways; in
    confusables.txt each character maps to one prototype, so every group of confusable characters
    is a star around it (or a pair, where either may be taken, the longer one first: only a
    prototype has several characters)."""
    neighbours: dict[str, set[str]] = {}
    for character, homoglyphs in confusables.confusables_data.items():
        a = character.replace(_DIRECTION_MARK, "")
        for homoglyph in homoglyphs:
            b = homoglyph["c"].replace(_DIRECTION_MARK, "")
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
    prototypes: dict[str, str] = {}
    for node, linked in neighbours.items():
        if len(linked) > 1:  # the centre of a star is its own prototype, and its leaves' one
            prototypes[node] = node
            for leaf in linked:
                prototypes[leaf] = node
    for node, linked in neighbours.items():
        if node not in prototypes:
            (other,) = linked
            prototypes[node] = max((node, other), key=lambda text: (len(text), text))
    return {character: prototype for character, prototype in prototypes.items() if len(character) == 1}


def _mapped(text: str) -> str:
    table = _prototypes()
    text = unicodedata.normalize("NFD", text)
    for _ in range(3):  # a prototype of several characters may hold characters that map on
        mapped = unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in text))
        if mapped == text:
            break
        text = mapped
    return text


def username_skeleton(name: str) -> str:
    """The form two names share when a person could mistake one for the other, whatever their case
    (what is stored for every user)."""
    return _mapped(username_normalize(name).casefold())


def username_look_alikes(name: str) -> set[str]:
    """The skeletons a new name must not share with a stored one: its own, and the one it has when
    its capitals are read as what they look like before case folding ("AIice" reads "Alice")."""
    return {username_skeleton(name), _mapped(_mapped(username_normalize(name)).casefold())}
