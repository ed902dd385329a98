"""Layout algebra (pure Python, no MLIR): axes, TileLayout, swizzles, text parse/print.

A reimplementation of the model of TVM TIRx's TileLayout. See `tile_layout` for the map and the text
notation, `swizzle` for swizzle composition and `kmajor_layout`, `text` for the grammar, `grid.show` (re-exported as `show`) for printing a layout as a grid (also `python -m tile_mlir.layout show`).
"""

from .args import LayoutTypeError
from .base import Layout
from .axis import THREAD_AXES, Axis, AxisValue, LayoutError, TCol, TLane, laneid, m, reg, warpid
from .fragment import Fragment, FragmentError, first_replica_masks, fragment_of
from .swizzle import (ComposedLayout, SwizzleMode, atom_bytes, kmajor_layout, row_pitch, swizzle_bytes,
                      swizzle_params)
from .grid import show
from .text import parse_layout, parse_tile_layout
from .tile_layout import AxisOffsets, Iter, O, R, S, TileLayout, from_iters

__all__ = [
    "Axis", "AxisValue", "LayoutError", "m", "TLane", "TCol", "laneid", "warpid", "reg", "THREAD_AXES",
    "Fragment", "FragmentError", "fragment_of", "first_replica_masks",
    "Layout", "AxisOffsets", "Iter", "TileLayout", "S", "R", "O", "from_iters",
    "SwizzleMode", "swizzle_bytes", "swizzle_params", "atom_bytes", "row_pitch", "ComposedLayout",
    "kmajor_layout",
    "parse_layout", "parse_tile_layout", "LayoutTypeError", "show",
]
