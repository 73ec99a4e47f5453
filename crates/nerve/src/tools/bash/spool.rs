//! Command output as it arrives: written in full to a file, with only a bounded head and a rolling
//! tail kept in memory, so a command printing gigabytes never holds them.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Bytes of the beginning of the output kept in memory and shown to the model.
pub(crate) const HEAD_BYTES: usize = 12 * 1024;
/// Bytes of the end of the output kept in memory and shown to the model (the end of a failing build
/// matters most, so it gets more).
pub(crate) const TAIL_BYTES: usize = 15 * 1024;

/// The first bytes of the output and its last bytes; `omitted` bytes between them were not kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Excerpt {
    /// The first bytes (up to [`HEAD_BYTES`]).
    pub head: Vec<u8>,
    /// The last bytes after the head (up to [`TAIL_BYTES`]).
    pub tail: Vec<u8>,
    /// Total bytes of output.
    pub total: u64,
}

impl Excerpt {
    /// Bytes neither in the head nor in the tail.
    pub fn omitted(&self) -> u64 {
        self.total - self.head.len() as u64 - self.tail.len() as u64
    }
}

/// An output file being written, with the in-memory head and tail. The file is removed when the
/// spool is dropped, unless [`Spool::keep`] was called.
#[derive(Debug)]
pub(crate) struct Spool {
    file: Option<File>,
    path: PathBuf,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    write_error: Option<io::Error>,
    keep: bool,
}

impl Spool {
    /// Creates the output file at `path` (its folder is created too).
    pub fn create(path: PathBuf) -> io::Result<Spool> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let file = File::create(&path)?;
        Ok(Spool {
            file: Some(file),
            path,
            head: Vec::new(),
            tail: VecDeque::new(),
            total: 0,
            write_error: None,
            keep: false,
        })
    }

    /// Appends a chunk. A failing disk stops the file (the first error is kept for the report) but
    /// not the in-memory excerpt, so the model still sees the head and tail.
    pub fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        if let Some(file) = &mut self.file
            && let Err(e) = file.write_all(bytes)
        {
            self.write_error = Some(e);
            self.file = None;
        }
        let room = HEAD_BYTES - self.head.len();
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        if rest.len() >= TAIL_BYTES {
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - TAIL_BYTES..]);
        } else {
            let overflow = (self.tail.len() + rest.len()).saturating_sub(TAIL_BYTES);
            self.tail.drain(..overflow);
            self.tail.extend(rest);
        }
    }

    /// The head and tail so far.
    pub fn excerpt(&self) -> Excerpt {
        Excerpt {
            head: self.head.clone(),
            tail: self.tail.iter().copied().collect(),
            total: self.total,
        }
    }

    /// The output file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file holds the whole output (no write failed).
    pub fn complete(&self) -> bool {
        self.write_error.is_none()
    }

    /// Keeps the file after the spool is dropped.
    pub fn keep(&mut self) {
        self.keep = true;
    }

    /// Reads the whole file if it is at most `limit` bytes (for image output).
    pub fn read_all(&mut self, limit: u64) -> Option<Vec<u8>> {
        if self.total > limit || !self.complete() {
            return None;
        }
        if let Some(file) = &mut self.file {
            file.flush().ok()?;
        }
        std::fs::read(&self.path).ok()
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        if !self.keep {
            self.file = None;
            if let Err(e) = std::fs::remove_file(&self.path)
                && e.kind() != io::ErrorKind::NotFound
            {
                tracing::warn!(error_kind = ?e.kind(), "could not remove a command output file");
            }
        }
    }
}

/// Reads the head and tail of an output file that may still be growing (a background task's).
pub(crate) fn excerpt_of_file(path: &Path) -> io::Result<Excerpt> {
    let mut file = File::open(path)?;
    let total = file.metadata()?.len();
    let mut head = Vec::new();
    (&mut file).take(HEAD_BYTES as u64).read_to_end(&mut head)?;
    let after_head = total.saturating_sub(head.len() as u64);
    let tail_len = after_head.min(TAIL_BYTES as u64);
    let mut tail = Vec::new();
    if tail_len > 0 {
        file.seek(SeekFrom::Start(total - tail_len))?;
        file.take(tail_len).read_to_end(&mut tail)?;
    }
    Ok(Excerpt {
        total: head.len() as u64 + tail.len() as u64 + (after_head - tail_len),
        head,
        tail,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use pretty_assertions::assert_eq;

    fn spool() -> (tempfile::TempDir, Spool) {
        let dir = tempfile::tempdir().unwrap();
        let s = Spool::create(dir.path().join("sub/out.log")).unwrap();
        (dir, s)
    }

    #[test]
    fn small_output_is_whole() {
        let (_d, mut s) = spool();
        s.push(b"hello ");
        s.push(b"world");
        let e = s.excerpt();
        assert_eq!([e.head, e.tail].concat(), b"hello world".to_vec());
        assert_eq!(e.total, 11);
        assert_eq!(s.excerpt().omitted(), 0);
    }

    #[test]
    fn large_output_keeps_head_and_rolling_tail() {
        let (_d, mut s) = spool();
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for chunk in data.chunks(1000) {
            s.push(chunk);
        }
        let e = s.excerpt();
        assert_eq!(e.head, data[..HEAD_BYTES].to_vec());
        assert_eq!(e.tail, data[data.len() - TAIL_BYTES..].to_vec());
        assert_eq!(e.omitted(), (data.len() - HEAD_BYTES - TAIL_BYTES) as u64);
        assert_eq!(std::fs::read(s.path()).unwrap(), data);
    }

    #[test]
    fn one_huge_chunk_fills_both() {
        let (_d, mut s) = spool();
        let data = vec![7u8; HEAD_BYTES + TAIL_BYTES * 3];
        s.push(&data);
        let e = s.excerpt();
        assert_eq!((e.head.len(), e.tail.len()), (HEAD_BYTES, TAIL_BYTES));
    }

    #[test]
    fn file_is_removed_unless_kept() {
        let (_d, mut s) = spool();
        s.push(b"x");
        let path = s.path().to_path_buf();
        drop(s);
        assert!(!path.exists());
        let (_d2, mut kept) = spool();
        kept.push(b"x");
        kept.keep();
        let path = kept.path().to_path_buf();
        drop(kept);
        assert!(path.exists());
    }

    #[test]
    fn file_excerpt_matches_memory_excerpt() {
        let dir = tempfile::tempdir().unwrap();
        for n in [10usize, HEAD_BYTES, 40_000] {
            let data: Vec<u8> = (0..n).map(|i| (i % 13) as u8).collect();
            let mut s = Spool::create(dir.path().join(format!("{n}.log"))).unwrap();
            s.push(&data);
            assert_eq!(excerpt_of_file(s.path()).unwrap(), s.excerpt(), "n = {n}");
        }
    }

    #[test]
    fn read_all_respects_the_limit() {
        let (_d, mut s) = spool();
        s.push(b"abc");
        assert_eq!(s.read_all(3), Some(b"abc".to_vec()));
        assert_eq!(s.read_all(2), None);
    }
}
