//! Benchmark: the real desktop app through a long session. The built app (UI embedded) runs under
//! Xvfb, driven through tauri-driver and WebKitWebDriver (as `desktop_e2e.rs` does), against the
//! scripted mock of the Messages API, which answers at once: what a turn costs is the app's own
//! overhead (engine, IPC and UI), but for the mock's time to check each request, which a proxy in
//! front of it measures and the table takes out.
//!
//! It prints, measured side by side in one run (the machine is noisy; nothing is compared with a
//! number from another run, and the load average is printed with the table), and asserts only that
//! the session worked (every scripted step used, every turn's cards completed and its answer shown,
//! every card in the store after the resume):
//! 1. cold start: from creating the WebDriver session (the app's launch) to an interactive first
//!    screen (polled from the driver every 10 ms), and the app's idle RSS with one open session (the
//!    app process and every process under it, found through /proc from tauri-driver's pid);
//! 2. a session of N turns (`NERVE_BENCH_TURNS`, default [`DEFAULT_TURNS`] so that a short run
//!    stays quick; `scripts/bench.sh` runs 300, `--short` 12), each a prompt, one model call
//!    answering with five parallel Reads, then a short answer. Measured in the page with
//!    `performance.now()` (one script per turn, so no WebDriver round trip is counted): from the
//!    click on Send to the status chip showing the turn ended, split at the last IPC message the
//!    page got (what came before is the engine's and the IPC's; what came after, the UI's). Typing
//!    latency in the prompt box (20 characters, each an `input` event then the next frame), DOM
//!    nodes and RSS, at turn 10 against turn N. The time per turn is also measured side by side:
//!    at the end a fresh session opened from the sidebar takes 20 turns in blocks of 5, each block
//!    followed by 5 of the long session's last turns, so that turn ~10 and turn ~N meet the same
//!    load (the window of early turns ran minutes before the late one);
//! 3. one 60 KB streamed Markdown answer (after turn N/2): from its last delta reaching the app (the
//!    proxy notes when it handed those bytes on, wall clock) to the page holding the finished
//!    message rendered whole (a MutationObserver notes it with `Date.now()`, the same clock), and to
//!    the frame after; with when the engine's events holding the delta reached the page;
//! 4. resume: the app restarted on the same data folder, the session opened from the sidebar; in
//!    the page, from the click to its last card and answer in the DOM (the find bar then counts
//!    every card: the store holds them all, not only the rows drawn).
//!
//! Ignored by a plain `cargo test`: it needs a display, `tauri-driver`, `WebKitWebDriver` and a
//! Secret Service. `scripts/bench.sh` sets all of that up. The app embeds `ui/dist` when it is
//! compiled: a UI older than its sources is what gets measured (`scripts/bench.sh` builds it first
//! when it is).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fantoccini::wd::TimeoutConfiguration;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use nerve_mock_model::{MockServer, Scenario};
use serde_json::{Value, json};
use support::{
    Driver, app_binary, descendants, environment_value, free_port, processes, stream, tool_use, web_processes,
};

const API_KEY: &str = "sk-ant-bench-test-key-0123456789";
const WAIT: Duration = Duration::from_secs(60);
/// Turns when `NERVE_BENCH_TURNS` is not set: enough to pass turn 10 (the baseline), small enough
/// for the test command's short run.
const DEFAULT_TURNS: usize = 12;
/// Parallel Read calls per turn (1,500 cards at 300 turns).
const READS_PER_TURN: usize = 5;
/// The turn whose figures are the baseline, and the turns whose median is its time per turn.
const BASE_TURN: usize = 10;
const BASE_WINDOW: std::ops::RangeInclusive<usize> = 5..=15;
/// The per-turn figure side by side: a fresh session opened beside the long one takes
/// [`SIDE_TURNS`] turns in blocks of [`SIDE_BLOCK`], alternating with the long session's last as
/// many turns, so that the machine's noise falls on both alike (a window of early turns against
/// one of late turns, minutes apart, compares the machine's load as much as the app's).
const SIDE_TURNS: usize = 20;
const SIDE_BLOCK: usize = 5;
/// Characters typed for the typing figure, and how many times it is measured (the median is kept).
const TYPED: usize = 20;
const TYPING_RUNS: usize = 5;
/// The long answer's size, its delta size and the mock's pause before each delta.
const REPORT_BYTES: usize = 60 * 1024;
const REPORT_DELTA: usize = 40;
const REPORT_DELTA_DELAY_MS: u64 = 2;
/// The long answer's last delta: found in the bytes the proxy forwards, and in the page.
const REPORT_MARKER: &str = "REPORT-LAST-PARAGRAPH-7Q3X";
/// Every Read card's summary names its file, `src/module_N.rs`: the find bar counts the cards.
const CARD_TOKEN: &str = "module_";

fn epoch_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    // The middle one, or the mean of the middle two.
    (v[(v.len() - 1) / 2] + v[v.len() / 2]) / 2.0
}

fn screenshots_dir() -> PathBuf {
    let dir = std::env::var_os("NERVE_E2E_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Saves a screenshot and the page's text, to see why the benchmark stopped.
async fn save_failure(client: &Client) {
    if let Ok(png) = client.screenshot().await {
        let path = screenshots_dir().join("bench-failure.png");
        std::fs::write(&path, png).unwrap();
        eprintln!("screenshot: {}", path.display());
    }
    if let Ok(body) = client.find(Locator::Css("body")).await
        && let Ok(text) = body.text().await
    {
        std::fs::write(screenshots_dir().join("bench-failure.txt"), text).unwrap();
    }
}

/// Polls `check` every `every` until it gives a value; a timeout saves the screen and names what
/// was awaited.
async fn poll<T, F, Fut>(client: Option<&Client>, what: &str, every: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if start.elapsed() > WAIT {
            if let Some(c) = client {
                save_failure(c).await;
            }
            panic!("timed out waiting for {what}");
        }
        tokio::time::sleep(every).await;
    }
}

async fn element(client: &Client, css: &str) -> fantoccini::elements::Element {
    let c = client.clone();
    poll(
        Some(client),
        &format!("element `{css}`"),
        Duration::from_millis(50),
        || {
            let c = c.clone();
            async move { c.find(Locator::Css(css)).await.ok() }
        },
    )
    .await
}

async fn click(client: &Client, css: &str) {
    element(client, css).await.click().await.unwrap();
}

async fn type_into(client: &Client, css: &str, text: &str) {
    element(client, css).await.send_keys(text).await.unwrap();
}

async fn wait_for_text(client: &Client, css: &str, needle: &str) {
    poll(
        Some(client),
        &format!("{css} to show {needle:?}"),
        Duration::from_millis(50),
        || {
            let c = client.clone();
            async move {
                for e in c.find_all(Locator::Css(css)).await.ok()? {
                    if e.prop("innerText").await.ok()??.contains(needle) {
                        return Some(());
                    }
                }
                None
            }
        },
    )
    .await;
}

/// Runs an in-page script that ends by calling its callback with an object; one with `error`
/// stops the benchmark (with a screenshot).
async fn run_script(client: &Client, what: &str, script: &str, args: Vec<Value>) -> Value {
    let result = client.execute_async(script, args).await;
    match result {
        Ok(v) if v.get("error").is_none() => v,
        other => {
            save_failure(client).await;
            panic!("{what}: {other:?}");
        }
    }
}

/// The project: five small modules the Reads look at.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    for i in 0..READS_PER_TURN {
        let text = format!("pub fn f{i}() -> u32 {{ {i} }}\n").repeat(8);
        std::fs::write(dir.path().join(format!("src/module_{i}.rs")), text).unwrap();
    }
    dir
}

