//! Answering the prompt from the page with the small model, or, without one, handing the page
//! itself to the main model.

use crate::model::small::SmallModel;

/// The system prompt of the summarising model.
pub const SYSTEM_PROMPT: &str = "You answer questions about one web page, using only its content.";

/// The user message for the summarising model: the page, then the prompt, then the rules.
pub fn summary_request(page: &str, prompt: &str) -> String {
    format!(
        "Web page content:\n---\n{page}\n---\n\n{prompt}\n\nProvide a concise response based only on \
         the content above. In your response:\n - Quote at most 125 characters from the page at a \
         time, in quotation marks; everything else in your own words.\n - If the page does not \
         answer the request, say so rather than guessing.\n - Never reproduce song lyrics."
    )
}

/// The page for the main model when no small model could summarise it.
pub fn unsummarised(page: &str, prompt: &str, why: &str, truncated_note: Option<&str>) -> String {
    let mut out =
        format!("{why}, so here is the page content itself; answer the request from it: {prompt}\n");
    if let Some(note) = truncated_note {
        out.push_str(note);
        out.push('\n');
    }
    out.push_str("---\n");
    out.push_str(page);
    out
}

/// Why the page was not summarised; the message opens the fallback note the model reads.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The small model's request failed.
    #[error("Summarising the page failed ({0})")]
    Model(#[from] crate::model::error::ModelError),
    /// The small model answered with nothing.
    #[error("The summarising model returned an empty answer")]
    Empty,
}

/// Asks `model` about the page.
pub async fn summarise(model: &dyn SmallModel, page: &str, prompt: &str) -> Result<String, SummaryError> {
    let answer = model
        .complete(SYSTEM_PROMPT, &summary_request(page, prompt))
        .await?;
    if answer.trim().is_empty() {
        return Err(SummaryError::Empty);
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_puts_the_page_between_rules_and_the_prompt_after() {
        let r = summary_request("PAGE", "What is it?");
        assert!(r.starts_with("Web page content:\n---\nPAGE\n---\n\nWhat is it?\n\nProvide a concise response based only on the content above."), "{r}");
    }

    #[test]
    fn unsummarised_says_why_and_keeps_the_page() {
        let r = unsummarised("PAGE", "Q?", "No model is available", Some("(cut)"));
        assert_eq!(
            r,
            "No model is available, so here is the page content itself; answer the request from it: Q?\n(cut)\n---\nPAGE"
        );
    }

    /// A small model that always gives the same answer.
    #[derive(Debug)]
    struct Answers(&'static str);

    #[async_trait::async_trait]
    impl SmallModel for Answers {
        async fn complete(
            &self,
            _system: &str,
            _user: &str,
        ) -> Result<String, crate::model::error::ModelError> {
            Ok(self.0.to_string())
        }
    }

    #[tokio::test]
    async fn an_empty_answer_is_no_summary_and_the_note_says_so() {
        assert_eq!(
            summarise(&Answers("It lists widgets."), "PAGE", "Q?").await.ok(),
            Some("It lists widgets.".to_string())
        );
        let empty = summarise(&Answers("  \n"), "PAGE", "Q?").await;
        assert!(matches!(empty, Err(SummaryError::Empty)), "{empty:?}");
        assert_eq!(
            empty.map_err(|e| e.to_string()),
            Err("The summarising model returned an empty answer".to_string())
        );
    }
}
