//! Analytic models of TCP throughput, written from the papers (not from the
//! simulator), to check the simulator against.

/// Padhye, Firoiu, Towsley, Kurose, "Modeling TCP Throughput: A Simple Model and
/// its Empirical Validation", SIGCOMM 1998 — the full model (eqs. 30–32), send
/// rate in packets per second.
///
/// p: loss probability; rtt, t0: seconds; b: packets acknowledged per ACK;
/// wmax: receiver window limit in packets.
pub fn pftk_full(p: f64, rtt: f64, t0: f64, b: f64, wmax: f64) -> f64 {
    let q = 1.0 - p;
    // f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶ (backoff series, eq. 28).
    let f = 1.0
        + p
        + 2.0 * p.powi(2)
        + 4.0 * p.powi(3)
        + 8.0 * p.powi(4)
        + 16.0 * p.powi(5)
        + 32.0 * p.powi(6);
    // Q̂(p, w): probability that a loss indication is a timeout (eq. 24).
    let q_hat = |w: f64| -> f64 {
        let num = (1.0 - q.powi(3)) * (1.0 + q.powi(3) * (1.0 - q.powf(w - 3.0)));
        let den = 1.0 - q.powf(w);
        (num / den).min(1.0)
    };
    // E[W] (eq. 13).
    let c = (2.0 + b) / (3.0 * b);
    let ew = c + (8.0 * q / (3.0 * b * p) + c * c).sqrt();
    if ew < wmax {
        let qh = q_hat(ew);
        (q / p + ew + qh / q) / (rtt * (b / 2.0 * ew + 1.0) + qh * t0 * f / q)
    } else {
        let qh = q_hat(wmax);
        (q / p + wmax + qh / q) / (rtt * (b / 8.0 * wmax + q / (p * wmax) + 2.0) + qh * t0 * f / q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pftk_reduces_to_mathis_square_root_at_small_p() {
        // At small p with no timeouts the model tends to sqrt(3/(2bp))/RTT.
        let (p, rtt): (f64, f64) = (1e-6, 0.1);
        let mathis = (3.0 / (2.0 * p)).sqrt() / rtt;
        let b = pftk_full(p, rtt, 1.0, 1.0, 1e9);
        assert!((b / mathis - 1.0).abs() < 0.01, "{b} vs {mathis}");
    }
}
