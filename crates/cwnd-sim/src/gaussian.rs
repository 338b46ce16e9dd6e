//! The Gaussian distribution functions: the tail Q for bit error rates of the radio
//! models, the CDF Φ and its inverse for the traffic generators' lognormal sizes.

/// Complementary error function, Numerical Recipes (Press et al., 2nd ed., §6.2,
/// `erfcc`): Chebyshev fit with fractional error below 1.2·10⁻⁷ everywhere.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// Gaussian tail Q(x) = erfc(x/√2)/2.
pub fn q(x: f64) -> f64 {
    0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// Standard normal CDF Φ(x) = erfc(−x/√2)/2.
pub fn phi(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Inverse of Φ for p in (0, 1): Acklam's rational approximation (P. J. Acklam,
/// "An algorithm for computing the inverse normal cumulative distribution function",
/// 2003), relative error below 1.15·10⁻⁹; a central fit for 0.02425 ≤ p ≤ 0.97575
/// and a tail fit in √(−2 ln p) outside.
pub fn phi_inv(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const P_LOW: f64 = 0.024_25;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < P_LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p <= 1.0 - P_LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_matches_tabulated_values() {
        // Abramowitz & Stegun Table 7.1: erfc(0.5) = 0.479500122, erfc(1) = 0.157299207,
        // erfc(2) = 0.004677735; Q(4.753424) = 1.0e-6 (standard normal tail).
        for (x, want) in [
            (0.5, 0.479_500_122),
            (1.0, 0.157_299_207),
            (2.0, 0.004_677_735),
        ] {
            assert!(
                (erfc(x) / want - 1.0).abs() < 2e-7,
                "erfc({x}) = {}",
                erfc(x)
            );
        }
        assert!((erfc(-1.0) - (2.0 - 0.157_299_207)).abs() < 1e-7);
        assert!((q(4.753_424) / 1e-6 - 1.0).abs() < 1e-4);
    }

    #[test]
    fn phi_and_its_inverse_match_tabulated_quantiles() {
        // Abramowitz & Stegun Table 26.5: Φ⁻¹(0.975) = 1.959963985,
        // Φ⁻¹(0.001) = −3.090232306 (the lower tail fit), Φ⁻¹(0.5) = 0; and
        // Φ(1) = 0.841344746 (Table 26.1).
        for (p, want) in [
            (0.975, 1.959_963_985),
            (0.001, -3.090_232_306),
            (0.999, 3.090_232_306),
            (0.5, 0.0),
        ] {
            assert!(
                (phi_inv(p) - want).abs() < 1e-8,
                "phi_inv({p}) = {}",
                phi_inv(p)
            );
        }
        assert!((phi(1.0) - 0.841_344_746).abs() < 2e-7);
        for x in [-3.0, -1.0, 0.3, 2.5] {
            assert!((phi_inv(phi(x)) - x).abs() < 1e-6, "round trip at {x}");
        }
    }
}
