//! PDFs: small ones go to the model whole, as a document block; with `pages`, the text of those
//! pages is extracted (pure Rust, lopdf) so large PDFs can be read in parts.

use crate::tool::ResultBlock;
use crate::tools::read::image::encode_b64;
use crate::tools::read::text::MAX_TOKENS;

/// The largest PDF sent as a document.
pub const MAX_PDF_DOCUMENT_BYTES: usize = 32 * 1024 * 1024;
/// The most pages a PDF sent as a document may have.
pub const MAX_PDF_DOCUMENT_PAGES: usize = 100;
/// The most pages one call extracts.
pub const MAX_PAGES_PER_CALL: u32 = 20;

/// An inclusive, 1-based page range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRange {
    /// First page.
    pub first: u32,
    /// Last page.
    pub last: u32,
}

/// Why a PDF, or the pages asked for, cannot be read. The messages are what the model reads, with
/// what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    /// `pages` is not a page or a range.
    #[error(
        "Invalid `pages` value {text:?}: use one page (\"3\") or a range (\"1-5\"), pages counted from 1."
    )]
    BadPages {
        /// The value given.
        text: String,
    },
    /// `pages` names more pages than one call reads.
    #[error(
        "`pages` {text:?} asks for {count} pages; at most {MAX_PAGES_PER_CALL} pages can be read per call. Split it, e.g. \"{first}-{}\" and then \"{}-{}\".",
        first + MAX_PAGES_PER_CALL - 1,
        first + MAX_PAGES_PER_CALL,
        (*last).min(first + 2 * MAX_PAGES_PER_CALL - 1)
    )]
    TooManyPages {
        /// The value given.
        text: String,
        /// How many pages it names.
        count: u32,
        /// Its first page.
        first: u32,
        /// Its last page.
        last: u32,
    },
    /// The document is too large to send whole.
    #[error(
        "This PDF is {:.1} MB, over the {:.0} MB that can be sent whole. Read its text in parts with `pages` (e.g. pages: \"1-20\"; at most {MAX_PAGES_PER_CALL} pages per call).",
        megabytes(*bytes),
        megabytes(MAX_PDF_DOCUMENT_BYTES)
    )]
    TooLargeWhole {
        /// Its size.
        bytes: usize,
    },
    /// The document has too many pages to send whole.
    #[error(
        "This PDF has {pages} pages, more than the {MAX_PDF_DOCUMENT_PAGES} that can be sent whole. Read its text in parts with `pages` (e.g. pages: \"1-20\"; at most {MAX_PAGES_PER_CALL} pages per call)."
    )]
    TooManyPagesWhole {
        /// Its page count.
        pages: usize,
    },
    /// The document cannot be parsed for its text.
    #[error(
        "The PDF could not be parsed, so the text of its pages cannot be extracted ({0}). Without `pages` it is sent whole as a document if it has at most {MAX_PDF_DOCUMENT_PAGES} pages."
    )]
    Unparsable(#[source] lopdf::Error),
    /// The first page asked for is past the end.
    #[error(
        "The PDF has {total} page{}; page {first} does not exist. Use pages between 1 and {total}.",
        if *total == 1 { "" } else { "s" }
    )]
    NoSuchPage {
        /// Its page count.
        total: u32,
        /// The first page asked for.
        first: u32,
    },
    /// No page asked for gave any text.
    #[error(
        "Text could not be extracted from pages {first}-{last} of this PDF ({}). It may use fonts or encodings the extractor does not support. Without `pages` the PDF is sent whole as a document if it has at most {MAX_PDF_DOCUMENT_PAGES} pages.",
        failures.join("; ")
    )]
    NoText {
        /// The first page asked for.
        first: u32,
        /// The last page there is of those asked for.
        last: u32,
        /// Each page's extraction error.
        failures: Vec<String>,
    },
    /// The pages' text is more than one read returns.
    #[error(
        "The text of pages {first}-{last} is about {tokens} tokens, over the {MAX_TOKENS}-token limit of one read. Ask for fewer pages."
    )]
    TooMuchText {
        /// The first page asked for.
        first: u32,
        /// The last page there is of those asked for.
        last: u32,
        /// About how many tokens the text is.
        tokens: usize,
    },
}

