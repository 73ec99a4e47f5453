use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pretty_assertions::assert_eq;

use super::*;
use crate::model::error::ModelError;

/// Answers from a script and records what it was asked.
#[derive(Debug, Default)]
struct Scripted {
    answers: Mutex<Vec<Result<String, ModelError>>>,
    seen: Mutex<Vec<(String, String)>>,
    hang: bool,
}

impl Scripted {
    fn new(answers: Vec<Result<&str, ModelError>>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into_iter().map(|a| a.map(str::to_owned)).collect()),
            ..Self::default()
        })
    }
    fn hanging() -> Arc<Self> {
        Arc::new(Self {
            hang: true,
            ..Self::default()
        })
    }
    fn seen(&self) -> Vec<(String, String)> {
        self.seen.lock().unwrap().clone()
    }
}

#[async_trait]
impl SmallModel for Scripted {
    async fn complete(&self, system: &str, user: &str) -> Result<String, ModelError> {
        self.seen
            .lock()
            .unwrap()
            .push((system.to_owned(), user.to_owned()));
        if self.hang {
            std::future::pending::<()>().await;
        }
        let mut answers = self.answers.lock().unwrap();
        if answers.is_empty() {
            panic!("the model was asked more often than scripted");
        }
        answers.remove(0)
    }
}

fn server_error() -> ModelError {
    ModelError::Api {
        status: 500,
        kind: "api_error".into(),
        message: "boom".into(),
        request_id: None,
    }
}

fn request<'a>(input: &'a str, dirs: &'a [PathBuf]) -> ClassifierRequest<'a> {
    ClassifierRequest {
        tool_name: "Bash",
        classifier_input: input,
        cwd: Path::new("/p"),
        working_dirs: dirs,
    }
}

async fn classify(quick: &Arc<Scripted>, careful: &Arc<Scripted>, input: &str) -> ClassifierVerdict {
    let intent = RecentIntent::new();
    intent.record("run the test suite");
    let c = ModelClassifier::new(quick.clone(), careful.clone(), intent);
    c.classify(&request(input, &[PathBuf::from("/p")])).await
}

#[tokio::test]
async fn a_quick_allow_allows_without_the_careful_stage() {
    let (quick, careful) = (Scripted::new(vec![Ok("ALLOW")]), Scripted::new(vec![]));
    let v = classify(&quick, &careful, "cargo test").await;
    assert!(matches!(v, ClassifierVerdict::Allow { .. }), "{v:?}");
    let seen = quick.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, quick_system());
    assert!(seen[0].1.contains("[1] run the test suite"), "{}", seen[0].1);
    assert!(
        seen[0]
            .1
            .contains("<action tool=\"Bash\">\ncargo test\n</action>")
    );
    assert!(careful.seen().is_empty());
}

#[tokio::test]
async fn a_quick_ask_asks_without_the_careful_stage() {
    let (quick, careful) = (Scripted::new(vec![Ok("ASK")]), Scripted::new(vec![]));
    let v = classify(&quick, &careful, "git push --force").await;
    assert_eq!(
        v,
        ClassifierVerdict::Ask {
            reason: "the auto-mode classifier wants the user to decide (quick check)".into()
        }
    );
    assert!(careful.seen().is_empty());
}

#[tokio::test]
async fn an_unclear_quick_answer_gets_the_careful_look() {
    let quick = Scripted::new(vec![Ok("Probably fine, it runs tests.")]);
    let careful = Scripted::new(vec![Ok("It runs the tests the user asked for.\nVERDICT: ALLOW")]);
    let v = classify(&quick, &careful, "cargo test").await;
    assert!(
        matches!(v, ClassifierVerdict::Allow { ref reason } if reason.contains("careful")),
        "{v:?}"
    );
    let seen = careful.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0, careful_system());
    assert_eq!(seen[0].1, quick.seen()[0].1, "both stages judge the same message");

    let quick = Scripted::new(vec![Ok("")]);
    let careful = Scripted::new(vec![Ok("Deletes the build folder.\nVERDICT: ASK")]);
    let v = classify(&quick, &careful, "rm -rf target").await;
    assert!(
        matches!(v, ClassifierVerdict::Ask { ref reason } if reason.contains("careful")),
        "{v:?}"
    );
}

#[tokio::test]
async fn garbage_from_both_stages_asks() {
    let quick = Scripted::new(vec![Ok("maybe")]);
    let careful = Scripted::new(vec![Ok("VERDICT: ALLOW\nbut actually I am not sure")]);
    let v = classify(&quick, &careful, "make deploy").await;
    assert_eq!(
        v,
        ClassifierVerdict::Ask {
            reason: "the auto-mode classifier gave no clear verdict".into()
        }
    );
}

#[tokio::test]
async fn model_errors_ask() {
    let (quick, careful) = (Scripted::new(vec![Err(server_error())]), Scripted::new(vec![]));
    let v = classify(&quick, &careful, "cargo test").await;
    assert!(
        matches!(v, ClassifierVerdict::Ask { ref reason } if reason.contains("could not reach")),
        "{v:?}"
    );
    assert!(careful.seen().is_empty());

    let quick = Scripted::new(vec![Ok("??")]);
    let careful = Scripted::new(vec![Err(ModelError::Stream(
        crate::model::error::StreamError::Truncated,
    ))]);
    let v = classify(&quick, &careful, "cargo test").await;
    assert!(
        matches!(v, ClassifierVerdict::Ask { ref reason } if reason.contains("could not reach")),
        "{v:?}"
    );
}

#[tokio::test]
async fn a_model_that_never_answers_times_out_into_ask() {
    let quick = Scripted::hanging();
    let c = ModelClassifier::new(quick.clone(), Scripted::new(vec![]), RecentIntent::new())
        .with_timeout(Duration::from_millis(20));
    let v = c.classify(&request("cargo test", &[])).await;
    assert!(
        matches!(v, ClassifierVerdict::Ask { ref reason } if reason.contains("longer than")),
        "{v:?}"
    );
    assert_eq!(quick.seen().len(), 1);
}

#[tokio::test]
async fn an_input_too_long_to_judge_whole_is_never_sent() {
    let (quick, careful) = (Scripted::new(vec![]), Scripted::new(vec![]));
    let long = "x".repeat(MAX_ACTION_CHARS + 1);
    let v = classify(&quick, &careful, &long).await;
    assert!(
        matches!(v, ClassifierVerdict::Ask { ref reason } if reason.contains("longer than the")),
        "{v:?}"
    );
    assert!(quick.seen().is_empty());
}

#[tokio::test]
async fn the_intent_handle_is_read_at_each_call() {
    let intent = RecentIntent::new();
    let quick = Scripted::new(vec![Ok("ASK"), Ok("ASK")]);
    let c = ModelClassifier::new(quick.clone(), Scripted::new(vec![]), intent.clone());
    c.classify(&request("ls", &[])).await;
    intent.record("list the files");
    c.classify(&request("ls", &[])).await;
    let seen = quick.seen();
    assert!(seen[0].1.contains("(no request recorded)"));
    assert!(seen[1].1.contains("[1] list the files"));
}
