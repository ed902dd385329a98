#!/usr/bin/env python3
"""Attention forward in the tile dialect, one entry for both targets: the FlashAttention-4-style Blackwell kernel
(examples/attention_sm100.py, docs/attention-walkthrough.md) and its FlashAttention-3-style Hopper twin
(examples/attention_sm90.py, docs/attention-hopper.md). --target picks one; every other argument is that
kernel's own (`--target sm_90a --help` lists them).

    python examples/attention.py --target sm_100a --seq-q 300 --seq-k 300 --heads 4 --kv-heads 2 --causal --run sim
    python examples/attention.py --target sm_90a --seq 200 --heads 2 --kv-heads 1 --causal --lse --run sim
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

TARGETS = {"sm_100a": "attention_sm100", "sm_90a": "attention_sm90"}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    p.add_argument("--target", choices=sorted(TARGETS), default="sm_100a")
    args, rest = p.parse_known_args(argv)
    if rest in (["-h"], ["--help"]) and "--target" not in (argv or sys.argv[1:]):
        print(__doc__)
        return 0
    module = __import__(TARGETS[args.target])
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
