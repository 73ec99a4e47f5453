//! A long headless session: 1,000 prompts of 5 parallel Read calls each (5,000 tool calls,
//! `NERVE_BENCH_TURNS` prompts), against the mock Messages API (bodies not kept) in a process of
//! its own: this same binary, started again as the mock, so that the mock's parsing of the growing
//! requests does not share the engine's allocator, threads or CPU time.
//!
//! Prints, measured in the same run: the time per turn near the end against near the start (the
//! requests grow with the conversation, as the API requires, so the part that must grow is shown
//! beside it: the request size), the engine process's CPU time per turn (late, and in fresh
//! sessions run turn for turn beside ten more late turns: one whose answers wait as long, one
//! whose requests also carry as many bytes in a few messages), its resident memory
//! growth, the transcript's size at half and at the end (linear means 2.0x), and resuming the
//! session against reading its transcript file.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use nerve::agent::{Agent, AgentConfig};
use nerve::model::api_key::ApiKey;
use nerve::model::client::{ModelClient, ModelConfig};
use nerve::project::{Project, ProjectOptions, SessionSetup};
use nerve::registry::{PoolOptions, all_builtin_tools, assemble_tool_pool};
use nerve::transcripts::Transcript;
use nerve_mock_model::{MockServer, Scenario};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Each floor is the median of this many measurements (one is at the machine's mercy).
const FLOOR_RUNS: usize = 5;

/// Turns the long session runs after its `NERVE_BENCH_TURNS`, each beside one turn of every
/// session it is compared with.
const BESIDE_TURNS: usize = 10;

/// Turns each session compared with the late ones runs first, untimed.
const WARM_TURNS: usize = 5;

/// Set in the environment of this binary started again as the mock: the scenario file to serve.
const MOCK_SCENARIO: &str = "NERVE_BENCH_MOCK_SCENARIO";

/// The CPU time of every thread of this process so far, in milliseconds.
fn cpu_ms() -> f64 {
    let time = nix::time::clock_gettime(nix::time::ClockId::CLOCK_PROCESS_CPUTIME_ID).unwrap();
    time.tv_sec() as f64 * 1e3 + time.tv_nsec() as f64 / 1e6
}

/// As the mock: serves the scenario, prints its address, and runs until killed.
fn serve_mock(scenario: &Path) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let scenario = Scenario::from_file(scenario).unwrap();
        let server = MockServer::start(scenario).await.unwrap();
        nerve_mock_model::announce(&mut std::io::stdout(), &server.url()).unwrap();
        server.wait().await;
    });
}

/// The mock in its own process, killed when dropped.
struct MockProcess {
    child: Child,
    url: String,
    http: reqwest::Client,
}

