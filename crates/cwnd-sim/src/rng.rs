//! Random streams: one independent generator per component.
//!
//! Each stochastic component (a loss stage on a link direction, an application's
//! think-time draw, …) owns a generator seeded from (run seed, component name).
//! The name is the component's place in the scenario (e.g.
//! `"links[0].impairments[1].forward"`, `"flows[2].cc"`), so adding or removing
//! one component never changes the draws of the others, and a run is reproducible
//! from its seed alone. Seeds never come from the operating system.
//!
//! The generator is PCG-64 (MCG variant, O'Neill 2014) via `rand_pcg`; the 128-bit
//! seed is expanded from (seed, FNV-1a hash of the name) with SplitMix64
//! (Steele et al. 2014), which decorrelates nearby seeds.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The generator type every component uses.
pub type RngStream = Pcg64Mcg;

/// FNV-1a over the component name: stable across platforms and Rust versions.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator of component `name` in a run with seed `seed`.
pub fn stream(seed: u64, name: &str) -> RngStream {
    let mut state = seed ^ name_hash(name).rotate_left(17);
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    bytes[8..].copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    Pcg64Mcg::from_seed(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    fn draws(seed: u64, name: &str) -> Vec<u64> {
        let mut r = stream(seed, name);
        (0..4).map(|_| r.random::<u64>()).collect()
    }

    #[test]
    fn same_seed_and_name_give_same_draws() {
        assert_eq!(
            draws(7, "links[0].impairments[0].forward"),
            draws(7, "links[0].impairments[0].forward")
        );
    }

    #[test]
    fn different_seeds_or_names_give_different_draws() {
        assert_ne!(
            draws(7, "links[0].impairments[0].forward"),
            draws(8, "links[0].impairments[0].forward")
        );
        assert_ne!(
            draws(7, "links[0].impairments[0].forward"),
            draws(7, "links[0].impairments[0].reverse")
        );
        assert_ne!(draws(0, "a"), draws(1, "a"));
    }
}
