"""Register values that may not be used yet (a wgmma accumulator in flight, a tcgen05.ld destination
before its wait): int subclasses whose every arithmetic, comparison and conversion first asks the
value's ``_touch()``; the emulator's own code reads ``.value`` instead."""

from __future__ import annotations

__all__ = ["guard_int_ops", "carry", "plain"]

INT_OPS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__",
           "__rfloordiv__", "__truediv__", "__rtruediv__", "__mod__", "__rmod__", "__pow__",
           "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__and__", "__rand__",
           "__or__", "__ror__", "__xor__", "__rxor__", "__neg__", "__pos__", "__abs__",
           "__invert__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__",
           "__float__", "__index__", "__format__", "to_bytes")


def _plain(a):
    return a if type(a) is int else int(a.value) if hasattr(a, "_touch") else a


plain = _plain


def carry(vals, value: int):
    """``value``, computed from the plain values of ``vals`` in one step (a mov's packing): each
    guarded one is touched, as its operators would be, and the first that carries wraps it."""
    keep = None
    for v in vals:
        if type(v) is not int and hasattr(v, "_touch") and v._touch() and keep is None:
            keep = v
    return value if keep is None else keep._propagate(value)


def guard_int_ops(cls):
    """Class decorator: each of INT_OPS on ``cls`` calls ``self._touch()`` (which reports the use,
    or raises) and computes on the plain values; when _touch returns true, an int result is handed
    to ``self._propagate(result)`` (a copy that carries the guard on)."""
    def guarded(name):
        plain = getattr(int, name)

        def op(self, *args):
            carry = self._touch()
            out = plain(int(self.value), *map(_plain, args))
            return self._propagate(out) if carry and type(out) is int else out
        op.__name__ = name
        return op

    for name in INT_OPS:
        setattr(cls, name, guarded(name))
    cls.__hash__ = int.__hash__
    return cls