impl MockProcess {
    fn start(scenario: &Path) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(MOCK_SCENARIO, scenario)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let url = nerve_mock_model::read_announced_url(child.stdout.take().unwrap()).unwrap();
        Self {
            child,
            url,
            http: reqwest::Client::new(),
        }
    }

    /// The mock's time answering messages so far, in milliseconds.
    async fn busy_ms(&self) -> f64 {
        let busy: serde_json::Value = self
            .http
            .get(format!("{}/__mock/busy", self.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        busy["busy_ns"].as_u64().unwrap() as f64 / 1e6
    }
}

impl Drop for MockProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A session run beside the long one's late turns, against a mock of its own.
struct Beside {
    agent: Agent,
    server: MockProcess,
    first_prompt: Option<String>,
    turns: usize,
    /// The CPU time of each turn after the first [`WARM_TURNS`], and the mock's time on it.
    cpu: Vec<f64>,
    busy: Vec<f64>,
}

impl Beside {
    fn new(agent: Agent, server: MockProcess, first_prompt: Option<String>) -> Self {
        Self {
            agent,
            server,
            first_prompt,
            turns: 0,
            cpu: Vec::new(),
            busy: Vec::new(),
        }
    }

    /// Its next `n` turns, each its first prompt or a short one.
    async fn run(&mut self, n: usize) {
        for _ in 0..n {
            let turn = self.turns;
            let prompt = self
                .first_prompt
                .take()
                .unwrap_or_else(|| format!("Turn {turn}: read the five modules."));
            let busy = self.server.busy_ms().await;
            let cpu = cpu_ms();
            let outcome = self.agent.send(&prompt, CancellationToken::new()).await;
            let cpu = cpu_ms() - cpu;
            let busy = self.server.busy_ms().await - busy;
            assert!(outcome.error.is_none(), "turn {turn}: {:?}", outcome.error);
            if turn >= WARM_TURNS {
                self.cpu.push(cpu);
                self.busy.push(busy);
            }
            self.turns += 1;
        }
    }

    /// Its median CPU time per turn after the warm-up.
    fn cpu_ms(&self) -> f64 {
        median(&self.cpu)
    }

    /// The mock's median time on a turn's requests after the warm-up.
    fn busy_ms(&self) -> f64 {
        median(&self.busy)
    }
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    if let Some(scenario) = std::env::var_os(MOCK_SCENARIO) {
        serve_mock(Path::new(&scenario));
        return;
    }
    let turns: usize = std::env::var("NERVE_BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<String> = (0..5)
            .map(|i| {
                let path = dir.path().join(format!("src/module_{i}.rs"));
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, format!("pub fn f{i}() -> u32 {{ {i} }}\n").repeat(8)).unwrap();
                path.display().to_string()
            })
            .collect();
        // `turns` turns of 5 Reads and an answer, each answer `delay_ms` late.
        let scenario = |name: &str, turns: usize, delay_ms: u64| {
            let mut steps = Vec::with_capacity(turns * 2);
            for turn in 0..turns {
                let reads: Vec<_> = files
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        json!({"type": "tool_use", "id": format!("toolu_{turn}_{i}"), "name": "Read",
                               "input": {"file_path": f, "offset": 1 + (turn % 3), "limit": 4}})
                    })
                    .collect();
                steps.push(json!({"response": {"type": "stream", "delay_ms": delay_ms, "blocks": reads}}));
                steps.push(json!({"response": {"type": "stream", "delay_ms": delay_ms, "blocks": [
                    {"type": "text", "text": format!("Turn {turn}: the five modules each return their index.")}]}}));
            }
            let path = dir.path().join(name);
            std::fs::write(&path, json!({"steps": steps, "record_bodies": false}).to_string()).unwrap();
            path
        };
        nerve::http::install_crypto_provider();
        let server = MockProcess::start(&scenario("scenario.json", turns + BESIDE_TURNS, 0));
        let data = dir.path().join("data");
        let mut options = ProjectOptions::new(dir.path());
        options.bare = true;
        options.data_dir = data.clone();
        let project = Project::open(options).unwrap();
        let pool = || {
            assemble_tool_pool(
                all_builtin_tools(),
                Vec::new(),
                &project.permission_context(true),
                &PoolOptions::default(),
            )
            .unwrap()
        };
        let runtime = project.session(
            pool(),
            SessionSetup {
                headless: true,
                ..SessionSetup::default()
            },
        );
        let session_id = runtime.context.config.session_id.clone();
        let transcript_path = Transcript::path_for(&project.data_dir(), &session_id);
        let client = || {
            ModelClient::new(ModelConfig::with_base_url_override(
                ApiKey::new("k"),
                Some(server.url.clone()),
            ))
            .unwrap()
        };
        let mut agent = Agent::new(
            client(),
            runtime,
            AgentConfig::new("claude-sonnet-4-5"),
            vec!["You are Nerve.".into()],
            Some(Transcript::open(&transcript_path).unwrap()),
        );
        // What a request must cost whatever the engine does: writing the conversation as JSON
        // (the client) and reading it back (the mock), twice a turn.
        let floor_ms = |agent: &Agent| {
            let start = Instant::now();
            for _ in 0..2 {
                let bytes = serde_json::to_vec(agent.messages()).unwrap();
                let _: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            }
            start.elapsed().as_secs_f64() * 1e3
        };
        // What the engine itself must do per request: write the conversation into it.
        let write_floor_ms = |agent: &Agent| {
            let start = Instant::now();
            for _ in 0..2 {
                std::hint::black_box(serde_json::to_vec(agent.messages()).unwrap());
            }
            start.elapsed().as_secs_f64() * 1e3
        };
        // And sending it: the same bytes, already written, posted to the mock's sink, which reads
        // them and answers at once (the engine's HTTP stack, the mock's server, the loopback
        // between). The engine keeps the earlier messages written, so this is its floor.
        let sink = reqwest::Client::new();
        let sink_url = format!("{}/__mock/sink", server.url);
        // Its time, and the engine process's CPU time in it.
        let send_floor_ms = async |agent: &Agent| {
            // Shared, as the engine's written conversation is: no copy per request.
            let bytes = bytes::Bytes::from(serde_json::to_vec(agent.messages()).unwrap());
            let start = Instant::now();
            let cpu = cpu_ms();
            for _ in 0..2 {
                let body = bytes.clone();
                let answer = sink.post(&sink_url).body(body).send().await.unwrap();
                assert_eq!(answer.status(), reqwest::StatusCode::NO_CONTENT);
            }
            (start.elapsed().as_secs_f64() * 1e3, cpu_ms() - cpu)
        };
        let send_floors = async |agent: &Agent| {
            let mut sends = Vec::with_capacity(FLOOR_RUNS);
            for _ in 0..FLOOR_RUNS {
                sends.push(send_floor_ms(agent).await);
            }
            let (wall, cpu): (Vec<f64>, Vec<f64>) = sends.into_iter().unzip();
            (median(&wall), median(&cpu))
        };
        let mut send_floor_early = 0.0;
        let mut send_cpu_early = 0.0;
        let mut floor_early = 0.0;
        let mut write_floor_early = 0.0;
        let mut per_turn = Vec::with_capacity(turns);
        // Each turn less the mock's time reading and checking its two requests.
        let mut engine_per_turn = Vec::with_capacity(turns);
        // The engine process's CPU time in each turn (every thread; the mock's are elsewhere).
        let mut cpu_per_turn = Vec::with_capacity(turns);
        // The mock's time on each turn's two requests.
        let mut busy_per_turn = Vec::with_capacity(turns);
        let mut rss_after_warmup = 0.0;
        let mut transcript_at_half = 0;
        for turn in 0..turns {
            let busy = server.busy_ms().await;
            let cpu = cpu_ms();
            let start = Instant::now();
            let outcome = agent
                .send(&format!("Turn {turn}: read the five modules."), CancellationToken::new())
                .await;
            let took = start.elapsed().as_secs_f64() * 1e3;
            cpu_per_turn.push(cpu_ms() - cpu);
            assert!(outcome.error.is_none(), "turn {turn}: {:?}", outcome.error);
            per_turn.push(took);
            let busy = server.busy_ms().await - busy;
            busy_per_turn.push(busy);
            engine_per_turn.push(took - busy);
            if turn == 9 {
                rss_after_warmup = rss_mb();
                floor_early = median(&(0..FLOOR_RUNS).map(|_| floor_ms(&agent)).collect::<Vec<_>>());
                write_floor_early =
                    median(&(0..FLOOR_RUNS).map(|_| write_floor_ms(&agent)).collect::<Vec<_>>());
                (send_floor_early, send_cpu_early) = send_floors(&agent).await;
            }
            if turn + 1 == turns / 2 {
                transcript_at_half = std::fs::metadata(&transcript_path).unwrap().len();
            }
        }
        let rss_end = rss_mb();
        let transcript_end = std::fs::metadata(&transcript_path).unwrap().len();
        let request_bytes = |agent: &Agent| serde_json::to_vec(agent.messages()).unwrap().len();
        let last_request = request_bytes(&agent);
        let floor_late = median(&(0..FLOOR_RUNS).map(|_| floor_ms(&agent)).collect::<Vec<_>>());
        let write_floor_late = median(&(0..FLOOR_RUNS).map(|_| write_floor_ms(&agent)).collect::<Vec<_>>());
        let (send_floor_late, send_cpu_late) = send_floors(&agent).await;

        // The late turns' CPU time, measured turn for turn beside two fresh sessions (one turn of
        // each in turn, so that the machine's moods fall on all three alike), each against a mock
        // of its own and each unlike the late turns in one way less:
        // - one whose answers each come as late as the late requests kept the mock busy (waiting
        //   longer costs CPU time by itself: the engine's threads park and wake again);
        // - one whose first prompt is as long as the whole late conversation, so that each of its
        //   requests carries as many bytes (already written), and whose answers come as late:
        //   only the number of messages differs, ten thousand against a few dozen.
        let late_busy = median(&busy_per_turn[turns.saturating_sub(10)..]);
        let delay_ms = (late_busy / 2.0).round() as u64;
        let beside = |name: &str, first_prompt: Option<String>, delay_ms: u64| {
            let server = MockProcess::start(&scenario(name, WARM_TURNS + BESIDE_TURNS, delay_ms));
            let runtime = project.session(
                pool(),
                SessionSetup {
                    headless: true,
                    ..SessionSetup::default()
                },
            );
            let transcript = Transcript::path_for(&project.data_dir(), &runtime.context.config.session_id);
            let agent = Agent::new(
                ModelClient::new(ModelConfig::with_base_url_override(
                    ApiKey::new("k"),
                    Some(server.url.clone()),
                ))
                .unwrap(),
                runtime,
                AgentConfig::new("claude-sonnet-4-5"),
                vec!["You are Nerve.".into()],
                Some(Transcript::open(&transcript).unwrap()),
            );
            Beside::new(agent, server, first_prompt)
        };
        // Plain words: JSON writes them as they are, so the prompt adds its own length.
        let sentence = "The earlier conversation, as long as the long session's at its end. ";
        let padding = sentence.repeat(last_request / sentence.len() + 1);
        // One long prompt is quicker for the mock to parse than ten thousand messages: a first
        // run finds how much quicker, and the answers make up the difference.
        let mut probe = beside("probe.json", Some(padding.clone()), 0);
        probe.run(WARM_TURNS + BESIDE_TURNS).await;
        let padded_busy = probe.busy_ms();
        drop(probe);
        let padded_delay_ms = ((late_busy - padded_busy).max(0.0) / 2.0).round() as u64;
        let mut fresh = beside("fresh.json", None, delay_ms);
        let mut padded = beside("padded.json", Some(padding), padded_delay_ms);
        fresh.run(WARM_TURNS).await;
        padded.run(WARM_TURNS).await;
        let mut cpu_beside = Vec::with_capacity(BESIDE_TURNS);
        for turn in turns..turns + BESIDE_TURNS {
            let cpu = cpu_ms();
            let outcome = agent
                .send(&format!("Turn {turn}: read the five modules."), CancellationToken::new())
                .await;
            cpu_beside.push(cpu_ms() - cpu);
            assert!(outcome.error.is_none(), "turn {turn}: {:?}", outcome.error);
            fresh.run(1).await;
            padded.run(1).await;
        }
        let cpu_beside = median(&cpu_beside);
        let (fresh_cpu, padded_cpu) = (fresh.cpu_ms(), padded.cpu_ms());
        let (_, fresh_send_cpu) = send_floors(&fresh.agent).await;
        let padded_bytes = request_bytes(&padded.agent);
        drop((agent, fresh, padded));

        let start = Instant::now();
        let raw = std::fs::read(&transcript_path).unwrap();
        let read_ms = start.elapsed().as_secs_f64() * 1e3;
        drop(raw);
        let start = Instant::now();
        let runtime = project.session(
            pool(),
            SessionSetup {
                headless: true,
                session_id: Some(session_id.clone()),
                ..SessionSetup::default()
            },
        );
        let (resumed, _warnings) = Agent::resume(
            client(),
            runtime,
            AgentConfig::new("claude-sonnet-4-5"),
            vec!["You are Nerve.".into()],
            &transcript_path,
        )
        .unwrap();
        let prompts = resumed.prompts().unwrap();
        let calls = resumed.past_calls();
        let resume_ms = start.elapsed().as_secs_f64() * 1e3;
        assert_eq!(prompts.len(), turns + BESIDE_TURNS);
        assert_eq!(calls.len(), (turns + BESIDE_TURNS) * 5);

        let early = median(&per_turn[5.min(turns - 1)..15.min(turns)]);
        let late = median(&per_turn[turns.saturating_sub(10)..]);
        let engine_early = median(&engine_per_turn[5.min(turns - 1)..15.min(turns)]);
        let engine_late = median(&engine_per_turn[turns.saturating_sub(10)..]);
        let cpu_early = median(&cpu_per_turn[5.min(turns - 1)..15.min(turns)]);
        let cpu_late = median(&cpu_per_turn[turns.saturating_sub(10)..]);
        println!("{turns} prompts x 5 Read calls = {} tool calls in one session", turns * 5);
        println!(
            "  time per turn (engine + the mock in its own process, 2 requests each): turns 6-15 {early:.2} ms, last 10 {late:.2} ms -> last/early = {:.2}x",
            late / early
        );
        println!(
            "  the conversation the last request carries: {:.1} MB (it grows with the session, as the API requires)",
            last_request as f64 / 1e6
        );
        println!(
            "  beyond writing and parsing that conversation twice a turn ({floor_early:.2} ms early, {floor_late:.2} ms late): {:.2} ms early, {:.2} ms late -> {:.2}x",
            early - floor_early,
            late - floor_late,
            (late - floor_late) / (early - floor_early)
        );
        println!(
            "  the engine's share (each turn less the mock's time reading and checking its requests): {engine_early:.2} ms early, {engine_late:.2} ms late -> {:.2}x; writing the whole conversation into both requests would take {write_floor_early:.2} ms early, {write_floor_late:.2} ms late (the engine keeps the earlier messages written and writes only what is new)",
            engine_late / engine_early
        );
        println!(
            "  beyond sending the conversation (posting its bytes, already written, to the mock's sink twice: {send_floor_early:.2} ms early, {send_floor_late:.2} ms late): {:.2} ms early, {:.2} ms late -> {:.2}x",
            engine_early - send_floor_early,
            engine_late - send_floor_late,
            (engine_late - send_floor_late) / (engine_early - send_floor_early)
        );
        println!(
            "  the engine process's CPU time per turn (all its threads): {cpu_early:.2} ms early, {cpu_late:.2} ms late -> {:.2}x; of which sending its two requests' bytes (as above) {send_cpu_early:.2} ms early, {send_cpu_late:.2} ms late; the rest {:.2} ms early, {:.2} ms late -> {:.2}x",
            cpu_late / cpu_early,
            cpu_early - send_cpu_early,
            cpu_late - send_cpu_late,
            (cpu_late - send_cpu_late) / (cpu_early - send_cpu_early)
        );
        println!(
            "  beside {BESIDE_TURNS} more turns of the long session ({cpu_beside:.2} ms each), one turn of each in turn: a fresh session whose answers each come {delay_ms} ms late (as long as the late requests kept the mock busy): {fresh_cpu:.2} ms -> late / fresh = {:.2}x in all, {:.2}x beyond sending ({send_cpu_late:.2} and {fresh_send_cpu:.2} ms)",
            cpu_beside / fresh_cpu,
            (cpu_beside - send_cpu_late) / (fresh_cpu - fresh_send_cpu)
        );
        println!(
            "  and a fresh session whose first prompt is as long as the late conversation, so that its requests carry as many bytes ({:.1} MB) and its answers come as late ({padded_delay_ms} ms after the mock parsed them, {padded_busy:.1} ms a turn against {late_busy:.1} ms on the late requests): {padded_cpu:.2} ms -> late / this one = {:.2}x (only the number of messages differs)",
            padded_bytes as f64 / 1e6,
            cpu_beside / padded_cpu
        );
        println!(
            "  resident memory: {rss_after_warmup:.1} MB after 10 turns, {rss_end:.1} MB after {turns} -> +{:.1} MB ({:.1} KB per tool call)",
            rss_end - rss_after_warmup,
            (rss_end - rss_after_warmup) * 1024.0 / (turns * 5) as f64
        );
        println!(
            "  transcript: {:.1} MB at half, {:.1} MB at the end -> end/half = {:.2}x (linear: 2.00x)",
            transcript_at_half as f64 / 1e6,
            transcript_end as f64 / 1e6,
            transcript_end as f64 / transcript_at_half as f64
        );
        println!(
            "  resume with its {} prompts and {} cards: {resume_ms:.1} ms; reading the transcript's bytes alone: {read_ms:.2} ms",
            prompts.len(),
            calls.len()
        );
    });
}
