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
import csv
import io
import math
import subprocess
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


# ---------------------------------------------------------------------------
# 802.11b DCF: Bianchi (2000), "Performance Analysis of the IEEE 802.11 Distributed
# Coordination Function", JSAC 18(3), eqs. (7), (9), (13); timing of 802.11b at
# 11 Mb/s with 1 Mb/s control frames and the long preamble (192 µs), 1500-byte IP
# packets + 36 B of MAC overhead, slot 20 µs, SIFS 10 µs, DIFS 50 µs, δ = 1 µs.
SLOT_US, SIFS_US, DIFS_US, DELTA_US, PLCP_US = 20.0, 10.0, 50.0, 1.0, 192.0


def airtime_us(nbytes: int, rate_mbps: float) -> float:
    return PLCP_US + nbytes * 8 / rate_mbps


def dcf_times_us(access: str) -> tuple[float, float]:
    """(T_s, T_c) of a 1500-byte packet, Bianchi §IV."""
    data, ack = airtime_us(1500 + 36, 11.0), airtime_us(14, 1.0)
    rts, cts = airtime_us(20, 1.0), airtime_us(14, 1.0)
    ts = data + SIFS_US + DELTA_US + ack + DIFS_US + DELTA_US
    if access == "basic":
        return ts, data + DIFS_US + DELTA_US
    handshake = rts + SIFS_US + DELTA_US + cts + SIFS_US + DELTA_US
    return handshake + ts, rts + DIFS_US + DELTA_US


def bianchi_mbps(n: int, access: str, w: int = 32, m: int = 5) -> float:
    def tau_of(p: float) -> float:
        if abs(1 - 2 * p) < 1e-12:  # eq. (7) is 0/0 at p = 1/2: step beside it
            p = 0.5 - 1e-9
        return 2 * (1 - 2 * p) / ((1 - 2 * p) * (w + 1) + p * w * (1 - (2 * p) ** m))

    lo, hi = 0.0, 1.0
    for _ in range(200):
        tau = (lo + hi) / 2
        if tau_of(1 - (1 - tau) ** (n - 1)) > tau:
            lo = tau
        else:
            hi = tau
    tau = (lo + hi) / 2
    p_tr = 1 - (1 - tau) ** n
    p_s = n * tau * (1 - tau) ** (n - 1) / p_tr
    ts, tc = dcf_times_us(access)
    slot_time = (1 - p_tr) * SLOT_US + p_tr * p_s * ts + p_tr * (1 - p_s) * tc
    return p_s * p_tr * 1500 * 8 / slot_time


def dcf_simulated() -> list[dict[str, str]]:
    """cwnd's DCF, from the `dcf_saturation` example."""
    out = subprocess.run(
        ["cargo", "run", "--quiet", "--release", "-p", "cwnd-sim", "--example", "dcf_saturation"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return list(csv.DictReader(io.StringIO(out)))


def figure_dcf(path: Path) -> None:
    import matplotlib.pyplot as plt

    rows = dcf_simulated()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for access, label, colour in [("basic", "basic access", "C0"), ("rts_cts", "RTS/CTS", "C1")]:
        ns = np.arange(1, 51)
        ax.plot(ns, [bianchi_mbps(int(n), access) for n in ns], colour, label=f"Bianchi, {label}")
        pts = [(int(r["stations"]), float(r["mbps"])) for r in rows if r["access"] == access]
        ax.plot(*zip(*pts, strict=True), "o", color=colour, mfc="none", label=f"cwnd, {label}")
        worst = max(abs(y / bianchi_mbps(n, access) - 1) for n, y in pts)
        print(f"DCF {access}: largest deviation from Bianchi {100 * worst:.2f} %")
    ax.set_xlabel("stations (saturated)")
    ax.set_ylabel("throughput (Mb/s of IP packets)")
    ax.set_title("802.11b at 11 Mb/s, 1500-byte packets, long preamble")
    ax.set_ylim(0, 7)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------------------
# 802.16: TCP goodput over a cell against the SNR.
def wimax_scenario(snr_db: float, fading: dict[str, float] | None) -> dict:
    cell: dict = {
        "name": "radio",
        "base_station": "bs",
        "subscribers": ["ss"],
        "snr_db": snr_db,
        "downlink_cap": "30Mbps",
        "uplink_cap": "26.4Mbps",
    }
    if fading:
        cell["fading"] = fading
    return {
        "duration": "12s",
        "links": [{"between": ["server", "bs"], "bandwidth": "100Mbps", "delay": "1ms"}],
        "wimax": [cell],
        "flows": [
            {
                "name": "f",
                "from": "server",
                "to": "ss",
                "cc": "newreno",
                "tcp": {"delayed_ack": True, "sack": True},
            }
        ],
    }


def frame_capacity_mbps(snr_db: float) -> float:
    """TCP payload rate of the downlink at the AMC's scheme, no errors: 170 symbols
    of blocks per 5 ms frame, 1460 payload bytes per 1510-byte PDU."""
    block = MCS[amc_index(np.array([snr_db]))[0]][4]
    return DL_DATA_SYMBOLS * block * 8 / FRAME_S * 1460 / PDU_BYTES / 1e6


def figure_wimax(path: Path) -> None:
    import matplotlib.pyplot as plt

    import cwnd

    snrs = np.arange(0, 37, 2)
    curves = {
        "constant SNR": None,
        "line of sight (K = 10, 2 branches)": {"k_factor": 10.0, "branches": 2},
        "no line of sight (Rayleigh, 2 branches)": {"k_factor": 0.0, "branches": 2},
    }
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    fine = np.linspace(0, 36, 721)
    ax.plot(
        fine,
        [frame_capacity_mbps(x) for x in fine],
        "k-",
        lw=1,
        label="frame arithmetic (no errors)",
    )
    for (label, fading), marker in zip(curves.items(), "osd", strict=True):
        goodput = []
        for snr in snrs:
            r = cwnd.run(wimax_scenario(float(snr), fading), seed=1)
            tp = r.throughput
            goodput.append(tp[tp["time"] >= 2.0]["goodput_bps"].mean() / 1e6)
        ax.plot(snrs, goodput, marker + "--", mfc="none", label=f"cwnd TCP, {label}")
        points = zip(snrs, goodput, strict=True)
        print(f"WiMAX {label}: " + ", ".join(f"{s}:{g:.2f}" for s, g in points))
    for snr in sorted({snr for snr, _, _ in PROFILES.values()}):
        ax.axvline(snr, color="0.85", lw=0.8, zorder=0)
    ax.set_xlabel("mean SNR (dB)")
    ax.set_ylabel("TCP goodput (Mb/s)")
    ax.set_title("802.16 OFDM-256, 20 MHz, 5 ms, downlink, AMC margin 2 dB")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--losses", action="store_true", help="only print the loss table")
    args = parser.parse_args()
    print("Per profile (Monte Carlo, 10^7 frames): block error rate, PDU loss in one frame")
    for name, (bler, loss) in profile_losses().items():
        print(f"  {name:11s} {bler:.4g}  {loss:.4g}")
    if args.losses:
        return
    FIGURES.mkdir(parents=True, exist_ok=True)
    figure_dcf(FIGURES / "dcf_saturation.png")
    figure_wimax(FIGURES / "wimax_throughput.png")


if __name__ == "__main__":
    main()
