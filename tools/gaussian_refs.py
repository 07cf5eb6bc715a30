"""Regenerate the 50-digit references of tests/core/noise/test_gaussian_profile.py (needs mpmath).

Usage: ``.venv/bin/python tools/gaussian_refs.py calib`` prints the CALIBRATION rows (epsilon,
delta, root for delta * (1 - 2e-9), root for delta) and ``... profile`` the AT_ROOT and
BOUNDARIES rows (sigma, sensitivity, epsilon, delta). The privacy profile is evaluated as
Phi(a) - phi(a) R(-b) (R the Mills ratio), at a working precision raised until two
evaluations agree to the requested digits. mpmath is a dev extra; the tests do not import it.
"""

import sys

import mpmath as mp

mp.mp.dps = 50


def ref_delta_u(u, eps, want=40):
    """delta for exact rational u = sens/sigma (given as mpf/float) and eps; returns mpf."""
    dps = 60
    prev = None
    while True:
        with mp.workdps(dps):
            U, E = mp.mpf(u), mp.mpf(eps)
            a = U / 2 - E / U
            b = -U / 2 - E / U
            val = _delta_ab(a, b)
        if prev is not None and val != 0 and abs(val - prev) <= abs(val) * mp.mpf(10) ** (-want):
            return +val
        if val == 0 and a < -1000:
            return val
        prev = val
        dps = int(dps * 1.6) + 20
        if dps > 5000:
            raise RuntimeError((u, eps))


def ref_delta(sigma, sens, eps, want=40):
    with mp.workdps(80):
        pass
    dps = 60
    prev = None
    while True:
        with mp.workdps(dps):
            s, d, E = mp.mpf(sigma), mp.mpf(sens), mp.mpf(eps)
            a = d / (2 * s) - E * s / d
            b = -d / (2 * s) - E * s / d
            val = _delta_ab(a, b)
        if prev is not None and val != 0 and abs(val - prev) <= abs(val) * mp.mpf(10) ** (-want):
            return +val
        prev = val
        dps = int(dps * 1.6) + 20
        if dps > 5000:
            raise RuntimeError((sigma, sens, eps))


def _delta_ab(a, b):
    """Phi(a) - e^eps Phi(b) with eps = (b^2 - a^2)/2; second term as phi(a) R(-b)."""
    if a < -1000:
        return mp.mpf(0)
    w = -b
    phia = mp.npdf(a)
    if w > 1e6:
        second = phia / w * (1 - 1 / w**2 + 3 / w**4 - 15 / w**6)
    else:
        second = phia * mp.erfc(w / mp.sqrt(2)) / 2 / mp.npdf(w)
    first = mp.ncdf(a) if a < 1e6 else mp.mpf(1)
    return first - second


def root(eps, target):
    """u with delta(u) = target (mpf), bisection in log u to 1e-35."""
    lo = mp.log(2 * target) if target < 0.4 else mp.mpf(-3)
    while ref_delta_u(mp.exp(lo), eps, want=45) > target:
        lo -= 1
    hi = lo + 1
    while ref_delta_u(mp.exp(hi), eps, want=45) <= target:
        hi += 1
    while hi - lo > mp.mpf(10) ** -35:
        mid = (lo + hi) / 2
        if ref_delta_u(mp.exp(mid), eps, want=45) > target:
            hi = mid
        else:
            lo = mid
    return mp.exp(lo)


EPS = [1e-300, 7.04e-97, 1e-30, 1e-10, 1e-3, 0.5, 1.0, 10.0, 1e3, 1e6]
DELTAS = [1e-300, 7.04e-97, 1e-30, 1e-10, 1e-5, 0.1, 0.9]
mode = sys.argv[1] if len(sys.argv) > 1 else ""
if mode not in ("calib", "profile"):
    sys.exit("usage: python tools/gaussian_refs.py calib|profile")
if mode == "calib":
    for e in EPS:
        for d in DELTAS:
            with mp.workdps(60):
                hi = root(e, mp.mpf(d))
                lo = root(e, mp.mpf(d) * (1 - mp.mpf("2e-9")))
            print(f"    ({e!r}, {d!r}, {float(lo)!r}, {float(hi)!r}),", flush=True)
if mode == "profile":
    pts = [(0.5 / float(root(e, mp.mpf(d))), 0.5, e) for e in EPS for d in DELTAS]
    # branch boundaries and special regimes: (u, eps) with sensitivity 1
    extra = [
        (1.0, 0.5),
        (1.0, 0.5 * (1 + 1e-12)),
        (1.0, 0.5 * (1 - 1e-12)),  # a = 0
        (0.5, 0.625 * (1 - 1e-12)),
        (0.5, 0.625 * (1 + 1e-12)),  # u = eta (1 + c), c = 1
        (0.1, 0.1 * (2 + 0.05) * (1 - 1e-13)),
        (0.1, 0.1 * (2 + 0.05) * (1 + 1e-13)),  # c = 2
        (1e-20, 3e-19),
        (3e-9, 1e-7),
        (1e-6, 1e-6),
        (2e-4, 1e-3),  # narrow
        (1e-200, 0.0),
        (0.3, 0.0),  # eps = 0: total variation
        (1415.0, 1e6),
        (1400.0, 1e6),
        (2000.0, 1e6),
        (40.0, 1e3),  # large eps
        (8.0, 50.0),
        (3.0, 20.0),
        (0.02, 0.5),
    ]
    for u, e in extra:
        pts.append((1.0 / u, 1.0, e))
    for s, d, e in pts:
        ref = ref_delta(s, d, e, want=45)
        print(f"    ({s!r}, {d!r}, {e!r}, {mp.nstr(ref, 17)}),", flush=True)
