//! Reading the external files a scenario names (`p_file` loss traces), once, when
//! it is loaded, with a size limit: a scenario naming `/dev/zero` or a runaway log
//! is refused after `MAX_FILE_BYTES`, not read until memory runs out.

use std::io::Read;
use std::path::Path;

/// Largest file a scenario may name: 64 MiB, far above any loss trace (a step per
/// second for a year is ~0.5 MB).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The text of the file `name` (relative to `base` when given and `name` is
/// relative), or a message that names it: it cannot be opened, is larger than
/// `limit` bytes, or is not UTF-8.
pub fn read_text(name: &str, base: Option<&Path>, limit: u64) -> Result<String, String> {
    let path = match base {
        Some(base) if Path::new(name).is_relative() => base.join(name),
        _ => Path::new(name).to_path_buf(),
    };
    let shown = path.display();
    let file = std::fs::File::open(&path).map_err(|e| format!("cannot read \"{shown}\": {e}"))?;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read \"{shown}\": {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "\"{shown}\" is larger than {limit} bytes, the most a scenario may read"
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("\"{shown}\" is not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_read_relative_to_the_base_and_limited() {
        let dir = std::env::temp_dir().join(format!("cwnd-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("t.csv"), "0, 0.5\n").unwrap();
        assert_eq!(read_text("t.csv", Some(&dir), 100).unwrap(), "0, 0.5\n");
        // 7 bytes: a limit of 7 admits it, 6 refuses it.
        assert!(read_text("t.csv", Some(&dir), 7).is_ok());
        let e = read_text("t.csv", Some(&dir), 6).unwrap_err();
        assert!(
            e.ends_with("is larger than 6 bytes, the most a scenario may read"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_endless_device_is_refused_at_the_limit() {
        // /dev/zero never ends: the read stops after limit + 1 bytes.
        if Path::new("/dev/zero").exists() {
            let e = read_text("/dev/zero", None, MAX_FILE_BYTES).unwrap_err();
            assert_eq!(
                e,
                "\"/dev/zero\" is larger than 67108864 bytes, the most a scenario may read"
            );
        }
    }
}
