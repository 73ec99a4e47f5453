//! Images for the model: sent as they are when the API accepts them, otherwise downscaled keeping
//! the aspect ratio (and re-encoded as JPEG when even that stays too heavy).

use std::io::Cursor;

use base64::Engine as _;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, ImageReader};

use crate::tools::read::sniff::ImageKind;

/// The longest side the API takes without downscaling it itself.
pub const MAX_IMAGE_SIDE: u32 = 1568;
/// The most base64 the API accepts for one image.
pub const MAX_IMAGE_BASE64: usize = 5 * 1024 * 1024;
/// Quality of re-encoded JPEGs.
const JPEG_QUALITY: u8 = 85;
/// How many times the side is shrunk further when the encoding is still too large.
const MAX_SHRINK_STEPS: usize = 8;

/// An image ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedImage {
    /// Media type of `data`.
    pub media_type: &'static str,
    /// Base64 data.
    pub data: String,
    /// Size sent.
    pub width: u32,
    /// Size sent.
    pub height: u32,
    /// Size of the file.
    pub original: (u32, u32),
}

impl PreparedImage {
    /// Whether the image was downscaled or re-encoded.
    pub fn resized(&self) -> bool {
        (self.width, self.height) != self.original
    }
}

/// Why an image cannot be sent.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The bytes are not an image of the kind they look like.
    #[error("the {media_type} image could not be decoded: {source}")]
    Undecodable {
        /// The kind it looked like.
        media_type: &'static str,
        /// The decoder's reason.
        source: image::ImageError,
    },
    /// The downscaled copy could not be written.
    #[error("the downscaled image could not be encoded: {0}")]
    Encode(#[source] image::ImageError),
    /// Even the smallest copy tried is over the API's limit.
    #[error("the image ({width}×{height}) stays over the API's {} MB limit even when downscaled", MAX_IMAGE_BASE64 / (1024 * 1024))]
    TooLarge {
        /// Its width in pixels.
        width: u32,
        /// Its height in pixels.
        height: u32,
    },
}

/// Prepares the bytes of an image of `kind`.
pub fn prepare_image(bytes: &[u8], kind: ImageKind) -> Result<PreparedImage, ImageError> {
    let undecodable = |source| ImageError::Undecodable {
        media_type: kind.media_type(),
        source,
    };
    let reader = || ImageReader::with_format(Cursor::new(bytes), kind.format());
    let (width, height) = reader().into_dimensions().map_err(undecodable)?;
    let b64_len = base64_len(bytes.len());
    if width.max(height) <= MAX_IMAGE_SIDE && b64_len <= MAX_IMAGE_BASE64 {
        return Ok(PreparedImage {
            media_type: kind.media_type(),
            data: encode_b64(bytes),
            width,
            height,
            original: (width, height),
        });
    }
    let decoded = reader().decode().map_err(undecodable)?;
    let mut side = MAX_IMAGE_SIDE.min(width.max(height));
    for _ in 0..MAX_SHRINK_STEPS {
        let scaled = decoded.resize(side, side, FilterType::Triangle);
        // PNG keeps sharp edges (screenshots, diagrams); photos and anything PNG cannot fit go JPEG.
        let mut attempts: Vec<(&'static str, Vec<u8>)> = Vec::new();
        if kind != ImageKind::Jpeg
            && let Ok(png) = encode(&scaled, ImageFormat::Png)
        {
            attempts.push(("image/png", png));
        }
        if attempts
            .iter()
            .all(|(_, b)| base64_len(b.len()) > MAX_IMAGE_BASE64)
        {
            attempts.push(("image/jpeg", encode(&scaled, ImageFormat::Jpeg)?));
        }
        if let Some((media_type, bytes)) = attempts
            .into_iter()
            .find(|(_, b)| base64_len(b.len()) <= MAX_IMAGE_BASE64)
        {
            return Ok(PreparedImage {
                media_type,
                data: encode_b64(&bytes),
                width: scaled.width(),
                height: scaled.height(),
                original: (width, height),
            });
        }
        side = side * 3 / 4;
    }
    Err(ImageError::TooLarge { width, height })
}

fn encode(img: &DynamicImage, format: ImageFormat) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    let result = match format {
        ImageFormat::Jpeg => {
            // JPEG has no alpha channel.
            let rgb = DynamicImage::ImageRgb8(img.to_rgb8());
            rgb.write_with_encoder(JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY))
        }
        other => img.write_to(&mut Cursor::new(&mut out), other),
    };
    result.map_err(ImageError::Encode)?;
    Ok(out)
}

fn base64_len(bytes: usize) -> usize {
    bytes.div_ceil(3) * 4
}

/// Standard base64.
pub fn encode_b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use image::{ImageBuffer, Rgb};
    use pretty_assertions::assert_eq;

    pub(crate) fn png(width: u32, height: u32) -> Vec<u8> {
        let img = ImageBuffer::from_fn(width, height, |x, y| Rgb([(x % 256) as u8, (y % 256) as u8, 128]));
        let mut out = Vec::new();
        DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    fn dimensions_of(prepared: &PreparedImage) -> (u32, u32) {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&prepared.data)
            .unwrap();
        ImageReader::new(Cursor::new(bytes))
            .with_guessed_format()
            .unwrap()
            .into_dimensions()
            .unwrap()
    }

    #[test]
    fn small_images_pass_unchanged() {
        let bytes = png(40, 20);
        let p = prepare_image(&bytes, ImageKind::Png).unwrap();
        assert_eq!(p.data, encode_b64(&bytes));
        assert_eq!((p.width, p.height, p.resized()), (40, 20, false));
    }

    #[test]
    fn large_images_are_downscaled_keeping_aspect() {
        let p = prepare_image(&png(3000, 2000), ImageKind::Png).unwrap();
        assert!(p.resized());
        assert_eq!((p.width, p.height), (1568, 1045));
        assert_eq!(dimensions_of(&p), (1568, 1045));
        assert_eq!(p.original, (3000, 2000));
        assert!(p.data.len() <= MAX_IMAGE_BASE64);
    }

    #[test]
    fn undecodable_images_are_an_error() {
        let err = prepare_image(b"\x89PNG\r\n\x1a\nbroken", ImageKind::Png)
            .unwrap_err()
            .to_string();
        assert!(err.contains("could not be decoded"), "{err}");
    }
}
