//! Received power and SNR between two stations, as ns-2 computed received power.
//!
//! ```text
//! free space (Friis):  Pr = Pt·Gt·Gr·λ² / ((4π)²·d²·L)
//! two-ray ground:      Pr = Pt·Gt·Gr·ht²·hr² / (d⁴·L)   for d ≥ dc = 4π·ht·hr/λ,
//!                      Friis below the crossover distance dc
//! ```
//! (ns-2.35 `mac/propagation.cc` `FreeSpace`, `mac/tworayground.cc` `TwoRayGround`).
//! Defaults are ns-2's `Phy/WirelessPhy` and `Antenna/OmniAntenna` values
//! (`tcl/lib/ns-default.tcl`): Pt = 0.28183815 W (24.5 dBm), 914 MHz, unity gains,
//! antennas 1.5 m high, L = 1 — with which two-ray ground gives ns-2's 250 m
//! reception threshold (3.652·10⁻¹⁰ W).
//!
//! Noise (ns-2 had none: it compared Pr with fixed thresholds): thermal noise over
//! the 22 MHz DSSS channel, k·T·B·F with T = 290 K and a noise figure F (7 dB by
//! default, ns-3's `RxNoiseFigure`). Every pair of stations is `distance` apart
//! (one collision domain; simplification).

/// Boltzmann's constant, J/K.
const BOLTZMANN: f64 = 1.380_649e-23;
const NOISE_TEMPERATURE_K: f64 = 290.0;
/// Noise bandwidth of an 802.11b DSSS channel, Hz.
pub const CHANNEL_BANDWIDTH_HZ: f64 = 22e6;
const SPEED_OF_LIGHT: f64 = 299_792_458.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathLoss {
    FreeSpace,
    TwoRayGround,
}

/// A radio link between two stations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadioLink {
    pub path_loss: PathLoss,
    pub distance_m: f64,
    pub tx_power_w: f64,
    pub frequency_hz: f64,
    pub antenna_height_m: f64,
    pub system_loss: f64,
    pub noise_figure_db: f64,
}

impl RadioLink {
    /// ns-2's defaults at `distance_m` with `path_loss`.
    pub fn ns2(path_loss: PathLoss, distance_m: f64) -> RadioLink {
        RadioLink {
            path_loss,
            distance_m,
            tx_power_w: 0.281_838_15,
            frequency_hz: 914e6,
            antenna_height_m: 1.5,
            system_loss: 1.0,
            noise_figure_db: 7.0,
        }
    }

    fn wavelength_m(&self) -> f64 {
        SPEED_OF_LIGHT / self.frequency_hz
    }

    /// Two-ray crossover distance 4π·ht·hr/λ.
    pub fn crossover_m(&self) -> f64 {
        4.0 * std::f64::consts::PI * self.antenna_height_m * self.antenna_height_m
            / self.wavelength_m()
    }

    /// Received power in W (unity antenna gains).
    pub fn received_power_w(&self) -> f64 {
        let d = self.distance_m;
        let friis = || {
            let l = self.wavelength_m();
            self.tx_power_w * l * l
                / ((4.0 * std::f64::consts::PI).powi(2) * d * d * self.system_loss)
        };
        match self.path_loss {
            PathLoss::FreeSpace => friis(),
            PathLoss::TwoRayGround if d < self.crossover_m() => friis(),
            PathLoss::TwoRayGround => {
                let h2 = self.antenna_height_m * self.antenna_height_m;
                self.tx_power_w * h2 * h2 / (d.powi(4) * self.system_loss)
            }
        }
    }

    /// Noise power in W over the channel.
    pub fn noise_w(&self) -> f64 {
        BOLTZMANN
            * NOISE_TEMPERATURE_K
            * CHANNEL_BANDWIDTH_HZ
            * 10f64.powf(self.noise_figure_db / 10.0)
    }

    /// Linear SNR over the channel bandwidth.
    pub fn snr(&self) -> f64 {
        self.received_power_w() / self.noise_w()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ns2_two_ray_threshold_at_250_m() {
        // λ = 0.3280 m at 914 MHz; dc = 4π·2.25/0.3280 = 86.20 m. At 250 m:
        // Pr = 0.28183815 · 1.5⁴ / 250⁴ = 0.28183815 · 5.0625 / 3.90625e9 = 3.6526e-10 W,
        // ns-2's RXThresh_ for 250 m.
        let r = RadioLink::ns2(PathLoss::TwoRayGround, 250.0);
        assert!(
            (r.crossover_m() - 86.20).abs() < 0.01,
            "{}",
            r.crossover_m()
        );
        assert!((r.received_power_w() / 3.6526e-10 - 1.0).abs() < 1e-4);
    }

    #[test]
    fn free_space_by_hand() {
        // 100 m: Pr = 0.28183815 · 0.3280005² / ((4π)² · 1e4) = 1.9201e-8 W
        // (λ = 299792458/914e6 = 0.3280005 m).
        let r = RadioLink::ns2(PathLoss::FreeSpace, 100.0);
        assert!((r.received_power_w() / 1.9201e-8 - 1.0).abs() < 1e-4);
        // Below the crossover, two-ray ground is Friis too.
        let near = RadioLink::ns2(PathLoss::TwoRayGround, 50.0);
        let friis = RadioLink::ns2(PathLoss::FreeSpace, 50.0);
        assert_eq!(near.received_power_w(), friis.received_power_w());
    }

    #[test]
    fn noise_floor_by_hand() {
        // kTB = 1.380649e-23 · 290 · 22e6 = 8.8085e-14 W (−100.55 dBm); NF 7 dB → ×5.0119.
        let r = RadioLink::ns2(PathLoss::FreeSpace, 1.0);
        assert!((r.noise_w() / (8.8085e-14 * 5.011_872) - 1.0).abs() < 1e-4);
    }
}
