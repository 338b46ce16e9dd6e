//! The layering rules of ARCHITECTURE.md, checked on the source: every `crate::…`
//! path a module names must point to a layer it may use.
//!
//! Layers, bottom up: the foundation (`time`, `units`, `rng`, `params`, `engine`,
//! `timer`, `packet`); `net` and `transport` (each on the foundation only, never on
//! each other); `traffic` (generators, on the foundation only); `trace` and
//! `results`; `world`; `scenario` (the format, which builds worlds). The engine's
//! queue is reached only by the world. Test modules (`#[cfg(test)]`, at the end of
//! a file) may build worlds from scenarios. The world reaches media only through
//! `net::medium::Medium`.

use std::path::{Path, PathBuf};

/// The top-level module a source file belongs to (`net`, `world`, `engine`…).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// What each top-level module may name with `crate::`.
fn allowed(module: &str) -> &'static [&'static str] {
    const FOUNDATION: &[&str] = &["time", "units", "rng", "params", "packet", "timer"];
    match module {
        "time" | "rng" | "params" | "gaussian" => &[],
        "units" | "timer" | "packet" | "engine" => &["time"],
        "net" => &["time", "units", "rng", "packet", "timer", "gaussian", "net"],
        "traffic" => &["time", "rng", "gaussian", "traffic"],
        "transport" => &[
            "time",
            "units",
            "rng",
            "params",
            "packet",
            "timer",
            "transport",
        ],
        "trace" => &["time", "units", "packet", "net", "transport", "trace"],
        "results" => &[
            "time",
            "units",
            "packet",
            "net",
            "transport",
            "trace",
            "results",
        ],
        "world" => &[
            "time",
            "units",
            "rng",
            "packet",
            "timer",
            "engine",
            "net",
            "transport",
            "trace",
            "results",
            "traffic",
            "world",
        ],
        "scenario" => &[
            "time",
            "units",
            "rng",
            "params",
            "packet",
            "net",
            "transport",
            "trace",
            "results",
            "traffic",
            "world",
            "scenario",
        ],
        "lib" => FOUNDATION,
        other => panic!("ARCHITECTURE.md has no layer for module `{other}`: add it here"),
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::name` in `text` outside comments and before its test module, with
/// its line number.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim() == "#[cfg(test)]" {
            break;
        }
        let code = line.split("//").next().unwrap();
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            let name: String = tail
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            found.push((n + 1, name));
            rest = tail;
        }
    }
    found
}

#[test]
fn modules_reach_only_the_layers_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut violations = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let text = std::fs::read_to_string(file).unwrap();
        for (line, target) in crate_paths(&text) {
            if !allowed(&module).contains(&target.as_str()) {
                violations.push(format!(
                    "{}:{line}: `{module}` reaches `crate::{target}`",
                    file.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering rules of ARCHITECTURE.md broken:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_checker_sees_a_violation() {
    // The parser finds paths in code and ignores them in comments.
    let text = "use crate::world::World; // crate::engine\nlet x = crate::net::y;\n\
                #[cfg(test)]\nmod tests { use crate::scenario::load; }";
    let found = crate_paths(text);
    let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["world", "net"]);
    assert!(!allowed("net").contains(&"transport"));
    assert!(!allowed("transport").contains(&"world"));
    assert!(!allowed("transport").contains(&"scenario"));
    // A traffic generator is application-level: the world asks it for arrivals.
    for below in ["engine", "net", "transport", "world"] {
        assert!(!allowed("traffic").contains(&below));
    }
}

/// What only one medium type has: its type, its module, the methods the loop called
/// before media met it through `net::medium::Medium`, or a match on the table's arms.
const MEDIUM_SPECIFICS: &[&str] = &[
    "LinkDirection",
    "WifiChannel",
    "WimaxCell",
    "AnyMedium::",
    "net::link",
    "net::wifi",
    "net::wimax",
    "claim_arrival_event",
    "pop_arrived",
    "arrival_to_schedule",
    "hold_queued",
    "drop_in_flight",
    ".enqueue(",
    ".impairments",
];

/// Every medium-specific name in `text`'s code (outside comments, before its test
/// module), with its line number.
fn medium_specifics(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim() == "#[cfg(test)]" {
            break;
        }
        let code = line.split("//").next().unwrap();
        for &name in MEDIUM_SPECIFICS {
            if code.contains(name) {
                found.push((n + 1, name));
            }
        }
    }
    found
}

/// Issue 11: a new medium does not edit the event loop. The world (`world.rs` and
/// `world/`) drives every medium through the trait, so it names no medium type and
/// none of their own methods.
#[test]
fn the_world_drives_media_only_through_the_medium_trait() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("world.rs")];
    rust_files(&src.join("world"), &mut files);
    files.sort();
    let mut named = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (line, name) in medium_specifics(&text) {
            let at = file.strip_prefix(&src).unwrap().display();
            named.push(format!("{at}:{line}: `{name}`"));
        }
    }
    assert!(
        named.is_empty(),
        "the world reaches a medium around net::medium::Medium:\n{}",
        named.join("\n")
    );
}

#[test]
fn the_medium_check_sees_a_medium_named() {
    let text =
        "let l: &mut LinkDirection = x; // WifiChannel\nself.media[m].on_event(now, lost);\n\
                while let Some(p) = link.pop_arrived(now) {}\n\
                #[cfg(test)]\nmod tests { use crate::net::medium::AnyMedium::Link; }";
    assert_eq!(
        medium_specifics(text),
        [(1, "LinkDirection"), (3, "pop_arrived")]
    );
}

/// The messages of kernel code that says a case cannot happen (`unreachable!`,
/// `panic!`, `.expect(`) and names the scenario format's checks as the reason, with
/// their line numbers, outside comments and before the test module.
fn trusted_checks(text: &str) -> Vec<usize> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim() == "#[cfg(test)]" {
            break;
        }
        let code = line.split("//").next().unwrap();
        let asserts = ["unreachable!(", "panic!(", ".expect("]
            .iter()
            .any(|m| code.contains(m));
        let lower = code.to_lowercase();
        let trusts = ["scenario", "validat", "checked"]
            .iter()
            .any(|w| lower.contains(w));
        if asserts && trusts {
            found.push(n + 1);
        }
    }
    found
}

/// Issue 28: the kernel trusts no check of the scenario format. Where a check makes a
/// combination impossible, a kernel type cannot hold it (`net::wifi::channel::
/// PhyErrors`: frame errors from the SNR with an 802.11b PHY only), so no kernel code
/// needs to say that a case cannot happen because the scenario was checked.
#[test]
fn the_kernel_trusts_no_scenario_check() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|f| !f.starts_with(src.join("scenario")));
    files.sort();
    let mut trusted = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for line in trusted_checks(&text) {
            let at = file.strip_prefix(&src).unwrap().display();
            trusted.push(format!("{at}:{line}"));
        }
    }
    assert!(
        trusted.is_empty(),
        "kernel code trusts the scenario check:\n{}",
        trusted.join("\n")
    );
}

#[test]
fn the_trust_check_sees_a_trusted_check() {
    let text = "let x = 1; // unreachable!(\"checked\")\n\
                Modulation::Ofdm { .. } => {\n\
                unreachable!(\"the scenario check allows the SNR model with 802.11b only\")\n\
                let q = queue.pop().expect(\"validated non-empty\");\n\
                #[cfg(test)]\nmod tests { fn t() { load(t).expect(\"scenario\"); } }";
    assert_eq!(trusted_checks(text), [3, 4]);
}
