//! The one way a scenario reads a file it names (`p_file` loss traces, capacity traces), once,
//! when it is loaded, under three rules:
//!
//! - **regular files only**: a FIFO, a device, a directory, or anything under `/proc`
//!   or `/sys` (whose entries look like regular files but are the process's
//!   environment, the kernel's state) is refused before it is opened, so that
//!   `check` never blocks on a FIFO nor reads `/dev/zero` forever;
//! - **size-limited**: at most `MAX_FILE_BYTES`, refused from its length before it is
//!   read, and the read itself stops one byte past the limit;
//! - **never echoed**: an error names the file, the line and the column, and says what
//!   was expected there; it never shows the file's contents (a loss trace that is
//!   really `/etc/shadow` must not print root's line).
//!
//! Names are resolved relative to the scenario's folder (`base`) when relative.
//! Parsers take a `ScenarioFile`, walk its `lines`, and build their errors with
//! `ScenarioFile::error` at a `Line::column_of` one of the line's fields.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::shown::quoted;

/// Largest file a scenario may name: 64 MiB, far above any loss trace (a step per
/// second for a year is ~0.5 MB).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Folders whose entries are the system's state, not data, whatever their type says.
const SYSTEM_FOLDERS: [&str; 2] = ["/proc", "/sys"];

/// A file a scenario names, read: its name as the scenario wrote it (for messages)
/// and its text.
#[derive(Debug)]
pub struct ScenarioFile {
    name: String,
    text: String,
}

/// One line of a file: its number (from 1) and its text, without the line break.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    pub number: usize,
    pub text: &'a str,
}

impl Line<'_> {
    /// The column (from 1, in characters) where `part`, a slice of this line's
    /// text (a field split from it), starts.
    pub fn column_of(&self, part: &str) -> usize {
        let offset = (part.as_ptr() as usize).saturating_sub(self.text.as_ptr() as usize);
        let offset = offset.min(self.text.len());
        self.text[..offset].chars().count() + 1
    }
}

impl ScenarioFile {
    /// Reads the file `name` (relative to `base` when given and `name` is relative)
    /// under the rules above, at most `MAX_FILE_BYTES`.
    pub fn read(name: &str, base: Option<&Path>) -> Result<ScenarioFile, String> {
        ScenarioFile::read_limited(name, base, MAX_FILE_BYTES)
    }

    /// The same with a limit of `limit` bytes.
    pub fn read_limited(
        name: &str,
        base: Option<&Path>,
        limit: u64,
    ) -> Result<ScenarioFile, String> {
        let shown = quoted(name);
        let cannot = |e: std::io::Error| format!("cannot read {shown}: {e}");
        let path = match base {
            Some(base) if Path::new(name).is_relative() => base.join(name),
            _ => PathBuf::from(name),
        };
        // Symbolic links resolved, so that the rules apply to what is really read.
        let path = std::fs::canonicalize(&path).map_err(cannot)?;
        if SYSTEM_FOLDERS.iter().any(|f| path.starts_with(f)) {
            return Err(format!(
                "{shown} is under {}, the system's state; a scenario reads regular files only",
                path.iter().take(2).collect::<PathBuf>().display()
            ));
        }
        let metadata = std::fs::metadata(&path).map_err(cannot)?;
        regular(&shown, &metadata)?;
        if metadata.len() > limit {
            return Err(too_large(&shown, limit));
        }
        let file = std::fs::File::open(&path).map_err(cannot)?;
        // The file opened is the file checked (not replaced by a FIFO in between).
        regular(&shown, &file.metadata().map_err(cannot)?)?;
        let mut bytes = Vec::new();
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        if bytes.len() as u64 > limit {
            return Err(too_large(&shown, limit));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            // Valid UTF-8 up to there: the position is counted in characters.
            let before = std::str::from_utf8(valid).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = before
                .rsplit('\n')
                .next()
                .unwrap_or_default()
                .chars()
                .count()
                + 1;
            format!("{shown} line {line}, column {column}: expected UTF-8 text")
        })?;
        Ok(ScenarioFile {
            name: name.to_string(),
            text,
        })
    }

    /// A file holding `text`, for parsers' unit tests.
    #[cfg(test)]
    pub fn from_text(name: &str, text: &str) -> ScenarioFile {
        ScenarioFile {
            name: name.to_string(),
            text: text.to_string(),
        }
    }

    /// Its lines, numbered from 1.
    pub fn lines(&self) -> impl Iterator<Item = Line<'_>> {
        self.text.lines().enumerate().map(|(i, text)| Line {
            number: i + 1,
            text,
        })
    }

    /// An error at `column` of `line`: `"FILE" line L, column C: expected …`.
    pub fn error(&self, line: usize, column: usize, expected: &str) -> String {
        format!(
            "{} line {line}, column {column}: expected {expected}",
            quoted(&self.name)
        )
    }

    /// Its name as messages show it, quoted.
    pub fn shown_name(&self) -> String {
        quoted(&self.name)
    }

    /// An error about the whole file: `"FILE": expected …`.
    pub fn error_in_whole(&self, expected: &str) -> String {
        format!("{}: expected {expected}", quoted(&self.name))
    }
}

