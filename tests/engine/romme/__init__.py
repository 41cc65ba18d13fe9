"""Tests of the Rommé engine, one per rule of spec/romme.md, plus properties, replay and bots."""
