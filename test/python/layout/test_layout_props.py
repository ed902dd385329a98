"""Property tests (hypothesis) for the layout algebra: slice, canonicalize, group, text, swizzle."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tiers import examples  # test/python/tiers.py: the property tests' size in each tier

from tile_mlir.layout import (ComposedLayout, Iter, LayoutError, SwizzleMode, TCol, TileLayout, TLane,
                              atom_bytes, m, parse_layout, swizzle_bytes)

pytestmark = pytest.mark.tiered
PROPS = settings(max_examples=examples(200), deadline=None)
AXES = [m, TLane, TCol]


@st.composite
def iters(draw, max_len=4, max_extent=256):
    out, total = [], 1
    for _ in range(draw(st.integers(0, max_len))):
        e = draw(st.sampled_from([1, 2, 3, 4, 6, 8, 16]))
        if total * e > max_extent:
            break
        total *= e
        stride = draw(st.one_of(st.sampled_from([0, 1, 2, 4, 8, 16, 32, 64, 128]), st.integers(-9, 300)))
        out.append(Iter(e, stride, draw(st.sampled_from(AXES))))
    return out


@st.composite
def layouts(draw):
    shard = draw(iters())
    replica = draw(iters(max_len=2, max_extent=8))
    offset = draw(st.dictionaries(st.sampled_from(AXES), st.integers(-50, 5000), max_size=3))
    return TileLayout(shard, replica, offset)


@st.composite
def shapes_for(draw, lay: TileLayout):
    """A logical shape that groups onto `lay`: iter extents, some split into two factors, runs merged."""
    factors = []
    for it in lay.shard:
        divs = [d for d in range(1, it.extent + 1) if it.extent % d == 0]
        d = draw(st.sampled_from(divs))
        factors += [d, it.extent // d]
    shape = []
    for f in factors:
        if shape and draw(st.booleans()):
            shape[-1] *= f
        else:
            shape.append(f)
    return shape or [1]


def all_offsets(lay, shape):
    n = math.prod(shape)
    return [lay.apply(i, shape) for i in range(n)]


def unravel(i, shape):
    coord = []
    for e in reversed(shape):
        i, c = divmod(i, e)
        coord.append(c)
    return tuple(reversed(coord))


def check_slice(lay, shape, region):
    sub = lay.slice(shape, region)
    rshape = [e - b for b, e in region]
    assert sub.replica == lay.replica
    for i in range(math.prod(rshape)):
        x = unravel(i, rshape)
        full = tuple(c + b for c, (b, _) in zip(x, region))
        assert sub.apply(x, rshape) == lay.apply(full, shape), (str(lay), shape, region, x)


@st.composite
def layout_shape_region(draw):
    lay = draw(layouts())
    shape = draw(shapes_for(lay))
    region = []
    for d in shape:
        b = draw(st.integers(0, d - 1))
        region.append((b, draw(st.integers(b + 1, d))))
    return lay, shape, region


@st.composite
def valid_region(draw):
    """A region built to be sliceable: per dim, whole inner iters, a sub-range of one iter, a point."""
    lay = draw(layouts())
    shape = draw(shapes_for(lay))
    grouped, seps = lay.group(shape)
    region = []
    for d, extent in enumerate(shape):
        dim = TileLayout(grouped.shard[seps[d]:seps[d + 1]]).canonicalize().shard
        exts = [it.extent for it in dim]
        k = draw(st.integers(0, len(exts)))          # iters exts[k:] are covered whole
        inner = math.prod(exts[k:])
        if k == 0:
            region.append((0, extent))
            continue
        e = exts[k - 1]
        lo = draw(st.integers(0, e - 1))
        n = draw(st.integers(1, e - lo))
        outer = draw(st.integers(0, math.prod(exts[:k - 1]) - 1))
        b = (outer * e + lo) * inner
        region.append((b, b + n * inner))
    return lay, shape, region


@PROPS
@given(valid_region())
def test_slice_valid_regions_match(case):
    check_slice(*case)


@PROPS
@given(layout_shape_region())
def test_slice_random_regions_match_or_reject(case):
    try:
        check_slice(*case)
    except LayoutError as e:
        assert "of dim" in str(e)


@PROPS
@given(layouts())
def test_canonicalize_preserves_apply(lay):
    canon = lay.canonicalize()
    assert canon.canonicalize() == canon
    assert all(it.extent > 1 for it in canon.shard + canon.replica)
    n = lay.shard_extent()
    assert [canon.apply(i) for i in range(n)] == [lay.apply(i) for i in range(n)]


@PROPS
@given(st.data())
def test_group_preserves_apply(data):
    lay = data.draw(layouts())
    shape = data.draw(shapes_for(lay))
    grouped, seps = lay.group(shape)
    assert len(seps) == len(shape) + 1
    for d, e in enumerate(shape):
        assert math.prod(it.extent for it in grouped.shard[seps[d]:seps[d + 1]]) == e
    assert all_offsets(grouped, shape) == all_offsets(lay, shape)


@PROPS
@given(layouts(), st.sampled_from(list(SwizzleMode)), st.booleans())
def test_print_parse_round_trip(lay, mode, composed):
    obj = ComposedLayout(mode, lay) if composed else lay
    text = str(obj)
    again = parse_layout(text)
    assert again == obj and str(again) == text and hash(again) == hash(obj)


@PROPS
@given(st.sampled_from(list(SwizzleMode)), st.integers(0, 1 << 20))
def test_swizzle_involution_and_periodic(mode, addr):
    sw = swizzle_bytes(mode, addr)
    assert swizzle_bytes(mode, sw) == addr
    atom = atom_bytes(mode)
    assert sw // atom == addr // atom  # stays inside its atom
    assert swizzle_bytes(mode, addr % atom) + addr // atom * atom == sw


def test_swizzle_is_a_bijection_on_its_atom():
    for mode in SwizzleMode:
        atom = atom_bytes(mode)
        assert sorted(swizzle_bytes(mode, a) for a in range(atom)) == list(range(atom))
        # 16-byte chunks move whole
        assert all(swizzle_bytes(mode, a) % 16 == a % 16 for a in range(atom))
