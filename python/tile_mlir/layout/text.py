"""Parser for the layout text that `str(TileLayout)` / `str(ComposedLayout)` print.

Grammar (whitespace is free; columns in error messages are 1-based):

    layout  := [ 'Swizzle' '<' mode '>' 'o' ] ( terms | cute )
    terms   := term ( '+' term )*            each of S, R, O at most once, any order
    cute    := modes ':' modes               CuTe's (shape):(stride), e.g. (4,8):(8,1), ((2,4),8):((1,8),2)
    modes   := cint | '(' modes ( ',' modes )* [ ',' ] ')'   nested; shape and stride congruent
    cint    := [ '-' ] int | '_' int          (CuTe prints a static int as _4)
    term    := 'S' '[' tuple [ ':' tuple ] ']'   extents, strides (default: row-major on m)
             | 'R' '[' tuple ':' tuple ']'
             | 'O' '[' tuple ']'
    tuple   := value | '(' [ value ( ',' value )* [ ',' ] ] ')'
    value   := [ '-' ] int [ '@' axis ]          an int without '@' is on axis m
    mode    := none | 32B | 64B | 128B | 128B_base32B

`parse_layout(str(L)) == L` for every layout L. Errors raise LayoutError, e.g.
"expected ':' after shape at column 12".

CuTe notation is the same map as S[...]: each top-level mode is a dimension, and a nested mode splits its
dimension colexicographically (its first sub-mode varies fastest, CuTe's order), so ((2,4),8):((1,8),2)
is S[(4, 2, 8) : (8, 1, 2)] over shape (8, 8): our iterators run row-major within a dimension, so the
sub-modes of a mode come reversed. `cute_shape` gives the top-level shape (what `tile-layout show` draws).
"""

from __future__ import annotations

import math
import re

from .axis import Axis, AxisValue, LayoutError, m
from .swizzle import ComposedLayout, SwizzleMode
from .tile_layout import Iter, TileLayout, _row_major

#: the most digits of an integer in layout text (a 64-bit value has at most 19)
_MAX_DIGITS = 19

__all__ = ["parse_layout", "parse_tile_layout", "cute_shape"]

