"""Both games offer the one match interface of docs/engine.md (``games.engine.interface``): every member, with
its signature, found through the game registry the live layer asks (``games.registry``)."""

from __future__ import annotations

import inspect
import random
from pathlib import Path

import pytest

from games import registry
from games.engine.interface import MatchEngine, MatchState

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"


def protocol_members(protocol: type) -> dict[str, object]:
    """The members a protocol declares (methods, properties, classmethods), by name."""
    return {name: value for name, value in vars(protocol).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, property | classmethod))}


def parameters(function, *, drop_first: bool) -> list[inspect.Parameter]:
    params = list(inspect.signature(function).parameters.values())
    return params[1:] if drop_first else params


def check_signature(declared: list[inspect.Parameter], actual: list[inspect.Parameter]) -> list[str]:
    """What keeps ``actual`` from being called every way ``declared`` allows: same names and kinds in the same
    order; a parameter with a default keeps one; extra parameters need defaults. (An implementation may give a
    default to a parameter the interface requires: gin never uses its ``rng`` while playing.)"""
    problems = []
    for i, want in enumerate(declared):
        if i >= len(actual):
            problems.append(f"missing parameter {want.name!r}")
            continue
        got = actual[i]
        if (got.name, got.kind) != (want.name, want.kind):
            problems.append(f"parameter {i} is {got.name!r} ({got.kind.description}), "
                            f"not {want.name!r} ({want.kind.description})")
        elif want.default is not inspect.Parameter.empty and got.default is inspect.Parameter.empty:
            problems.append(f"parameter {want.name!r} needs a default")
    problems += [f"extra parameter {p.name!r} without a default" for p in actual[len(declared):]
                 if p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return problems


def test_the_registry_holds_both_games_each_with_its_engine():
    assert sorted(registry.names()) == ["gin", "romme"]
    assert all(entry.name == entry.engine.GAME for entry in registry.entries())


@pytest.mark.parametrize("game", sorted(registry.names()))
def test_engine_module_offers_every_function_with_its_documented_signature(game):
    module = registry.get(game).engine
    assert isinstance(module, MatchEngine)
    for name, declared in protocol_members(MatchEngine).items():
        actual = getattr(module, name, None)
        assert callable(actual), f"{game}: no {name}"
        problems = check_signature(parameters(declared, drop_first=True), parameters(actual, drop_first=False))
        assert problems == [], f"{game}.{name}: {problems}"


@pytest.mark.parametrize("game", sorted(registry.names()))
def test_engine_state_offers_every_member_with_its_documented_signature(game):
    module = registry.get(game).engine
    state = module.new_match(module.normalize_options({}), rng=random.Random(1))
    assert isinstance(state, module.Match) and isinstance(state, MatchState)
    for name, declared in protocol_members(MatchState).items():
        assert hasattr(state, name), f"{game}: the state has no {name}"
        if isinstance(declared, property):
            assert not callable(getattr(state, name)), f"{game}: {name} is a value, not a method"
            continue
        if isinstance(declared, classmethod):
            declared, actual = declared.__func__, getattr(module.Match, name)
            assert inspect.ismethod(actual) and actual.__self__ is module.Match, f"{game}: {name} is no classmethod"
        else:
            actual = getattr(module.Match, name)
        problems = check_signature(parameters(declared, drop_first=True),
                                   parameters(actual, drop_first=not inspect.ismethod(actual)))
        assert problems == [], f"{game}.Match.{name}: {problems}"
    again = module.Match.from_json(state.to_json())
    assert again.to_json() == state.to_json() and again.facts() == state.facts()


def test_the_signature_check_catches_what_it_should():
    def declared(self, m, seat, action, *, rng): ...
    def positional_rng(m, seat, action, rng=None): ...
    def no_rng(m, seat, action): ...
    def defaulted_rng(m, seat, action, *, rng=None, _cache=None): ...
    def extra_required(m, seat, action, *, rng, trace): ...
    want = parameters(declared, drop_first=True)
    assert check_signature(want, parameters(defaulted_rng, drop_first=False)) == []
    assert check_signature(want, parameters(positional_rng, drop_first=False)) != []
    assert check_signature(want, parameters(no_rng, drop_first=False)) == ["missing parameter 'rng'"]
    assert check_signature(want, parameters(extra_required, drop_first=False)) == [
        "extra parameter 'trace' without a default"]


def test_docs_name_every_member_of_the_interface():
    text = DOC.read_text()
    for name in [*protocol_members(MatchEngine), *protocol_members(MatchState), "GAME", "Match"]:
        assert name in text, name
