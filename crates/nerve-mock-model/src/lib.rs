//! A scripted mock of the Anthropic Messages API: a real HTTP server speaking real SSE, for
//! integration tests of Nerve's agent loop, CLI and desktop app.
//!
//! Start it from Rust with [`MockServer::start`] (binds 127.0.0.1 on a free port) or run the
//! binary: `nerve-mock-model --scenario FILE [--port N]`, which prints
//! `listening on http://127.0.0.1:PORT` and serves until killed. Point the client at
//! [`MockServer::url`] (for example through `ANTHROPIC_BASE_URL`).
//!
//! # What it checks
//! Every `POST /v1/messages` is validated the way the real API does (see [`validate`]): the
//! `x-api-key` (401) and `anthropic-version` (400) headers, `model` and `max_tokens`, message
//! roles (first user, alternating), non-empty content, every assistant `tool_use` answered by
//! exactly one `tool_result` at the start of the next user message, no unknown or duplicate
//! ids, signed thinking blocks. Failures get a 400/401 with the API's error shape
//! (`{"type":"error","error":{"type":"invalid_request_error","message":...}}`) and do not
//! consume a scenario step. When the steps run out, requests get a 500 whose message says
//! "mock scenario exhausted".
//!
//! Every request is recorded (API key value redacted) and listed by `GET /__mock/requests`
//! or [`MockServer::requests`]. For benchmarks, `GET /__mock/busy` gives the time spent answering
//! messages ([`MockServer::busy`]) and `POST /__mock/sink` takes a body and answers at once.
//!
//! # Scenario files
//! ```json
//! {
//!   "steps": [
//!     {
//!       "expect": {"system_contains": "Nerve", "tool_count": 3},
//!       "response": {
//!         "type": "stream",
//!         "delay_ms": 0,
//!         "delta_delay_ms": 0,
//!         "blocks": [
//!           {"type": "thinking", "thinking": "Let me look.", "signature": "sig-1"},
//!           {"type": "text", "text": ["I'll list ", "the files."], "delay_ms": 20},
//!           {"type": "tool_use", "id": "toolu_1", "name": "Bash",
//!            "input": {"command": "ls"}, "fragments": 3}
//!         ],
//!         "stop_reason": "tool_use",
//!         "usage": {"input_tokens": 120, "output_tokens": 30,
//!                   "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
//!       }
//!     },
//!     {"response": {"type": "error", "status": 529, "retry_after": "0"}},
//!     {"expect": {"tool_result": {"tool_use_id": "toolu_1", "contains": "README", "is_error": false}},
//!      "response": {"type": "stream", "blocks": [{"type": "text", "text": "Done."}],
//!                   "drop_after_events": 4}}
//!   ]
//! }
//! ```
//!
//! Step fields:
//! - `when` (optional): which requests the step answers, with the same fields as `expect`. A
//!   request is answered by the earliest unused step whose `when` holds; without `when` a step
//!   takes any request, so a scenario without it plays in order. Requests that come in no fixed
//!   order (a sub-agent's beside its parent's) are told apart by their system prompt:
//!   `{"when": {"system_contains": "sub-agent"}}`.
//! - `expect` (optional): `system_contains`, `system_includes` / `system_excludes` (lists),
//!   `tool_count`, `tools_include` / `tools_exclude`, `message_count`, `model`,
//!   `last_user_text_contains`, `last_user_images`, `tool_result {tool_use_id, contains?, is_error?}`,
//!   `no_message_contains`. A failed assertion consumes the step and is answered with a 400 whose
//!   message starts with "mock expectation failed at step N:".
//! - `response.type = "stream"`: `blocks` are `text` (`text` is a string sent as one delta or a
//!   list of chunks, one delta each), `thinking` (`thinking` like text, plus `signature` sent
//!   as a `signature_delta`), `tool_use` (`id` defaults to `toolu_mock_<step>_<block>`, `input`
//!   defaults to `{}`, streamed as an empty fragment then `fragments` (default 3)
//!   `input_json_delta` pieces; `raw_input` sends that text instead, to script invalid JSON),
//!   and the server tool's blocks: `server_tool_use` (`id`, `name`, `input`; the request must
//!   offer that server tool, else the step fails) and `web_search_tool_result` (`tool_use_id`,
//!   `content`: the results list or the error object, as the API sends them). A `web_search`
//!   server tool in the request is checked as the API does (type version, name, `max_uses`, not
//!   both domain lists).
//! - The same scenario answers the OpenAI-compatible Chat Completions API on
//!   `POST /v1/chat/completions` (module `chat`): the request is checked as OpenAI checks it
//!   (a bearer key, roles, every `tool_calls` answered by `tool` messages right after it, function
//!   tools with valid names), read as a Messages API request for `when` and `expect`, and answered
//!   with chat chunks (text as `content` deltas, tool calls as `tool_calls` deltas, the usage chunk
//!   when asked, `[DONE]`) or one `chat.completion`; errors in OpenAI's shape.
//! - And OpenAI's Responses API on `POST /v1/responses` (module `responses`): a bearer key,
//!   `model`, `input` items with each `function_call_output` answering an earlier `function_call`
//!   by `call_id` and every call answered, function tools with a name and parameters; answered with
//!   the typed events (`response.created`, `output_item.added`/`done`, `output_text.delta`,
//!   `function_call_arguments.delta`, `response.completed` with the usage).
//!   Every block takes an optional `delay_ms` before its `content_block_start`; `delay_ms` on
//!   the response pauses before `message_start` (headers are sent at once), `delta_delay_ms`
//!   before each delta. `stop_reason` defaults to `tool_use` when a tool_use block exists,
//!   else `end_turn`. `usage` defaults to 10 input / 10 output tokens. `model` defaults to the
//!   request's. `drop_after_events: N` sends the first N events then breaks the connection.
//!   `stream_error: {"after_events": N, "error_type": "overloaded_error", "message": "Overloaded"}`
//!   sends the first N events, then an `error` event, and ends the stream (type and message
//!   default to those shown).
//!   A request without `"stream": true` gets the whole message as one JSON body instead.
//! - `response.type = "error"`: `status` (4xx/5xx), `error_type` (default from the status:
//!   529 `overloaded_error`, 429 `rate_limit_error`, other 5xx `api_error`...), `message`,
//!   `retry_after` / `retry_after_ms` header values, or `raw_body` to send plain text instead
//!   of the JSON error.

pub mod announce;
pub mod cache;
pub mod chat;
pub mod expect;
pub mod frames;
pub mod responses;
pub mod scenario;
pub mod server;
pub mod validate;

pub use announce::{announce, read_announced_url};
pub use scenario::Scenario;
pub use server::{MockError, MockServer, RecordedRequest};
