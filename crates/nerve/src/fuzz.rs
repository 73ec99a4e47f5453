//! Fuzz targets: the parsers that read what the model, a settings file or the network sends. Each
//! takes arbitrary bytes and must neither panic nor hang; the invariants below are asserted, so a
//! fuzzer reports their violation as a crash. `fuzz/` runs them with `cargo +nightly fuzz run
//! TARGET`; the tests at the end run each for a bounded time (`NERVE_FUZZ_SECONDS`, 20 s by
//! default) on every test run, with inputs from proptest strategies, on any toolchain.

use std::path::Path;

use serde_json::Value;

use crate::permissions::evaluate::{CallFacts, evaluate};
use crate::permissions::{
    PermissionContext, PermissionMode, PermissionRule, PermissionSubject, RuleBehavior, RuleSet, RuleSource,
    RuleValue, SharedRules, Verdict,
};
use crate::tool::ToolPermission;

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// Splits `data` at its first newline (two inputs from one).
fn split(data: &[u8]) -> (String, String) {
    let text = text(data);
    match text.split_once('\n') {
        Some((a, b)) => (a.to_string(), b.to_string()),
        None => (text, String::new()),
    }
}

/// Bash analysis, classification and rule matching on a command: a command with any part the
/// parser does not understand is never read-only, and a deny rule on its first program (as the
/// parser resolved it through wrappers, quotes, escapes, line continuations and path forms) denies
/// it even in bypass mode, or, when the command is not understood, at least never allows it.
pub fn bash(data: &[u8]) {
    let command = text(data);
    let analysis = crate::tools::bash::analyze(&command);
    assert!(
        analysis.understood || !analysis.is_read_only(),
        "not understood yet read-only: {command:?}"
    );
    let cwd = Path::new("/project");
    let subject = PermissionSubject::Shell(Box::new(crate::tools::bash::shell_subject(&command, cwd)));
    let Some(program) = analysis
        .subcommands
        .first()
        .and_then(|c| c.canonical.split(' ').next())
        .filter(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)))
    else {
        return;
    };
    let Ok(value) = format!("Bash({program}:*)").parse::<RuleValue>() else {
        return;
    };
    let rule = PermissionRule::new(
        RuleSource::UserSettings,
        RuleBehavior::Deny,
        value,
        cwd.to_path_buf(),
    );
    let ctx = PermissionContext {
        mode: PermissionMode::BypassPermissions,
        rules: SharedRules::new(RuleSet::from_rules(vec![rule])),
        working_dirs: vec![cwd.to_path_buf()],
        ..PermissionContext::default()
    };
    let input = serde_json::json!({ "command": command });
    let facts = CallFacts {
        tool_name: "Bash",
        input: &input,
        subject: &subject,
        read_only: analysis.is_read_only(),
        destructive: false,
        tool_check: &ToolPermission::Passthrough,
    };
    let decision = evaluate(&facts, None, &ctx).decision;
    // Understood, the deny rule must match however the program was spelt or wrapped; not
    // understood, the command may only ask, never run.
    if analysis.understood {
        assert!(
            decision == Verdict::Deny,
            "a deny rule on {program} did not match {command:?}: {decision:?}"
        );
    } else {
        assert!(
            decision != Verdict::Allow,
            "a deny rule on {program} was allowed past: {command:?}"
        );
    }
}

/// The rule parser and matcher: a rule that parses prints back to text that parses to the same
/// rule, and matching it against a command or path never panics.
pub fn rules(data: &[u8]) {
    let (rule_text, subject) = split(data);
    let Ok(value) = rule_text.parse::<RuleValue>() else {
        return;
    };
    let printed = value.to_string();
    let again = printed.parse::<RuleValue>();
    assert!(
        again.as_ref().is_ok_and(|v| v == &value),
        "{rule_text:?} printed as {printed:?}, which parses to {again:?}"
    );
    let rules = RuleSet::from_rules(vec![PermissionRule::new(
        RuleSource::ProjectSettings,
        RuleBehavior::Deny,
        value,
        Path::new("/project"),
    )]);
    let _ = rules.decide_shell(&subject);
    let _ = rules.decide_parameters(&rule_text, &Value::String(subject));
}

