//! What the new ways in cost at the sizes users bring, side by side in one run:
//! - a folder attached to a prompt: the root of a generated repository of 30,000 files (300
//!   folders of 100) against one of its folders (the listing stops looking after 5,000 entries,
//!   so the root costs a bounded multiple of a folder, not the repository's size);
//! - a Chat Completions answer (5,000 text deltas and 40 tool calls of 50 argument fragments)
//!   decoded and assembled through the translator, against the same answer from the Messages API;
//! - a long conversation (2,000 messages of calls and results) written as a Chat Completions
//!   request, against writing it for the Messages API.
//!
//! `NERVE_BENCH_SCALE` divides the sizes (the test command's short run uses 50).
//! `cargo bench -p nerve --bench reach`
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // a benchmark binary: failing loudly is right

use std::time::{Duration, Instant};

use futures::StreamExt;
use nerve::model::stream::{Assembled, MessageAssembler};
use nerve_protocol::prompt::PromptAttachment;
use serde_json::{Value, json};

const RUNS: usize = 7;

fn scale() -> usize {
    std::env::var("NERVE_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(1)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn folder_attachment() {
    let folders = (300 / scale()).max(3);
    let dir = tempfile::tempdir().unwrap();
    for f in 0..folders {
        let sub = dir.path().join(format!("pkg{f:03}/src"));
        std::fs::create_dir_all(&sub).unwrap();
        for i in 0..100 {
            std::fs::write(sub.join(format!("file{i:03}.rs")), "").unwrap();
        }
    }
    let mut options = nerve::project::ProjectOptions::new(dir.path());
    options.bare = true;
    let project = nerve::Project::open(options).unwrap();
    let permissions = project.permission_context(false);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let list = |path: &str| {
        let start = Instant::now();
        let blocks = runtime
            .block_on(nerve::session::attachments::read_all(
                &project,
                &permissions,
                &[PromptAttachment::Folder {
                    path: path.to_string(),
                }],
            ))
            .unwrap();
        std::hint::black_box(blocks);
        start.elapsed()
    };
    let (mut root, mut one) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        root.push(list("."));
        one.push(list("pkg000/src"));
    }
    let (root, one) = (median(root), median(one));
    println!(
        "folder attachment: the root of {} files {:.2} ms, one folder of 100 {:.2} ms: {:.1}x (the repository is {}x the folder)",
        folders * 100,
        ms(root),
        ms(one),
        ms(root) / ms(one),
        folders
    );
}

