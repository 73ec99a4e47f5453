//! How cache-friendly the requests of a long session are: a 50-turn scripted session (each turn
//! reads a file, then answers) with the system prompt a desktop session gets, the permission mode
//! switched at turn 20 (told to the model in the conversation, so the prefix stays) and a
//! compaction at turn 35, against the mock
//! Messages API with its prompt-cache simulation (`"prompt_cache": true`: the mock counts each
//! request's cache reads, writes and fresh input as the API would).
//!
//! Prints, for the requests after the first: the share of each request's bytes that is a prefix of
//! the previous request's (the part the API can read from cache), the tokens the mock counted as
//! cache reads, writes and fresh input, and the cost at Sonnet's prices with the cache against the
//! same requests without it. `NERVE_BENCH_TURNS` shortens the session (CI runs 10).
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use nerve::agent::system_prompt::{
    AgentRole, FrontEnd, PromptContext, SystemPromptInputs, build_system_prompt,
};
use nerve::agent::{Agent, AgentConfig};
use nerve::hooks::input::CompactTrigger;
use nerve::model::api_key::ApiKey;
use nerve::model::client::{ModelClient, ModelConfig};
use nerve::permissions::PermissionMode;
use nerve::project::{Project, ProjectOptions, SessionSetup};
use nerve::registry::{PoolOptions, all_builtin_tools, assemble_tool_pool};
use nerve_mock_model::cache::blocks;
use nerve_mock_model::{MockServer, Scenario};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const MODEL: &str = "claude-sonnet-4-5";

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let turns: usize = std::env::var("NERVE_BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(50);
    let mode_switch_at = turns * 2 / 5;
    let compact_at = turns * 7 / 10;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, "line\n".repeat(200)).unwrap();
        let mut steps = Vec::new();
        for turn in 0..turns {
            if turn == compact_at {
                steps.push(json!({"response": {"type": "stream", "blocks": [
                    {"type": "text", "text": "Summary: the user asked me to read notes.txt repeatedly; it has 200 lines."}]}}));
            }
            steps.push(json!({"response": {"type": "stream", "blocks": [
                {"type": "text", "text": format!("Reading the notes for question {turn}.")},
                {"type": "tool_use", "id": format!("toolu_read_{turn}"), "name": "Read",
                 "input": {"file_path": notes.display().to_string(), "limit": 20 + turn % 5}}]}}));
            steps.push(json!({"response": {"type": "stream", "blocks": [
                {"type": "text", "text": format!("Answer {turn}: the notes have 200 lines.")}]}}));
        }
        let scenario = json!({"steps": steps, "prompt_cache": true});
        let server = MockServer::start(Scenario::from_json(&scenario.to_string()).unwrap())
            .await
            .unwrap();
        let mut options = ProjectOptions::new(dir.path());
        options.bare = true;
        options.data_dir = dir.path().join("data");
        let project = Project::open(options).unwrap();
        let pool = assemble_tool_pool(
            all_builtin_tools(),
            Vec::new(),
            &project.permission_context(true),
            &PoolOptions::default(),
        )
        .unwrap();
        // The system prompt a desktop session of this project gets (guidance for these tools,
        // the environment); the mode switch below is told in the conversation, not here.
        let tool_names: Vec<String> = pool.tools().iter().map(|t| t.name().to_string()).collect();
        let system = build_system_prompt(
            &SystemPromptInputs {
                project_dir: dir.path(),
                cwd: dir.path(),
                date: "2026-12-06".into(),
                model: MODEL,
                memory_dir: None,
                user_instructions: None,
            },
            &PromptContext::new(&tool_names, FrontEnd::Desktop, AgentRole::Main, true),
        );
        let system_chars: Vec<usize> = system.iter().map(|b| b.chars().count()).collect();
        let runtime = project.session(
            pool,
            SessionSetup {
                headless: true,
                ..SessionSetup::default()
            },
        );
        let client = ModelClient::new(ModelConfig::with_base_url_override(
            ApiKey::new("k"),
            Some(server.url()),
        ))
        .unwrap();
        let mut agent = Agent::new(
            client,
            runtime,
            AgentConfig::new(MODEL),
            system,
            None,
        );
        for turn in 0..turns {
            if turn == mode_switch_at {
                agent.set_permission_mode(PermissionMode::AcceptEdits);
            }
            if turn == compact_at {
                agent
                    .compact(CompactTrigger::Manual, None, &CancellationToken::new())
                    .await
                    .unwrap();
            }
            let outcome = agent
                .send(&format!("Question {turn}: how many lines do the notes have?"), CancellationToken::new())
                .await;
            assert!(outcome.error.is_none(), "{:?}", outcome.error);
        }
        assert_eq!(server.remaining_steps(), 0);

        let requests: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
        let mut shares = Vec::new();
        let mut breaks = Vec::new();
        for (i, pair) in requests.windows(2).enumerate() {
            let (before, now) = (blocks(&pair[0]), blocks(&pair[1]));
            let total: usize = now.iter().map(|(b, _)| b.len()).sum();
            let common: usize = before
                .iter()
                .zip(&now)
                .take_while(|(a, b)| a.0 == b.0)
                .map(|(a, _)| a.0.len())
                .sum();
            let share = common as f64 / total as f64;
            shares.push(share);
            if share < 0.9 {
                breaks.push(i + 1);
            }
        }
        let mut sorted = shares.clone();
        sorted.sort_by(f64::total_cmp);
        let totals = *agent.totals();
        let t = totals.tokens;
        let uncached_input = t.input_tokens + t.cache_creation_input_tokens + t.cache_read_input_tokens;
        let price_in = 3.0 / 1e6;
        let price_out = 15.0 / 1e6;
        let without_cache = uncached_input as f64 * price_in + t.output_tokens as f64 * price_out;
        let with_cache = totals.cost_usd.unwrap();
        println!(
            "{turns}-turn session, {} requests (mode switched before turn {mode_switch_at}, compacted before turn {compact_at})",
            requests.len()
        );
        println!("  system prompt: blocks of {system_chars:?} characters (guidance, environment)");
        println!(
            "  bytes of each request that extend the previous one unchanged: median {:.1}%, mean {:.1}%, min {:.1}%",
            sorted[sorted.len() / 2] * 100.0,
            shares.iter().sum::<f64>() / shares.len() as f64 * 100.0,
            sorted[0] * 100.0
        );
        println!(
            "  requests sharing under 90% with the previous one: {breaks:?} (a compaction keeps tools and system, and its summary request extends the conversation)"
        );
        println!(
            "  tokens counted by the mock: {} cache reads, {} cache writes, {} fresh input -> {:.1}% of input read from cache",
            t.cache_read_input_tokens,
            t.cache_creation_input_tokens,
            t.input_tokens,
            t.cache_read_input_tokens as f64 / uncached_input as f64 * 100.0
        );
        println!(
            "  cost at Sonnet prices: ${with_cache:.4} with the cache, ${without_cache:.4} without -> with/without = {:.3}x (saved ${:.4}, as the usage line shows)",
            with_cache / without_cache,
            totals.cache_saved_usd.unwrap_or_default()
        );
    });
}
