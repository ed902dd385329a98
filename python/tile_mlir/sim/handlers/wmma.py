"""wmma.load / wmma.mma / wmma.store: refused by name (PTX ISA "Warp Level Matrix Multiply-
Accumulate Instructions: wmma").

The ISA leaves the distribution of a wmma fragment's elements over the warp's registers
unspecified ("implementation-defined"), so a model must choose one; a kernel that only loads,
multiplies and stores fragments would run under any choice, but one that touches fragment
elements (scaling, activation, conversion in registers, as compilers emit) depends on the
hardware's. tile-sim refuses wmma until that mapping is taken from a measurement (the H200) rather
than assumed; mma.sync, whose fragments the ISA does specify, is modelled (handlers/mma_sync.py).
"""

from __future__ import annotations


def decode_wmma(d, inst):
    raise d.error(f"{inst.opcode}: wmma fragments have an implementation-defined layout the PTX "
                  f"ISA does not give; tile-sim does not assume one (use mma.sync, ldmatrix, "
                  f"stmatrix, whose layouts are specified)")