fn prompt_of(turn: usize) -> String {
    format!("Turn {turn}: read the five modules, please.")
}

fn answer_of(turn: usize) -> String {
    format!("Turn {turn} done: the five modules each return their index.")
}

/// The prefix of turn `turn`'s tool-use ids (`toolu_t7_` is no prefix of turn 70's).
fn id_prefix(turn: usize) -> String {
    format!("toolu_t{turn}_")
}

/// The long answer: about 60 KB of headings, paragraphs, lists and code fences, in deltas of
/// [`REPORT_DELTA`] bytes (cut anywhere, as a model's are); the last delta is the last paragraph,
/// which holds [`REPORT_MARKER`] whole.
fn report_chunks() -> Vec<String> {
    let mut md = String::from("# Report on the modules\n\nWhat each module does, section by section.\n\n");
    let mut section = 0;
    while md.len() < REPORT_BYTES - 400 {
        section += 1;
        md.push_str(&format!(
            "## Section {section}: findings\n\n\
             Every function in this part returns a small constant, which keeps the callers simple; \
             the tests pin the values, and nothing here allocates or locks. Section {section} lists \
             what was checked and what is left to do.\n\n\
             - the constant is **{section}** and it is `const`-evaluable\n\
             - callers: `main`, `setup` and the benchmarks\n\
             - no *unsafe* code, no I/O\n\n\
             ```rust\nfn section_{section}() -> u32 {{\n    // checked\n    {section}\n}}\n```\n\n\
             1. read the code\n2. ran the tests\n3. wrote this down\n\n"
        ));
    }
    let bytes = md.as_bytes();
    let mut chunks: Vec<String> = bytes
        .chunks(REPORT_DELTA)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect();
    chunks.push(format!(
        "That is the whole report; nothing else needs doing ({REPORT_MARKER})."
    ));
    chunks
}

/// One scripted turn and the session it goes to: turn N of the long session, or turn N of the
/// fresh session that runs beside it at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Planned {
    Long(usize),
    Fresh(usize),
}

impl Planned {
    fn prompt(self) -> String {
        match self {
            Self::Long(turn) => prompt_of(turn),
            Self::Fresh(turn) => format!("Fresh {turn}: read the five modules, please."),
        }
    }

    /// What the mock expects in the request that starts the turn.
    fn label(self) -> String {
        match self {
            Self::Long(turn) => format!("Turn {turn}:"),
            Self::Fresh(turn) => format!("Fresh {turn}:"),
        }
    }

    fn prefix(self) -> String {
        match self {
            Self::Long(turn) => id_prefix(turn),
            Self::Fresh(turn) => format!("toolu_f{turn}_"),
        }
    }

    fn answer(self) -> String {
        match self {
            Self::Long(turn) => answer_of(turn),
            Self::Fresh(turn) => format!("Fresh {turn} done: the five modules each return their index."),
        }
    }
}

/// How many turns each session takes side by side at the end of a run of `turns`: none when the
/// run is too short for one block each.
fn side_turns(turns: usize) -> usize {
    (turns / 2).min(SIDE_TURNS) / SIDE_BLOCK * SIDE_BLOCK
}

/// Every turn in the order it runs: the long session's, then blocks of the fresh session's
/// alternating with the long session's last ones (which end at turn `turns`).
fn plan(turns: usize) -> Vec<Planned> {
    let side = side_turns(turns);
    let mut plan: Vec<Planned> = (1..=turns - side).map(Planned::Long).collect();
    for block in 0..side / SIDE_BLOCK {
        let done = block * SIDE_BLOCK;
        plan.extend((done + 1..=done + SIDE_BLOCK).map(Planned::Fresh));
        let long_done = turns - side + done;
        plan.extend((long_done + 1..=long_done + SIDE_BLOCK).map(Planned::Long));
    }
    plan
}

/// The planned turns, each five parallel Reads and a short answer; the long answer after the long
/// session's turn `report_after`. Bodies are not kept: every request carries the whole
/// conversation.
fn scenario(root: &Path, plan: &[Planned], report_after: usize) -> Scenario {
    let mut steps = Vec::with_capacity(plan.len() * 2 + 1);
    for &planned in plan {
        // The lines change from turn to turn, as a model's reads of a file do.
        let n = match planned {
            Planned::Long(turn) | Planned::Fresh(turn) => turn,
        };
        let reads = (0..READS_PER_TURN)
            .map(|i| {
                let file = root.join(format!("src/module_{i}.rs"));
                let input = json!({"file_path": file.display().to_string(), "offset": 1 + n % 3, "limit": 4});
                tool_use(&format!("{}{i}", planned.prefix()), "Read", input)
            })
            .collect();
        steps.push(json!({
            "expect": {"last_user_text_contains": planned.label()},
            "response": stream(reads, "tool_use"),
        }));
        let last = format!("{}{}", planned.prefix(), READS_PER_TURN - 1);
        steps.push(json!({
            "expect": {"tool_result": {"tool_use_id": last, "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": planned.answer()})], "end_turn"),
        }));
        if planned == Planned::Long(report_after) {
            steps.push(json!({
                "expect": {"last_user_text_contains": "Write the report"},
                "response": {
                    "type": "stream",
                    "blocks": [{"type": "text", "text": report_chunks()}],
                    "delta_delay_ms": REPORT_DELTA_DELAY_MS,
                    "stop_reason": "end_turn",
                },
            }));
        }
    }
    let scenario = json!({"steps": steps, "record_bodies": false});
    Scenario::from_json(&scenario.to_string()).unwrap()
}

/// A byte-for-byte TCP proxy in front of the mock. It notes when the long answer's last delta went
/// through to the app (wall clock, the same clock as the page's `Date.now()`: the mock itself does
/// not say when it sent a delta), and how long the mock took to answer, from a request's last
/// byte to its answer's first: the mock runs in this (unoptimised) test process and checks every
/// request, whose size grows with the conversation, so that time is taken out of the app's.
struct Proxy {
    addr: SocketAddr,
    shared: Arc<ProxyShared>,
}

#[derive(Default)]
struct ProxyShared {
    /// When the bytes holding [`REPORT_MARKER`] were handed to the app (ms since the epoch).
    marker_at: Mutex<Option<f64>>,
    /// The mock's answering time summed over every request so far (ms).
    mock_ms: Mutex<f64>,
}

/// One connection's request in flight: when its last byte went to the mock.
type Pending = Arc<Mutex<Option<Instant>>>;