_TOKEN_RE = re.compile(r"\s*(?:(?P<int>\d+)|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)|(?P<punct>[\[\]():,+@<>-]))")


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks: list[tuple[str, str, int]] = []  # (kind, text, column)
        pos = 0
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            mt = _TOKEN_RE.match(text, pos)
            if not mt:
                raise LayoutError(f"unexpected character {text[pos]!r} at column {pos + 1}")
            kind = mt.lastgroup
            self.toks.append((kind, mt.group(kind), mt.start(kind) + 1))
            pos = mt.end()
        self.toks.append(("eof", "", len(text) + 1))
        self.i = 0

    # -- token helpers -----------------------------------------------------------------------------
    def peek(self) -> tuple[str, str, int]:
        return self.toks[self.i]

    def next(self) -> tuple[str, str, int]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def fail(self, what: str):
        kind, txt, col = self.peek()
        found = "end of input" if kind == "eof" else repr(txt)
        raise LayoutError(f"{what} at column {col}, found {found}")

    def accept(self, punct: str) -> bool:
        kind, txt, _ = self.peek()
        if kind == "punct" and txt == punct:
            self.i += 1
            return True
        return False

    def expect(self, punct: str, context: str):
        if not self.accept(punct):
            self.fail(f"expected '{punct}' {context}")

    # -- grammar -----------------------------------------------------------------------------------
    def layout(self):
        kind, txt, _ = self.peek()
        swizzle = None
        if kind == "ident" and txt == "Swizzle":
            self.next()
            swizzle = self.swizzle_mode()
            kind, txt, _ = self.peek()
            if not (kind == "ident" and txt == "o"):
                self.fail("expected 'o' after Swizzle<...>")
            self.next()
        inner = self.cute()[0] if self._at_cute() else self.terms()
        if self.peek()[0] != "eof":
            self.fail("expected '+' or end of layout")
        return inner if swizzle is None else ComposedLayout(swizzle, inner)

    def swizzle_mode(self) -> SwizzleMode:
        self.expect("<", "after 'Swizzle'")
        start_col = self.peek()[2]
        parts = []
        while not (self.peek()[0] == "punct" and self.peek()[1] == ">"):
            if self.peek()[0] == "eof":
                self.fail("expected '>' to close Swizzle<")
            parts.append(self.next()[1])
        self.next()
        text = "".join(parts)
        try:
            return SwizzleMode.parse(text)
        except LayoutError as e:
            raise LayoutError(f"{e} at column {start_col}") from None

    def _at_cute(self) -> bool:
        kind, txt, _ = self.peek()
        return kind == "int" or (kind == "punct" and txt in "(-") or (kind == "ident" and _STATIC.fullmatch(txt))

    def cute(self) -> tuple[TileLayout, tuple[int, ...]]:
        """CuTe's shape:stride: (the layout, its top-level shape)."""
        shape_col = self.peek()[2]
        shape = self.modes("shape")
        self.expect(":", "after a CuTe shape (CuTe notation is (shape):(stride))")
        stride_col = self.peek()[2]
        stride = self.modes("strides")
        if not _congruent(shape, stride):
            raise LayoutError(f"CuTe shape {_show(shape)} at column {shape_col} and stride {_show(stride)} at "
                              f"column {stride_col} are not congruent (the same nesting of modes)")
        top_s = shape if isinstance(shape, tuple) else (shape,)
        top_d = stride if isinstance(stride, tuple) else (stride,)
        iters, dims = [], []
        for s_mode, d_mode in zip(top_s, top_d):
            leaves = list(zip(_flat(s_mode), _flat(d_mode)))
            if any(e < 1 for e, _ in leaves):
                raise LayoutError(f"CuTe shape {_show(shape)} at column {shape_col}: extents must be positive")
            dims.append(math.prod(e for e, _ in leaves))
            iters += [Iter(e, d, m) for e, d in reversed(leaves)]  # colexicographic -> our row-major
        return TileLayout(tuple(iters)), tuple(dims)

    def modes(self, what: str):
        """An int, or a nested tuple of them."""
        if not self.accept("("):
            return self.cute_int(what)
        out = []
        while not self.accept(")"):
            out.append(self.modes(what))
            if not self.accept(","):
                self.expect(")", f"or ',' in a CuTe {what}")
                break
        if not out:
            self.fail(f"expected a mode in the empty CuTe {what} ()")
        return tuple(out)

    def cute_int(self, what: str) -> int:
        kind, txt, _ = self.peek()
        if kind == "ident" and _STATIC.fullmatch(txt):
            self.digits(txt[1:], f"a CuTe {what}")
            self.next()
            return int(txt[1:])
        neg = self.accept("-")
        kind, txt, _ = self.peek()
        if kind != "int":
            self.fail(f"expected an integer in a CuTe {what}")
        self.digits(txt, f"a CuTe {what}")
        self.next()
        return -int(txt) if neg else int(txt)

    def digits(self, txt: str, what: str) -> None:
        """Every integer of layout text is bounded before int() reads it (int() of thousands of digits is
        refused by Python itself, and a layout's values fit in 64 bits)."""
        if len(txt.lstrip("0")) > _MAX_DIGITS:
            self.fail(f"integer of {len(txt)} digits in {what}: a layout's values fit in 64 bits")

    def terms(self) -> TileLayout:
        seen: dict[str, int] = {}
        shard, replica, offset = (), (), {}
        while True:
            kind, txt, col = self.peek()
            if kind != "ident" or txt not in ("S", "R", "O"):
                self.fail("expected a layout term S[...], R[...] or O[...]")
            if txt in seen:
                raise LayoutError(f"second {txt}[...] term at column {col} (first at column {seen[txt]})")
            seen[txt] = col
            self.next()
            self.expect("[", f"after '{txt}'")
            if txt == "O":
                for v in self.tuple_("offset"):
                    if v.axis in offset:
                        raise LayoutError(f"axis {v.axis} appears twice in O[...] at column {col}")
                    offset[v.axis] = v.value
            else:
                shape_col = self.peek()[2]
                extents = self.tuple_("shape")
                for v in extents:
                    if v.axis is not m or v.value < 1:
                        raise LayoutError(f"extents must be positive ints, got {v} in {txt}[...] "
                                          f"at column {shape_col}")
                ext = [v.value for v in extents]
                if txt == "S" and self.peek()[1] == "]":
                    strides = [AxisValue(s, m) for s in _row_major(ext)]
                else:
                    self.expect(":", "after shape")
                    strides_col = self.peek()[2]
                    strides = self.tuple_("strides")
                    if len(strides) != len(ext):
                        raise LayoutError(f"{txt}[...] has {len(ext)} extents but {len(strides)} strides "
                                          f"at column {strides_col}")
                iters = tuple(Iter(e, s.value, s.axis) for e, s in zip(ext, strides))
                if txt == "S":
                    shard = iters
                else:
                    replica = iters
            self.expect("]", f"to close {txt}[")
            if not self.accept("+"):
                return TileLayout(shard, replica, offset)

    def tuple_(self, what: str) -> list[AxisValue]:
        if not self.accept("("):
            return [self.value(what)]
        out: list[AxisValue] = []
        while not self.accept(")"):
            out.append(self.value(what))
            if not self.accept(","):
                self.expect(")", f"or ',' in {what}")
                break
        return out

    def value(self, what: str) -> AxisValue:
        neg = self.accept("-")
        kind, txt, _ = self.peek()
        if kind != "int":
            self.fail(f"expected an integer in {what}")
        self.digits(txt, what)
        self.next()
        val = -int(txt) if neg else int(txt)
        if self.accept("@"):
            kind, txt, _ = self.peek()
            if kind != "ident":
                self.fail("expected an axis name after '@'")
            self.next()
            return AxisValue(val, Axis.get(txt))
        return AxisValue(val, m)


_STATIC = re.compile(r"_\d+")  # CuTe's static integer, printed _4


def _flat(mode) -> list[int]:
    return [v for sub in mode for v in _flat(sub)] if isinstance(mode, tuple) else [mode]


def _congruent(a, b) -> bool:
    if isinstance(a, tuple) != isinstance(b, tuple):
        return False
    return not isinstance(a, tuple) or (len(a) == len(b) and all(map(_congruent, a, b)))


def _show(mode) -> str:
    return f"({','.join(map(_show, mode))})" if isinstance(mode, tuple) else str(mode)


def cute_shape(text: str) -> tuple[int, ...] | None:
    """The top-level shape of a layout written in CuTe notation (None for the S[...] notation)."""
    p = _Parser(text)
    if p.peek()[1] == "Swizzle":
        p.next()
        p.swizzle_mode()
        p.next()
    return p.cute()[1] if p._at_cute() else None


def parse_layout(text: str) -> "TileLayout | ComposedLayout":
    """Parse layout text (a TileLayout, or `Swizzle<mode> o <TileLayout>`)."""
    if not isinstance(text, str):
        raise LayoutError(f"layout text must be a str, got {type(text).__name__}")
    return _Parser(text).layout()


def parse_tile_layout(text: str) -> TileLayout:
    """Parse text that must be a plain TileLayout (no swizzle prefix)."""
    lay = parse_layout(text)
    if not isinstance(lay, TileLayout):
        raise LayoutError(f"expected a plain tile layout, got a swizzled one: {text!r}")
    return lay
