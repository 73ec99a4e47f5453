//! The Messages API's prompt cache, simulated (scenario option `"prompt_cache": true`): the usage
//! of each answer counts cache reads, cache writes and fresh input the way the API does, so a test
//! or benchmark can see what a client's requests would cost.
//!
//! The prompt is the sequence tools → system → messages, cut into blocks (one tool definition, one
//! system block, one content block). A block carrying `cache_control` is a breakpoint: the prefix
//! ending there is written to the cache. A request reads the longest prefix that was written
//! before and ends at one of the 20 block boundaries at or before one of its breakpoints (the API's
//! lookback). Tokens are approximated as 4 bytes of canonical JSON (without `cache_control`).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

/// How far before a breakpoint the API looks for an earlier cached prefix.
const LOOKBACK_BLOCKS: usize = 20;
/// The API's rough bytes per token.
const BYTES_PER_TOKEN: usize = 4;

/// What one request's input splits into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheUsage {
    /// Uncached input tokens (after the last breakpoint, or everything without one).
    pub input_tokens: u64,
    /// Tokens written to the cache.
    pub cache_creation_input_tokens: u64,
    /// Tokens read from the cache.
    pub cache_read_input_tokens: u64,
}

/// The prefixes written so far: prefix hash → its length in bytes.
#[derive(Debug, Default)]
pub struct PromptCache {
    written: HashMap<u64, usize>,
}

/// The request as the cache sees it, in prompt order (tools, system, messages): each block's
/// canonical bytes (without `cache_control`) and whether it is a breakpoint.
pub fn blocks(body: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut push = |block: &Value, prefix: &str| {
        let mut clean = block.clone();
        let breakpoint = clean
            .as_object_mut()
            .and_then(|o| o.remove("cache_control"))
            .is_some_and(|c| !c.is_null());
        out.push((format!("{prefix}{clean}"), breakpoint));
    };
    for tool in body.get("tools").and_then(Value::as_array).into_iter().flatten() {
        push(tool, "tool:");
    }
    match body.get("system") {
        Some(Value::String(text)) => push(&Value::String(text.clone()), "system:"),
        Some(Value::Array(system)) => system.iter().for_each(|b| push(b, "system:")),
        _ => {}
    }
    for message in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
        match message.get("content") {
            Some(Value::Array(content)) => {
                for (i, block) in content.iter().enumerate() {
                    // A message's first block carries its role: the same text as another role's
                    // is another prompt.
                    let prefix = if i == 0 { format!("{role}:") } else { String::new() };
                    push(block, &prefix);
                }
            }
            Some(text) => push(text, &format!("{role}:")),
            None => {}
        }
    }
    out
}

fn tokens(bytes: usize) -> u64 {
    u64::try_from(bytes.div_ceil(BYTES_PER_TOKEN)).unwrap_or(u64::MAX)
}

impl PromptCache {
    /// Splits `body`'s input into read, written and fresh tokens, and writes its breakpoints'
    /// prefixes.
    pub fn account(&mut self, body: &Value) -> CacheUsage {
        let blocks = blocks(body);
        let mut hasher = DefaultHasher::new();
        let mut hashes = Vec::with_capacity(blocks.len());
        let mut ends = Vec::with_capacity(blocks.len());
        let mut total = 0;
        for (bytes, _) in &blocks {
            bytes.hash(&mut hasher);
            hashes.push(hasher.finish());
            total += bytes.len();
            ends.push(total);
        }
        let breakpoints: Vec<usize> = blocks
            .iter()
            .enumerate()
            .filter_map(|(i, (_, breakpoint))| breakpoint.then_some(i))
            .collect();
        let read_end = breakpoints
            .iter()
            .flat_map(|&b| (b.saturating_sub(LOOKBACK_BLOCKS)..=b).rev())
            .filter(|&i| self.written.contains_key(&hashes[i]))
            .map(|i| ends[i])
            .max()
            .unwrap_or(0);
        let write_end = breakpoints.last().map_or(0, |&b| ends[b]).max(read_end);
        for &b in &breakpoints {
            self.written.insert(hashes[b], ends[b]);
        }
        CacheUsage {
            cache_read_input_tokens: tokens(read_end),
            cache_creation_input_tokens: tokens(write_end - read_end),
            input_tokens: tokens(total - write_end),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn request(messages: Value) -> Value {
        json!({
            "tools": [{"name": "Read", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}],
            "system": [{"type": "text", "text": "You are Nerve.", "cache_control": {"type": "ephemeral"}}],
            "messages": messages
        })
    }

    #[test]
    fn the_second_request_reads_what_the_first_wrote() {
        let mut cache = PromptCache::default();
        let first = request(json!([
            {"role": "user", "content": [{"type": "text", "text": "hello there", "cache_control": {"type": "ephemeral"}}]}
        ]));
        let one = cache.account(&first);
        assert_eq!(one.cache_read_input_tokens, 0);
        assert!(one.cache_creation_input_tokens > 0);
        assert_eq!(one.input_tokens, 0);

        // The next request extends the first: everything the first wrote is read (the old
        // breakpoint is found by looking back from the new one).
        let second = request(json!([
            {"role": "user", "content": [{"type": "text", "text": "hello there"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
            {"role": "user", "content": [{"type": "text", "text": "more", "cache_control": {"type": "ephemeral"}}]}
        ]));
        let two = cache.account(&second);
        assert_eq!(
            two.cache_read_input_tokens, one.cache_creation_input_tokens,
            "{one:?} {two:?}"
        );
        assert!(two.cache_creation_input_tokens > 0);

        // A changed system prompt breaks everything after the tools.
        let mut changed = second.clone();
        changed["system"][0]["text"] = json!("You are Nerve, at 10:42.");
        let three = cache.account(&changed);
        assert!(
            three.cache_read_input_tokens < two.cache_read_input_tokens / 2,
            "{three:?}"
        );
    }
}
