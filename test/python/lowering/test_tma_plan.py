"""The TMA planner (lowering/copy_async/tma_plan.py, docs/tma.md §3) without IR: what it derives for a copy
(map, coordinates, shared offset, transaction bytes) and every check it declines with."""

import pytest

from tile_mlir.layout import parse_layout
from tile_mlir.dialect.decline import Decline as PlanError
from tile_mlir.lowering.copy_async.tma_plan import DeclaredMap, plan_tma, tensor_map_params

SW128_BF16 = parse_layout("Swizzle<128B> o S[(32, 64) : (64, 1)]")


def plan(direction="load", shape=(64, 128), elem="bf16", region=((32, 64), (64, 128)), layout=SW128_BF16,
         smem_shape=(32, 64), smem_region=((0, 32), (0, 64)), align=1024, maps=(DeclaredMap(0, (32, 64), "128B"),)):
    return plan_tma(direction, shape, elem, region, layout, smem_shape, smem_region, align, maps)


def declined(**kw) -> tuple[str, str]:
    with pytest.raises(PlanError) as e:
        plan(**kw)
    return e.value.check, e.value.reason


def test_a_128B_swizzled_bf16_box():
    p = plan()
    assert (p.map_index, p.coords, p.smem_offset, p.tx_bytes, p.swizzle) == (0, (64, 32), 0, 32 * 64 * 2, "128B")


def test_the_map_that_fits_is_chosen_and_named_by_its_ordinal():
    maps = (DeclaredMap(0, (32, 64), "none"), DeclaredMap(3, (16, 64), "128B"), DeclaredMap(5, (32, 64), "128B"))
    assert plan(maps=maps).map_index == 5


def test_coordinates_are_innermost_first_in_5d():
    shape, box = (2, 3, 4, 8, 16), (1, 1, 2, 4, 16)
    region = ((1, 2), (2, 3), (2, 4), (4, 8), (0, 16))
    lay = parse_layout("S[(2, 4, 16) : (64, 16, 1)]")  # a 2x4x16 ui8 box, rows dense at 16 B
    p = plan(shape=shape, elem="ui8", region=region, layout=lay, smem_shape=(2, 4, 16),
             smem_region=((0, 2), (0, 4), (0, 16)), align=128, maps=(DeclaredMap(0, box, "none"),))
    assert (p.coords, p.tx_bytes) == ((0, 4, 2, 2, 1), 128)


def test_rows_narrower_than_the_swizzle_span_sit_one_span_apart():
    lay = parse_layout("Swizzle<64B> o S[(8, 16) : (32, 1)]")  # 32-byte bf16 rows, 64-byte span
    p = plan(shape=(16, 64), region=((8, 16), (16, 32)), layout=lay, smem_shape=(8, 16),
             smem_region=((0, 8), (0, 16)), align=512, maps=(DeclaredMap(0, (8, 16), "64B"),))
    assert (p.coords, p.tx_bytes) == ((16, 8), 8 * 16 * 2)


def test_a_shared_region_past_the_start_is_an_offset():
    lay = parse_layout("Swizzle<128B> o S[(64, 64) : (64, 1)]")
    p = plan(layout=lay, smem_shape=(64, 64), smem_region=((32, 64), (0, 64)))
    assert p.smem_offset == 32 * 128


def test_a_load_may_end_at_the_tensor_edge_inside_a_larger_box():
    lay = parse_layout("S[(64, 64) : (64, 1)]")
    p = plan(shape=(100, 64), elem="ui8", region=((64, 100), (0, 64)), layout=lay, smem_shape=(64, 64),
             smem_region=((0, 36), (0, 64)), align=128, maps=(DeclaredMap(0, (64, 64), "none"),))
    assert (p.coords, p.tx_bytes, p.box) == ((0, 64), 64 * 64, (64, 64))  # the whole box is counted


def test_a_store_must_be_the_whole_box():
    lay = parse_layout("S[(64, 64) : (64, 1)]")
    check, reason = declined(direction="store", shape=(100, 64), elem="ui8", region=((64, 100), (0, 64)),
                             layout=lay, smem_shape=(64, 64), smem_region=((0, 36), (0, 64)), align=128,
                             maps=(DeclaredMap(0, (64, 64), "none"),))
    assert check == "tensor-map" and "box [36, 64]" in reason


def test_tensor_map_params_are_innermost_first_with_byte_strides():
    assert tensor_map_params((4, 16, 32), "f32", (2, 8, 16), "64B", "128B", "nan") == {
        "data_type": "float32", "global_dim": (32, 16, 4), "global_strides": (128, 2048), "box_dim": (16, 8, 2),
        "element_strides": (1, 1, 1), "interleave": "none", "swizzle": "64b", "l2_promotion": "128b",
        "oob_fill": "nan_request_zero_fma"}


@pytest.mark.parametrize("kw, check, words", [
    (dict(maps=()), "tensor-map", "box [32, 64] and swizzle \"128B\""),
    (dict(maps=(DeclaredMap(0, (32, 64), "64B"),)), "tensor-map", "declared: box [32, 64] swizzle 64B"),
    (dict(elem="i4"), "tensor-map-dtype", "i4"),
    (dict(region=((32, 64), (60, 124))), "coordinate", "120 B into its inner dim"),
    (dict(shape=(512, 128), region=((0, 300), (64, 128)), maps=()), "tensor-map-box", "box dim 0 is 300"),
    (dict(layout=parse_layout("Swizzle<128B_base32B> o S[(32, 64) : (64, 1)]")), "swizzle", "128B_base32B"),
    (dict(layout=parse_layout("Swizzle<128B> o S[(32, 64) : (1, 32)]")), "smem-layout", "rows of 128 B"),
    (dict(align=512), "smem-alignment", "multiple of 1024 B"),
    (dict(layout=parse_layout("Swizzle<128B> o S[(40, 64) : (64, 1)]"), smem_shape=(40, 64),
          smem_region=((4, 36), (0, 64))), "smem-alignment", "starts 512 B"),
    (dict(elem="ui8", shape=(100, 64), region=((64, 100), (0, 64)), smem_shape=(36, 64),
          layout=parse_layout("S[(36, 64) : (64, 1)]"), smem_region=((0, 36), (0, 64)), align=128,
          maps=(DeclaredMap(0, (64, 64), "none"),)), "box-fits", "(up to byte 4096); the shared buffer has 2304 B"),
])
def test_declines(kw, check, words):
    got_check, reason = declined(**kw)
    assert got_check == check, reason
    if words:
        assert words in reason, reason


def test_one_stage_of_a_ring_buffer_is_a_box():
    """A 3D shared ring of 128x64 bf16 stages: the box of a 2D tensor into stage 2 (16 KB in)."""
    ring = parse_layout("Swizzle<128B> o S[(4, 128, 64) : (8192, 64, 1)]")
    p = plan(shape=(256, 512), region=((128, 256), (64, 128)), layout=ring, smem_shape=(4, 128, 64),
             smem_region=((2, 3), (0, 128), (0, 64)), maps=(DeclaredMap(0, (128, 64), "128B"),))
    assert (p.coords, p.smem_offset, p.tx_bytes) == ((64, 128), 2 * 128 * 64 * 2, 128 * 64 * 2)
