// Does TMA take a box larger than the tensor's extent? Encode tensor maps whose box exceeds globalDim, load
// (zero fill past the edge expected) and store (clipped) through them, and compare with what is expected.
// On the GPU machine (it has nvcc and the driver): nvcc -arch=sm_90a probe.cu -lcuda -o probe && ./probe
// (bench/results/h200-tma-box-larger-2026-12-02.txt; docs/tma.md §2, the tensor-map-box rule).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>
#define ROWS 128
#define COLS 64
__global__ void load_k(const __grid_constant__ CUtensorMap tm, unsigned short* out) {
  __shared__ alignas(1024) unsigned short s[ROWS * COLS];
  __shared__ alignas(8) unsigned long long bar;
  for (int i = threadIdx.x; i < ROWS * COLS; i += blockDim.x) s[i] = 0xFFFF;
  unsigned b = __cvta_generic_to_shared(&bar), d = __cvta_generic_to_shared(s);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" :: "r"(b), "r"(ROWS * COLS * 2));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(d), "l"(&tm), "r"(0), "r"(0), "r"(b) : "memory");
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared.b64 p, [%0], 0; @!p bra W; }" :: "r"(b) : "memory");
  }
  __syncthreads();
  for (int i = threadIdx.x; i < ROWS * COLS; i += blockDim.x) out[i] = s[i];
}
__global__ void store_k(const __grid_constant__ CUtensorMap tm) {
  __shared__ alignas(1024) unsigned short s[ROWS * COLS];
  for (int i = threadIdx.x; i < ROWS * COLS; i += blockDim.x) s[i] = (unsigned short)(i * 7 + 1);
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned d = __cvta_generic_to_shared(s);
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&tm), "r"(0), "r"(0), "r"(d) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
int main() {
  cuInit(0);
  cudaFree(0);
  const int cases[][2] = {{100, 64}, {1, 64}, {100, 40}, {1, 8}, {128, 64}};  // (rows, cols) of the tensor
  int bad = 0;
  for (auto& c : cases) {
    int rows = c[0], cols = c[1];
    std::vector<unsigned short> h(ROWS * COLS, 0xAAAA);  // the allocation is a whole box; the tensor a corner
    for (int r = 0; r < rows; ++r) for (int k = 0; k < cols; ++k) h[r * cols + k] = (unsigned short)(r * 1000 + k + 1);
    unsigned short *g, *o;
    cudaMalloc(&g, ROWS * COLS * 2); cudaMalloc(&o, ROWS * COLS * 2);
    cudaMemcpy(g, h.data(), ROWS * COLS * 2, cudaMemcpyHostToDevice);
    CUtensorMap tm;
    cuuint64_t dim[2] = {(cuuint64_t)cols, (cuuint64_t)rows}, stride[1] = {(cuuint64_t)cols * 2};
    cuuint32_t box[2] = {COLS, ROWS}, es[2] = {1, 1};
    CUresult e = cuTensorMapEncodeTiled(&tm, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, g, dim, stride, box, es,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("tensor %d x %d, box %d x %d: encode %d\n", rows, cols, ROWS, COLS, (int)e);
    if (e != CUDA_SUCCESS) { bad++; continue; }
    load_k<<<1, 128>>>(tm, o);
    cudaError_t ke = cudaDeviceSynchronize();
    std::vector<unsigned short> got(ROWS * COLS);
    cudaMemcpy(got.data(), o, ROWS * COLS * 2, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int r = 0; r < ROWS; ++r) for (int k = 0; k < COLS; ++k) {
      unsigned short want = (r < rows && k < cols) ? h[r * cols + k] : 0;
      wrong += got[r * COLS + k] != want;
    }
    printf("  load: kernel %d, %d of %d elements differ from (tensor, zeros past its edges)\n", (int)ke, wrong, ROWS * COLS);
    cudaMemcpy(g, h.data(), ROWS * COLS * 2, cudaMemcpyHostToDevice);
    store_k<<<1, 128>>>(tm);
    ke = cudaDeviceSynchronize();
    std::vector<unsigned short> st(ROWS * COLS);
    cudaMemcpy(st.data(), g, ROWS * COLS * 2, cudaMemcpyDeviceToHost);
    int swrong = 0;
    for (int i = 0; i < ROWS * COLS; ++i) {
      unsigned short want = h[i];
      if (i < rows * cols) { int r = i / cols, k = i % cols; want = (unsigned short)((r * COLS + k) * 7 + 1); }
      swrong += st[i] != want;
    }
    printf("  store: kernel %d, %d of %d words differ from (the box's corner in the tensor, the rest untouched)\n", (int)ke, swrong, ROWS * COLS);
    bad += wrong + swrong + (ke != cudaSuccess);
    cudaFree(g); cudaFree(o);
  }
  printf("%s\n", bad ? "MISMATCH" : "all as expected");
  return 0;
}
