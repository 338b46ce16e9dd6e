//! What several benchmarks share.

/// Seconds this thread has run on a CPU (Linux `schedstat`): on a shared machine the
/// wall clock also counts the time other processes held the cores.
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = stat
        .split_whitespace()
        .next()
        .and_then(|v| v.parse::<f64>().ok());
    ns.unwrap_or(f64::NAN) / 1e9
}