impl Proxy {
    fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(ProxyShared::default());
        let proxy_shared = shared.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(app) = conn else { continue };
                let Ok(mock) = TcpStream::connect(upstream) else {
                    continue;
                };
                // No delayed-ACK stalls added by the proxy (the mock sets the same).
                let _ = app.set_nodelay(true);
                let _ = mock.set_nodelay(true);
                let pending: Pending = Arc::new(Mutex::new(None));
                let (app_in, mock_out) = (app.try_clone().unwrap(), mock.try_clone().unwrap());
                let request = pending.clone();
                std::thread::spawn(move || pump_requests(app_in, mock_out, &request));
                let shared = shared.clone();
                std::thread::spawn(move || pump_answers(mock, app, &pending, &shared));
            }
        });
        Self {
            addr,
            shared: proxy_shared,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn marker_at(&self) -> Option<f64> {
        *self.shared.marker_at.lock().unwrap()
    }

    fn mock_ms(&self) -> f64 {
        *self.shared.mock_ms.lock().unwrap()
    }
}

/// Copies the app's requests to the mock, noting when each piece went (the last one before the
/// answer starts is the request's end).
fn pump_requests(mut from: TcpStream, mut to: TcpStream, pending: &Mutex<Option<Instant>>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        *pending.lock().unwrap() = Some(Instant::now());
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// Copies the mock's answers to the app, noting how long each took to start and when the bytes
/// holding the marker were handed on.
fn pump_answers(
    mut from: TcpStream,
    mut to: TcpStream,
    pending: &Mutex<Option<Instant>>,
    shared: &ProxyShared,
) {
    let marker = REPORT_MARKER.as_bytes();
    let mut buf = vec![0u8; 64 * 1024];
    // The end of what came before: the marker may straddle two reads.
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        if let Some(sent) = pending.lock().unwrap().take() {
            *shared.mock_ms.lock().unwrap() += ms(sent.elapsed());
        }
        if to.write_all(&buf[..n]).is_err() {
            break;
        }
        carry.extend_from_slice(&buf[..n]);
        if carry.windows(marker.len()).any(|w| w == marker) {
            let mut at = shared.marker_at.lock().unwrap();
            if at.is_none() {
                *at = Some(epoch_ms());
            }
        }
        let keep = carry.len().saturating_sub(marker.len());
        carry.drain(..keep);
    }
    let _ = to.shutdown(Shutdown::Write);
}

/// Starts tauri-driver for the app with its own data folder and keyring entry.
fn start_driver(port: u16, data_dir: &Path) -> Driver {
    let service = format!("nerve-bench-{}", std::process::id());
    support::start_driver(port, data_dir, &service, std::iter::empty::<(&str, &str)>())
}

/// Waits until tauri-driver listens, so that creating the session is the app's launch alone.
async fn driver_ready(port: u16) {
    poll(
        None,
        "tauri-driver to listen",
        Duration::from_millis(20),
        || async { TcpStream::connect(("127.0.0.1", port)).ok().map(|_| ()) },
    )
    .await;
}

/// Creates the WebDriver session (launches the app); returns it and when the attempt that worked
/// began.
async fn launch(port: u16) -> (Client, Instant) {
    let mut caps = serde_json::Map::new();
    caps.insert("tauri:options".into(), json!({"application": app_binary()}));
    caps.insert("browserName".into(), json!("wry"));
    let url = format!("http://127.0.0.1:{port}");
    let (client, started) = poll(
        None,
        "tauri-driver to accept a session",
        Duration::from_millis(100),
        || {
            let caps = caps.clone();
            let url = url.clone();
            async move {
                let started = Instant::now();
                ClientBuilder::new(HttpConnector::new())
                    .capabilities(caps)
                    .connect(&url)
                    .await
                    .ok()
                    .map(|c| (c, started))
            }
        },
    )
    .await;
    // A turn, the long answer and the resume each run as one script.
    let timeouts = TimeoutConfiguration::new(Some(Duration::from_secs(300)), None, None);
    client.update_timeouts(timeouts).await.unwrap();
    (client, started)
}

/// Polls (every 10 ms) until `css` matches an enabled element: the screen answers input.
async fn interactive(client: &Client, css: &str) {
    poll(
        Some(client),
        &format!("{css} to be interactive"),
        Duration::from_millis(10),
        || {
            let c = client.clone();
            async move {
                let e = c.find(Locator::Css(css)).await.ok()?;
                e.is_enabled().await.ok()?.then_some(())
            }
        },
    )
    .await;
}

/// First run: the key, the endpoint (the proxy in front of the mock) and the model, then the
/// project (a project without sessions starts one at once).
async fn set_up(client: &Client, base_url: &str, root: &Path) {
    type_into(client, "[data-testid='api-key-input']", API_KEY).await;
    click(client, "[data-testid='api-key-save']").await;
    click(client, "[data-testid='open-settings']").await;
    type_into(client, "[data-testid='settings-base-url']", base_url).await;
    type_into(client, "[data-testid='settings-model']", "claude-e2e").await;
    click(client, "[data-testid='settings-save']").await;
    wait_for_text(client, "[data-testid='settings-panel']", "Settings saved.").await;
    click(client, "[data-testid='settings-close']").await;
    type_into(
        client,
        "[data-testid='project-path-input']",
        &root.display().to_string(),
    )
    .await;
    click(client, "[data-testid='project-path-open']").await;
    element(client, "[data-testid='prompt-input']").await;
}

async fn active_session(client: &Client) -> String {
    element(client, "[data-testid='sidebar-session'][aria-current='true']")
        .await
        .attr("data-session-id")
        .await
        .unwrap()
        .unwrap()
}

/// Opens a new session in the project from the sidebar (beside the live session `beside`) and
/// returns its id once it is shown.
async fn new_session(client: &Client, beside: &str) -> String {
    click(client, "[data-testid='sidebar-new-session']").await;
    poll(Some(client), "a new session shown", Duration::from_millis(20), || async {
        let id = client
            .find(Locator::Css("[data-testid='sidebar-session'][aria-current='true']"))
            .await
            .ok()?
            .attr("data-session-id")
            .await
            .ok()
            .flatten()?;
        let css = format!("[data-testid='session-view'][data-session-id='{id}']:not([hidden]) [data-testid='prompt-input']");
        let shown = client.find(Locator::Css(&css)).await.is_ok();
        (id != beside && shown).then_some(id)
    })
    .await
}

/// Shows the live session `id` (a click on its row in the sidebar), then lets the page settle
/// (two frames) so that drawing the view it switched to is not counted in the next turn.
async fn show_session(client: &Client, id: &str) {
    let shown = run_script(
        client,
        "show a session",
        SHOW_SCRIPT,
        vec![
            json!(format!("[data-testid='sidebar-session'][data-session-id='{id}']")),
            json!(id),
        ],
    )
    .await;
    assert_eq!(
        shown["shown"],
        json!(true),
        "session {id} shown from the sidebar: {shown}"
    );
}

// ---- Memory -----------------------------------------------------------------------------------

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// The app's resident memory: the app process (found under tauri-driver → WebKitWebDriver) and
/// every process under it (WebKitWebProcess, WebKitNetworkProcess, any sandbox wrapper).
#[derive(Debug, Clone, Copy, Default)]
struct Memory {
    /// The app process itself (the engine and the shell).
    app_kb: u64,
    /// WebKitWebProcess: the page, its DOM and its JavaScript.
    webview_kb: u64,
    /// Everything: the app and all its descendants.
    total_kb: u64,
}

