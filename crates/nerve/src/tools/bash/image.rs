//! Recognising image output (`cat plot.png`, a screenshot tool) by its magic bytes, so the model gets
//! an image block instead of mojibake.

use base64::Engine;

use crate::tool::ResultBlock;

/// Largest image passed on: the API takes base64 images up to about 5 MB (3.75 MB raw).
pub(crate) const IMAGE_MAX_BYTES: u64 = 3_750_000;

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
