//! The engine's one HTTP stack: reqwest 0.13 (the version Tauri and rmcp's MCP client use, so the
//! app carries one) over rustls with the `ring` provider (already in the build through rustls'
//! other users; reqwest's own default, aws-lc, would add a C library to every build).

/// Makes `ring` the process's rustls provider, once. reqwest and rmcp's OAuth client build their
/// TLS configuration from the process default, and panic when there is none.
pub fn install_crypto_provider() {
    // An error means a provider is installed already (ours, or the embedding app's): keep it.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The TLS setup every client shares: the platform's verifier (the system's trusted roots), built
/// once. Each reqwest client would otherwise read and parse every certificate under
/// `/etc/ssl/certs` again (a session builds three clients before its first request).
fn shared_tls() -> Option<rustls::ClientConfig> {
    static TLS: std::sync::OnceLock<Option<rustls::ClientConfig>> = std::sync::OnceLock::new();
    TLS.get_or_init(|| {
        use rustls_platform_verifier::ConfigVerifierExt;
        match rustls::ClientConfig::with_platform_verifier() {
            Ok(mut config) => {
                config.alpn_protocols = vec![b"http/1.1".to_vec()];
                Some(config)
            }
            Err(e) => {
                // reqwest then builds its own (and reports the same problem on the first https call).
                tracing::warn!("the system's certificate verifier could not be set up: {e}");
                None
            }
        }
    })
    .clone()
}

/// A client builder on the engine's TLS stack. Every HTTP client in the engine starts here.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    let builder = reqwest::Client::builder();
    match shared_tls() {
        Some(config) => builder.tls_backend_preconfigured(config),
        None => builder,
    }
}
