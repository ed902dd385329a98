# RUN: %PYTHON %s | FileCheck %s
# The layout algebra's text form, as FileCheck sees it (no MLIR involved).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "python"))

from tile_mlir.layout import SwizzleMode, TCol, TLane, kmajor_layout, parse_layout, R, S  # noqa: E402


def test(f):
    print("\nTEST:", f.__name__)
    f()


# CHECK-LABEL: TEST: seed_notation_round_trips
# CHECK: S[(32, 16) : (1@TLane, 1@TCol)] + R[4 : 32@TLane]
# CHECK: True
@test
def seed_notation_round_trips():
    lay = S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]
    print(lay)
    print(parse_layout(str(lay)) == lay)


# CHECK-LABEL: TEST: canonicalize_fuses_contiguous_iters
# CHECK: S[(64, 2, 16) : (16, 1024, 1)]
@test
def canonicalize_fuses_contiguous_iters():
    print(parse_layout("S[(8, 8, 2, 16) : (128, 16, 1024, 1)]").canonicalize())


# CHECK-LABEL: TEST: slice_turns_the_region_start_into_an_offset
# CHECK: S[(32, 16) : (16, 1)] + O[64]
# CHECK: Swizzle<128B> o S[(32, 16) : (128, 1)] + O[1024]
@test
def slice_turns_the_region_start_into_an_offset():
    print(parse_layout("S[(8, 8, 2, 16) : (128, 16, 1024, 1)]").canonicalize().slice((64, 32), ((4, 36), (0, 16))))
    print(kmajor_layout((64, 128), 8, SwizzleMode.B128).slice((64, 128), ((8, 40), (0, 16))))


# CHECK-LABEL: TEST: kmajor_layouts
# CHECK: Swizzle<64B> o S[(32, 4, 64) : (64, 2048, 1)]
# CHECK: Swizzle<32B> o S[(16, 2, 16) : (16, 256, 1)]
@test
def kmajor_layouts():
    print(kmajor_layout((32, 256), 8, SwizzleMode.B64))
    print(kmajor_layout((16, 32), 16, SwizzleMode.B32))


# CHECK-LABEL: TEST: parse_errors_say_where
# CHECK: caught: expected ':' after shape at column 12
@test
def parse_errors_say_where():
    try:
        parse_layout("S[(32, 16) (16, 1)]")
    except ValueError as e:
        print("caught:", str(e).split(",")[0])
