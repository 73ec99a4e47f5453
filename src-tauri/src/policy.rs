//! The app's security policy, pinned by tests: the Content-Security-Policy in `tauri.conf.json`,
//! the capability that lists what the UI may call, and the absence of shell and filesystem
//! plugins. A change that loosens any of them fails here first.

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use std::collections::BTreeSet;
    use std::path::Path;

    use serde_json::Value;

    fn root() -> &'static Path {
        Path::new(env!("CARGO_MANIFEST_DIR"))
    }

    fn json(rel: &str) -> Value {
        serde_json::from_str(&std::fs::read_to_string(root().join(rel)).unwrap()).unwrap()
    }

    /// `directive -> sources` of the configured CSP.
    fn csp() -> std::collections::BTreeMap<String, Vec<String>> {
        let conf = json("tauri.conf.json");
        let text = conf["app"]["security"]["csp"].as_str().unwrap().to_string();
        text.split(';')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| {
                let mut words = d.split_whitespace().map(str::to_string);
                let name = words.next().unwrap();
                (name, words.collect())
            })
            .collect()
    }

    #[test]
    fn the_csp_allows_only_the_app_itself_and_ipc() {
        let csp = csp();
        assert_eq!(csp["default-src"], ["'self'"]);
        assert_eq!(csp["script-src"], ["'self'"], "no inline scripts, no eval");
        assert_eq!(csp["connect-src"], ["ipc:", "http://ipc.localhost"], "IPC only");
        assert_eq!(csp["object-src"], ["'none'"]);
        for (directive, sources) in &csp {
            for s in sources {
                assert_ne!(s, "'unsafe-eval'", "{directive}");
                assert!(
                    !s.starts_with("http") || s == "http://ipc.localhost",
                    "{directive}: {s}"
                );
                assert_ne!(s, "*", "{directive}");
            }
        }
    }

    #[test]
    fn the_ui_may_call_exactly_the_shell_commands_and_the_folder_picker() {
        let capability = json("src-tauri/capabilities/default.json");
        let granted: BTreeSet<String> = capability["permissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap().to_string())
            .collect();
        let build = std::fs::read_to_string(root().join("src-tauri/build.rs")).unwrap();
        let main = std::fs::read_to_string(root().join("src-tauri/src/main.rs")).unwrap();
        let mut expected: BTreeSet<String> = ["dialog:allow-open".to_string()].into();
        for line in main.lines().map(str::trim) {
            let command = [
                "commands::",
                "settings_commands::",
                "outputs_commands::",
                "session_commands::",
                "worktree_commands::",
                "attention::",
                "terminal::",
                "tasks_commands::",
                "about::",
            ]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
            .and_then(|l| l.strip_suffix(','));
            if let Some(name) = command {
                assert!(
                    build.contains(&format!("\"{name}\"")),
                    "{name} is missing from build.rs"
                );
                expected.insert(format!("allow-{}", name.replace('_', "-")));
            }
        }
        assert!(expected.len() > 10, "{expected:?}");
        assert_eq!(granted, expected);
        assert_eq!(capability["windows"], serde_json::json!(["main"]));
    }

    #[test]
    fn no_shell_or_filesystem_plugin_is_linked() {
        let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
        for plugin in [
            "tauri-plugin-shell",
            "tauri-plugin-fs",
            "tauri-plugin-http",
            "tauri-plugin-process",
        ] {
            assert!(!manifest.contains(plugin), "{plugin} must not be a dependency");
        }
        let package = json("ui/package.json");
        for section in ["dependencies", "devDependencies"] {
            if let Some(deps) = package[section].as_object() {
                for name in deps.keys() {
                    assert!(
                        !name.starts_with("@tauri-apps/plugin-") || name == "@tauri-apps/plugin-dialog",
                        "{name} must not be a UI dependency"
                    );
                }
            }
        }
    }
}
