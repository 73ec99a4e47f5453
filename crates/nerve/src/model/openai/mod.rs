//! The OpenAI-compatible Chat Completions API (vLLM, LM Studio, llama.cpp's server, Ollama's
//! OpenAI endpoint, gateways, OpenAI itself) behind the same client as the Messages API: a request
//! is written as the Messages API's and translated on its way out ([`request`]), the streamed
//! answer translated back into the Messages API's events ([`stream`]), so the agent loop, the
//! executor and the front-ends do not know which API answered.

pub mod request;
pub mod responses;
pub mod stream;

pub use nerve_protocol::settings::ModelProvider;

/// The OpenAI API's own address, when no base URL is given.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com";

/// The URL of `path` (`chat/completions`, `models`) under `base_url`, whether or not the base
/// already ends in `/v1` (servers are documented both ways: `http://localhost:11434/v1`).
pub fn api_url(base_url: &str, path: &str) -> String {
    let base = base_url.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/{path}")
    } else {
        format!("{base}/v1/{path}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_path_goes_under_v1_once() {
        assert_eq!(
            super::api_url("http://localhost:11434/v1/", "chat/completions"),
            "http://localhost:11434/v1/chat/completions"
        );
        assert_eq!(
            super::api_url("https://api.openai.com", "models"),
            "https://api.openai.com/v1/models"
        );
    }
}
