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