fn app_pid(driver_pid: u32) -> Option<u32> {
    let all = processes();
    descendants(&all, driver_pid)
        .into_iter()
        .find(|pid| all.iter().any(|(p, _, c)| p == pid && c == "nerve-desktop"))
}

fn memory(driver_pid: u32) -> Memory {
    let all = processes();
    let Some(app) = app_pid(driver_pid) else {
        return Memory::default();
    };
    let mut m = Memory {
        app_kb: rss_kb(app),
        ..Memory::default()
    };
    m.total_kb = m.app_kb;
    for pid in descendants(&all, app) {
        let kb = rss_kb(pid);
        m.total_kb += kb;
        // Names are cut to 15 characters: "WebKitWebProces".
        if all
            .iter()
            .any(|(p, _, c)| *p == pid && c.starts_with("WebKitWebProc"))
        {
            m.webview_kb += kb;
        }
    }
    m
}

/// The web view's tunables as its process got them: what the figures were measured with.
fn web_process_environment(driver_pid: u32) -> String {
    let Some(pid) = web_processes(driver_pid).first().copied() else {
        return "(no web process found)".into();
    };
    [
        "JSC_useGenerationalGC",
        "JSC_aggressiveHeapThresholdInMB",
        "WEBKIT_SKIA_ENABLE_CPU_RENDERING",
        "GLIBC_TUNABLES",
    ]
    .iter()
    .map(|name| {
        format!(
            "{name}={}",
            environment_value(pid, name).as_deref().unwrap_or("(unset)")
        )
    })
    .collect::<Vec<_>>()
    .join(", ")
}

/// The machine's load average (1, 5, 15 minutes): the figures mean little on a busy machine.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

// ---- In-page measurements ---------------------------------------------------------------------

/// Put before the scripts that look on at the app's IPC: every message the app sends the page (a
/// channel's event, a command's answer) runs `runCallback(id, data)`, which looks the callback up
/// in `window.__TAURI_INTERNALS__.callbacks` (a Map Tauri exposes for debugging). `watchIpc(note)`
/// has `note` see each message's data before its callback runs, and returns the undo; what is
/// delivered does not change.
const WATCH_IPC: &str = r#"
function watchIpc(note) {
  const cbs = window.__TAURI_INTERNALS__?.callbacks;
  if (!cbs) return () => {};
  const get = Map.prototype.get;
  cbs.get = function (id) {
    const cb = get.call(this, id);
    if (!cb) return cb;
    return (data) => {
      try { note(data); } catch (e) { /* a look that fails must not stop the app */ }
      return cb(data);
    };
  };
  return () => delete cbs.get;
}
"#;

/// One turn, measured in the page with `performance.now()`: from pressing Send (a click on the
/// button, after the prompt was put in the box) to the status chip showing the turn ended
/// ("idle" after "running"), and to the frame after that (rAF, then a task: after the paint).
/// Given the marker, it also notes (with `Date.now()`, the proxy's clock) when the long answer's
/// last paragraph first shows while streaming, and when the finished message (no longer
/// streaming: rendered whole) holds it.
const TURN_SCRIPT: &str = r#"
const [prompt, idPrefix, marker, done] = arguments;
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
const settle = async () => { for (let i = 0; i < 5; i++) await null; };
(async () => {
  const view = document.querySelector("[data-testid='session-view']:not([hidden])");
  const box = view.querySelector("[data-testid='prompt-input']");
  const status = view.querySelector("[data-testid='turn-status']");
  if (status.textContent.trim() !== "idle") throw new Error("not idle before the turn: " + status.textContent);
  box.focus();
  box.value = prompt;
  box.dispatchEvent(new Event("input", { bubbles: true }));
  await settle();
  const send = view.querySelector("[data-testid='send-button']");
  if (send.disabled) throw new Error("Send is disabled");
  // Every message the app's IPC brings the page during the turn (the engine's events, command
  // answers): the last one before the turn shows ended splits the turn into what came before it
  // (engine, mock, IPC) and the UI's own reaction after it. With the marker, also when the
  // events holding it arrive (channel messages carry an index).
  const ipc = { count: 0, last: null, bytes: 0, after_end: 0 };
  let endedAt = null;
  const report = { streamed: null, final: null, painted: null, ipc: [], frames: null };
  const unwatch = watchIpc((data) => {
    if (endedAt !== null) { ipc.after_end++; return; }
    ipc.count++;
    ipc.last = performance.now();
    // What the IPC carries per turn (a payload that grows with the session would show here).
    ipc.bytes += typeof data === "string" ? data.length : data instanceof ArrayBuffer ? data.byteLength : JSON.stringify(data ?? null).length;
    if (!marker) return;
    const m = data && typeof data.index === "number" ? data.message : null;
    if (!m || typeof m !== "object" || m instanceof ArrayBuffer) return;
    const s = JSON.stringify(m);
    if (s.includes(marker)) report.ipc.push({ type: m.type ?? "?", at: Date.now(), bytes: s.length });
  });
  // Frame gaps during the turn: how busy the page's main thread is.
  const gaps = [];
  let framing = true;
  let frames = null;
  let lastFrame = performance.now();
  const tick = (t) => {
    gaps.push(t - lastFrame);
    lastFrame = t;
    if (framing) requestAnimationFrame(tick);
    else {
      const long = gaps.filter((g) => g > 50);
      frames = { count: gaps.length, max: Math.max(0, ...gaps), over50: long.length, long_ms: long.reduce((a, b) => a + b, 0) };
    }
  };
  requestAnimationFrame(tick);
  let watch = null;
  if (marker) {
    const look = () => {
      const texts = view.querySelectorAll("[data-testid='assistant-text']");
      const el = texts[texts.length - 1];
      if (!el) return;
      if (el.closest(".assistant")?.classList.contains("streaming")) {
        // Only the growing tail block: reading the whole message each frame would cost.
        if (report.streamed === null && (el.lastElementChild?.textContent ?? "").includes(marker)) report.streamed = Date.now();
      } else if (report.final === null && el.textContent.includes(marker)) {
        report.final = Date.now();
        watch.disconnect();
        requestAnimationFrame(() => setTimeout(() => { report.painted = Date.now(); }, 0));
      }
    };
    watch = new MutationObserver(look);
    watch.observe(view, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ["class"] });
  }
  let running = false;
  let lastIpc = null;
  const t0 = performance.now();
  send.click();
  const ended = await new Promise((resolve) => {
    const look = () => {
      const s = status.textContent.trim();
      if (s === "running") running = true;
      else if (running && s === "idle") { lastIpc = ipc.last; endedAt = performance.now(); obs.disconnect(); resolve(endedAt); }
    };
    const obs = new MutationObserver(look);
    obs.observe(status, { subtree: true, childList: true, characterData: true });
    look();
  });
  await frame();
  const painted = performance.now();
  const afterEnd = ipc.after_end;
  if (marker) {
    for (let i = 0; i < 500 && report.painted === null; i++) await new Promise((r) => setTimeout(r, 10));
    watch.disconnect();
  }
  unwatch();
  framing = false;
  for (let i = 0; i < 100 && frames === null; i++) await new Promise((r) => setTimeout(r, 10));
  report.frames = frames;
  const texts = view.querySelectorAll("[data-testid='assistant-text']");
  const list = view.querySelector("[data-testid='message-list']");
  done({
    ended: ended - t0,
    painted: painted - t0,
    ipc_last: lastIpc === null ? null : lastIpc - t0,
    ipc_count: ipc.count,
    ipc_bytes: ipc.bytes,
    ipc_after_end: afterEnd,
    frames,
    cards: view.querySelectorAll(`[data-testid='tool-card'][data-status='completed'][data-tool-use-id^='${idPrefix}']`).length,
    last_text: texts.length ? texts[texts.length - 1].textContent : "",
    nodes: document.getElementsByTagName("*").length,
    virtual: list?.dataset.virtual === "true",
    report,
  });
})().catch((e) => done({ error: String(e && e.stack || e) }));
"#;

