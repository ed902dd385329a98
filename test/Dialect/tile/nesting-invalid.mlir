// RUN: %PYTHON -c "print('module {\n' * 5000 + '}\n' * 5000)" | not tile-opt - --tile-verify 2>&1 | FileCheck %s --check-prefix=MODULES
// RUN: %PYTHON -c "print('module attributes {a.b = ' + '[' * 20000 + ']' * 20000 + '} {}')" | not tile-opt - 2>&1 | FileCheck %s --check-prefix=ARRAYS
//
// Nesting deeper than tile_mlir.frontend.text_checks.MAX_NESTING brackets is refused before MLIR's parser sees
// it: 5,000 nested `module {` (45 KB) overflowed the parser's stack (SIGSEGV).

// MODULES: <stdin>:257:8: error: bracket nested 257 deep: tile IR nests '{', '(', '[' and '<' at most 256 deep
// ARRAYS: <stdin>:1:281: error: bracket nested 257 deep
