"""The privacy profile of the Gaussian mechanism in double precision, without cancellation.

For noise σ on L2 sensitivity Δ write ``u = Δ/σ``, ``a = u/2 − ε/u``, ``w = u/2 + ε/u`` (so the
``b`` of Balle & Wang 2018 is ``−w``) and ``c = −a``. The exact profile is
``δ = Φ(a) − e^ε Φ(−w)``; evaluated as written it cancels catastrophically (both terms near 1/2
for a tiny ε, or both deep in the tail for a small ε and δ) and even overflows (e^ε).

Identities. ``w² − a² = 2ε``, so ``e^ε Φ(−w) = φ(a) R(w)`` with ``R(x) = Φ(−x)/φ(x)`` the Mills
ratio (``R(x) = sqrt(π/2) erfcx(x/√2)``: no e^ε, no underflow) and ``Φ(a) = φ(a) R(c)``, so

    δ = φ(a) [R(c) − R(c + u)],      R(c) − R(c + u) = Σ_{k>=1} (−1)^{k+1} u^k J_k(c) / k!,

with ``J_k(c) = ∫_0^∞ y^k e^{−cy − y²/2} dy = (−1)^k R^{(k)}(c) > 0`` (``J_0 = R``,
``J_1 = 1 − cR``, ``J_{k+1} = k J_{k−1} − c J_k``). Each branch below is a sum of positive terms or
a difference whose cancellation factor (larger term / result) is bounded:

* ``a >= 0``: ``δ = ½[erf(a/√2) + erf(w/√2)] − (1 − e^{−ε}) φ(a) R(w)`` (the interval
  ``[−w, a]`` straddles 0, so its probability is a sum of two erf; no e^ε). Factor <= 1.48
  (scanned over ``u`` in [1e-8, 3e3] and ``0 <= ε <= u²/2``; largest near ``a = 0, u = 1.4``).
* ``a < 0``, ``u > η(1 + c)`` (η = 1/4, "wide"): ``R(c) − R(c + u)``. For large ``c``,
  ``R ≈ 1/c`` gives the factor ``≈ (c + u)/u <= 1 + 1/η``; it is largest at ``c = 0``:
  ``R(0)/(R(0) − R(1/4)) = 5.82``.
* ``a < 0``, ``u <= η(1 + c)`` ("narrow"): the Taylor series, an alternating series whose terms
  shrink by the ratio ``u/(c + J_{k+2}/J_{k+1})`` (``<= u/c <= 3/8`` for ``c >= 2``; scanned
  ``<= 0.28`` everywhere), so the first term dominates; summed to 1e-18 relative, in log form
  (``u J_1`` may underflow). ``J_k`` comes from the forward recurrence for ``c <= 2`` and, for
  ``c > 2``, from the continued fraction ``J_k/J_{k−1} = k/(c + J_{k+1}/J_k)`` run backward from
  depth 160 (positive terms only; its truncation error is below 1e-16 at ``c = 2``).

Error. Measured against mpmath: erf <= 1.3 ulp, erfcx <= 8 ulp. With exact ``c`` and ``u`` the
log of the bracket is within ``17·2**-53 (1 + |log|)`` (wide; narrow with ``c <= 2``) and
``4·2**-53 (1 + |log|)`` (narrow, ``c > 2``). Returning ``log δ`` costs ``|log δ|·2**-53``.
Rounding ``a`` and ``w`` from ``u`` and ``ε`` perturbs the input, to which δ reacts with a
condition number ``~ |a|·w``. Against 50-digit mpmath over 55,000 random ``(u, ε)`` covering all
branches the relative error was ``<= 3.2·2**-53 (|log δ| + |a|·w + 100)``;
``tests/core/noise/test_gaussian_profile.py`` asserts ``4·2**-53 (...)`` on 90 references. Where
δ >= 1e-300 and ε <= 1e6, ``a < 0`` forces ``c <= 37`` (``δ <= Φ(−c)``) and ``u < sqrt(2ε)``,
so the bound is <= 2.5e-11: far inside the 1e-9 margin of the calibration.
"""

from __future__ import annotations

import math

# scipy (special.erfcx, optimize.brentq) is imported inside the functions that use it:
# it takes most of the time of `import dpatlas` (tests/core/test_lazy_imports.py).

_SQRT_HALF = math.sqrt(0.5)
_SQRT_HALF_PI = math.sqrt(math.pi / 2)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_ETA = 0.25
_TERMS = 40
_CF_DEPTH = 160


