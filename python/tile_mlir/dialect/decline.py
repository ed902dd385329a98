"""How a check says no: Decline(check, reason), the one exception of the verifier's op checks, the
planners and the dispatch variants (`check` names the failed check, `reason` says why; the verifier
reports `'tile.<op>' op <check>: <reason>`, the dispatch a row `<variant>: declined: <check> - <reason>`).

Planners are pure functions of hashable types and regions that programs repeat: @cached_plan memoizes
one, declines included, and re-raises a cached decline as a fresh Decline.
"""
from __future__ import annotations

import functools
from typing import NoReturn

__all__ = ["Decline", "fail", "cached_plan"]


class Decline(Exception):
    def __init__(self, check: str, reason: str):
        super().__init__(f"{check}: {reason}" if check else reason)
        self.check, self.reason = check, reason


def fail(check: str, reason: str) -> NoReturn:
    raise Decline(check, reason)


class _Declined(tuple):
    """A cached decline: (check, reason), not the exception, whose traceback would pin the caller's
    frames and through them an MLIR context per declined plan."""


def cached_plan(maxsize: int = 1024):
    """Memoize a planner (arguments hashable); a Decline it raised is cached and raised again."""
    def wrap(planner):
        @functools.lru_cache(maxsize=maxsize)
        def cached(*args):
            try:
                return planner(*args)
            except Decline as e:
                return _Declined((e.check, e.reason))

        @functools.wraps(planner)
        def plan(*args):
            result = cached(*args)
            if type(result) is _Declined:
                raise Decline(*result)
            return result

        plan.cache_clear = cached.cache_clear
        return plan

    return wrap
