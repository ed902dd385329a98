"""tile-opt's mlir-opt flags added for issue 23 item 4 (the rest: test_tile_opt.py)."""
import os

from test_tile_opt import GOOD, tile_opt, write  # noqa: F401  (the fixture)

DENSE = "func.func @f() -> tensor<4xi32> {\n  %c = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>\n" \
        "  return %c : tensor<4xi32>\n}\n"


def test_print_ir_after_a_pass_not_in_the_pipeline_is_an_error(write):
    rc, out, err = tile_opt([write(GOOD), "--tile-verify", "--canonicalize", "--mlir-print-ir-after=canonicalise"])
    assert (rc, out) == (1, "")
    assert err == ("tile-opt: error: --mlir-print-ir-before/after: no pass 'canonicalise' in the pipeline (its passes: "
                   "canonicalize, tile-verify); did you mean 'canonicalize'?\n")
    rc, _, err = tile_opt([write(GOOD), "--tile-verify", "--canonicalize", "--mlir-print-ir-after=canonicalize"])
    assert rc == 0 and "// -----// IR Dump After canonicalize" in err


def test_help_lists_pass_options():
    rc, out, _ = tile_opt(["--help"])
    lines = out.split("\n")
    i = next(k for k, s in enumerate(lines) if s.startswith("  --tile-lower-copy-async "))
    assert rc == 0 and lines[i + 1].split()[0] == "chip=<value>" and "target chip" in lines[i + 1]
    assert any(s.split()[:1] == ["features=<value>"] for s in lines)


def test_verify_each(write):
    assert tile_opt([write(GOOD), "--tile-verify", "--verify-each=false"])[0] == 0
    assert tile_opt([write(GOOD), "--verify-each", "--tile-verify"])[0] == 0
    rc, _, err = tile_opt([write(GOOD), "--verify-each=maybe"])
    assert rc == 1 and "--verify-each: expected true or false, got 'maybe'" in err


def test_print_local_scope_and_elided_elements(write):
    rc, out, err = tile_opt([write(DENSE), "--mlir-elide-elementsattrs-if-larger=2"])
    assert (rc, err) == (0, "") and "dense<[1, 2, 3, 4]>" not in out and "__elided__" in out
    rc, out, _ = tile_opt([write(DENSE), "--mlir-print-local-scope"])
    assert rc == 0 and "dense<[1, 2, 3, 4]>" in out


def test_print_ir_tree_dir(write, tmp_path):
    tree = tmp_path / "tree"
    rc, out, err = tile_opt([write(GOOD), "--tile-verify", "--canonicalize", "--mlir-print-ir-after-all",
                             f"--mlir-print-ir-tree-dir={tree}"])
    assert (rc, err) == (0, "") and '"tile.kernel"' in out
    names = sorted(os.listdir(tree))
    assert len(names) == 2 and names[0].startswith("001_After_") and names[1].startswith("002_After_")
    assert (tree / names[1]).read_text().startswith("// -----// IR Dump After canonicalize")


def test_pass_statistics_count_the_ops_each_pass_removed_and_added(write):
    cse = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  %1 = arith.addi %a, %a : i32\n" \
          "  %2 = arith.muli %0, %1 : i32\n  return %2 : i32\n}\n"
    rc, out, err = tile_opt([write(cse), "--cse", "--mlir-pass-statistics"])
    assert rc == 0 and out.count("arith.addi") == 1
    report = err.split("... Pass statistics report ...", 1)[1]
    assert "\n  cse\n    (S)    1 arith.addi - operations removed\n" in report


def test_remarks_filter_must_be_a_regex(write):
    rc, _, err = tile_opt([write(GOOD), "--remarks-filter=("])
    assert rc == 1 and "--remarks-filter: not a regular expression" in err
