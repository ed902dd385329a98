"""The GEMM examples' command lines: option ranges checked at argparse, and tile_mlir's own errors
(a diagnostic of the kernel the options build) ended as one usage error instead of a traceback."""
from __future__ import annotations

#: the largest M, N or K the examples take: a TMA tensor has at most 2^32 elements per dim
MAX_EXTENT = 1 << 32


def int_in(lo: int, hi: int):
    """An argparse type: an int in lo..hi, else argparse's one-line usage error naming the range."""
    import argparse

    def parse(text: str) -> int:
        t = text.strip()
        if not (t.lstrip("-").isdigit() and len(t) <= 12 and lo <= int(t) <= hi):
            raise argparse.ArgumentTypeError(f"expected an integer in {lo} .. {hi}, got {text[:20]!r}")
        return int(t)
    parse.__name__ = f"int in {lo} .. {hi}"
    return parse


def run_main(parser, body) -> int:
    """body() -> exit status, with tile_mlir's own errors (a diagnostic of the kernel these options build,
    a run that failed) ending as the parser's one-line error instead of a traceback."""
    import tile_mlir

    try:
        return body()
    except tile_mlir.TileMLIRError as e:
        parser.exit(1, f"{parser.prog}: error: {str(e).strip()}\n")
