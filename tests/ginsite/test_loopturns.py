"""``ginsite.loopturns.Together``: the requests of one turn of the event loop go to one ``send``; each caller
gets its own answer; a failed ``send`` fails every request of its turn, and a request it left unanswered is
failed, not left waiting."""

from __future__ import annotations

import asyncio

import pytest

from ginsite.loopturns import Requests, Together


def test_the_requests_of_one_turn_go_to_one_send_and_each_gets_its_answer():
    sent: list[list[int]] = []

    async def send(requests: Requests[int]) -> None:
        sent.append([n for n, _ in requests])
        for n, future in requests:
            future.set_result(n * 10)

    together: Together[int] = Together(send)

    async def main():
        first = await asyncio.gather(*(together.ask(n) for n in (1, 2, 3)))
        second = await together.ask(4)  # a later turn: a send of its own
        return first, second

    assert asyncio.run(main()) == ([10, 20, 30], 40)
    assert sent == [[1, 2, 3], [4]]


def test_a_failed_send_fails_every_request_of_its_turn_and_the_next_turn_is_sent_again():
    calls = 0

    async def send(requests: Requests[str]) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            requests[0][1].set_result("answered before the failure")
            raise ConnectionError("the server went away")
        for _, future in requests:
            future.set_result("ok")

    together: Together[str] = Together(send)

    async def main():
        outcomes = await asyncio.gather(*(together.ask(k) for k in "abc"), return_exceptions=True)
        return outcomes, await together.ask("d")

    outcomes, later = asyncio.run(main())
    assert outcomes[0] == "answered before the failure"
    assert all(isinstance(o, ConnectionError) for o in outcomes[1:])
    assert later == "ok"


def test_a_request_the_send_leaves_unanswered_is_failed_not_left_waiting():
    async def send(requests: Requests[int]) -> None:
        requests[0][1].set_result("only the first")

    together: Together[int] = Together(send)

    async def main():
        return await asyncio.wait_for(asyncio.gather(together.ask(1), together.ask(2), return_exceptions=True), 2)

    first, second = asyncio.run(main())
    assert first == "only the first"
    assert isinstance(second, RuntimeError)


def test_a_caller_cancelled_while_its_turn_is_sent_does_not_stop_the_send_or_the_others():
    """A socket that goes away mid-handshake cancels its own wait only: the send its request went out in goes
    on (nothing of it is cancelled), the other requests of the turn get their answers, and the cancelled
    request's future is seen cancelled by the send (which leaves it so), not failed."""
    seen: list[tuple[int, bool]] = []
    started = asyncio.Event()

    async def send(requests: Requests[int]) -> None:
        started.set()
        await asyncio.sleep(0.01)  # the round trip, during which the first caller is cancelled
        for n, future in requests:
            seen.append((n, future.cancelled()))
            if not future.done():
                future.set_result(n)

    together: Together[int] = Together(send)

    async def main():
        cancelled = asyncio.ensure_future(together.ask(1))
        kept = asyncio.ensure_future(together.ask(2))
        await started.wait()  # the send is under way
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        return await kept, together.sending

    answer, running = asyncio.run(main())
    assert answer == 2
    assert seen == [(1, True), (2, False)]
    assert running == 0  # the finished send is let go
