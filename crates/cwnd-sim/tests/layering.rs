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

/// scenario/'s core that every topic may use: the error, the echo of values in
/// messages, the checks topics share, the files reader, the `cc` table (a flow's
/// and a generator's), and the canonical spec (`spec.rs`, whose `Scenario` holds
/// every topic's entries and re-exports their spec types).
const SCENARIO_SHARED: &[&str] = &["error", "shown", "checks", "files", "cc_spec", "spec"];
/// scenario/'s assembly: the loader, the check, the flows' check, the plan, the
/// budget, the build and the warnings. They use every topic at its root; no topic
/// uses them (that would be an arrow back up).
const SCENARIO_ASSEMBLY: &[&str] = &[
    "mod", "load", "validate", "flows", "plan", "budget", "build", "warnings",
];
/// scenario/'s topics: each owns its spec types, its checks and its build step.
const SCENARIO_TOPICS: &[&str] = &[
    "link",
    "impairment",
    "wifi",
    "wimax",
    "tcp",
    "sctp",
    "udp",
    "generator",
    "trace",
    "topology",
];
/// The only topics a topic may use, each at its root: a link's and a channel's
/// stages are impairment stages; a generator's connections are TCP senders.
const SCENARIO_TOPIC_USES: &[(&str, &str)] = &[
    ("link", "impairment"),
    ("wifi", "impairment"),
    ("generator", "tcp"),
];

/// The module path of a file under scenario/ (`tcp/options.rs` → `tcp::options`,
/// `tcp/mod.rs` → `tcp`, `mod.rs` → the scenario module itself).
fn scenario_module(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    if last != "mod.rs" {
        parts.push(last.trim_end_matches(".rs").to_string());
    }
    parts
}

/// The `a::b::c` at the start of `text`, and what follows it (a `{…}` group, or
/// the rest).
fn path_at(text: &str) -> (Vec<String>, &str) {
    let mut path = Vec::new();
    let mut t = text;
    loop {
        let name: String = t
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() {
            return (path, t);
        }
        t = &t[name.len()..];
        path.push(name);
        match t.strip_prefix("::") {
            Some(next) => t = next,
            None => return (path, t),
        }
    }
}

/// Every path into scenario/ that `text` (the file at module path `module`) names
/// in its code, before its test module: `super::…`, `crate::scenario::…`, and each
/// entry of a `{…}` group, resolved to a path from scenario/, with its line.
fn scenario_paths(module: &[String], text: &str) -> Vec<(usize, Vec<String>)> {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    let code: String = text[..end]
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut found = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let (base, skip) = if rest.starts_with("crate::scenario::") {
            (Vec::new(), "crate::scenario::".len())
        } else if rest.starts_with("super::") && !code[..at].ends_with("::") {
            let mut base = module.to_vec();
            let mut skip = 0;
            while code[at + skip..].starts_with("super::") {
                base.pop();
                skip += "super::".len();
            }
            (base, skip)
        } else {
            at += rest.chars().next().unwrap().len_utf8();
            continue;
        };
        let line = code[..at].matches('\n').count() + 1;
        let tail = &code[at + skip..];
        let (path, after) = path_at(tail);
        let mut paths = Vec::new();
        match after.strip_prefix('{') {
            Some(group) => {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for entry in group.split(',') {
                    let (inner, _) = path_at(entry.trim());
                    if !inner.is_empty() && inner[0] != "self" {
                        paths.push([path.clone(), inner].concat());
                    }
                }
                if paths.is_empty() || group.contains("self") {
                    paths.push(path);
                }
            }
            None => paths.push(path),
        }
        for p in paths {
            found.push((line, [base.clone(), p].concat()));
        }
        at += skip;
    }
    found
}

