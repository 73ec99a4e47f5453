//! Whether a sandbox test can check anything here; included by the engine's and the CLI's tests.

/// Whether the Bash sandbox works on this kernel. Where it does not, a sandbox test has nothing to
/// check and says so loudly; with `NERVE_REQUIRE_SANDBOX=1` (the README's test command sets it) the
/// missing sandbox fails the test instead, so no run passes having checked nothing.
pub fn sandbox_available(what_is_skipped: &str) -> bool {
    let availability = nerve::sandbox::availability();
    if availability.is_available() {
        return true;
    }
    assert!(
        std::env::var_os("NERVE_REQUIRE_SANDBOX").is_none(),
        "NERVE_REQUIRE_SANDBOX is set but the sandbox is not available: {availability:?}"
    );
    eprintln!("\n==== THE SANDBOX IS NOT AVAILABLE ON THIS KERNEL ({availability:?}): {what_is_skipped}\n");
    false
}
