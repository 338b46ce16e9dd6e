//! The sender's sub-states never name the sender (issue 28), checked on the source
//! in the manner of `tests/layering.rs`. In `transport/tcp/` only the sender's own
//! module (`sender.rs`, `sender/`) and the packet-script tests (`*_tests.rs`) may
//! name `TcpSender` or the `sender` module. Every other file — `recovery.rs`,
//! `sack.rs`, `rack.rs`, `prr.rs`, `reordering.rs`, the controllers in `cc/` —
//! owns its state and rules and is driven by the sender, so the import cycle
//! through `sender.rs` cannot come back.

use std::path::{Path, PathBuf};

/// The files the issue named: they must be among those checked.
const SUB_STATES: &[&str] = &[
    "recovery.rs",
    "sack.rs",
    "rack.rs",
    "prr.rs",
    "reordering.rs",
];

fn tcp_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/transport/tcp")
}

/// Every `.rs` file below `dir`, relative to `root`.
fn sources(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(root).unwrap().to_path_buf());
        }
    }
}

/// Whether the file at `rel` (relative to `transport/tcp/`) may name the sender.
fn may_name_sender(rel: &Path) -> bool {
    let name = rel.to_string_lossy();
    name == "sender.rs" || rel.starts_with("sender") || name.ends_with("_tests.rs")
}

/// The identifiers of a line of code, each with whether `::` touches it.
fn path_words(code: &str) -> Vec<(&str, bool)> {
    let mut words = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        let before = rest[..at].ends_with("::");
        let tail = &rest[at..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        let after = tail[len..].starts_with("::");
        words.push((&tail[..len], before || after));
        rest = &tail[len..];
    }
    words
}

/// The lines (1-based) of `text`'s code, comments dropped and up to its test
/// module, that name the sender: `TcpSender`, or `sender` as a path segment or in
/// a `use` statement's list.
fn lines_naming_sender(text: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut in_use = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim() == "#[cfg(test)]" {
            break;
        }
        let code = line.split("//").next().unwrap();
        let trimmed = code.trim_start();
        in_use |= trimmed.starts_with("use ") || trimmed.starts_with("pub use ");
        let names = path_words(code).into_iter().any(|(word, in_path)| {
            word == "TcpSender" || (word == "sender" && (in_path || in_use))
        });
        if names {
            found.push(n + 1);
        }
        if code.contains(';') {
            in_use = false;
        }
    }
    found
}

#[test]
fn only_the_sender_module_names_the_sender() {
    let root = tcp_dir();
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    files.sort();
    let checked: Vec<&PathBuf> = files.iter().filter(|f| !may_name_sender(f)).collect();
    for name in SUB_STATES {
        assert!(
            checked.iter().any(|f| f.as_os_str() == *name),
            "{name} is not checked: the rule would pass without it"
        );
    }
    let mut violations = Vec::new();
    for rel in checked {
        let text = std::fs::read_to_string(root.join(rel)).unwrap();
        for line in lines_naming_sender(&text) {
            violations.push(format!("transport/tcp/{}:{line}", rel.display()));
        }
    }
    assert!(
        violations.is_empty(),
        "a sub-state names the sender (its state and rules are its own; the sender \
         module drives it):\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_checker_sees_the_sender_named() {
    let text = "use super::sender::TcpSender;\n\
                use super::{\n    cc,\n    sender,\n};\n\
                // TcpSender in a comment, sender::x too\n\
                let sender = 3; // a variable of that name is no import\n\
                fn f(s: &mut TcpSender) {}\n\
                let p = crate::transport::tcp::sender::SenderConfig::default();\n\
                #[cfg(test)]\n\
                mod tests { use super::super::sender::TcpSender; }";
    assert_eq!(lines_naming_sender(text), [1, 4, 8, 9]);
    assert!(may_name_sender(Path::new("sender.rs")));
    assert!(may_name_sender(Path::new("sender/loss.rs")));
    assert!(may_name_sender(Path::new("sack_tests.rs")));
    for name in SUB_STATES {
        assert!(!may_name_sender(Path::new(name)));
    }
}