/// Why `from` (a file's unit under scenario/) may not name `target` (a path from
/// scenario/), if it may not; `inner` says whether a topic has a submodule of that
/// name (`tcp` has `options`).
fn scenario_violation(
    from: &str,
    target: &[String],
    inner: &dyn Fn(&str, &str) -> bool,
) -> Option<String> {
    let unit = target.first()?.as_str();
    if unit == from
        || !(SCENARIO_TOPICS.contains(&unit)
            || SCENARIO_SHARED.contains(&unit)
            || SCENARIO_ASSEMBLY.contains(&unit))
    {
        return None;
    }
    let inside = target.get(1).is_some_and(|s| inner(unit, s));
    if SCENARIO_TOPICS.contains(&unit) && inside {
        return Some(format!("reaches inside the {unit} topic"));
    }
    if SCENARIO_SHARED.contains(&from) && from != "spec" && !SCENARIO_SHARED.contains(&unit) {
        return Some(format!("the shared core uses `{unit}`"));
    }
    if SCENARIO_TOPICS.contains(&from) {
        if SCENARIO_ASSEMBLY.contains(&unit) {
            return Some(format!("a topic uses the assembly's `{unit}`"));
        }
        if SCENARIO_TOPICS.contains(&unit) && !SCENARIO_TOPIC_USES.contains(&(from, unit)) {
            return Some(format!("the {from} topic uses the {unit} topic"));
        }
    }
    None
}

/// Issue 28: inside scenario/, dependencies point one way. Topics use the shared
/// core (and the topics `SCENARIO_TOPIC_USES` lists, at their root); the assembly
/// uses topics at their root, never inside them; no topic uses the assembly.
#[test]
fn scenario_topics_use_the_core_and_the_core_uses_topics_at_their_root() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scenario");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let inner = |topic: &str, name: &str| {
        src.join(topic).join(format!("{name}.rs")).is_file() || src.join(topic).join(name).is_dir()
    };
    let mut violations = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let module = scenario_module(rel);
        let from = module.first().map_or("mod", String::as_str);
        assert!(
            SCENARIO_TOPICS.contains(&from)
                || SCENARIO_SHARED.contains(&from)
                || SCENARIO_ASSEMBLY.contains(&from),
            "scenario/{}: neither core nor a topic; add it to layering.rs",
            rel.display()
        );
        // A `*_tests.rs` file is a test module kept apart (`#[cfg(test)] #[path]`):
        // tests may load scenarios, as test modules at the end of a file may.
        if rel.to_string_lossy().ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (line, target) in scenario_paths(&module, &text) {
            if let Some(why) = scenario_violation(from, &target, &inner) {
                let path = target.join("::");
                violations.push(format!("scenario/{}:{line}: {why} ({path})", rel.display()));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "scenario/'s direction broken:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_scenario_check_sees_each_kind_of_violation() {
    let inner = |topic: &str, name: &str| topic == "tcp" && name == "options";
    let udp = scenario_module(Path::new("udp/mod.rs"));
    let text = "use super::plan::FlowPlan; // super::link::LinkPlan\n\
                use crate::scenario::{error::ScenarioError,\n    link::LinkPlan};\n\
                use crate::scenario::tcp::options::TcpOptions;\n\
                use super::super::tcp::{self, options::TcpOptions};\n\
                #[cfg(test)]\nmod tests { use crate::scenario::load; }";
    let found = scenario_paths(&udp, text);
    let why: Vec<(usize, Option<String>)> = found
        .iter()
        .map(|(line, t)| (*line, scenario_violation("udp", t, &inner)))
        .collect();
    assert_eq!(
        why,
        [
            (1, Some("a topic uses the assembly's `plan`".to_string())),
            (2, None),
            (2, Some("the udp topic uses the link topic".to_string())),
            (4, Some("reaches inside the tcp topic".to_string())),
            (5, Some("reaches inside the tcp topic".to_string())),
            (5, Some("the udp topic uses the tcp topic".to_string())),
        ]
    );
    // `super` climbs from the file's module: tcp/build.rs's `super` is tcp.
    let build = scenario_module(Path::new("tcp/build.rs"));
    let paths = scenario_paths(&build, "use super::super::wifi::x; use super::TcpPlan;");
    assert_eq!(paths[0].1, ["wifi", "x"]);
    assert_eq!(paths[1].1, ["tcp", "TcpPlan"]);
    // The assembly uses a topic at its root only; the shared core no topic.
    let root = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(
        scenario_violation("build", &root("tcp::TcpPlan"), &inner),
        None
    );
    assert!(scenario_violation("build", &root("tcp::options::TcpOptions"), &inner).is_some());
    assert!(scenario_violation("checks", &root("link::LinkPlan"), &inner).is_some());
    assert_eq!(
        scenario_violation("generator", &root("tcp::check"), &inner),
        None
    );
}
