//! Read through its `Tool` methods, on real files in a temporary folder.

use std::io::Write as _;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;
use crate::tool::{FileReadRecord, MAX_HASHED_BYTES, ResultBlock, SeenContent};
use crate::tools::fs::hash_bytes;
use crate::tools::fs::test_support::{context, no_progress};

fn input(path: &str) -> ReadInput {
    ReadInput {
        file_path: path.into(),
        offset: None,
        limit: None,
        pages: None,
    }
}

async fn read(ctx: &ToolUseContext, input: ReadInput) -> Result<Vec<ResultBlock>, String> {
    ReadTool.validate_input(&input, ctx).await?;
    ReadTool
        .call(input, ctx, &no_progress())
        .await
        .map(|o| o.content)
        .map_err(|e| e.to_string())
}

fn text(blocks: &[ResultBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ResultBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn reads_text_with_line_numbers_and_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("src/main.rs");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "fn main() {\n    println!(\"hi\");\n}\n").unwrap();
    // A relative path is resolved against the working directory.
    let out = read(&ctx, input("src/main.rs")).await.unwrap();
    assert_eq!(
        text(&out),
        "     1\tfn main() {\n     2\t    println!(\"hi\");\n     3\t}\n"
    );
    let record = ctx.exec.read_files.get(&path).unwrap();
    assert_eq!(
        record.content,
        SeenContent::Hash(hash_bytes(&std::fs::read(&path).unwrap()))
    );
    assert_eq!(record.modified, std::fs::metadata(&path).unwrap().modified().ok());
    assert_eq!((record.offset, record.limit), (None, None));
}

#[tokio::test]
async fn offset_and_limit_select_lines_and_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("a.txt");
    std::fs::write(&path, (1..=50).map(|i| format!("l{i}\n")).collect::<String>()).unwrap();
    let mut i = input(path.to_str().unwrap());
    i.offset = Some(10);
    i.limit = Some(2);
    let out = text(&read(&ctx, i).await.unwrap());
    assert!(out.starts_with("    10\tl10\n    11\tl11\n"), "{out}");
    assert!(out.contains("Showing lines 10–11 of 50"), "{out}");
    let record = ctx.exec.read_files.get(&path).unwrap();
    assert_eq!((record.offset, record.limit), (Some(10), Some(2)));
}

/// Past [`MAX_HASHED_BYTES`] a Read is not spent hashing the whole file: the record keeps its
/// length and time, and an edit after the log grew is refused as stale.
#[tokio::test]
async fn a_file_too_large_to_hash_is_recorded_by_its_length_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("big.log");
    let line_count = MAX_HASHED_BYTES / 16 + 1;
    let log: String = (1..=line_count).map(|i| format!("log line {i:06}\n")).collect();
    assert!(log.len() as u64 > MAX_HASHED_BYTES);
    std::fs::write(&path, &log).unwrap();
    let mut tail = input(path.to_str().unwrap());
    tail.offset = Some(line_count as usize);
    let out = text(&read(&ctx, tail).await.unwrap());
    assert_eq!(
        out,
        format!(
            "{line_count}\tlog line {line_count}\n\n(Showing lines {line_count}–{line_count} of {line_count}. Use offset and limit to read other parts.)"
        )
    );
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(
        ctx.exec.read_files.get(&path).unwrap(),
        FileReadRecord {
            content: SeenContent::Large {
                len: log.len() as u64
            },
            modified: meta.modified().ok(),
            offset: Some(line_count as usize),
            limit: None,
        }
    );

    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(b"one more line\n")
        .unwrap();
    let stale = crate::tools::fs::check_fresh(&ctx, &path).unwrap_err();
    assert!(
        matches!(stale, crate::tools::fs::StaleFile::Modified { .. }),
        "{stale}"
    );
}

#[tokio::test]
async fn empty_file_and_offset_past_end_are_clear_notes() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let empty = ctx.exec.cwd.join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let out = text(&read(&ctx, input(empty.to_str().unwrap())).await.unwrap());
    assert!(out.contains("exists but is empty"), "{out}");
    let short = ctx.exec.cwd.join("short.txt");
    std::fs::write(&short, "a\nb\nc\n").unwrap();
    let mut i = input(short.to_str().unwrap());
    i.offset = Some(10);
    let out = text(&read(&ctx, i).await.unwrap());
    assert!(out.contains("has 3 lines; offset 10 is past its end"), "{out}");
}