/// Argument coercion: any input against any schema gives a value (never a panic).
pub fn coerce(data: &[u8]) {
    let (schema, input) = split(data);
    let (Ok(schema), Ok(input)) = (
        serde_json::from_str::<Value>(&schema),
        serde_json::from_str::<Value>(&input),
    ) else {
        return;
    };
    let _ = crate::input::coerce_to_schema(input, &schema);
}

/// The SSE decoder and the message assembler, with the body cut into chunks anywhere.
pub fn sse(data: &[u8]) {
    use futures::StreamExt;
    let cuts = [data.len() / 3, data.len() / 2, data.len().saturating_sub(7)];
    let mut chunks = Vec::new();
    let mut start = 0;
    for cut in cuts {
        let cut = cut.clamp(start, data.len());
        chunks.push(Ok::<_, std::io::Error>(data[start..cut].to_vec()));
        start = cut;
    }
    chunks.push(Ok(data[start..].to_vec()));
    let events: Vec<_> = futures::executor::block_on(
        crate::model::sse::decode_sse(futures::stream::iter(chunks)).collect::<Vec<_>>(),
    );
    let mut assembler = crate::model::stream::MessageAssembler::new();
    for event in events.into_iter().flatten() {
        if assembler.push(&event).is_err() {
            break;
        }
    }
}

