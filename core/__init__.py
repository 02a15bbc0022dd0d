"""Pieces every app shares: the error hierarchy and its problem+json rendering."""