#[tokio::test]
async fn huge_files_fail_with_offset_limit_advice() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("big.log");
    let line = format!("{}\n", "word ".repeat(60));
    std::fs::write(&path, line.repeat(30_000)).unwrap();
    let err = read(&ctx, input(path.to_str().unwrap())).await.unwrap_err();
    assert!(err.contains("offset") && err.contains("limit"), "{err}");
    assert!(err.contains("30000 lines"), "{err}");
    assert!(err.contains("25000-token limit"), "{err}");
    // Nothing was shown, so nothing is recorded as read.
    assert!(ctx.exec.read_files.get(&path).is_none());
}

#[tokio::test]
async fn device_paths_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    for p in ["/dev/zero", "/dev/urandom", "/dev/stdin", "/proc/self/fd/0"] {
        let err = read(&ctx, input(p)).await.unwrap_err();
        assert!(err.contains("could block forever or never end"), "{p}: {err}");
    }
    // Not on the name list, refused by its type.
    let err = read(&ctx, input("/dev/null")).await.unwrap_err();
    assert!(err.contains("character device"), "{err}");
}

#[tokio::test]
async fn fifos_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let fifo = ctx.exec.cwd.join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let err = tokio::time::timeout(std::time::Duration::from_secs(10), read(&ctx, input("pipe")))
        .await
        .expect("a FIFO must not block the read")
        .unwrap_err();
    assert!(err.contains("FIFO"), "{err}");
}

#[tokio::test]
async fn binary_files_are_refused_with_their_kind() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    std::fs::write(ctx.exec.cwd.join("prog"), b"\x7fELF\x02\x01\x01\0\0\0").unwrap();
    let err = read(&ctx, input("prog")).await.unwrap_err();
    assert!(err.contains("ELF executable"), "{err}");
    std::fs::write(ctx.exec.cwd.join("data.bin"), [0u8, 1, 2, 3, 0, 0]).unwrap();
    let err = read(&ctx, input("data.bin")).await.unwrap_err();
    assert!(err.contains("binary data"), "{err}");
}

#[tokio::test]
async fn missing_files_suggest_near_names() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    std::fs::write(ctx.exec.cwd.join("config.yaml"), "a: 1\n").unwrap();
    let err = read(&ctx, input("config.yml")).await.unwrap_err();
    assert!(err.contains("File does not exist"), "{err}");
    assert!(
        err.contains("Did you mean") && err.contains("config.yaml"),
        "{err}"
    );
}

#[tokio::test]
async fn macos_screenshot_names_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let real = ctx
        .exec
        .cwd
        .join("Screenshot 2024-05-01 at 10.15.30\u{202f}AM.png");
    std::fs::write(&real, image::tests::png(10, 10)).unwrap();
    let typed = ctx.exec.cwd.join("Screenshot 2024-05-01 at 10.15.30 AM.png");
    let out = read(&ctx, input(typed.to_str().unwrap())).await.unwrap();
    assert!(matches!(&out[1], ResultBlock::Image { media_type, .. } if media_type == "image/png"));
    assert!(
        ctx.exec.read_files.get(&real).is_some(),
        "the real file is recorded"
    );
}

#[tokio::test]
async fn images_are_sniffed_and_downscaled() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    // No extension: the magic bytes decide.
    std::fs::write(ctx.exec.cwd.join("shot"), image::tests::png(3000, 2000)).unwrap();
    let out = read(&ctx, input("shot")).await.unwrap();
    assert!(text(&out).contains("downscaled from 3000×2000"), "{}", text(&out));
    let ResultBlock::Image { data, .. } = &out[1] else {
        panic!("image expected: {out:?}")
    };
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
    let dims = ::image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .unwrap()
        .into_dimensions()
        .unwrap();
    assert_eq!(dims, (1568, 1045));
}

