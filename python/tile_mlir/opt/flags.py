"""tile-opt's flags: the one table of its options (opt.py reads it); pure data, no MLIR."""
from __future__ import annotations

__all__ = ["OPTIONS", "TAKES_VALUE", "KNOWN"]

# (flags, argparse keywords): the one list of tile-opt's options; anything else starting with `--` must
# name a pass or a pipeline.
OPTIONS: tuple[tuple[tuple[str, ...], dict], ...] = (
    (("-o",), dict(dest="output", default="-", help="output file (default: stdout)")),
    (("-p", "--pass-pipeline"), dict(dest="pipeline", default=None,
                                     help="textual pipeline, e.g. 'builtin.module(tile-verify,canonicalize)'")),
    (("--split-input-file",), dict(action="store_true",
                                   help="process each chunk between '// -----' lines separately")),
    (("--verify-diagnostics",), dict(action="store_true",
                                     help="check diagnostics against expected-* comments in the input")),
    (("--no-implicit-verify",), dict(action="store_true",
                                     help="do not run tile-verify on parse or before a pipeline that lacks it")),
    (("--allow-unregistered-dialect",), dict(action="store_true",
                                             help="accept operations of dialects the bindings do not register")),
    (("--mlir-print-ir-before-all",), dict(action="store_true", help="print IR before every pass")),
    (("--mlir-print-ir-after-all",), dict(action="store_true", help="print IR after every pass")),
    (("--mlir-print-ir-before",), dict(action="append", default=[], metavar="PASS",
                                       help="print IR before each pass of this argument name (repeatable, "
                                            "comma-separated)")),
    (("--mlir-print-ir-after",), dict(action="append", default=[], metavar="PASS",
                                      help="print IR after each pass of this argument name (repeatable, "
                                           "comma-separated)")),
    (("--mlir-print-ir-after-failure",), dict(action="store_true", help="print IR after a pass that failed")),
    (("--mlir-print-ir-tree-dir",), dict(dest="mlir_print_ir_tree_dir", default=None, metavar="DIR",
                                         help="write the --mlir-print-ir-* dumps as files under DIR, one per "
                                              "dump, instead of to stderr")),
    (("--mlir-print-debuginfo",), dict(action="store_true", help="print locations with the IR")),
    (("--mlir-print-local-scope",), dict(action="store_true",
                                         help="print types and attributes in full (no aliases)")),
    (("--mlir-elide-elementsattrs-if-larger",), dict(type=int, default=None, metavar="N",
                                                     help="elide elements attributes of more than N elements")),
    (("--verify-each",), dict(nargs="?", const="true", default="true", metavar="BOOL",
                              help="verify the IR after each pass (default true; --verify-each=false)")),
    (("--mlir-pass-statistics",), dict(action="store_true",
                                       help="print each pass's statistics: the ops it removed and added, by name")),
    (("--remarks-filter",), dict(dest="remarks_filter", default=None, metavar="REGEX",
                                 help="emit the remarks of the categories the regex matches (ours: 'dispatch', "
                                      "the variant each op took and why)")),
    (("--mlir-pass-pipeline-crash-reproducer",), dict(dest="crash_reproducer", default=None, metavar="FILE",
                                                      help="when the pipeline fails, write FILE: the IR it started "
                                                           "from and the pipeline (mlir-opt's reproducer format)")),
    (("--mlir-pass-pipeline-local-reproducer",), dict(dest="local_reproducer", action="store_true",
                                                      help="with --mlir-pass-pipeline-crash-reproducer: the IR "
                                                           "before the failing pass and that pass alone")),
    (("--run-reproducer",), dict(action="store_true",
                                 help="run the pipeline a reproducer file names on its IR")),
    (("--mlir-print-op-generic",), dict(action="store_true", help="print every op in generic form")),
    (("--no-type-aliases",), dict(action="store_true",
                                  help="print every !tile.buffer type in full (default: one alias per repeated type)")),
    (("--mlir-timing",), dict(action="store_true", help="print the wall time of parsing, each pass and output")),
    (("--mlir-disable-threading",), dict(action="store_true",
                                         help="accepted for mlir-opt compatibility: tile_mlir's contexts are "
                                              "single-threaded already")),
    (("--dump-pass-pipeline",), dict(action="store_true", help="print the pipeline that will run, to stderr")),
    (("--emit-bytecode",), dict(action="store_true", help="write MLIR bytecode instead of text")),
    (("--show-dialects",), dict(action="store_true", help="list the dialects tile-opt can parse")),
    (("--list-passes",), dict(action="store_true", help="list our passes and pipelines")),
    (("--emit-irdl",), dict(action="store_true",
                            help="print the tile dialect in IRDL, generated from OP_SPECS (lib/TileOps.irdl)")),
    (("--version",), dict(action="store_true", help="print version, bindings provider and LLVM version")),
)
TAKES_VALUE = frozenset(f for flags, kw in OPTIONS if kw.get("action") not in ("store_true",) and "nargs" not in kw
                         for f in flags)
KNOWN = frozenset(f for flags, _ in OPTIONS for f in flags) | {"-h", "--help"}
