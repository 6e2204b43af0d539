"""The worker's event loop: uvloop (libuv, its loop machinery and socket transports in C) or the standard library's.

A Faust worker runs two loops, its own and its consumer thread's (mode's ServiceThread asks the policy for a new
one), and spends a large part of its time in them: callbacks, task switches, socket writes of produce and fetch
requests (BENCHMARKS.md, issue 24). The policy is set before the worker makes its first loop, so both are uvloop.
A policy, not a loop factory: mode's consumer thread asks `asyncio.new_event_loop()` for its loop, and only the
policy reaches that call (uvloop deprecates its policy class from Python 3.12 on, for 3.16).
"""

from __future__ import annotations

import asyncio

from streams.settings import SettingsError


def use_event_loop(name: str) -> None:
    """Make `name` ("uvloop" or "asyncio") the loop every later `asyncio.run` and new thread loop gets."""
    if name == "asyncio":
        asyncio.set_event_loop_policy(None)  # the standard library's default policy
        return
    try:
        import uvloop
    except ImportError as exc:  # not installed (e.g. on Windows, which uvloop does not support)
        raise SettingsError(f"OMEGA_EVENT_LOOP={name!r}, but uvloop cannot be imported ({exc}); install it "
                            "(pip install uvloop) or set OMEGA_EVENT_LOOP=asyncio") from exc
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
