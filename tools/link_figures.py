"""Figures and reference numbers for docs/links.md, computed independently of the
simulator's own code where they serve as a check.

* 802.11b saturation throughput against stations: cwnd's DCF (the `dcf_saturation`
  example) next to Bianchi's (2000) model, solved here in Python.
* 802.16 TCP goodput against SNR: cwnd runs (one TCP flow over a cell) next to the
  frame arithmetic, without fading and with the `wimax` study's fading profiles.
* The loss of 1500-byte packets in each of the `wimax` study's profiles, by Monte
  Carlo over fading draws with `math.erfc` (the numbers tests/wimax.rs checks).

Usage (from the project venv, after `make build`):

    python tools/link_figures.py            # writes docs/figures/*.png, prints tables
    python tools/link_figures.py --losses   # only the loss table
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "figures"

# ---------------------------------------------------------------------------
# 802.16-2004 OFDM PHY: (name, bits per subcarrier, coding rate, receiver SNR dB
# for BER 1e-6 (§8.3.11.1), uncoded block bytes (§8.3.3.2)).
MCS = [
    ("BPSK 1/2", 1, 1 / 2, 6.4, 12),
    ("QPSK 1/2", 2, 1 / 2, 9.4, 24),
    ("QPSK 3/4", 2, 3 / 4, 11.2, 36),
    ("16-QAM 1/2", 4, 1 / 2, 16.4, 48),
    ("16-QAM 3/4", 4, 3 / 4, 18.2, 72),
    ("64-QAM 2/3", 6, 2 / 3, 22.7, 96),
    ("64-QAM 3/4", 6, 3 / 4, 24.4, 108),
]
AMC_MARGIN_DB = 2.0
PDU_BYTES = 1500 + 10
DL_DATA_SYMBOLS = 170  # 20 MHz, G = 1/4, 5 ms, even split, one subscriber
FRAME_S = 0.005
PROFILES = {  # name: (SNR dB, Rician K, diversity branches)
    "los_snr30": (30.0, 10.0, 2),
    "los_snr10": (10.0, 10.0, 2),
    "nlos_snr30": (30.0, 0.0, 2),
    "nlos_snr10": (10.0, 0.0, 2),
}


def q(x: np.ndarray) -> np.ndarray:
    erfc = np.vectorize(math.erfc, otypes=[float])
    return 0.5 * erfc(x / math.sqrt(2.0))


def modulation_ber(bits: int, gamma: np.ndarray) -> np.ndarray:
    """AWGN BER with Gray mapping at symbol SNR gamma (Goldsmith 2005, Table 6.1)."""
    if bits == 1:
        return q(np.sqrt(2 * gamma))
    if bits == 2:
        return q(np.sqrt(gamma))
    m = 2**bits
    return np.minimum(0.5, 4 / bits * (1 - 1 / math.sqrt(m)) * q(np.sqrt(3 * gamma / (m - 1))))


def coding_gain_db(bits: int, threshold_db: float) -> float:
    """Shift that puts BER 1e-6 at the standard's receiver SNR."""
    lo, hi = -10.0, 60.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if modulation_ber(bits, np.array([10 ** (mid / 10)]))[0] > 1e-6:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2 - threshold_db


GAINS = [coding_gain_db(b, t) for _, b, _, t, _ in MCS]


def amc_index(snr_db: np.ndarray) -> np.ndarray:
    """Fastest scheme with threshold + margin ≤ SNR, else the most robust (0)."""
    idx = np.zeros(snr_db.shape, dtype=int)
    for i, (_, _, _, t, _) in enumerate(MCS):
        idx[snr_db >= t + AMC_MARGIN_DB] = i
    return idx


def fading_gains(k: float, branches: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Per-frame power gain: Rician K per branch, branches averaged (mean 1)."""
    direct = math.sqrt(k / (k + 1))
    sd = math.sqrt(1 / (2 * (k + 1)))
    g = np.zeros(n)
    for _ in range(branches):
        re = direct + sd * rng.standard_normal(n)
        im = sd * rng.standard_normal(n)
        g += re**2 + im**2
    return g / branches


def block_error_rate(snr_db: np.ndarray) -> np.ndarray:
    """Error rate of one FEC block (one symbol) at each SNR under AMC."""
    idx = amc_index(snr_db)
    bler = np.zeros(snr_db.shape)
    for i, (_, bits, _, _, block) in enumerate(MCS):
        sel = idx == i
        ber = modulation_ber(bits, 10 ** ((snr_db[sel] + GAINS[i]) / 10))
        bler[sel] = -np.expm1(8 * block * np.log1p(-ber))
    return bler


def packet_loss(snr_db: np.ndarray) -> np.ndarray:
    """Loss of a 1510-byte PDU at each SNR under AMC: each block (one symbol) is
    wrong with 1 − (1 − BER)^(8·block); a PDU at a uniformly random offset touches
    q + 1 blocks, or q + 2 with probability r/B, where 1509 = qB + r."""
    idx = amc_index(snr_db)
    loss = np.zeros(snr_db.shape)
    for i, (_, bits, _, _, block) in enumerate(MCS):
        sel = idx == i
        if not sel.any():
            continue
        ber = modulation_ber(bits, 10 ** ((snr_db[sel] + GAINS[i]) / 10))
        ok_block = np.exp(8 * block * np.log1p(-ber))
        qb, r = divmod(PDU_BYTES - 1, block)
        ok = (1 - r / block) * ok_block ** (qb + 1) + r / block * ok_block ** (qb + 2)
        loss[sel] = 1 - ok
    return loss


def profile_losses(draws: int = 10_000_000, seed: int = 7) -> dict[str, tuple[float, float]]:
    """Per profile: (block error rate, loss of a PDU sent within one frame), each
    averaged over frames. A saturated downlink sends the same number of blocks in
    every frame, so the first is exactly what it measures; packets, though, are
    not spread evenly over frames (fewer per frame at robust schemes) and often
    straddle two frames at low rates, so its packet loss differs from the second."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, (snr, k, branches) in PROFILES.items():
        blocks, packets = 0.0, 0.0
        for chunk in range(0, draws, 1_000_000):
            n = min(1_000_000, draws - chunk)
            g = fading_gains(k, branches, n, rng)
            snr_db = snr + 10 * np.log10(np.maximum(g, 1e-30))
            blocks += block_error_rate(snr_db).sum()
            packets += packet_loss(snr_db).sum()
        out[name] = (blocks / draws, packets / draws)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--losses", action="store_true", help="only print the loss table")
    args = parser.parse_args()
    print("Per profile (Monte Carlo, 10^7 frames): block error rate, PDU loss in one frame")
    for name, (bler, loss) in profile_losses().items():
        print(f"  {name:11s} {bler:.4g}  {loss:.4g}")
    if args.losses:
        return


if __name__ == "__main__":
    main()
