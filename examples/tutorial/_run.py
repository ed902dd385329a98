"""The tutorial's builder scripts' command line: print the tile IR, or --ptx, or --run and check the data."""
import argparse
import os
import sys

import tile_mlir


def main(build, inputs) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--ptx", action="store_true", help="compile and print the PTX")
    p.add_argument("--run", action="store_true", help="run it (the GPU when it can, else tile-sim), check the data")
    args = p.parse_args()
    module = build()
    if args.run:
        values, check = inputs()
        result = tile_mlir.jit(module)(**values)
        ok = check(values)
        print(f"{os.path.basename(sys.argv[0])}: ran on {result.backend}, the data is "
              f"{'right' if ok else 'WRONG'}")
        return 0 if ok else 1
    print(tile_mlir.compile(module).ptx if args.ptx else module)
    return 0
