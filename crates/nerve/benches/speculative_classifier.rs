//! The latency auto mode adds to a call: the classifier (the real one, against the scripted mock of
//! the Messages API answering after 300 ms) started beside a 200 ms PreToolUse hook, against
//! started after it. Prints, measured side by side in one run, the median time per call and what
//! the classifier adds over a call a rule allows (hook only).
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::time::{Duration, Instant};

use nerve::agent::models::DEFAULT_FAST_MODEL;
use nerve::model::api_key::ApiKey;
use nerve::model::client::ModelConfig;
use nerve::permissions::classifier::{ModelClassifier, RecentIntent};
use nerve::permissions::{PermissionMode, RuleBehavior};
use nerve::pipeline::ToolCall;
use nerve::project::{Project, ProjectOptions, SessionSetup};
use nerve::registry::{ToolPool, all_builtin_tools};
use nerve_mock_model::{MockServer, Scenario};
use serde_json::json;

const CLASSIFIER_MS: u64 = 300;
const HOOK_SECONDS: &str = "0.2";
const ROUNDS: usize = 5;

#[derive(Clone, Copy)]
enum Setup {
    /// A rule allows the call: the hook alone.
    RuleAllows,
    /// Auto mode, classifier started beside the hook.
    Speculative,
    /// Auto mode, classifier started after the hook.
    Serial,
}

async fn one_call(setup: Setup, round: usize) -> Duration {
    let scenario = json!({"steps": [
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "ALLOW", "delay_ms": CLASSIFIER_MS}]}}
    ]});
    let server = MockServer::start(Scenario::from_json(&scenario.to_string()).unwrap())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let project_dir = dir.path().join("project");
    std::fs::create_dir_all(project_dir.join(".nerve")).unwrap();
    std::fs::write(
        project_dir.join(".nerve/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": format!("cat > /dev/null; sleep {HOOK_SECONDS}")}]}]}})
        .to_string(),
    )
    .unwrap();
    let mut options = ProjectOptions::new(&project_dir);
    options.data_dir = dir.path().join("data");
    options.mode = Some(PermissionMode::Auto);
    if matches!(setup, Setup::RuleAllows) {
        options.cli_rules = vec![(RuleBehavior::Allow, "Bash(touch *)".into())];
    }
    let project = Project::open(options).unwrap();
    let classifier = ModelClassifier::over_config(
        ModelConfig::with_base_url_override(ApiKey::new("k"), Some(server.url())),
        DEFAULT_FAST_MODEL,
        RecentIntent::new(),
    )
    .unwrap();
    let runtime = project.session(
        ToolPool::new(all_builtin_tools(), false).unwrap(),
        SessionSetup {
            classifier: Some(std::sync::Arc::new(classifier)),
            headless: true,
            ..SessionSetup::default()
        }
        .with_speculative_classifier(!matches!(setup, Setup::Serial)),
    );
    let call = ToolCall {
        id: format!("toolu_{round}"),
        name: "Bash".into(),
        input: json!({"command": format!("touch made_{round}.txt")}),
    };
    let start = Instant::now();
    let out = runtime.run_one(&call).await;
    let elapsed = start.elapsed();
    assert!(!out.is_error, "{:?}", out.content);
    elapsed
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let (mut rule, mut spec, mut serial) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            // Interleaved, so machine noise hits all three alike.
            rule.push(one_call(Setup::RuleAllows, round).await.as_secs_f64() * 1e3);
            spec.push(one_call(Setup::Speculative, round).await.as_secs_f64() * 1e3);
            serial.push(one_call(Setup::Serial, round).await.as_secs_f64() * 1e3);
        }
        let (rule, spec, serial) = (median(rule), median(spec), median(serial));
        println!(
            "one Bash call in auto mode, {HOOK_SECONDS} s PreToolUse hook, classifier answering after {CLASSIFIER_MS} ms \
             (median of {ROUNDS}):"
        );
        println!("  a rule allows it (hook only):          {rule:.0} ms");
        println!("  classifier after the hook (serial):    {serial:.0} ms -> adds {:.0} ms", serial - rule);
        println!("  classifier beside the hook (speculative): {spec:.0} ms -> adds {:.0} ms", spec - rule);
        println!(
            "  added latency speculative/serial = {:.2}x",
            (spec - rule).max(0.0) / (serial - rule).max(1.0)
        );
    });
}
