//! What a file is, from its first bytes (magic numbers), not its name: a `.png` that is really text
//! reads as text, and a screenshot saved without extension still reads as an image.

use std::path::Path;

/// How many leading bytes are inspected.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// An image format the Messages API accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// GIF.
    Gif,
    /// WebP.
    Webp,
}

impl ImageKind {
    /// The media type sent with the image.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    /// The `image` crate's name for the format.
    pub fn format(self) -> image::ImageFormat {
        match self {
            Self::Png => image::ImageFormat::Png,
            Self::Jpeg => image::ImageFormat::Jpeg,
            Self::Gif => image::ImageFormat::Gif,
            Self::Webp => image::ImageFormat::WebP,
        }
    }
}

/// What Read makes of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// UTF-8 text (shown with line numbers).
    Text,
    /// An image.
    Image(ImageKind),
    /// A PDF.
    Pdf,
    /// A Jupyter notebook (by extension; its JSON is checked when parsed).
    Notebook,
    /// Binary content Read cannot show, with what it looks like.
    Binary(&'static str),
}

/// Classifies a file from its first bytes (up to [`SNIFF_BYTES`]) and, for notebooks, its name.
pub fn sniff(head: &[u8], path: &Path) -> FileKind {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        return FileKind::Image(ImageKind::Png);
    }
    if head.starts_with(&[0xff, 0xd8, 0xff]) {
        return FileKind::Image(ImageKind::Jpeg);
    }
    if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
        return FileKind::Image(ImageKind::Gif);
    }
    if head.len() >= 12 && &head[..4] == b"RIFF" && &head[8..12] == b"WEBP" {
        return FileKind::Image(ImageKind::Webp);
    }
    if head.starts_with(b"%PDF-") {
        return FileKind::Pdf;
    }
    let is_notebook = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ipynb"));
    if looks_binary(head) {
        return FileKind::Binary(binary_kind(head));
    }
    if is_notebook {
        return FileKind::Notebook;
    }
    FileKind::Text
}

/// NUL bytes or invalid UTF-8. A multi-byte character cut by the end of the sample is not invalid.
fn looks_binary(head: &[u8]) -> bool {
    if head.contains(&0) {
        return true;
    }
    match std::str::from_utf8(head) {
        Ok(_) => false,
        Err(e) => e.error_len().is_some(),
    }
}

/// A name for common binary formats, so the error says what the file is.
fn binary_kind(head: &[u8]) -> &'static str {
    let at = |offset: usize, magic: &[u8]| {
        head.len() >= offset + magic.len() && &head[offset..offset + magic.len()] == magic
    };
    let table: &[(usize, &[u8], &'static str)] = &[
        (0, b"\x7fELF", "an ELF executable or library"),
        (0, &[0xcf, 0xfa, 0xed, 0xfe], "a Mach-O executable"),
        (0, &[0xfe, 0xed, 0xfa, 0xcf], "a Mach-O executable"),
        (
            0,
            &[0xca, 0xfe, 0xba, 0xbe],
            "a Java class or universal Mach-O binary",
        ),
        (0, b"MZ", "a Windows executable"),
        (0, b"\0asm", "a WebAssembly module"),
        (
            0,
            b"PK\x03\x04",
            "a ZIP archive (or a format built on ZIP: docx, xlsx, jar...)",
        ),
        (0, &[0x1f, 0x8b], "a gzip archive"),
        (0, b"BZh", "a bzip2 archive"),
        (0, &[0xfd, b'7', b'z', b'X', b'Z', 0], "an xz archive"),
        (0, &[0x28, 0xb5, 0x2f, 0xfd], "a zstd archive"),
        (0, &[b'7', b'z', 0xbc, 0xaf, 0x27, 0x1c], "a 7-Zip archive"),
        (257, b"ustar", "a tar archive"),
        (0, b"SQLite format 3\0", "an SQLite database"),
        (0, b"II*\0", "a TIFF image (not supported; convert it to PNG)"),
        (0, b"MM\0*", "a TIFF image (not supported; convert it to PNG)"),
        (0, b"BM", "a BMP image (not supported; convert it to PNG)"),
        (0, b"ID3", "an MP3 audio file"),
        (0, b"OggS", "an Ogg media file"),
        (0, b"fLaC", "a FLAC audio file"),
        (4, b"ftyp", "an MP4/QuickTime media file"),
        (0, b"wOFF", "a WOFF font"),
        (0, b"OTTO", "an OpenType font"),
    ];
    table
        .iter()
        .find(|(offset, magic, _)| at(*offset, magic))
        .map(|(_, _, name)| *name)
        .unwrap_or("binary data (NUL bytes or invalid UTF-8)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn kind(bytes: &[u8], name: &str) -> FileKind {
        sniff(bytes, Path::new(name))
    }

    #[test]
    fn magic_bytes_decide_not_extensions() {
        assert_eq!(
            kind(b"\x89PNG\r\n\x1a\n....", "shot"),
            FileKind::Image(ImageKind::Png)
        );
        assert_eq!(
            kind(&[0xff, 0xd8, 0xff, 0xe0], "x.txt"),
            FileKind::Image(ImageKind::Jpeg)
        );
        assert_eq!(kind(b"GIF89a..", "a"), FileKind::Image(ImageKind::Gif));
        assert_eq!(
            kind(b"RIFF\0\0\0\0WEBPVP8 ", "a"),
            FileKind::Image(ImageKind::Webp)
        );
        assert_eq!(kind(b"%PDF-1.4\n", "doc.bin"), FileKind::Pdf);
        assert_eq!(kind(b"just text", "fake.png"), FileKind::Text);
        assert_eq!(kind(b"{\"cells\": []}", "a.ipynb"), FileKind::Notebook);
    }

    #[test]
    fn binaries_are_named() {
        assert_eq!(
            kind(b"\x7fELF\x02\x01\x01\0", "a.out"),
            FileKind::Binary("an ELF executable or library")
        );
        assert!(matches!(kind(b"PK\x03\x04\x14\0", "a.docx"), FileKind::Binary(k) if k.contains("ZIP")));
        assert!(matches!(kind(&[0x61, 0x00, 0x62], "x"), FileKind::Binary(k) if k.contains("NUL")));
        assert!(matches!(kind(&[0x61, 0xff, 0x62], "x"), FileKind::Binary(_)));
    }

    #[test]
    fn a_character_cut_at_the_sample_end_is_still_text() {
        let mut bytes = "a".repeat(10).into_bytes();
        bytes.extend_from_slice(&"é".as_bytes()[..1]);
        assert_eq!(kind(&bytes, "x"), FileKind::Text);
    }
}