/// Refuses anything but a regular file, naming what it is.
fn regular(shown: &str, metadata: &std::fs::Metadata) -> Result<(), String> {
    let kind = metadata.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_dir() {
        "a folder"
    } else {
        special_kind(&kind)
    };
    Err(format!(
        "{shown} is {what}; a scenario reads regular files only"
    ))
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

fn too_large(shown: &str, limit: u64) -> String {
    format!("{shown} is larger than {limit} bytes, the most a scenario may read")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder for one test.
    fn folder(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cwnd-files-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn files_are_read_relative_to_the_base_and_limited() {
        let dir = folder("base");
        std::fs::write(dir.join("t.csv"), "0, 0.5\n").unwrap();
        let file = ScenarioFile::read_limited("t.csv", Some(&dir), 100).unwrap();
        assert_eq!(file.text, "0, 0.5\n");
        // 7 bytes: a limit of 7 admits it, 6 refuses it (from its length).
        assert!(ScenarioFile::read_limited("t.csv", Some(&dir), 7).is_ok());
        let e = ScenarioFile::read_limited("t.csv", Some(&dir), 6).unwrap_err();
        assert_eq!(
            e,
            "\"t.csv\" is larger than 6 bytes, the most a scenario may read"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn devices_and_system_entries_are_refused_before_they_are_read() {
        // /dev/zero never ends, /proc/self/environ is the process's environment
        // (a "regular file" of length 0), /sys holds the kernel's state.
        for (name, want) in [
            (
                "/dev/zero",
                "\"/dev/zero\" is a device; a scenario reads regular files only",
            ),
            (
                "/proc/self/environ",
                "\"/proc/self/environ\" is under /proc, the system's state; a scenario reads regular files only",
            ),
            (
                "/sys/kernel/mm/transparent_hugepage/enabled",
                "\"/sys/kernel/mm/transparent_hugepage/enabled\" is under /sys, the system's state; a scenario reads regular files only",
            ),
        ] {
            if Path::new(name).exists() {
                assert_eq!(ScenarioFile::read(name, None).unwrap_err(), want);
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_into_proc_is_refused() {
        let dir = folder("link");
        let link = dir.join("trace.csv");
        if Path::new("/proc/self/environ").exists() {
            std::os::unix::fs::symlink("/proc/self/environ", &link).unwrap();
            let e = ScenarioFile::read("trace.csv", Some(&dir)).unwrap_err();
            assert!(e.starts_with("\"trace.csv\" is under /proc"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        // Opening a FIFO for reading blocks until something writes to it: the test
        // would hang (not fail) if the type were checked after the open.
        let dir = folder("fifo");
        let fifo = dir.join("loss.csv");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let e = ScenarioFile::read("loss.csv", Some(&dir)).unwrap_err();
            assert_eq!(
                e,
                "\"loss.csv\" is a FIFO; a scenario reads regular files only"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = folder("dir");
        std::fs::create_dir_all(dir.join("traces")).unwrap();
        let e = ScenarioFile::read("traces", Some(&dir)).unwrap_err();
        assert_eq!(
            e,
            "\"traces\" is a folder; a scenario reads regular files only"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn text_that_is_not_utf8_is_placed_not_shown() {
        // "0, 0.1\n" then "ab" and the byte 0xff: line 2, column 3.
        let dir = folder("utf8");
        std::fs::write(dir.join("b.csv"), b"0, 0.1\nab\xff secret").unwrap();
        let e = ScenarioFile::read("b.csv", Some(&dir)).unwrap_err();
        assert_eq!(e, "\"b.csv\" line 2, column 3: expected UTF-8 text");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_file_is_named() {
        let e =
            ScenarioFile::read("no-such-trace.csv", Some(Path::new("/nonexistent"))).unwrap_err();
        assert!(
            e.starts_with("cannot read \"no-such-trace.csv\": No such file"),
            "{e}"
        );
    }

    #[test]
    fn columns_count_characters_from_one() {
        // "µs" is one character of two bytes: "x" after "µs, " is column 5.
        let file = ScenarioFile::from_text("t", "# c\nµs, x\n");
        let line = file.lines().nth(1).unwrap();
        assert_eq!(line.number, 2);
        let x = line.text.split(", ").nth(1).unwrap();
        assert_eq!(line.column_of(x), 5);
        assert_eq!(line.column_of(line.text), 1);
        assert_eq!(
            file.error(line.number, line.column_of(x), "a number"),
            "\"t\" line 2, column 5: expected a number"
        );
    }
}
