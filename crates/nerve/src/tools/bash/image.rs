//! Recognising image output (`cat plot.png`, a screenshot tool) by its magic bytes, so the model gets
//! an image block instead of mojibake.

use base64::Engine;

use crate::tool::ResultBlock;

/// Largest image returned inline: its base64 form (4 characters per 3 bytes) must stay within the
/// Bash result limit, or the pipeline would persist the image block as JSON the model cannot view.
pub(crate) const IMAGE_MAX_BYTES: u64 = (crate::tools::bash::MAX_RESULT_CHARS as u64 / 4) * 3;

/// The media type of an image starting with `prefix`, if it is PNG, JPEG, GIF or WebP.
pub(crate) fn image_media_type(prefix: &[u8]) -> Option<&'static str> {
    if prefix.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if prefix.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if prefix.starts_with(b"GIF87a") || prefix.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if prefix.len() >= 12 && prefix.starts_with(b"RIFF") && &prefix[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// Whether `bytes` (all of a command's output) are exactly one image of `media_type`, nothing
/// before or after it: a stderr line written into or after the image (stdout and stderr share the
/// pipe) must not reach the model as a broken image, which the API would refuse.
pub(crate) fn is_whole_image(media_type: &str, bytes: &[u8]) -> bool {
    let format = match media_type {
        "image/png" => image::ImageFormat::Png,
        "image/jpeg" => image::ImageFormat::Jpeg,
        "image/gif" => image::ImageFormat::Gif,
        "image/webp" => image::ImageFormat::WebP,
        _ => return false,
    };
    ends_like(media_type, bytes, bytes, bytes.len() as u64)
        && image::load_from_memory_with_format(bytes, format).is_ok()
}

/// Whether output of `total` bytes, of which `head` is the start and `tail` the end, ends where an
/// image of `media_type` ends (all that is checked of an image too large to return).
pub(crate) fn ends_like(media_type: &str, head: &[u8], tail: &[u8], total: u64) -> bool {
    const PNG_END: [u8; 12] = [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82];
    match media_type {
        "image/png" => tail.ends_with(&PNG_END),
        "image/jpeg" => tail.ends_with(&[0xFF, 0xD9]),
        "image/gif" => tail.ends_with(&[0x3B]),
        // RIFF's size field counts everything after its first 8 bytes.
        "image/webp" => head
            .get(4..8)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .is_some_and(|size| u64::from(u32::from_le_bytes(size)) + 8 == total),
        _ => false,
    }
}

/// An image block of `bytes`.
pub(crate) fn image_block(media_type: &str, bytes: &[u8]) -> ResultBlock {
    ResultBlock::Image {
        media_type: media_type.to_string(),
        data: base64::engine::general_purpose::STANDARD.encode(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_four_formats() {
        assert_eq!(image_media_type(b"\x89PNG\r\n\x1a\n\0\0"), Some("image/png"));
        assert_eq!(image_media_type(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(image_media_type(b"GIF89a.."), Some("image/gif"));
        assert_eq!(image_media_type(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
    }

    #[test]
    fn text_and_near_misses_are_not_images() {
        assert_eq!(image_media_type(b"hello"), None);
        assert_eq!(image_media_type(b"\x89PNG"), None);
        assert_eq!(image_media_type(b"RIFF\0\0\0\0WAVE"), None);
        assert_eq!(image_media_type(b""), None);
    }

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        image::RgbImage::new(width, height)
            .write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
            .unwrap();
        bytes
    }

    #[test]
    fn a_whole_image_is_recognised_and_one_with_anything_else_is_not() {
        let image = png(4, 3);
        assert!(is_whole_image("image/png", &image));
        let mut trailing = image.clone();
        trailing.extend_from_slice(b"warning: something\n");
        assert!(
            !is_whole_image("image/png", &trailing),
            "a stderr line after the image"
        );
        let mut inside = image.clone();
        inside.splice(40..40, b"warning\n".iter().copied());
        assert!(
            !is_whole_image("image/png", &inside),
            "a stderr line inside the image"
        );
        assert!(
            !is_whole_image("image/png", &image[..image.len() - 1]),
            "a cut image"
        );
    }

    #[test]
    fn image_ends_are_checked_per_format() {
        assert!(ends_like("image/jpeg", b"", &[0x00, 0xFF, 0xD9], 3));
        assert!(!ends_like("image/jpeg", b"", &[0xFF, 0xD9, b'\n'], 3));
        assert!(ends_like("image/gif", b"", b"GIF89a;", 7));
        let webp = b"RIFF\x04\0\0\0WEBP";
        assert!(ends_like("image/webp", webp, webp, 12));
        assert!(!ends_like("image/webp", webp, webp, 13));
    }

    #[test]
    fn the_largest_inline_image_fits_the_result_limit() {
        let block = image_block("image/png", &vec![0u8; IMAGE_MAX_BYTES as usize]);
        assert!(block.budget_chars() <= crate::tools::bash::MAX_RESULT_CHARS);
    }

    #[test]
    fn block_is_base64() {
        assert_eq!(
            image_block("image/png", b"ab"),
            ResultBlock::Image {
                media_type: "image/png".into(),
                data: "YWI=".into()
            }
        );
    }
}