/// The transcript reader and everything resume builds from it: damaged lines are skipped, never
/// fatal.
pub fn transcript(data: &[u8]) {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let path = crate::transcripts::Transcript::path_for(dir.path(), "fuzz");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok((entries, _warnings)) = crate::transcripts::read_transcript(&path) {
        let live = crate::transcripts::live_entries(entries);
        let _ = crate::transcripts::prompts(&live);
        let _ = crate::transcripts::next_turn(&live);
    }
    let _ = crate::transcripts::list_sessions(dir.path());
    let _ = crate::transcripts::search_sessions(dir.path(), "a");
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    use proptest::prelude::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    /// How long each target runs in the test suite.
    fn budget() -> Duration {
        let seconds = std::env::var("NERVE_FUZZ_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(20);
        Duration::from_secs(seconds)
    }

    /// Longest one input may take before it counts as a hang.
    const HANG: Duration = Duration::from_secs(10);

    /// Runs `target` on inputs from `strategy` for the budget, on a worker thread; a panic fails
    /// with the input, and an input that runs longer than [`HANG`] fails as a hang.
    fn fuzz_for(name: &str, target: fn(&[u8]), strategy: BoxedStrategy<Vec<u8>>) {
        let (inputs, work) = mpsc::sync_channel::<Vec<u8>>(1);
        let (done, finished) = mpsc::channel::<std::thread::Result<()>>();
        let worker = std::thread::spawn(move || {
            for input in work {
                let result = std::panic::catch_unwind(|| target(&input));
                let failed = result.is_err();
                if done.send(result).is_err() || failed {
                    return;
                }
            }
        });
        let mut runner = TestRunner::deterministic();
        let start = Instant::now();
        let mut cases = 0u64;
        while start.elapsed() < budget() {
            let input = strategy.new_tree(&mut runner).unwrap().current();
            inputs.send(input.clone()).unwrap();
            match finished.recv_timeout(HANG) {
                Ok(Ok(())) => cases += 1,
                Ok(Err(_)) => panic!("{name}: panicked on {:?}", String::from_utf8_lossy(&input)),
                Err(_) => panic!(
                    "{name}: no answer within {HANG:?} on {:?}",
                    String::from_utf8_lossy(&input)
                ),
            }
        }
        drop(inputs);
        worker.join().unwrap();
        eprintln!("{name}: {cases} inputs in {:?}", start.elapsed());
        assert!(cases > 0);
    }

    fn bytes(max: usize) -> BoxedStrategy<Vec<u8>> {
        proptest::collection::vec(any::<u8>(), 0..max).boxed()
    }

    fn utf8(pattern: &'static str) -> BoxedStrategy<Vec<u8>> {
        pattern.prop_map(String::into_bytes).boxed()
    }

    #[test]
    fn fuzz_bash_analysis_and_rule_matching() {
        let shellish = r#"(timeout 5 |nice |env A=1 |command |\\|/usr/bin/|'|"|)?(rm|cat|ls|git|curl|sh|echo|find|sed)('|"|)( -[a-z]{1,3}| [a-z./~*$]{1,8}| \$\([a-z ]{0,8}\)| `[a-z ]{0,6}`| [<>|&;]{1,2}| \\\n| \{[a-z,]{0,6}\}| [!#=]){0,6}"#;
        fuzz_for(
            "bash",
            super::bash,
            prop_oneof![
                utf8(shellish),
                utf8(r#"[a-z $(){}<>|&;'"`\\\n=*!\[\]#~/.-]{0,120}"#),
                bytes(200)
            ]
            .boxed(),
        );
    }

    #[test]
    fn fuzz_rule_parser_and_matcher() {
        fuzz_for(
            "rules",
            super::rules,
            prop_oneof![
                utf8(r#"(Bash|Read|Edit|WebFetch|mcp__[a-z]{1,4}(__[a-z*]{1,4})?)(\([a-z:*/~.\\() -]{0,20}\))?\n[a-z ./*~-]{0,30}"#),
                bytes(120)
            ]
            .boxed(),
        );
    }

    #[test]
    fn fuzz_argument_coercion() {
        let schema = r#"\{"type":"(object|string|integer|number|boolean|array)"(,"properties":\{"[a-z]":\{"type":"(string|integer|boolean|array|number)"\}\})?(,"items":\{"type":"integer"\})?\}"#;
        let input = r#"(\{"[a-z]":("[0-9a-z]{0,4}"|[0-9.e-]{1,6}|true|null|\[[0-9,"]{0,6}\])\}|"[a-z0-9.]{0,5}"|[0-9.e+-]{1,8}|\[.{0,10}\]|true|null)"#;
        let both: BoxedStrategy<Vec<u8>> = (schema, input)
            .prop_map(|(s, i)| format!("{s}\n{i}").into_bytes())
            .boxed();
        fuzz_for("coerce", super::coerce, prop_oneof![both, bytes(160)].boxed());
    }

    #[test]
    fn fuzz_sse_decoder() {
        let event = r#"(event: (message_start|content_block_start|content_block_delta|content_block_stop|message_delta|message_stop|ping|error)\n)?(data: \{"type":"[a-z_]{0,20}"(,"index":[0-9]{1,2})?(,"delta":\{"type":"(text_delta|input_json_delta)","(text|partial_json)":"[a-z{}":]{0,10}"\})?\}\n)?(: [a-z]{0,5}\n)?\n"#;
        let stream: BoxedStrategy<Vec<u8>> = proptest::collection::vec(event, 0..12)
            .prop_map(|events| events.concat().into_bytes())
            .boxed();
        fuzz_for("sse", super::sse, prop_oneof![stream, bytes(300)].boxed());
    }

    #[test]
    fn fuzz_transcript_reader() {
        let line = r#"(\{"type":"(message|turn_start|rewind|usage|title|session_start|compact_boundary|replacement|permission|assistant_block)"(,"turn":[0-9]{1,2}|,"to_turn":[0-9]|,"message":\{"role":"(user|assistant)","content":\[\{"type":"text","text":"[a-z]{0,5}"\}\]\}|,"title":"[a-z]{0,4}"|,"time_ms":[0-9]{1,3}){0,3}\}|[{}\[\]",:a-z0-9]{0,20})\n"#;
        let transcript: BoxedStrategy<Vec<u8>> = proptest::collection::vec(line, 0..16)
            .prop_map(|lines| lines.concat().into_bytes())
            .boxed();
        fuzz_for(
            "transcript",
            super::transcript,
            prop_oneof![transcript, bytes(300)].boxed(),
        );
    }
}
