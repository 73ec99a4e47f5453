//! Images the user attaches to a prompt (pasted or dropped into a composer). They are recognised
//! by their bytes, not their name or the type the front-end claims, and prepared as Read prepares
//! image files: sent as they are when the API takes them, downscaled otherwise.

pub use nerve_protocol::prompt::AttachedImage;

use base64::Engine as _;

use crate::model::types::{ContentBlock, ImageBlock, MediaSource};
use crate::tools::read::{FileKind, prepare_image, sniff};

/// The largest image accepted before preparing it (a phone photo is a few MB; the API's own limit
/// applies after downscaling).
pub const MAX_ATTACHED_IMAGE_BYTES: usize = 30 * 1024 * 1024;
/// The most images one prompt may carry.
pub const MAX_IMAGES_PER_PROMPT: usize = 20;

/// Why an attached image cannot be sent. Each message names the image and says what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PromptImageError {
    /// More images than one prompt takes.
    #[error("a prompt can carry at most {MAX_IMAGES_PER_PROMPT} images; {count} are attached, remove some")]
    TooMany {
        /// How many were attached.
        count: usize,
    },
    /// The data is not base64.
    #[error("{name} could not be read (its data is not base64)")]
    NotBase64 {
        /// The image's name.
        name: String,
    },
    /// Too large to prepare.
    #[error("{name} is {size_mb:.1} MB; images up to {} MB can be attached", MAX_ATTACHED_IMAGE_BYTES / (1024 * 1024))]
    TooLarge {
        /// The image's name.
        name: String,
        /// Its size in MB.
        size_mb: f64,
    },
    /// Not PNG, JPEG, GIF or WebP.
    #[error("{name} is {what}; the model takes PNG, JPEG, GIF and WebP images")]
    Unsupported {
        /// The image's name.
        name: String,
        /// What it looks like.
        what: String,
    },
    /// Looks like an image but does not decode.
    #[error("{name}: {message}")]
    Undecodable {
        /// The image's name.
        name: String,
        /// The decoder's complaint.
        message: String,
    },
}

/// The image blocks for `images`, in order, or the first reason one cannot be sent.
pub fn prepare_prompt_images(images: &[AttachedImage]) -> Result<Vec<ContentBlock>, PromptImageError> {
    if images.len() > MAX_IMAGES_PER_PROMPT {
        return Err(PromptImageError::TooMany { count: images.len() });
    }
    images.iter().map(prepare_one).collect()
}

fn prepare_one(image: &AttachedImage) -> Result<ContentBlock, PromptImageError> {
    let name = image.name.clone();
    // Checked on the text first, so a huge paste is refused before it is decoded.
    if image.data.len() / 4 * 3 > MAX_ATTACHED_IMAGE_BYTES {
        return Err(PromptImageError::TooLarge {
            name,
            size_mb: (image.data.len() / 4 * 3) as f64 / (1024.0 * 1024.0),
        });
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image.data.trim())
        .map_err(|_| PromptImageError::NotBase64 { name: name.clone() })?;
    let kind = match sniff(&bytes, std::path::Path::new(&image.name)) {
        FileKind::Image(kind) => kind,
        FileKind::Pdf => {
            return Err(PromptImageError::Unsupported {
                name,
                what: "a PDF".to_string(),
            });
        }
        FileKind::Binary(what) => {
            return Err(PromptImageError::Unsupported {
                name,
                what: what.to_string(),
            });
        }
        FileKind::Text | FileKind::Notebook => {
            return Err(PromptImageError::Unsupported {
                name,
                what: "text (an SVG, or not an image)".to_string(),
            });
        }
    };
    let prepared = prepare_image(&bytes, kind).map_err(|e| PromptImageError::Undecodable {
        name: name.clone(),
        message: e.to_string(),
    })?;
    Ok(ContentBlock::Image(ImageBlock {
        source: MediaSource::Base64 {
            media_type: prepared.media_type.to_string(),
            data: prepared.data,
        },
        cache_control: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        image::DynamicImage::new_rgb8(width, height)
            .write_to(&mut out, image::ImageFormat::Png)
            .unwrap();
        out.into_inner()
    }

    fn attached(name: &str, bytes: &[u8]) -> AttachedImage {
        AttachedImage {
            name: name.into(),
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    #[test]
    fn a_small_png_goes_as_it_is() {
        let bytes = png(4, 3);
        let blocks = prepare_prompt_images(&[attached("shot.png", &bytes)]).unwrap();
        assert_eq!(
            blocks,
            vec![ContentBlock::Image(ImageBlock {
                source: MediaSource::Base64 {
                    media_type: "image/png".into(),
                    data: base64::engine::general_purpose::STANDARD.encode(&bytes),
                },
                cache_control: None,
            })]
        );
    }

    #[test]
    fn the_bytes_decide_the_type_and_large_images_are_downscaled() {
        let blocks = prepare_prompt_images(&[attached("named.jpg", &png(3000, 1000))]).unwrap();
        let ContentBlock::Image(ImageBlock {
            source: MediaSource::Base64 { media_type, data },
            ..
        }) = &blocks[0]
        else {
            panic!("{blocks:?}");
        };
        assert_eq!(media_type, "image/png");
        let bytes = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
        let small = image::load_from_memory(&bytes).unwrap();
        assert_eq!((small.width(), small.height()), (1568, 523));
    }

    #[test]
    fn bad_attachments_get_clear_errors() {
        let err = |images: &[AttachedImage]| prepare_prompt_images(images).unwrap_err().to_string();
        assert_eq!(
            err(&[attached(
                "notes.svg",
                b"<svg xmlns='http://www.w3.org/2000/svg'/>"
            )]),
            "notes.svg is text (an SVG, or not an image); the model takes PNG, JPEG, GIF and WebP images"
        );
        assert_eq!(
            err(&[attached("doc.pdf", b"%PDF-1.7\n")]),
            "doc.pdf is a PDF; the model takes PNG, JPEG, GIF and WebP images"
        );
        assert_eq!(
            err(&[AttachedImage {
                name: "x.png".into(),
                data: "%%%".into()
            }]),
            "x.png could not be read (its data is not base64)"
        );
        let broken = {
            let mut b = png(4, 4);
            b.truncate(20);
            b
        };
        assert!(
            err(&[attached("cut.png", &broken)])
                .starts_with("cut.png: the image/png image could not be decoded")
        );
        let many: Vec<AttachedImage> = (0..21)
            .map(|i| attached(&format!("{i}.png"), &png(1, 1)))
            .collect();
        assert_eq!(
            err(&many),
            "a prompt can carry at most 20 images; 21 are attached, remove some"
        );
        let huge = AttachedImage {
            name: "big.png".into(),
            data: "A".repeat(41 * 1024 * 1024),
        };
        assert_eq!(
            err(&[huge]),
            "big.png is 30.8 MB; images up to 30 MB can be attached"
        );
    }
}
