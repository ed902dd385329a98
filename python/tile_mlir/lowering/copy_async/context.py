"""What a copy_async variant sees: the op's operands, regions and attributes, decoded once."""
from __future__ import annotations

from dataclasses import dataclass, field

from ...dialect.ops import attr_value
from ...dialect.types import BufferType
from ...dialect.verifier import Region, region_of

__all__ = ["CopyAsyncCtx"]


@dataclass
class CopyAsyncCtx:
    op: object
    chip: str
    rewriter: object
    dst_t: BufferType = field(init=False)
    src_t: BufferType = field(init=False)
    dst_region: Region = field(init=False)
    src_region: Region = field(init=False)
    cta_group: int = field(init=False)
    scope: str = field(init=False)
    cache: dict = field(default_factory=dict)  # per pass run: e.g. smem descriptors per (buffer, ...)

    def __post_init__(self):
        op = self.op
        self.dst_t = BufferType.of(op.operands[0].type)
        self.src_t = BufferType.of(op.operands[1].type)
        self.dst_region = region_of(op, "dst", self.dst_t)
        self.src_region = region_of(op, "src", self.src_t)
        self.cta_group = attr_value(op, "cta_group")
        self.scope = attr_value(op, "scope")

    @property
    def dst(self):
        return self.op.operands[0]

    @property
    def src(self):
        return self.op.operands[1]

    @property
    def pinned(self) -> str | None:
        return attr_value(self.op, "dispatch")