/// One answer as the Messages API streams it, and as a Chat Completions server does.
fn answers(deltas: usize, calls: usize) -> (Vec<String>, Vec<String>) {
    let mut messages = vec![
        r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#.to_string(),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#.to_string(),
    ];
    let mut chat = Vec::new();
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            .to_string()
    };
    for i in 0..deltas {
        let text = format!("word{i} ");
        messages.push(
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})
                .to_string(),
        );
        chat.push(chunk(json!({"content": text}), Value::Null));
    }
    messages.push(r#"{"type":"content_block_stop","index":0}"#.to_string());
    let arguments =
        json!({"file_path": "/project/src/some/deeply/nested/file.rs", "offset": 1, "limit": 2000})
            .to_string();
    let pieces: Vec<String> = arguments
        .as_bytes()
        .chunks(arguments.len().div_ceil(50))
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect();
    for call in 0..calls {
        let index = call + 1;
        messages.push(json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": format!("toolu_{call}"), "name": "Read", "input": {}}}).to_string());
        chat.push(chunk(json!({"tool_calls": [{"index": call, "id": format!("call_{call}"), "type": "function", "function": {"name": "Read", "arguments": ""}}]}), Value::Null));
        for piece in &pieces {
            messages.push(json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}).to_string());
            chat.push(chunk(
                json!({"tool_calls": [{"index": call, "function": {"arguments": piece}}]}),
                Value::Null,
            ));
        }
        messages.push(json!({"type": "content_block_stop", "index": index}).to_string());
    }
    messages.push(r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":500}}"#.to_string());
    messages.push(r#"{"type":"message_stop"}"#.to_string());
    chat.push(chunk(json!({}), json!("tool_calls")));
    let sse = |lines: Vec<String>, named: bool| -> Vec<String> {
        lines
            .into_iter()
            .map(|data| {
                if named {
                    let event = serde_json::from_str::<Value>(&data).unwrap()["type"]
                        .as_str()
                        .unwrap()
                        .to_string();
                    format!("event: {event}\ndata: {data}\n\n")
                } else {
                    format!("data: {data}\n\n")
                }
            })
            .collect()
    };
    let mut chat = sse(chat, false);
    chat.push("data: [DONE]\n\n".to_string());
    (sse(messages, true), chat)
}

fn assemble<
    S: futures::Stream<Item = Result<nerve::model::sse::StreamEvent, nerve::model::error::StreamError>>,
>(
    events: S,
) -> usize {
    futures::executor::block_on(async {
        let mut events = Box::pin(events);
        let mut assembler = MessageAssembler::new();
        while let Some(event) = events.next().await {
            if let Some(Assembled::MessageComplete(m)) = assembler.push(&event.unwrap()).unwrap() {
                return m.content.len();
            }
        }
        panic!("the answer did not complete");
    })
}

fn stream_translation() {
    let (deltas, calls) = ((5_000 / scale()).max(10), (40 / scale()).max(2));
    let (messages, chat) = answers(deltas, calls);
    let bytes = |chunks: &[String]| -> Vec<Result<Vec<u8>, std::io::Error>> {
        chunks.iter().map(|c| Ok(c.clone().into_bytes())).collect()
    };
    let (mut anthropic, mut openai) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let input = bytes(&messages);
        let start = Instant::now();
        let blocks = assemble(nerve::model::sse::decode_sse(futures::stream::iter(input)));
        anthropic.push(start.elapsed());
        assert_eq!(blocks, calls + 1);
        let input = bytes(&chat);
        let start = Instant::now();
        let blocks = assemble(nerve::model::openai::stream::decode_chat_sse(
            futures::stream::iter(input),
        ));
        openai.push(start.elapsed());
        assert_eq!(blocks, calls + 1);
    }
    let (anthropic, openai) = (median(anthropic), median(openai));
    println!(
        "an answer of {deltas} text deltas and {calls} calls: Chat Completions {:.2} ms, Messages API {:.2} ms: {:.2}x",
        ms(openai),
        ms(anthropic),
        ms(openai) / ms(anthropic)
    );
}

fn request_translation() {
    let turns = (1_000 / scale()).max(5);
    let mut messages = vec![json!({"role": "user", "content": "Find every use of the parser."})];
    for i in 0..turns {
        messages.push(json!({"role": "assistant", "content": [
            {"type": "text", "text": format!("Reading file {i}.")},
            {"type": "tool_use", "id": format!("toolu_{i}"), "name": "Read", "input": {"file_path": format!("/p/src/file{i}.rs")}}]}));
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": format!("toolu_{i}"), "content": [{"type": "text", "text": "fn parse() {}\n".repeat(40)}]}]}));
    }
    let body = json!({
        "model": "m", "max_tokens": 8000, "stream": true,
        "system": [{"type": "text", "text": "You are Nerve. ".repeat(400)}],
        "tools": (0..20).map(|t| json!({"name": format!("Tool{t}"), "description": "A tool.", "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}})).collect::<Vec<_>>(),
        "messages": messages,
    });
    let (mut plain, mut chat) = (Vec::new(), Vec::new());
    let mut sizes = (0, 0);
    for _ in 0..RUNS {
        let start = Instant::now();
        let written = serde_json::to_vec(std::hint::black_box(&body)).unwrap();
        plain.push(start.elapsed());
        let start = Instant::now();
        let value: Value = serde_json::from_slice(&written).unwrap();
        let translated =
            serde_json::to_vec(&nerve::model::openai::request::chat_body(&value).unwrap()).unwrap();
        chat.push(start.elapsed());
        sizes = (written.len(), translated.len());
    }
    let (plain, chat) = (median(plain), median(chat));
    println!(
        "a conversation of {} messages ({} KB): written for Chat Completions {:.2} ms ({} KB), for the Messages API {:.2} ms: {:.1}x",
        2 * turns + 1,
        sizes.0 / 1024,
        ms(chat),
        sizes.1 / 1024,
        ms(plain),
        ms(chat) / ms(plain)
    );
}

fn main() {
    folder_attachment();
    stream_translation();
    request_translation();
}
