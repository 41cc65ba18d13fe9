"""Rommé: its registry entry (``entry.ENTRY``)."""
