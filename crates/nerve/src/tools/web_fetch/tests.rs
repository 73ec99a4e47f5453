use pretty_assertions::assert_eq;

use super::*;

fn input(url: &str, prompt: &str) -> WebFetchInput {
    WebFetchInput {
        url: url.into(),
        prompt: prompt.into(),
    }
}

fn ctx() -> ToolUseContext {
    ToolUseContext::for_tests(std::env::temp_dir())
}

#[tokio::test]
async fn validation_checks_the_url_and_the_prompt() {
    let tool = WebFetchTool::default();
    assert_eq!(
        tool.validate_input(&input("https://example.com", "q"), &ctx())
            .await,
        Ok(())
    );
    let err = tool
        .validate_input(&input("https://example.com", " "), &ctx())
        .await
        .unwrap_err();
    assert!(err.contains("`prompt` is empty"), "{err}");
    let err = tool
        .validate_input(&input("file:///etc/passwd", "q"), &ctx())
        .await
        .unwrap_err();
    assert!(err.contains("only fetches http and https"), "{err}");
}

#[test]
fn rules_see_the_url_and_the_classifier_gets_it() {
    let tool = WebFetchTool::default();
    let i = input("https://docs.rs/x", "q");
    assert_eq!(
        tool.permission_subject(&i, &ctx()),
        PermissionSubject::Url {
            url: "https://docs.rs/x".into()
        }
    );
    assert_eq!(tool.classifier_input(&i), "https://docs.rs/x");
    assert!(tool.is_read_only(&i) && tool.is_concurrency_safe(&i));
    assert!(tool.should_defer());
}

#[test]
fn redirect_text_names_both_urls_and_what_to_do() {
    let text = redirect_text("https://a.test/", "https://b.test/x", 301);
    assert!(
        text.starts_with("REDIRECT DETECTED: The URL redirects to a different host."),
        "{text}"
    );
    assert!(
        text.contains(
            "Original URL: https://a.test/\nRedirect URL: https://b.test/x\nStatus: 301 Moved Permanently"
        ),
        "{text}"
    );
    assert!(text.contains("call WebFetch again with the new URL"), "{text}");
}

#[test]
fn sizes_read_naturally() {
    assert_eq!(human_bytes(10 * 1024 * 1024), "10 MB");
    assert_eq!(human_bytes(100_000), "100 KB");
    assert_eq!(human_bytes(1500), "1500 bytes");
}

#[test]
fn defaults_match_the_documented_limits() {
    let o = WebFetchOptions::default();
    assert_eq!(o.limits.connect_timeout, Duration::from_secs(10));
    assert_eq!(o.limits.total_timeout, Duration::from_secs(30));
    assert_eq!(o.limits.max_bytes, 10 * 1024 * 1024);
    assert_eq!(o.limits.max_redirects, 10);
    assert_eq!(o.cache_ttl, Duration::from_secs(900));
    assert_eq!(o.cache_capacity.get(), 64);
}
