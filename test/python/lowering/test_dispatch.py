"""The dispatch registry: ordering, predicates' three forms, declines, pinning, the failure table."""
import pytest

from tile_mlir.lowering import dispatch as D
from tile_mlir.dialect.decline import fail


@pytest.fixture
def registry(monkeypatch):
    monkeypatch.setattr(D, "_REGISTRY", {})
    return D


def ok(op, ctx):
    return True


def test_variants_tried_by_priority_then_name(registry):
    calls = []

    def impl(name):
        def f(op, ctx):
            calls.append(name)
            fail("", f"{name} says no")
        return f

    D.register_dispatch("copy", "t", variant="b", priority=1)(impl("b"))
    D.register_dispatch("copy", "t", variant="a", priority=1)(impl("a"))
    D.register_dispatch("copy", "t", variant="z", priority=9)(impl("z"))
    with pytest.raises(D.DispatchError) as e:
        D.dispatch("copy", "t", object(), None)
    assert calls == ["z", "a", "b"]
    assert [r.variant for r in e.value.rejections] == ["z", "a", "b"]
    assert all(r.kind == "declined" for r in e.value.rejections)


def test_predicate_forms_and_first_applicable_wins(registry):
    D.register_dispatch("copy", "t", variant="bool", priority=3,
                        when=[D.predicate("is_false", lambda op, ctx: False)])(lambda op, ctx: "bool")
    D.register_dispatch("copy", "t", variant="tuple", priority=2,
                        when=[D.predicate("why_not", lambda op, ctx: (False, "shape mismatch"))])(lambda op, ctx: 1)
    D.register_dispatch("copy", "t", variant="raises", priority=1,
                        when=[D.predicate("raising", lambda op, ctx: fail("", "no tmem"))])(lambda op, ctx: 1)
    D.register_dispatch("copy", "t", variant="fallback", priority=0, when=[D.predicate("ok", ok)])(lambda op, ctx: "done")
    assert D.dispatch("copy", "t", object(), None) == ("fallback", "done")


def test_failure_table_names_every_variant_and_reason(registry):
    D.register_dispatch("copy_async", "cuda", variant="smem->tmem", priority=10,
                        when=[D.predicate("validate_smem_tmem_copy",
                                          lambda op, ctx: (False, "requires R[4:32@TLane] on tmem, got no replica"))])(
        lambda op, ctx: 1)
    D.register_dispatch("copy_async", "cuda", variant="other", priority=0)(
        lambda op, ctx: fail("swizzle", "row pitch 64 B"))
    with pytest.raises(D.DispatchError) as e:
        D.dispatch("copy_async", "cuda", object(), None)
    msg = e.value.message()
    assert msg.splitlines() == [
        "no copy_async variant applies:",
        "  smem->tmem: rejected: validate_smem_tmem_copy - requires R[4:32@TLane] on tmem, got no replica",
        "  other: declined: swizzle - row pitch 64 B",
    ]


def test_failure_lists_the_variants_of_the_ops_memory_pair(registry):
    """A variant registered for other memory pairs is skipped, not tried, and left out of the table
    unless all_variants; `tried` receives what came before the chosen variant."""
    never = []
    D.register_dispatch("copy_async", "cuda", variant="tma", priority=20, moves=[("global", "shared")],
                        when=[D.predicate("needs_barrier", lambda op, ctx: (False, "no mbarrier"))])(lambda op, ctx: 1)
    D.register_dispatch("copy_async", "cuda", variant="smem->tmem", priority=10, moves=[("shared", "tmem")],
                        when=[D.predicate("never", lambda op, ctx: never.append(1))])(lambda op, ctx: 1)
    D.register_dispatch("copy_async", "cuda", variant="global->shared", priority=5, moves=[("global", "shared")])(
        lambda op, ctx: fail("width", "2-byte runs"))
    with pytest.raises(D.DispatchError) as e:
        D.dispatch("copy_async", "cuda", object(), None, moves=("global", "shared"))
    assert never == []
    assert e.value.message().splitlines() == [
        "no copy_async variant applies to global -> shared:",
        "  tma: rejected: needs_barrier - no mbarrier",
        "  global->shared: declined: width - 2-byte runs",
        "  (1 variant for other memory pairs not shown; the pass option all-variants=1 lists them)",
    ]
    assert "  smem->tmem: not for this memory pair: moves shared -> tmem" in e.value.message(all_variants=True)
    with pytest.raises(D.DispatchError) as e:  # no variant for the pair at all: every one, with what it moves
        D.dispatch("copy_async", "cuda", object(), None, moves=("shared", "shared"))
    assert len(e.value.message().splitlines()) == 4 and "tma: not for this memory pair: moves global -> shared" \
        in e.value.message()
    D.register_dispatch("copy_async", "cuda", variant="ok", priority=0, moves=[("global", "shared")])(lambda op, ctx: 2)
    tried = []
    assert D.dispatch("copy_async", "cuda", object(), None, moves=("global", "shared"), tried=tried) == ("ok", 2)
    assert [(r.variant, r.kind) for r in tried] == [("tma", "rejected"), ("smem->tmem", "other pair"),
                                                    ("global->shared", "declined")]


def test_pinned_variant_only(registry):
    D.register_dispatch("copy", "t", variant="fast", priority=5)(lambda op, ctx: "fast")
    D.register_dispatch("copy", "t", variant="slow", priority=0)(lambda op, ctx: "slow")
    assert D.dispatch("copy", "t", object(), None, pinned="slow") == ("slow", "slow")
    with pytest.raises(D.DispatchError) as e:
        D.dispatch("copy", "t", object(), None, pinned="tma")
    assert "known variants: fast, slow" in e.value.message()


def test_impl_returning_none_is_a_decline(registry):
    D.register_dispatch("copy", "t", variant="lazy")(lambda op, ctx: None)
    with pytest.raises(D.DispatchError) as e:
        D.dispatch("copy", "t", object(), None)
    assert e.value.rejections[0].kind == "declined"


def test_bugs_propagate_with_the_variant_named(registry):
    def buggy(op, ctx):
        raise KeyError("typo")

    D.register_dispatch("copy", "t", variant="buggy")(buggy)
    with pytest.raises(KeyError) as e:
        D.dispatch("copy", "t", object(), None)
    assert "in copy variant 'buggy'" in "".join(e.value.__notes__)


def test_duplicate_variant_rejected(registry):
    D.register_dispatch("copy", "t", variant="x")(lambda op, ctx: 1)
    with pytest.raises(ValueError):
        D.register_dispatch("copy", "t", variant="x")(lambda op, ctx: 1)


def test_no_variants_registered(registry):
    with pytest.raises(D.DispatchError) as e:
        D.dispatch("copy", "nowhere", object(), None)
    assert "no variant of copy is registered for target 'nowhere'" in e.value.message()


def test_copy_async_variant_list_matches_registry():
    from tile_mlir.lowering.copy_async import VARIANTS, load_variants

    load_variants()
    registered = {c.variant for c in D.variants("copy_async", "cuda")}
    assert registered == {v for _, v in VARIANTS}
    smem_tmem = next(c for c in D.variants("copy_async", "cuda") if c.variant == "smem->tmem")
    assert smem_tmem.priority == 10
    assert [p.name for p in smem_tmem.when] == ["validate_smem_tmem_copy", "exec_scope"]


def test_pass_names_unique_and_match_classes():
    from tile_mlir.driver.passes import PIPELINES, passes

    names = list(passes())
    assert len(names) == len(set(names))
    assert all(cls.name == n for n, cls in passes().items())
    assert not set(names) & set(PIPELINES)