/// Typing in the prompt box, measured in the page: each of `n` characters is added to the box's
/// value with an `input` event, as a keystroke does. `work`: the app's synchronous reaction (the
/// event's handlers, Svelte's microtask flush, then a forced style and layout); `painted`: until
/// the frame after it (rAF, then a task). The box is emptied afterwards.
const TYPING_SCRIPT: &str = r#"
const [n, done] = arguments;
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
(async () => {
  const view = document.querySelector("[data-testid='session-view']:not([hidden])");
  const box = view.querySelector("[data-testid='prompt-input']");
  box.focus();
  // The page's frame interval when nothing happens: what "to painted" waits for at least.
  const gaps = [];
  let last = await new Promise((r) => requestAnimationFrame(r));
  for (let i = 0; i < 30; i++) {
    const t = await new Promise((r) => requestAnimationFrame(r));
    gaps.push(t - last);
    last = t;
  }
  gaps.sort((a, b) => a - b);
  const frameMs = gaps[gaps.length >> 1];
  // The floor of "to painted" here: as many trivial changes (a 1 px dot's colour), each waited
  // for the same way; what typing takes beyond it is the app's.
  const dot = document.createElement("div");
  dot.style.cssText = "position:fixed;left:0;top:0;width:1px;height:1px;background:#000;pointer-events:none";
  document.body.appendChild(dot);
  await frame();
  let floor = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    dot.style.background = i % 2 ? "rgb(0, 0, 0)" : "rgb(1, 1, 1)";
    await frame();
    floor += performance.now() - t0;
  }
  dot.remove();
  await frame();
  let work = 0, painted = 0;
  for (let i = 0; i < n; i++) {
    const ch = String.fromCharCode(97 + (i % 26));
    const t0 = performance.now();
    box.value += ch;
    box.dispatchEvent(new InputEvent("input", { bubbles: true, inputType: "insertText", data: ch }));
    for (let k = 0; k < 5; k++) await null;
    void document.body.offsetHeight;
    work += performance.now() - t0;
    await frame();
    painted += performance.now() - t0;
  }
  const typed = box.value.length;
  box.value = "";
  box.dispatchEvent(new Event("input", { bubbles: true }));
  await frame();
  done({ work, painted, typed, frame: frameMs, floor });
})().catch((e) => done({ error: String(e && e.stack || e) }));
"#;

/// Resume, measured in the page: a click on the session's row in the sidebar (the app was
/// restarted: the session is not live, so the click resumes it) until the shown session has its
/// last card (completed) and last answer in the DOM, and to the frame after that.
const RESUME_SCRIPT: &str = r#"
const [rowCss, cardCss, lastText, done] = arguments;
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
(async () => {
  const row = document.querySelector(rowCss);
  if (!row) throw new Error("no row " + rowCss);
  const button = row.querySelector("button.main") ?? row;
  const shown = () => {
    const view = document.querySelector("[data-testid='session-view']:not([hidden])");
    if (!view || !view.querySelector(cardCss)) return false;
    const texts = view.querySelectorAll("[data-testid='assistant-text']");
    return texts.length > 0 && texts[texts.length - 1].textContent.includes(lastText);
  };
  // The engine's answer to the resume (the session with its history) reaching the page.
  let answered = null;
  const unwrap = watchIpc((data) => {
    if (answered === null && data && typeof data === "object" && Array.isArray(data.history)) {
      answered = { at: performance.now(), bytes: JSON.stringify(data).length, messages: data.history.length };
    }
  });
  const t0 = performance.now();
  const at = await new Promise((resolve) => {
    const obs = new MutationObserver(() => { if (shown()) { obs.disconnect(); resolve(performance.now()); } });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    button.click();
  });
  await frame();
  const painted = performance.now() - t0;
  unwrap();
  const list = document.querySelector("[data-testid='session-view']:not([hidden]) [data-testid='message-list']");
  if (answered) answered.at -= t0;
  done({ shown: at - t0, painted, answered, nodes: document.getElementsByTagName("*").length, virtual: list?.dataset.virtual === "true" });
})().catch((e) => done({ error: String(e && e.stack || e) }));
"#;

/// A click on a session's row in the sidebar, until its view shows, then two frames.
const SHOW_SCRIPT: &str = r#"
const [rowCss, id, done] = arguments;
const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
(async () => {
  const row = document.querySelector(rowCss);
  if (!row) throw new Error("no row " + rowCss);
  (row.querySelector("button.main") ?? row).click();
  const viewCss = `[data-testid='session-view'][data-session-id='${id}']:not([hidden])`;
  for (let i = 0; i < 1000 && !document.querySelector(viewCss); i++) await new Promise((r) => setTimeout(r, 10));
  await frame();
  await frame();
  done({ shown: document.querySelector(viewCss) !== null });
})().catch((e) => done({ error: String(e && e.stack || e) }));
"#;

#[derive(Debug, Clone, Copy)]
struct Typing {
    /// Synchronous work for all the characters, in-page (ms).
    work: f64,
    /// Until painted, for all the characters, in-page (ms).
    painted: f64,
    /// WebDriver typing the same characters as keys, driver side (ms).
    keys: f64,
    /// The page's frame interval when idle (ms): "painted" waits for a frame per character.
    frame: f64,
    /// As many trivial changes, each waited for until painted (ms): the floor of `painted`.
    floor: f64,
}

/// Typing figures: the median of [`TYPING_RUNS`] runs of each.
async fn typing(client: &Client) -> Typing {
    let (mut work, mut painted, mut keys, mut frame, mut floor) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let chars: String = (0..TYPED).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let box_css = "[data-testid='session-view']:not([hidden]) [data-testid='prompt-input']";
    for _ in 0..TYPING_RUNS {
        let v = run_script(client, "typing", TYPING_SCRIPT, vec![json!(TYPED)]).await;
        assert_eq!(v["typed"], json!(TYPED), "every character reached the box");
        work.push(v["work"].as_f64().unwrap());
        painted.push(v["painted"].as_f64().unwrap());
        frame.push(v["frame"].as_f64().unwrap_or(f64::NAN));
        floor.push(v["floor"].as_f64().unwrap_or(f64::NAN));
        // Real key events through WebKitWebDriver: includes the driver's own overhead.
        let input = element(client, box_css).await;
        let start = Instant::now();
        input.send_keys(&chars).await.unwrap();
        keys.push(ms(start.elapsed()));
        let value = input.prop("value").await.unwrap().unwrap_or_default();
        assert_eq!(value, chars, "WebDriver typed into the box");
        client
            .execute(
                "const b = document.querySelector(arguments[0]); b.value = ''; \
                 b.dispatchEvent(new Event('input', { bubbles: true }));",
                vec![json!(box_css)],
            )
            .await
            .unwrap();
    }
    Typing {
        work: median(&work),
        painted: median(&painted),
        keys: median(&keys),
        frame: median(&frame),
        floor: median(&floor),
    }
}

