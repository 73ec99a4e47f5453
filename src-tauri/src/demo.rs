//! The demo: a sample project in a temporary folder and a scripted model (the project's mock of the
//! Messages API, served inside the app on a loopback port), so a first-time user without a key
//! sees the real engine at work: a parallel batch of reads, an Edit with its diff, a `sed -i`
//! preview, an `rm -rf` denied by the project's rules and a persisted output. Only the sample
//! folder is touched; it is removed when the demo ends or the app quits.

use std::path::{Path, PathBuf};

use nerve_mock_model::{MockServer, Scenario};

use crate::error::ShellError;

/// The script the demo's model follows (see the mock's documentation for the format).
const SCENARIO: &str = include_str!("../demo/scenario.json");

/// What the model answers once the script has run out (any number of further prompts).
const AFTER_THE_SCRIPT: &str = "The demo's script has ended: this model only knows the tour. Add an API key in **Settings** to work with a real model on your own projects.";

/// How many further prompts get the closing answer.
const CLOSING_ANSWERS: usize = 200;

/// The model name the demo session uses (it has no price, so no cost is shown).
pub const DEMO_MODEL: &str = "nerve-demo";

/// The sample project's files.
const SAMPLE_FILES: &[(&str, &str)] = &[
    (
        "README.md",
        "# Greeter\n\nA tiny sample project for Nerve's demo. `src/greeter.py` greets people;\n`config.toml` holds its settings; `build/` holds generated files.\n",
    ),
    (
        "src/greeter.py",
        "def greet(name):\n    return f\"Helo, {name}!\"\n\n\nif __name__ == \"__main__\":\n    print(greet(\"world\"))\n",
    ),
    (
        "tests/test_greeter.py",
        "from src.greeter import greet\n\n\ndef test_greet():\n    assert greet(\"Ada\") == \"Hello, Ada!\"\n",
    ),
    ("config.toml", "name = \"greeter\"\ndebug = true\n"),
    ("build/greeter.pyc.txt", "generated\n"),
    (
        ".nerve/settings.json",
        "{\n  \"permissions\": {\n    \"defaultMode\": \"default\",\n    \"deny\": [\"Bash(rm -rf:*)\"]\n  }\n}\n",
    ),
];

/// A running demo: the model server and the sample folder, both gone when it is dropped.
pub struct Demo {
    server: MockServer,
    folder: tempfile::TempDir,
}

impl Demo {
    /// Writes a fresh sample project and starts the scripted model.
    pub async fn start() -> Result<Self, ShellError> {
        let folder = tempfile::Builder::new()
            .prefix("nerve-demo-")
            .tempdir()
            .map_err(|e| ShellError::new(format!("cannot make the demo's sample folder: {e}")))?;
        write_sample(&folder.path().join("greeter"))?;
        let server = MockServer::start(scenario()?)
            .await
            .map_err(|e| ShellError::new(format!("cannot start the demo's model: {e}")))?;
        Ok(Self { server, folder })
    }

    /// The sample project's folder.
    pub fn project(&self) -> PathBuf {
        self.folder.path().join("greeter")
    }

    /// Where the scripted model answers.
    pub fn url(&self) -> String {
        self.server.url()
    }
}

fn write_sample(root: &Path) -> Result<(), ShellError> {
    for (name, text) in SAMPLE_FILES {
        let path = root.join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| ShellError::new(format!("cannot write the demo project: {e}")))?;
        }
        std::fs::write(&path, text)
            .map_err(|e| ShellError::new(format!("cannot write the demo project: {e}")))?;
    }
    Ok(())
}

/// The script, followed by the closing answer for any prompt after it.
fn scenario() -> Result<Scenario, ShellError> {
    let broken = |e: String| ShellError::new(format!("the demo's script is broken: {e}"));
    let mut script: serde_json::Value = serde_json::from_str(SCENARIO).map_err(|e| broken(e.to_string()))?;
    let closing = serde_json::json!({"response": {"type": "stream", "blocks": [
        {"type": "text", "text": AFTER_THE_SCRIPT}
    ], "stop_reason": "end_turn", "usage": {"input_tokens": 100, "output_tokens": 40}}});
    let steps = script
        .get_mut("steps")
        .and_then(serde_json::Value::as_array_mut)
        .ok_or_else(|| broken("no steps".into()))?;
    steps.extend(std::iter::repeat_n(closing, CLOSING_ANSWERS));
    Scenario::from_json(&script.to_string()).map_err(|e| broken(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_parses_and_its_edits_apply_to_the_sample() {
        let scenario = scenario().unwrap();
        assert!(scenario.steps.len() > CLOSING_ANSWERS);
        let script: serde_json::Value = serde_json::from_str(SCENARIO).unwrap();
        let sample = |name: &str| SAMPLE_FILES.iter().find(|(n, _)| *n == name).unwrap().1;
        let calls: Vec<&serde_json::Value> = script["steps"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["response"]["blocks"].as_array().unwrap())
            .filter(|b| b["type"] == "tool_use")
            .collect();
        let edit = calls.iter().find(|c| c["name"] == "Edit").unwrap();
        let path = edit["input"]["file_path"].as_str().unwrap();
        assert!(sample(path).contains(edit["input"]["old_string"].as_str().unwrap()));
        assert!(
            sample("config.toml").contains("debug = true"),
            "what the sed call changes"
        );
        assert!(
            SAMPLE_FILES.iter().any(|(n, _)| n.starts_with("build/")),
            "what rm -rf aims at"
        );
        assert!(sample(".nerve/settings.json").contains("Bash(rm -rf:*)"));
    }
}
