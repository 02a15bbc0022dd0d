"""What player protection announces to the layers above it (which it does not import)."""

from django.dispatch import Signal

# Sent inside the transaction that starts a time-out or a self-exclusion, with `player`,
# `exclusion` and `actor`: whoever keeps credentials of the player (accounts: API tokens) ends them.
exclusion_started = Signal()
