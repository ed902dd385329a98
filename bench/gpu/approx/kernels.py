"""CUDA kernels (inline PTX) that run each .approx instruction form on the GPU, for the measurement
(measure.py) and the exhaustive check (check.py) of tile-sim's approximate-math models.

Every kernel computes out[i] = INSTR(in) with in = base + i (a sweep of the bit patterns) or in[i]
(an explicit list). Built with cupy's RawModule (NVRTC) for the GPU present.
"""

F32 = {  # form -> PTX instruction
    "ex2.approx.f32": "ex2.approx.f32", "ex2.approx.ftz.f32": "ex2.approx.ftz.f32",
    "lg2.approx.f32": "lg2.approx.f32", "lg2.approx.ftz.f32": "lg2.approx.ftz.f32",
    "rcp.approx.f32": "rcp.approx.f32", "rcp.approx.ftz.f32": "rcp.approx.ftz.f32",
    "rsqrt.approx.f32": "rsqrt.approx.f32", "rsqrt.approx.ftz.f32": "rsqrt.approx.ftz.f32",
    "sqrt.approx.f32": "sqrt.approx.f32", "sqrt.approx.ftz.f32": "sqrt.approx.ftz.f32",
    "sin.approx.f32": "sin.approx.f32", "sin.approx.ftz.f32": "sin.approx.ftz.f32",
    "cos.approx.f32": "cos.approx.f32", "cos.approx.ftz.f32": "cos.approx.ftz.f32",
    "tanh.approx.f32": "tanh.approx.f32",
}
H16 = {"ex2.approx.f16": "ex2.approx.f16", "ex2.approx.ftz.bf16": "ex2.approx.ftz.bf16",
       "tanh.approx.f16": "tanh.approx.f16", "tanh.approx.bf16": "tanh.approx.bf16"}
X2 = {"ex2.approx.f16x2": "ex2.approx.f16", "ex2.approx.ftz.bf16x2": "ex2.approx.ftz.bf16",
      "tanh.approx.f16x2": "tanh.approx.f16", "tanh.approx.bf16x2": "tanh.approx.bf16"}
F64 = {"rcp.approx.ftz.f64": "rcp.approx.ftz.f64", "rsqrt.approx.f64": "rsqrt.approx.f64",
       "rsqrt.approx.ftz.f64": "rsqrt.approx.ftz.f64"}


def kname(form):
    return "k_" + form.replace(".", "_")


def source():
    s = ["typedef unsigned long long u64;"]
    for form, ins in F32.items():
        s.append(f'''extern "C" __global__ void {kname(form)}(const unsigned* in, unsigned* out, u64 n,
 unsigned base) {{ u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; if (i >= n) return;
 unsigned a = in ? in[i] : base + (unsigned)i; float y;
 asm volatile("{ins} %0, %1;" : "=f"(y) : "f"(__uint_as_float(a))); out[i] = __float_as_uint(y); }}''')
    for form, ins in list(H16.items()) + list(X2.items()):
        if form in H16:
            s.append(f'''extern "C" __global__ void {kname(form)}(const unsigned short* in,
 unsigned short* out, u64 n, unsigned base) {{ u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x;
 if (i >= n) return; unsigned short a = in ? in[i] : (unsigned short)(base + (unsigned)i), y;
 asm volatile("{ins} %0, %1;" : "=h"(y) : "h"(a)); out[i] = y; }}''')
        else:
            s.append(f'''extern "C" __global__ void {kname(form)}(const unsigned* in, unsigned* out,
 u64 n, unsigned base) {{ u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; if (i >= n) return;
 unsigned a = in ? in[i] : base + (unsigned)i, y;
 asm volatile("{form} %0, %1;" : "=r"(y) : "r"(a)); out[i] = y; }}''')
    for form, ins in F64.items():
        s.append(f'''extern "C" __global__ void {kname(form)}(const u64* in, u64* out, u64 n,
 unsigned base) {{ u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; if (i >= n) return;
 u64 a = in ? in[i] : ((u64)(base + (unsigned)i) << 32); double y;
 asm volatile("{ins} %0, %1;" : "=d"(y) : "d"(__longlong_as_double((long long)a)));
 out[i] = (u64)__double_as_longlong(y); }}''')
    # sin/cos of the x whose fmul.rz by the f32 1/(2 pi) is exactly r, for every float r of [0.5, 1)
    s.append(r'''extern "C" __global__ void k_sincos_rev(unsigned* xo, unsigned* so, unsigned* co,
 u64 n) { u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; if (i >= n) return;
 unsigned rb = 0x3f000000u + (unsigned)i; float r = __uint_as_float(rb);
 const float c = __uint_as_float(0x3e22f983u); unsigned x0 = __float_as_uint(__fdiv_rn(r, c));
 unsigned hit = 0; for (int d = -4; d <= 4 && !hit; ++d) { unsigned xb = x0 + d;
   if (__float_as_uint(__fmul_rz(__uint_as_float(xb), c)) == rb) hit = xb; }
 xo[i] = hit; float s = 0.f, co_ = 0.f;
 if (hit) { asm volatile("sin.approx.f32 %0, %1;" : "=f"(s) : "f"(__uint_as_float(hit)));
            asm volatile("cos.approx.f32 %0, %1;" : "=f"(co_) : "f"(__uint_as_float(hit))); }
 so[i] = __float_as_uint(s); co[i] = __float_as_uint(co_); }''')
    return "\n".join(s)


class Runner:
    def __init__(self, cp):
        self.cp = cp
        self.mod = cp.RawModule(code=source(), options=("-std=c++17",))
        self.fn = {}

    def f(self, form):
        if form not in self.fn:
            self.fn[form] = self.mod.get_function(kname(form))
        return self.fn[form]

    def sweep(self, form, base, n, dtype):
        """Outputs of `form` for the bit patterns base .. base+n-1 (upper word for f64)."""
        cp = self.cp
        out = cp.empty(n, dtype=dtype)
        blocks = (n + 255) // 256
        self.f(form)((blocks,), (256,), (cp.uint64(0), out, cp.uint64(n), cp.uint32(base & 0xffffffff)))
        return out

    def apply(self, form, x):
        cp = self.cp
        out = cp.empty_like(x)
        n = x.size
        self.f(form)(((n + 255) // 256,), (256,), (x, out, cp.uint64(n), cp.uint32(0)))
        return out
