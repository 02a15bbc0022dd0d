"""Rules for text people type, shared by the API's shapes and the services."""

from __future__ import annotations

import re

PRINTABLE_TEXT = re.compile(r"^[^\u0000-\u001f\u007f-\u009f]*$")  # no control characters: C0, DEL, C1


def is_printable_text(text: str) -> bool:
    """Text a person could have typed: no control characters."""
    return PRINTABLE_TEXT.match(text) is not None
