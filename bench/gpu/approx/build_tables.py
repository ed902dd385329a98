"""Build python/tile_mlir/sim/data/approx_tables.npz from the files measure.py and measure_trig.py
wrote (their first-difference form decoded, re-encoded by approx_tables.encode), checking on the way
the facts the models rely on (sin/cos symmetries at every reached phase).

    python3 build_tables.py MEASURE_DIR TRIG_DIR
"""
import lzma
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "python"))
from tile_mlir.sim.approx_tables import DATA, encode  # noqa: E402


def dec_measure(z, nm):
    d = np.frombuffer(lzma.decompress(z[nm + "__z"].tobytes()), np.int8).astype(np.int64)
    d[z[nm + "__ei"]] = z[nm + "__ev"]
    return np.cumsum(d).astype(np.uint32)


def dec_trig(z, nm):
    d = np.frombuffer(lzma.decompress(z[nm + ".d"].tobytes()), np.int8).astype(np.int64)
    idx = np.cumsum(np.frombuffer(lzma.decompress(z[nm + ".i"].tobytes()), np.int32).astype(np.int64))
    d[idx] = np.frombuffer(lzma.decompress(z[nm + ".v"].tobytes()), np.int64)
    t = np.cumsum(d).astype(np.uint32)
    if nm + ".mask" not in z.files:
        return t, None
    return t, np.unpackbits(np.frombuffer(lzma.decompress(z[nm + ".mask"].tobytes()), np.uint8)).astype(bool)


def sin_half(S, ms, C, mc):
    """One table over half a turn from the sin and cos tables (cos(k) = sin(k + N/4),
    sin(k + N/2) = -sin(k)); refuses if the measured cells disagree with that."""
    N = S.size
    H, Q, SGN = N >> 1, N >> 2, np.uint32(0x80000000)
    j = np.arange(H)
    U, known = np.zeros(H, np.uint32), np.zeros(H, bool)
    for vals, valid in [(S[:H], ms[:H]), (S[H:] ^ SGN, ms[H:]), (C[(j - Q) % N], mc[(j - Q) % N] & (j >= Q)),
                        (C[(j + Q) % N] ^ SGN, mc[(j + Q) % N])]:
        new = valid & ~known
        U[new] = vals[new]
        known |= new
        assert not (valid & (U != vals)).any(), "sin/cos symmetry broken"
    U = U[np.maximum.accumulate(np.where(known, j, 0))]   # cells no input reaches: any value
    k = np.arange(N)
    def sin_k(k):
        return U[k % H] ^ np.where(k >= H, SGN, np.uint32(0))
    assert not ((sin_k(k) != S) & ms).any() and not ((sin_k((k + Q) % N) != C) & mc).any()
    return U


def main(mdir, tdir):
    mdir, tdir = Path(mdir), Path(tdir)
    t = {}
    for fn in ["t_rcp_rsq", "t_sqrt_lg2", "t_ex2"]:
        z = np.load(mdir / f"{fn}.npz")
        for k in z.files:
            if k.endswith("__z"):
                t[k[:-3]] = dec_measure(z, k[:-3])
    misc = np.load(mdir / "t_misc.npz")
    tabs = {"ex2_pos": t["ex2_pos"][0::2], "ex2_neg": t["ex2_neg"][0::2],   # 23 fraction bits
            "lg2_e0": t["lg2_1_2"], "lg2_em1": t["lg2_h_1"], "rcp": t["rcp_1_2"], "rsqrt": t["rsq_1_4"],
            "sqrt": t["sqrt_1_4"], "rcp64h": t["rcp64_1_2"], "rsqrt64h": t["rsq64_1_4"],
            "tanh_f16": misc["h16__tanh.approx.f16"], "tanh_bf16": misc["h16__tanh.approx.bf16"]}
    S, ms = dec_trig(np.load(tdir / "trig_sinp.npz"), "sin_pos")
    C, mc = dec_trig(np.load(tdir / "trig_cosp.npz"), "cos_pos")
    tabs["sin_half"] = sin_half(S, ms, C, mc)
    zt = np.load(tdir / "trig_tanh.npz")
    tabs["tanh_cp"], tabs["tanh_val"] = dec_trig(zt, "tanh_cp")[0], dec_trig(zt, "tanh_val")[0]
    out = {}
    for name, v in tabs.items():
        for k, a in encode(np.ascontiguousarray(v)).items():
            out[f"{name}.{k}"] = a
    np.savez(DATA, **out)
    print(DATA, Path(DATA).stat().st_size >> 10, "KiB")


if __name__ == "__main__":
    main(*sys.argv[1:3])