#[tokio::test]
async fn pdfs_as_document_and_as_page_text() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let bytes = pdf::tests::pdf_with_pages(&["Alpha page", "Beta page"]);
    std::fs::write(ctx.exec.cwd.join("doc.pdf"), &bytes).unwrap();
    let out = read(&ctx, input("doc.pdf")).await.unwrap();
    assert!(matches!(&out[1], ResultBlock::Document { media_type, .. } if media_type == "application/pdf"));
    let mut i = input("doc.pdf");
    i.pages = Some("2".into());
    let out = text(&read(&ctx, i).await.unwrap());
    assert!(out.contains("Beta page") && !out.contains("Alpha page"), "{out}");
    // Too many pages at once, and pages on a non-PDF.
    let mut i = input("doc.pdf");
    i.pages = Some("1-25".into());
    assert!(read(&ctx, i).await.unwrap_err().contains("at most 20 pages"));
    std::fs::write(ctx.exec.cwd.join("a.txt"), "x\n").unwrap();
    let mut i = input("a.txt");
    i.pages = Some("1".into());
    assert!(read(&ctx, i).await.unwrap_err().contains("only to PDF files"));
}

#[tokio::test]
async fn notebooks_show_cells() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let nb = serde_json::json!({"cells": [{"id": "k1", "cell_type": "code", "source": "x = 1",
        "outputs": [{"output_type": "stream", "text": "done\n"}]}]});
    std::fs::write(ctx.exec.cwd.join("a.ipynb"), nb.to_string()).unwrap();
    let out = text(&read(&ctx, input("a.ipynb")).await.unwrap());
    assert!(
        out.contains("<cell id=\"k1\" type=\"code\">\nx = 1\n</cell>"),
        "{out}"
    );
    assert!(out.contains("done"), "{out}");
    // A notebook-named file that is not a notebook reads as text.
    std::fs::write(ctx.exec.cwd.join("b.ipynb"), "plain").unwrap();
    assert_eq!(
        text(&read(&ctx, input("b.ipynb")).await.unwrap()),
        "     1\tplain\n"
    );
}

#[tokio::test]
async fn directories_are_listed_not_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    std::fs::create_dir(ctx.exec.cwd.join("sub")).unwrap();
    std::fs::write(ctx.exec.cwd.join("f.txt"), "").unwrap();
    let out = text(&read(&ctx, input(".")).await.unwrap());
    assert!(out.contains("- f.txt\n- sub/\n"), "{out}");
    assert!(out.contains("Glob"), "{out}");
    assert!(ctx.exec.read_files.is_empty());
}

#[tokio::test]
async fn limit_zero_is_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let mut i = input("a.txt");
    i.limit = Some(0);
    assert!(read(&ctx, i).await.unwrap_err().contains("at least 1"));
}

#[test]
fn contract_flags_and_subject() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let i = input("sub/../x.txt");
    assert!(ReadTool.is_read_only(&i) && ReadTool.is_concurrency_safe(&i));
    assert_eq!(Tool::max_result_size_chars(&ReadTool), None);
    assert_eq!(
        ReadTool.permission_subject(&i, &ctx),
        PermissionSubject::Paths {
            access: Access::Read,
            paths: vec![ctx.exec.cwd.join("x.txt")]
        }
    );
    let mut observed = i;
    ReadTool.backfill_observable_input(&mut observed, &ctx);
    assert_eq!(Path::new(&observed.file_path), ctx.exec.cwd.join("x.txt"));
    let schema = ReadTool.input_schema();
    let props = schema["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        vec!["file_path", "offset", "limit", "pages"]
    );
    assert_eq!(schema["required"], serde_json::json!(["file_path"]));
}

#[test]
fn summary_is_relative_with_lines() {
    let mut i = input("/p/src/main.rs");
    assert_eq!(summary_of(&i, Some(Path::new("/p"))), "src/main.rs");
    i.limit = Some(200);
    assert_eq!(summary_of(&i, Some(Path::new("/p"))), "src/main.rs · lines 1–200");
    i.offset = Some(11);
    assert_eq!(
        summary_of(&i, Some(Path::new("/q"))),
        "/p/src/main.rs · lines 11–210"
    );
    i.pages = Some("1-5".into());
    assert_eq!(summary_of(&i, None), "/p/src/main.rs · pages 1-5");
}