def _mills(x: float) -> float:
    """R(x) = Φ(−x)/φ(x) for x >= 0, to <= 8 ulp (scipy's erfcx)."""
    from scipy import special

    return _SQRT_HALF_PI * float(special.erfcx(x * _SQRT_HALF))


def _log_j1_and_ratios(c: float) -> tuple[float, list[float]]:
    """log J_1(c) and the ratios J_k/J_{k−1}, k = 1..40, for c >= 0 (no underflow for any c)."""
    r0 = _mills(c)
    if c <= 2:  # forward recurrence: J_1 = 1 − cR >= 0.15, the J_k stay moderate
        j = [r0, 1.0 - c * r0]
        for k in range(1, _TERMS):
            j.append(k * j[k - 1] - c * j[k])
        return math.log(j[1]), [0.0] + [j[k] / j[k - 1] for k in range(1, _TERMS + 1)]
    ratios, r = [0.0] * (_CF_DEPTH + 1), 0.0
    for k in range(_CF_DEPTH, 0, -1):  # backward continued fraction: positive terms only
        r = k / (c + r)
        ratios[k] = r
    return math.log(r0 * ratios[1]), ratios[: _TERMS + 1]


def _log_narrow(c: float, u: float) -> float:
    """log(R(c) − R(c + u)) by the Taylor series in u (c >= 0, u <= η(1 + c))."""
    log_j1, ratios = _log_j1_and_ratios(c)
    terms = [1.0]  # term k divided by the first, u J_1
    for k in range(2, _TERMS + 1):
        terms.append(-terms[-1] * u * ratios[k] / k)
        if abs(terms[-1]) < 1e-18:
            break
    return math.log(u) + log_j1 + math.log(math.fsum(terms))


def log_profile(u: float, epsilon: float) -> float:
    """log δ(ε) of the Gaussian mechanism at ``u = Δ/σ > 0``, ``ε >= 0`` (module docstring).

    Examples
    --------
    >>> round(math.exp(log_profile(1 / 3.730631634944469, 1.0)), 12)
    1e-05
    >>> log_profile(2.5e-96, 7.04e-97)  # δ = 6.8464e-97: both terms of Φ(a) − e^ε Φ(b) are ~1/2
    -221.427...
    """
    a, w = u / 2 - epsilon / u, u / 2 + epsilon / u
    if a >= 0:
        straddle = 0.5 * (math.erf(a * _SQRT_HALF) + math.erf(w * _SQRT_HALF))
        tail = -math.expm1(-epsilon) * math.exp(-0.5 * a * a - _LOG_SQRT_2PI) * _mills(w)
        return math.log(straddle - tail)
    c = -a
    if c > 1e154:  # φ(a) = 0 in floating point; δ < 1e-300000
        return -math.inf
    wide = u > _ETA * (1 + c)
    log_gap = math.log(_mills(c) - _mills(w)) if wide else _log_narrow(c, u)
    return -0.5 * c * c - _LOG_SQRT_2PI + log_gap


def solve_ratio(epsilon: float, log_target: float) -> float:
    """The ratio ``u = Δ/σ`` where ``log_profile(u, ε) = log_target`` (to ~1e-15 relative).

    ``δ(u) <= 2Φ(u/2) − 1 <= u φ(0)`` gives ``δ(2δ) < 0.8 δ``: the search starts there (the
    root is a normal float for ``δ >= 1e-300``), doubles its step in ``log u`` until the profile
    exceeds the target, narrows the bracket to a factor e by bisection in ``log u``, and ends with
    Brent's method on ``u`` itself (its estimate is returned even if unconverged: the caller
    checks the profile at the final σ).

    Examples
    --------
    >>> 1 / solve_ratio(1.0, math.log(1e-5))
    3.7306316348...
    """

    def excess(u: float) -> float:
        return log_profile(u, epsilon) - log_target

    lo, step = log_target + math.log(2.0), 1.0
    hi = lo + step
    while excess(math.exp(hi)) <= 0:
        lo, step = hi, 2 * step
        hi = lo + step
    while hi - lo > 1:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if excess(math.exp(mid)) <= 0 else (lo, mid)
    u_lo, u_hi = math.exp(lo), math.exp(hi)
    from scipy import optimize

    return optimize.brentq(
        excess, u_lo, u_hi, xtol=u_lo * 2.0**-60, rtol=4 * 2.0**-52, maxiter=200, disp=False
    )