/// What is sampled at turn 10 and at turn N.
/// What is sampled at turn 10 and at turn N.
#[derive(Debug, Clone, Copy)]
struct Sample {
    turn: usize,
    typing: Typing,
    nodes: u64,
    memory: Memory,
    virtual_list: bool,
}

/// One turn's figures, all measured in the page (ms from pressing Send) but `mock`.
struct TurnResult {
    /// Until the status chip shows the turn ended.
    ended: f64,
    /// Until the frame after that.
    painted: f64,
    /// From the last IPC message before the turn showed ended (the engine's last event or the
    /// command's answer) to the turn showing ended: the UI's own reaction.
    ui_after_ipc: f64,
    /// The page's longest frame during the turn.
    longest_frame: f64,
    /// IPC messages the page got during the turn, and their size (JSON).
    ipc_count: f64,
    ipc_bytes: f64,
    /// IPC messages between the turn showing ended and the frame after (answers to what the end
    /// of a turn asks for: the sidebar's listing, the slash commands).
    ipc_after_end: f64,
    /// The mock's answering time during the turn (proxy side): not the app's.
    mock: f64,
    nodes: u64,
    virtual_list: bool,
    /// The long answer's figures (see `TURN_SCRIPT`).
    report: Value,
}

impl TurnResult {
    /// The app's own time: the turn without the mock's.
    fn app(&self) -> f64 {
        self.ended - self.mock
    }
}

/// Runs one turn through the page and checks it worked: its cards completed, its answer shown.
async fn turn(
    client: &Client,
    proxy: &Proxy,
    prompt: &str,
    prefix: &str,
    cards: usize,
    answer: &str,
    marker: &str,
) -> TurnResult {
    let mock_before = proxy.mock_ms();
    let v = run_script(
        client,
        &format!("turn {prompt:?}"),
        &format!("{WATCH_IPC}{TURN_SCRIPT}"),
        vec![json!(prompt), json!(prefix), json!(marker)],
    )
    .await;
    let mock = proxy.mock_ms() - mock_before;
    assert_eq!(
        v["cards"].as_u64(),
        Some(cards as u64),
        "{prompt}: every card of the turn completed and shown"
    );
    let last = v["last_text"].as_str().unwrap_or_default();
    assert!(last.contains(answer), "{prompt}: the answer shows, got {last:?}");
    let ended = v["ended"].as_f64().unwrap();
    TurnResult {
        ended,
        painted: v["painted"].as_f64().unwrap(),
        ui_after_ipc: v["ipc_last"].as_f64().map_or(f64::NAN, |at| ended - at),
        longest_frame: v["frames"]["max"].as_f64().unwrap_or(f64::NAN),
        ipc_count: v["ipc_count"].as_f64().unwrap_or(f64::NAN),
        ipc_bytes: v["ipc_bytes"].as_f64().unwrap_or(f64::NAN),
        ipc_after_end: v["ipc_after_end"].as_f64().unwrap_or(f64::NAN),
        mock,
        nodes: v["nodes"].as_u64().unwrap(),
        virtual_list: v["virtual"].as_bool().unwrap_or(false),
        report: v["report"].clone(),
    }
}

async fn sample(client: &Client, driver_pid: u32, turn: usize) -> Sample {
    let typing = typing(client).await;
    let page = client
        .execute(
            "const list = document.querySelector(\"[data-testid='session-view']:not([hidden]) [data-testid='message-list']\"); \
             return { nodes: document.getElementsByTagName('*').length, virtual: list?.dataset.virtual === 'true' };",
            vec![],
        )
        .await
        .unwrap();
    Sample {
        turn,
        typing,
        nodes: page["nodes"].as_u64().unwrap(),
        memory: memory(driver_pid),
        virtual_list: page["virtual"].as_bool().unwrap_or(false),
    }
}

/// Closes the live session `id`, which is not the one shown (a click on its view's Close
/// button), and waits until its view is gone.
async fn close_hidden_session(client: &Client, id: &str) {
    let view = format!("[data-testid='session-view'][data-session-id='{id}']");
    client
        .execute(
            "document.querySelector(arguments[0] + \" [data-testid='close-session']\").click();",
            vec![json!(view)],
        )
        .await
        .unwrap();
    poll(
        Some(client),
        "the fresh session closed",
        Duration::from_millis(20),
        || async { client.find(Locator::Css(&view)).await.is_err().then_some(()) },
    )
    .await;
}

/// The median of `figure` over turns `BASE_WINDOW` (1-based) and over the last ten turns.
fn windows(results: &[TurnResult], figure: impl Fn(&TurnResult) -> f64) -> (f64, f64) {
    let base: Vec<f64> = results
        .iter()
        .enumerate()
        .filter(|(i, _)| BASE_WINDOW.contains(&(i + 1)))
        .map(|(_, r)| figure(r))
        .collect();
    let last: Vec<f64> = results[results.len().saturating_sub(10)..]
        .iter()
        .map(figure)
        .collect();
    (median(&base), median(&last))
}

