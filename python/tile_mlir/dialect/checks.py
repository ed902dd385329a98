"""The building blocks of op verification: a failed check, buffer types and their layouts, slots.

A check that fails raises VerifyError(check, reason); the verifier reports it once, at the op, as
`'tile.<op>' op <check>: <reason>`.
"""
from __future__ import annotations

__all__ = ["VerifyError", "fail"]


class VerifyError(Exception):
    def __init__(self, check: str, reason: str):
        super().__init__(f"{check}: {reason}")
        self.check, self.reason = check, reason


def fail(check: str, reason: str):
    raise VerifyError(check, reason)
