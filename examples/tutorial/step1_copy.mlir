// Tutorial step 1 (docs/tutorial.md): a 32x16 tile from global memory to shared memory and back.
// 128 threads copy the tile together (scope "cta"), meet at a barrier, and copy it out.
!gA = !tile.buffer<global, 32x16xui8>
!sA = !tile.buffer<shared, 32x16xui8, "S[(32, 16) : (16, 1)]">

"tile.kernel"() ({
^bb0(%A: !gA, %out: !gA):
  %smem = "tile.alloc_shared"() : () -> !sA
  "tile.copy"(%smem, %A) {scope = "cta"} : (!sA, !gA) -> ()
  "tile.barrier"() : () -> ()
  "tile.copy"(%out, %smem) {scope = "cta"} : (!gA, !sA) -> ()
  "tile.return"() : () -> ()
}) {sym_name = "step1_copy", block = array<i32: 128, 1, 1>} : () -> ()
