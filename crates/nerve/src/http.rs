//! The engine's one HTTP stack: reqwest 0.13 (the version Tauri and rmcp's MCP client use, so the
//! app carries one) over rustls with the `ring` provider (already in the build through rustls'
//! other users; reqwest's own default, aws-lc, would add a C library to every build).

/// Makes `ring` the process's rustls provider, once. reqwest and rmcp's OAuth client build their
/// TLS configuration from the process default, and panic when there is none.
pub fn install_crypto_provider() {
    // An error means a provider is installed already (ours, or the embedding app's): keep it.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A client builder on the engine's TLS stack. Every HTTP client in the engine starts here.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
}