fn row_line(name: &str, (at_base, at_n): (f64, f64), target: &str) {
    let ratio = at_n / at_base;
    println!("{name:<46} {at_base:>10.1} {at_n:>10.1} {ratio:>7.2}x  {target}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/bench.sh"]
async fn desktop_long_session_benchmark() {
    let turns: usize = std::env::var("NERVE_BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_TURNS)
        .max(1);
    let base_turn = BASE_TURN.min(turns);
    let report_after = (turns / 2).max(1);
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let data = tempfile::tempdir().unwrap();
    let plan = plan(turns);
    let server = MockServer::start(scenario(&root, &plan, report_after))
        .await
        .unwrap();
    let proxy = Proxy::start(server.addr());
    let load_at_start = load_average();

    // ---- 1. Cold start ----------------------------------------------------------------------
    let port = free_port();
    let driver = start_driver(port, data.path());
    let driver_pid = driver.0.id();
    driver_ready(port).await;
    let (client, launched) = launch(port).await;
    let session_ms = ms(launched.elapsed());
    interactive(&client, "[data-testid='api-key-input']").await;
    let cold_ms = ms(launched.elapsed());
    // The page's own clock then: from its navigation's start (the rest is the process starting).
    let page_ms = client
        .execute("return performance.now();", vec![])
        .await
        .unwrap()
        .as_f64()
        .unwrap_or(f64::NAN);
    set_up(&client, &proxy.url(), &root).await;
    let session_id = active_session(&client).await;
    // Idle: whatever the first screen started has settled.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let idle = memory(driver_pid);
    let web_environment = web_process_environment(driver_pid);
    assert!(
        idle.total_kb > 0,
        "the app's processes were found under tauri-driver"
    );

    // ---- 2. N turns, 3. the long answer -------------------------------------------------------
    let started = Instant::now();
    let mut results: Vec<TurnResult> = Vec::with_capacity(turns);
    let mut base: Option<Sample> = None;
    let mut report: Option<(TurnResult, Option<f64>)> = None;
    // The fresh session beside the long one at the end, and its turns' figures (the long
    // session's turns between them are the last of `results`).
    let mut fresh_session: Option<String> = None;
    let mut fresh_results: Vec<TurnResult> = Vec::new();
    let mut showing_fresh = false;
    for planned in plan {
        match planned {
            Planned::Fresh(_) if !showing_fresh => {
                let id = match &fresh_session {
                    Some(id) => id.clone(),
                    None => new_session(&client, &session_id).await,
                };
                show_session(&client, &id).await;
                fresh_session = Some(id);
                showing_fresh = true;
            }
            Planned::Long(_) if showing_fresh => {
                show_session(&client, &session_id).await;
                showing_fresh = false;
            }
            _ => {}
        }
        let result = turn(
            &client,
            &proxy,
            &planned.prompt(),
            &planned.prefix(),
            READS_PER_TURN,
            &planned.answer(),
            "",
        )
        .await;
        let i = match planned {
            Planned::Fresh(_) => {
                fresh_results.push(result);
                continue;
            }
            Planned::Long(i) => i,
        };
        if i == base_turn {
            base = Some(sample(&client, driver_pid, i).await);
        }
        results.push(result);
        if i % 25 == 0 || i == turns {
            let m = memory(driver_pid);
            let recent = &results[results.len().saturating_sub(10)..];
            let med = |f: fn(&TurnResult) -> f64| median(&recent.iter().map(f).collect::<Vec<_>>());
            let r = &results[i - 1];
            println!(
                "turn {i:>4}: medians of the last {}: {:>6.1} ms per turn, {:>5.1} ms of it the mock's, UI after the \
                 last IPC message {:>5.1} ms; {:>5} DOM nodes, webview {:>4.0} MB, all {:>4.0} MB, virtualised: {}, \
                 {:.0} s so far",
                recent.len(),
                med(|r| r.ended),
                med(|r| r.mock),
                med(|r| r.ui_after_ipc),
                r.nodes,
                mb(m.webview_kb),
                mb(m.total_kb),
                r.virtual_list,
                started.elapsed().as_secs_f64()
            );
        }
        if i == report_after {
            let r = turn(
                &client,
                &proxy,
                "Write the report on the modules.",
                "toolu_none_",
                0,
                REPORT_MARKER,
                REPORT_MARKER,
            )
            .await;
            report = Some((r, proxy.marker_at()));
        }
    }
    // Turn N's figures are the long session's alone, as at turn 10: the fresh one is closed.
    if let Some(id) = &fresh_session {
        close_hidden_session(&client, id).await;
    }
    let last = sample(&client, driver_pid, turns).await;
    let base = base.unwrap();
    let session_s = started.elapsed().as_secs_f64();
    assert_eq!(server.remaining_steps(), 0, "every scripted step was used");

    // ---- 4. Resume after a restart ------------------------------------------------------------
    client.close().await.unwrap();
    // The app quits with its window; it must be gone before another one opens the same data.
    let gone = Instant::now();
    while app_pid(driver_pid).is_some() && gone.elapsed() < Duration::from_secs(20) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if let Some(pid) = app_pid(driver_pid) {
        panic!("the app (pid {pid}) did not quit when its WebDriver session closed");
    }
    drop(driver);
    let port = free_port();
    let driver = start_driver(port, data.path());
    let driver_pid = driver.0.id();
    driver_ready(port).await;
    let (client, launched) = launch(port).await;
    let row_css = format!("[data-testid='sidebar-session'][data-session-id='{session_id}']");
    interactive(&client, &format!("{row_css} button")).await;
    let restart_ms = ms(launched.elapsed());
    let last_card = format!(
        "[data-testid='tool-card'][data-status='completed'][data-tool-use-id='{}{}']",
        id_prefix(turns),
        READS_PER_TURN - 1
    );
    let resumed = run_script(
        &client,
        "resume",
        &format!("{WATCH_IPC}{RESUME_SCRIPT}"),
        vec![json!(row_css), json!(last_card), json!(answer_of(turns))],
    )
    .await;
    let resume_memory = memory(driver_pid);
    // The store holds every card: the find bar searches the store (not only the rows drawn), and
    // every Read card's summary names its module once.
    client
        .execute(
            "window.dispatchEvent(new KeyboardEvent('keydown', { key: 'f', ctrlKey: true, bubbles: true, cancelable: true }));",
            vec![],
        )
        .await
        .unwrap();
    type_into(&client, "[data-testid='find-input']", CARD_TOKEN).await;
    let cards = turns * READS_PER_TURN;
    let want = format!(" of {}", fmt_thousands(cards));
    wait_for_text(&client, "[data-testid='find-count']", &want).await;
    client.close().await.unwrap();
    drop(driver);

    // ---- The table ----------------------------------------------------------------------------
    println!();
    println!(
        "load average at the start {load_at_start}, at the end {} ({} CPUs)",
        load_average(),
        std::thread::available_parallelism().map_or(0, usize::from)
    );
    println!(
        "desktop benchmark: {turns} turns of {READS_PER_TURN} parallel Reads ({cards} cards) in {session_s:.0} s; \
         columns: turn {} (per-turn figures: median of turns {}..={}) and turn {turns} (median of the last 10)",
        base.turn,
        BASE_WINDOW.start(),
        BASE_WINDOW.end()
    );
    println!(
        "{:<46} {:>10} {:>10} {:>8}  target",
        "figure",
        format!("turn {}", base.turn),
        format!("turn {turns}"),
        "ratio"
    );
    row_line(
        "per turn: Send → turn shown ended (ms)",
        windows(&results, |r| r.ended),
        "",
    );
    row_line(
        "  of which the mock answering (ms, proxy)",
        windows(&results, |r| r.mock),
        "",
    );
    row_line(
        "per turn: the app (the above minus the mock)",
        windows(&results, TurnResult::app),
        "(minutes apart)",
    );
    row_line(
        "  UI: last IPC message → turn shown ended (ms)",
        windows(&results, |r| r.ui_after_ipc),
        "",
    );
    row_line(
        "  IPC messages to the page per turn",
        windows(&results, |r| r.ipc_count),
        "",
    );
    row_line(
        "  IPC bytes to the page per turn (JSON)",
        windows(&results, |r| r.ipc_bytes),
        "",
    );
    row_line(
        "  longest frame during the turn (ms)",
        windows(&results, |r| r.longest_frame),
        "",
    );
    row_line(
        "UI: turn shown ended → next frame painted (ms)",
        windows(&results, |r| r.painted - r.ended),
        "",
    );
    row_line(
        "  IPC messages in between",
        windows(&results, |r| r.ipc_after_end),
        "",
    );
    row_line(
        &format!("typing {TYPED} chars: work (ms, page)"),
        (base.typing.work, last.typing.work),
        "<= 1.3x",
    );
    row_line(
        &format!("typing {TYPED} chars: to painted (ms, page)"),
        (base.typing.painted, last.typing.painted),
        "<= 1.3x",
    );
    row_line(
        &format!("  floor: {TYPED} trivial changes, to painted"),
        (base.typing.floor, last.typing.floor),
        "",
    );
    row_line(
        &format!("typing {TYPED} chars: WebDriver keys (ms)"),
        (base.typing.keys, last.typing.keys),
        "",
    );
    row_line(
        "idle frame interval (ms, page)",
        (base.typing.frame, last.typing.frame),
        "",
    );
    row_line("DOM nodes", (base.nodes as f64, last.nodes as f64), "bounded");
    row_line(
        "webview RSS (MB)",
        (mb(base.memory.webview_kb), mb(last.memory.webview_kb)),
        "<= 1.3x",
    );
    row_line(
        "app process RSS (MB)",
        (mb(base.memory.app_kb), mb(last.memory.app_kb)),
        "",
    );
    row_line(
        "all processes RSS (MB)",
        (mb(base.memory.total_kb), mb(last.memory.total_kb)),
        "",
    );
    println!(
        "{:<46} {:>10} {:>10}",
        "conversation virtualised", base.virtual_list, last.virtual_list
    );
    let side = fresh_results.len();
    if side > 0 {
        let beside = &results[results.len() - side..];
        let medians = |figure: fn(&TurnResult) -> f64| {
            let of = |rs: &[TurnResult]| median(&rs.iter().map(figure).collect::<Vec<_>>());
            (of(&fresh_results), of(beside))
        };
        println!();
        println!(
            "side by side, in blocks of {SIDE_BLOCK} turns taken in turn: a fresh session's turns 1..={side} against the \
             long session's turns {}..={turns} (medians)",
            turns - side + 1
        );
        println!(
            "{:<46} {:>10} {:>10} {:>8}  target",
            "figure", "fresh", "long", "ratio"
        );
        row_line("per turn: Send → turn shown ended (ms)", medians(|r| r.ended), "");
        row_line(
            "  of which the mock answering (ms, proxy)",
            medians(|r| r.mock),
            "",
        );
        row_line(
            "per turn: the app (the above minus the mock)",
            medians(TurnResult::app),
            "<= 1.3x",
        );
        row_line(
            "  UI: last IPC message → turn shown ended (ms)",
            medians(|r| r.ui_after_ipc),
            "",
        );
        row_line(
            "UI: turn shown ended → next frame painted (ms)",
            medians(|r| r.painted - r.ended),
            "",
        );
        // Block by block: whether the sessions differ throughout or one block stands out.
        let ms_of = |rs: &[TurnResult], figure: fn(&TurnResult) -> f64| {
            rs.iter()
                .map(|r| format!("{:.0}", figure(r)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (fresh, long) in fresh_results.chunks(SIDE_BLOCK).zip(beside.chunks(SIDE_BLOCK)) {
            println!(
                "  a block, fresh / long: the app per turn [{}] / [{}] ms; ended → painted [{}] / [{}] ms",
                ms_of(fresh, TurnResult::app),
                ms_of(long, TurnResult::app),
                ms_of(fresh, |r| r.painted - r.ended),
                ms_of(long, |r| r.painted - r.ended),
            );
        }
    }
    println!();
    println!(
        "the web process ran with (the app sets these: src-tauri/src/webview_env.rs): {web_environment}"
    );
    println!(
        "cold start: WebDriver session created (the app launched) {session_ms:.0} ms, first screen interactive \
         {cold_ms:.0} ms (the page's clock then {page_ms:.0} ms); idle RSS with one open session {:.0} MB \
         (app {:.0} MB, webview {:.0} MB)",
        mb(idle.total_kb),
        mb(idle.app_kb),
        mb(idle.webview_kb)
    );
    // The long answer, on one clock (wall clock, ms): when the proxy handed its last delta to the
    // app, when the engine's events holding it reached the page (the delta, then the finished
    // message), and when the page showed it rendered whole.
    let (report_turn, wire_at) = report.unwrap();
    let r = &report_turn.report;
    let since_wire = |key: &str| match (r[key].as_f64(), wire_at) {
        (Some(at), Some(wire)) => format!("{:.0} ms", at - wire),
        _ => "n/a (it came with the message's end)".to_string(),
    };
    let ipc = r["ipc"].as_array().cloned().unwrap_or_default();
    let ipc_line: Vec<String> = ipc
        .iter()
        .map(|e| {
            let since = wire_at.map_or(f64::NAN, |w| e["at"].as_f64().unwrap_or(f64::NAN) - w);
            format!(
                "{} ({} bytes) +{since:.0} ms",
                e["type"].as_str().unwrap_or("?"),
                e["bytes"]
            )
        })
        .collect();
    let ipc_to_render = match (r["final"].as_f64(), ipc.last().and_then(|e| e["at"].as_f64())) {
        (Some(f), Some(i)) => format!("{:.0} ms", f - i),
        _ => "n/a".to_string(),
    };
    let frames = &r["frames"];
    println!(
        "60 KB Markdown answer after turn {report_after} ({} deltas, its turn {:.0} ms): last delta at the app → fully \
         rendered {} (target <= 100 ms), → painted {}; → shown while still streaming {}",
        report_chunks().len(),
        report_turn.ended,
        since_wire("final"),
        since_wire("painted"),
        since_wire("streamed"),
    );
    println!(
        "  its events reached the page: {}; the last of them → rendered {ipc_to_render}",
        if ipc_line.is_empty() {
            "not seen".to_string()
        } else {
            ipc_line.join(", ")
        },
    );
    println!(
        "  page frames during that turn: {}, longest {:.0} ms, {} over 50 ms ({:.0} ms in all)",
        frames["count"],
        frames["max"].as_f64().unwrap_or(f64::NAN),
        frames["over50"],
        frames["long_ms"].as_f64().unwrap_or(f64::NAN),
    );
    let answered = &resumed["answered"];
    println!(
        "resume ({cards} cards): app restarted → sidebar interactive {restart_ms:.0} ms; click on the session → its \
         last card shown {:.0} ms (target < 1000 ms), painted {:.0} ms; the engine's answer (the session: {} \
         messages, {} bytes of JSON) reached the page at {:.0} ms; then {} DOM nodes, virtualised: {}, RSS {:.0} MB \
         (webview {:.0} MB); the find bar counts{want} cards in the store",
        resumed["shown"].as_f64().unwrap_or(f64::NAN),
        resumed["painted"].as_f64().unwrap_or(f64::NAN),
        answered["messages"],
        answered["bytes"],
        answered["at"].as_f64().unwrap_or(f64::NAN),
        resumed["nodes"],
        resumed["virtual"],
        mb(resume_memory.total_kb),
        mb(resume_memory.webview_kb),
    );
}

/// `1500` as the find bar writes it, `1,500`.
fn fmt_thousands(n: usize) -> String {
    let mut out = Vec::new();
    for (i, c) in n.to_string().chars().rev().enumerate() {
        // Every third digit from the right starts a group.
        if i > 0 && i / 3 * 3 == i {
            out.push(',');
        }
        out.push(c);
    }
    out.into_iter().rev().collect()
}
