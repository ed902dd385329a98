"""NVVM attributes, the #nvvm.target and the gpu.module, built in one place: every other module asks here by
meaning (`cta_group(em, CtaGroup.CTA_2)`, `tcgen05_wait(em, "load")`), never spells `#nvvm.` text.

The bindings' own builders of NVVM enum attributes (`_nvvm_enum_gen.py`, `register_attribute_builder`) parse
the same `#nvvm.<mnemonic><value>` text, and #nvvm.target has no builder in either provider; so this module
parses it too, from values that are ours (members of our enums, plan fields from closed tables, tokens of
target.py's grammars), never a user's string, and once per emitter cache (`em.attr`).
"""
from __future__ import annotations

from ..dialect.enums import CtaGroup, FenceKind, RegAction
from ..mlir import ir

__all__ = ["cta_group", "tcgen05_fence", "tcgen05_wait", "tcgen05_ldst_shape", "tcgen05_cp_shape",
           "tcgen05_cp_multicast", "tcgen05_cp_src_fmt", "tcgen05_mma_block_scale", "wgmma_shape", "wgmma_type",
           "wgmma_scale_in", "wgmma_scale_out", "mma_layout", "tma_load_mode", "tma_store_mode", "proxy_kind",
           "shared_space", "fp_rnd_mode", "sat_mode", "nvvm_enum", "gpu_module", "setmaxregister"]

_CTA_GROUP = {CtaGroup.CTA_1: "cta_1", CtaGroup.CTA_2: "cta_2"}
_TCGEN05_FENCE = {FenceKind.TCGEN05_BEFORE_SYNC: "before", FenceKind.TCGEN05_AFTER_SYNC: "after"}


def _enum(em, mnemonic: str, value: str):
    return em.attr(f"#nvvm.{mnemonic}<{value}>")


def cta_group(em, group):
    """#nvvm.cta_group: the op's CtaGroup (or its plain value: 2 is CTA_2)."""
    return _enum(em, "cta_group", _CTA_GROUP[group])


def tcgen05_fence(em, kind: FenceKind):
    return _enum(em, "tcgen05_fence", _TCGEN05_FENCE[kind])


def nvvm_enum(em, value):
    """The NVVM attribute of one of our enum members that has one (CtaGroup, the tcgen05 FenceKinds)."""
    return cta_group(em, value) if value in _CTA_GROUP else tcgen05_fence(em, value)


def tcgen05_wait(em, kind: str):
    """kind: "load" (tcgen05.wait::ld) or "store" (::st)."""
    assert kind in ("load", "store"), kind
    return _enum(em, "tcgen05_wait", kind)


def tcgen05_ldst_shape(em, shape: str):
    """shape: the PTX shape of tcgen05.ld/st, e.g. "32x32b"."""
    return _enum(em, "tcgen05_ldst_shape", f"shape_{shape}")


def tcgen05_cp_shape(em, shape: str):
    """shape: the PTX shape of tcgen05.cp without its multicast, e.g. "128x256b"."""
    return _enum(em, "tcgen05_cp_shape", f"shape_{shape}")


def tcgen05_cp_multicast(em, multicast: str):
    """multicast: the PTX qualifier, e.g. "warpx2::02_13"."""
    return _enum(em, "tcgen05_cp_multicast", multicast.replace("::", "_"))


def tcgen05_cp_src_fmt(em, fmt: str):
    return _enum(em, "tcgen05_cp_src_fmt", fmt)


def tcgen05_mma_block_scale(em, block: str):
    """block: "block16" or "block32"."""
    return _enum(em, "tcgen05_mma_block_scale", block)


def wgmma_shape(em, n: int, k: int):
    return em.attr(f"#nvvm.shape<m = 64, n = {int(n)}, k = {int(k)}>")


def wgmma_type(em, t: str):
    return _enum(em, "wgmma_type", t)


def wgmma_scale_in(em, scale: str):
    return _enum(em, "wgmma_scale_in", scale)


def wgmma_scale_out(em, scale: str):
    return _enum(em, "wgmma_scale_out", scale)


def mma_layout(em, layout: str):
    """layout: "row" or "col"."""
    return _enum(em, "mma_layout", layout)


def tma_load_mode(em, mode: str = "tile"):
    return _enum(em, "tma_load_mode", mode)


def tma_store_mode(em, mode: str = "tile"):
    return _enum(em, "tma_store_mode", mode)


def proxy_kind(em, kind: str):
    return _enum(em, "proxy_kind", kind)


def shared_space(em, space: str):
    return _enum(em, "shared_space", space)


def fp_rnd_mode(em, mode: str):
    return _enum(em, "fp_rnd_mode", mode)


def sat_mode(em, mode: str):
    return _enum(em, "sat_mode", mode)


_REG_ACTION = {RegAction.INC: "increase", RegAction.DEC: "decrease"}


def setmaxregister(em, action: RegAction, count: int):
    """nvvm.setmaxregister: setmaxnreg.{inc,dec}.sync.aligned.u32 count."""
    return em.create("nvvm.setmaxregister", attrs={
        "regCount": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(count)),
        "action": em.attr(f"#nvvm<action {_REG_ACTION[action]}>")})


def gpu_module(before, name: str, chip: str, features: str):
    """The gpu.module `name` (one PTX module, one cubin) targeting #nvvm.target<chip, features>, inserted
    before op `before`. `chip` and `features` are tokens of target.py's grammars (parse_arch,
    check_ptx_features), printed by StringAttr (quoted and escaped), never pasted."""
    target = ir.Attribute.parse(f"#nvvm.target<chip = {ir.StringAttr.get(chip)}, "
                                f"features = {ir.StringAttr.get(features)}>")
    gmod = ir.Operation.create("gpu.module", attributes={"sym_name": ir.StringAttr.get(name),
                                                         "targets": ir.ArrayAttr.get([target])},
                               regions=1, ip=ir.InsertionPoint(before))
    gmod.regions[0].blocks.append()
    return gmod