fn megabytes(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

impl PageRange {
    /// Parses "3", "1-5" or "10-20" (at most [`MAX_PAGES_PER_CALL`] pages).
    pub fn parse(text: &str) -> Result<Self, PdfError> {
        let bad = || PdfError::BadPages {
            text: text.to_string(),
        };
        let number = |s: &str| s.trim().parse::<u32>().ok().filter(|n| *n >= 1);
        let (first, last) = match text.split_once('-') {
            Some((a, b)) => (number(a).ok_or_else(bad)?, number(b).ok_or_else(bad)?),
            None => {
                let n = number(text).ok_or_else(bad)?;
                (n, n)
            }
        };
        if last < first {
            return Err(bad());
        }
        let count = last - first + 1;
        if count > MAX_PAGES_PER_CALL {
            return Err(PdfError::TooManyPages {
                text: text.to_string(),
                count,
                first,
                last,
            });
        }
        Ok(Self { first, last })
    }
}

/// The result blocks for a PDF: the whole document, or the text of `pages`.
pub fn read_pdf(bytes: &[u8], pages: Option<PageRange>) -> Result<Vec<ResultBlock>, PdfError> {
    match pages {
        None => whole_document(bytes),
        Some(range) => extract_pages(bytes, range),
    }
}

fn whole_document(bytes: &[u8]) -> Result<Vec<ResultBlock>, PdfError> {
    if bytes.len() > MAX_PDF_DOCUMENT_BYTES {
        return Err(PdfError::TooLargeWhole { bytes: bytes.len() });
    }
    // The page count decides whether the API takes it; a PDF lopdf cannot parse is still sent, since
    // the API's own reader may cope with it.
    let page_count = lopdf::Document::load_mem(bytes).ok().map(|d| d.get_pages().len());
    if let Some(pages) = page_count
        && pages > MAX_PDF_DOCUMENT_PAGES
    {
        return Err(PdfError::TooManyPagesWhole { pages });
    }
    let note = match page_count {
        Some(n) => format!("PDF document, {n} page{}.", if n == 1 { "" } else { "s" }),
        None => "PDF document (its pages could not be counted).".to_string(),
    };
    Ok(vec![
        ResultBlock::text(note),
        ResultBlock::Document {
            media_type: "application/pdf".into(),
            data: encode_b64(bytes),
        },
    ])
}

fn extract_pages(bytes: &[u8], range: PageRange) -> Result<Vec<ResultBlock>, PdfError> {
    let doc = lopdf::Document::load_mem(bytes).map_err(PdfError::Unparsable)?;
    let total = doc.get_pages().len() as u32;
    if range.first > total {
        return Err(PdfError::NoSuchPage {
            total,
            first: range.first,
        });
    }
    let last = range.last.min(total);
    let mut out = String::new();
    let mut failures = Vec::new();
    for page in range.first..=last {
        out.push_str(&format!("--- Page {page} ---\n"));
        match doc.extract_text(&[page]) {
            Ok(text) if text.trim().is_empty() => {
                out.push_str("(no text on this page: it may be a scanned image)\n")
            }
            Ok(text) => {
                out.push_str(text.trim_end());
                out.push('\n');
            }
            Err(e) => {
                out.push_str(&format!("(text extraction failed: {e})\n"));
                failures.push(format!("page {page}: {e}"));
            }
        }
    }
    let count = (last - range.first + 1) as usize;
    if failures.len() == count {
        return Err(PdfError::NoText {
            first: range.first,
            last,
            failures,
        });
    }
    if out.len() / 4 > MAX_TOKENS {
        return Err(PdfError::TooMuchText {
            first: range.first,
            last,
            tokens: out.len() / 4,
        });
    }
    let mut header = format!("PDF text, pages {}-{last} of {total}.", range.first);
    if range.last > total {
        header.push_str(&format!(
            " (Asked up to page {}, but the PDF ends at {total}.)",
            range.last
        ));
    }
    Ok(vec![ResultBlock::text(format!("{header}\n{out}"))])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};
    use pretty_assertions::assert_eq;

    /// A valid PDF with one page per text, each showing its text in Helvetica.
    pub(crate) fn pdf_with_pages(texts: &[&str]) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font_id = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        });
        let resources_id = doc.add_object(dictionary! {
            "Font" => dictionary! { "F1" => font_id },
        });
        let mut kids: Vec<Object> = Vec::new();
        for text in texts {
            let content = Content {
                operations: vec![
                    Operation::new("BT", vec![]),
                    Operation::new("Tf", vec!["F1".into(), 24.into()]),
                    Operation::new("Td", vec![72.into(), 700.into()]),
                    Operation::new("Tj", vec![Object::string_literal(*text)]),
                    Operation::new("ET", vec![]),
                ],
            };
            let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
            let page_id = doc.add_object(dictionary! {
                "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
            });
            kids.push(page_id.into());
        }
        let count = kids.len() as i64;
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => kids, "Count" => count,
                "Resources" => resources_id, "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
            }),
        );
        let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog_id);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    #[test]
    fn page_ranges_parse_and_are_bounded() {
        assert_eq!(PageRange::parse("3").ok(), Some(PageRange { first: 3, last: 3 }));
        assert_eq!(
            PageRange::parse("1-5").ok(),
            Some(PageRange { first: 1, last: 5 })
        );
        assert_eq!(
            PageRange::parse(" 10 - 20 ").ok(),
            Some(PageRange { first: 10, last: 20 })
        );
        for bad in ["0", "5-2", "a", "1-", "-3", ""] {
            assert!(PageRange::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            PageRange::parse("1-21").unwrap_err().to_string(),
            "`pages` \"1-21\" asks for 21 pages; at most 20 pages can be read per call. Split it, e.g. \"1-20\" and then \"21-21\"."
        );
    }

    #[test]
    fn small_pdf_is_a_document() {
        let bytes = pdf_with_pages(&["Hello"]);
        let blocks = read_pdf(&bytes, None).unwrap();
        assert_eq!(blocks[0], ResultBlock::text("PDF document, 1 page."));
        assert_eq!(
            blocks[1],
            ResultBlock::Document {
                media_type: "application/pdf".into(),
                data: encode_b64(&bytes)
            }
        );
    }

    #[test]
    fn pages_give_extracted_text() {
        let bytes = pdf_with_pages(&["First page", "Second page", "Third page"]);
        let blocks = read_pdf(&bytes, Some(PageRange::parse("2-3").unwrap())).unwrap();
        let ResultBlock::Text { text } = &blocks[0] else {
            panic!("text expected")
        };
        assert!(text.starts_with("PDF text, pages 2-3 of 3."), "{text}");
        assert!(text.contains("--- Page 2 ---\nSecond page"), "{text}");
        assert!(text.contains("Third page"), "{text}");
        assert!(!text.contains("First page"), "{text}");
        let err = read_pdf(&bytes, Some(PageRange::parse("7").unwrap()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("has 3 pages"), "{err}");
    }

    #[test]
    fn too_many_pages_for_a_document_point_to_pages() {
        let texts: Vec<String> = (1..=101).map(|i| format!("p{i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let err = read_pdf(&pdf_with_pages(&refs), None).unwrap_err().to_string();
        assert!(err.contains("101 pages") && err.contains("`pages`"), "{err}");
    }

    #[test]
    fn unparseable_pdf_text_extraction_says_so() {
        let err = read_pdf(b"%PDF-1.4\ngarbage", Some(PageRange::parse("1").unwrap()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("could not be parsed"), "{err}");
    }
}
