//! Golden files: behaviour that must not change unseen.
//!
//! - `golden/scenarios.txt`: the fingerprint (hash of every event) of every example
//!   scenario in `scenarios/` with seed 1.
//! - `golden/controllers.txt`: the congestion window once per RTT of every controller on
//!   three canonical paths (clean, 1 % random loss, a 2 s outage).
//!
//! A change that moves either is a behaviour change: if it is deliberate, regenerate
//! the files with `make golden` (`CWND_UPDATE_GOLDEN=1 cargo test --release --test golden`)
//! and say in the commit body which lines moved and why.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use cwnd_sim::scenario::{build, load};
use cwnd_sim::transport::tcp::cc;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Compares `actual` with the committed file, or rewrites the file when asked to.
fn check_golden(file: &str, actual: &str) {
    let path = golden_dir().join(file);
    if std::env::var_os("CWND_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (create it with `make golden`)", path.display()));
    let moved: Vec<String> = expected
        .lines()
        .zip(actual.lines())
        .filter(|(e, a)| e != a)
        .map(|(e, a)| format!("  expected: {e}\n  actual:   {a}"))
        .collect();
    assert!(
        moved.is_empty() && expected.lines().count() == actual.lines().count(),
        "{} moved ({} of {} lines differ; line counts {} vs {}):\n{}\n\
         If the change is deliberate, run `make golden` and say why in the commit body.",
        path.display(),
        moved.len(),
        expected.lines().count(),
        expected.lines().count(),
        actual.lines().count(),
        moved.join("\n")
    );
}

#[test]
fn example_scenario_fingerprints_are_unchanged() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "example scenarios not found in {}",
        dir.display()
    );
    let mut out = String::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let plan = load(&text, Some(&dir)).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let results = build(&plan, 1).run();
        let name = file.file_name().unwrap().to_string_lossy();
        writeln!(
            out,
            "{name} {:016x} {}",
            results.fingerprint, results.events
        )
        .unwrap();
    }
    check_golden("scenarios.txt", &out);
}

/// The three canonical paths: 10 Mb/s, 100 ms RTT, a BDP of queue; 30 s.
fn canonical_path(cc_name: &str, impairment: &str) -> String {
    let mut toml = common::single_path(
        "10Mbps",
        50.0,
        83,
        30,
        &format!("cc = \"{cc_name}\"\ntcp = {{ sack = true }}"),
        impairment,
    );
    toml.push_str("[trace]\nsampling = \"interval\"\ninterval = \"100ms\"\n");
    toml
}

const PATHS: &[(&str, &str)] = &[
    ("clean", ""),
    (
        "loss1%",
        r#"impairments = [{ kind = "bernoulli", p = 0.01, direction = "forward", applies_to = "data" }]"#,
    ),
    (
        "outage2s",
        r#"impairments = [{ kind = "outage", start = "10s", duration = "2s" }]"#,
    ),
];

#[test]
fn controller_windows_per_rtt_are_unchanged() {
    let mut out = String::new();
    for name in cc::KNOWN {
        for (path, impairment) in PATHS {
            let r = common::run(&canonical_path(name, impairment), 1);
            let cwnd = &r.flows[0].series.cwnd;
            let windows: Vec<String> = cwnd.iter().map(u32::to_string).collect();
            writeln!(
                out,
                "{name} {path} {:016x}: {}",
                r.fingerprint,
                windows.join(" ")
            )
            .unwrap();
        }
    }
    check_golden("controllers.txt", &out);
}
