//! The line the mock, started as a process, prints to say where it listens, and reading it back:
//! a harness starts the process, reads this line from its output, and points its client there.

use std::io::{self, BufRead as _, BufReader, Read, Write};

const PREFIX: &str = "listening on ";

/// Writes `listening on URL` and flushes, so the reader is not left waiting.
pub fn announce(out: &mut impl Write, url: &str) -> io::Result<()> {
    writeln!(out, "{PREFIX}{url}")?;
    out.flush()
}

/// The URL in the first line of `out`. A process that ended without announcing one, or printed
/// something else first, is an error saying what was read.
pub fn read_announced_url(out: impl Read) -> io::Result<String> {
    let mut line = String::new();
    BufReader::new(out).read_line(&mut line)?;
    match line.trim_end().strip_prefix(PREFIX) {
        Some(url) if !url.is_empty() => Ok(url.to_owned()),
        _ if line.is_empty() => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the mock ended before saying where it listens",
        )),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the mock's first line is not `{PREFIX}URL`: {:?}",
                line.trim_end()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_announced_url_reads_back() {
        let mut out = Vec::new();
        announce(&mut out, "http://127.0.0.1:4321").unwrap();
        assert_eq!(out, b"listening on http://127.0.0.1:4321\n");
        assert_eq!(read_announced_url(&out[..]).unwrap(), "http://127.0.0.1:4321");
    }

    #[test]
    fn silence_or_another_line_is_an_error_naming_it() {
        let eof = read_announced_url(&b""[..]).unwrap_err();
        assert_eq!(
            (eof.kind(), eof.to_string()),
            (
                io::ErrorKind::UnexpectedEof,
                "the mock ended before saying where it listens".to_string()
            )
        );
        let other = read_announced_url(&b"error: no scenario\n"[..]).unwrap_err();
        assert_eq!(
            (other.kind(), other.to_string()),
            (
                io::ErrorKind::InvalidData,
                r#"the mock's first line is not `listening on URL`: "error: no scenario""#.to_string()
            )
        );
        assert_eq!(
            read_announced_url(&b"listening on \n"[..]).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
    }
}
