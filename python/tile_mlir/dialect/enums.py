"""The enumerated attribute values of tile ops, each spelled once (as ODS's EnumAttr cases).

String enums are `StrEnum`s and integer ones `IntEnum`s, so a member compares equal to its IR spelling
("cta", 2) and formats as it: diagnostics and code that hold plain strings keep working. An attribute
whose value is not a member of its enum (or of the op's subset of it) is a verifier error, never a
default (dialect/op_def.py reads them; lowering/nvvm_ir.py turns them into NVVM attributes).
"""
from __future__ import annotations

import enum

__all__ = ["MemScope", "Scope", "Dim", "FenceKind", "CtaGroup", "Swizzle", "L2Promotion", "OobFill", "BarrierCta",
           "Reduction", "BulkWaitKind", "Rounding", "MmaKind", "ScaleVec", "Parity", "RegAction",
           "ReduceKind", "CmpPredicate", "RcpMode", "MaskKind", "ENUMS"]


class MemScope(enum.StrEnum):
    """The memory a !tile.buffer lives in: global, shared (per CTA), tensor memory (tcgen05), or registers
    (a register tile). The first field of the buffer type; lowering/values.py says what each lowers to."""

    GLOBAL = "global"
    SHARED = "shared"
    TMEM = "tmem"
    REG = "reg"


class Scope(enum.StrEnum):
    """The threads that execute an op together."""

    THREAD = "thread"
    WARP = "warp"
    WARPGROUP = "warpgroup"
    CTA = "cta"
    CLUSTER = "cluster"


class Dim(enum.StrEnum):
    """A grid dimension (%ctaid.x, %nctaid.y, ...)."""

    X = "x"
    Y = "y"
    Z = "z"


class FenceKind(enum.StrEnum):
    """tile.fence's kinds (PTX fence.proxy.async, tcgen05.fence::*, fence.mbarrier_init)."""

    PROXY_ASYNC = "proxy_async"
    TCGEN05_BEFORE_SYNC = "tcgen05_before_sync"
    TCGEN05_AFTER_SYNC = "tcgen05_after_sync"
    MBARRIER_INIT = "mbarrier_init"


class CtaGroup(enum.IntEnum):
    """PTX .cta_group::1 / ::2: one CTA, or a pair of CTAs of a cluster, issue a tcgen05 instruction."""

    CTA_1 = 1
    CTA_2 = 2


class Swizzle(enum.StrEnum):
    """A TMA tensor map's shared-memory swizzle (CU_TENSOR_MAP_SWIZZLE_*)."""

    NONE = "none"
    B32 = "32B"
    B64 = "64B"
    B128 = "128B"


class L2Promotion(enum.StrEnum):
    """A TMA tensor map's L2 promotion (CU_TENSOR_MAP_L2_PROMOTION_*)."""

    NONE = "none"
    B64 = "64B"
    B128 = "128B"
    B256 = "256B"


class OobFill(enum.StrEnum):
    """What a TMA load reads outside the tensor: zeros, or NaN (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_...)."""

    ZERO = "zero"
    NAN = "nan"


class Reduction(enum.StrEnum):
    """What a TMA store does with the destination: writes it (none), or reduces into it, element by element
    (cp.reduce.async.bulk.tensor's .op)."""

    NONE = "none"
    ADD = "add"
    MIN = "min"
    MAX = "max"
    INC = "inc"
    DEC = "dec"
    AND = "and"
    OR = "or"
    XOR = "xor"


class BarrierCta(enum.StrEnum):
    """Whose mbarrier a cta_group 2 TMA load completes on (docs/tma.md §8)."""

    OWN = "own"
    PAIR_LEADER = "pair_leader"


class BulkWaitKind(enum.StrEnum):
    """cp.async.bulk.wait_group (all) or cp.async.bulk.wait_group.read (read)."""

    ALL = "all"
    READ = "read"


class Rounding(enum.StrEnum):
    """cvt's rounding modes that tile.convert takes (.rn, .rz, .rn.satfinite)."""

    RN = "rn"
    RZ = "rz"
    RN_SATFINITE = "rn_satfinite"


class MmaKind(enum.StrEnum):
    """tcgen05.mma's .kind (lowering/gemm_async/kinds.py holds what each takes)."""

    TF32 = "tf32"
    F16 = "f16"
    F8F6F4 = "f8f6f4"
    I8 = "i8"
    MXF8F6F4 = "mxf8f6f4"
    MXF4 = "mxf4"
    MXF4NVF4 = "mxf4nvf4"


class ScaleVec(enum.IntEnum):
    """Elements of K per scale factor of a block-scaled MMA (.scale_vec::1X/2X/4X by kind)."""

    V16 = 16
    V32 = 32


class RegAction(enum.StrEnum):
    """setmaxnreg's action: .inc (take registers from the CTA's pool) or .dec (release them to it)."""

    INC = "inc"
    DEC = "dec"


class Parity(enum.IntEnum):
    """The phase parity mbarrier.try_wait.parity waits for."""

    EVEN = 0
    ODD = 1


class ReduceKind(enum.StrEnum):
    """tile.reg.reduce's combining operation (PTX max.f32 / add.rn.f32)."""

    MAX = "max"
    SUM = "sum"


class CmpPredicate(enum.StrEnum):
    """tile.reg.select's comparison: PTX setp's ordered f32 predicates (false when an operand is NaN, ne
    included)."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


class RcpMode(enum.StrEnum):
    """tile.reg.rcp's instruction: rcp.approx.ftz.f32 (the special-function unit) or rcp.rn.f32 (IEEE 1 / x,
    correctly rounded)."""

    APPROX = "approx"
    RN = "rn"


class MaskKind(enum.StrEnum):
    """tile.reg.mask's condition on an element's logical (row, col), with `bound` an index value:
    causal: col > row + bound; residual: col >= bound (a key sequence's ragged end)."""

    CAUSAL = "causal"
    RESIDUAL = "residual"


ENUMS = (Scope, Dim, FenceKind, CtaGroup, Swizzle, L2Promotion, OobFill, BarrierCta, Reduction, BulkWaitKind, Rounding,
         MmaKind, ScaleVec, Parity, RegAction, ReduceKind, CmpPredicate, RcpMode, MaskKind)
