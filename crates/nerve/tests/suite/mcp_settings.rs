//! MCP servers managed as the app does: added to a scope with their `${VAR}`s kept as written,
//! edited, listed with what they wrote to stderr, a tool switched off (hidden from the next
//! session's model) and on again, and servers imported from Claude Code's and Claude Desktop's
//! configurations.

use std::collections::BTreeMap;

use nerve::settings_view::{
    McpImportReport, McpImportSkip, McpImportSource, McpServerSpec, McpServerStatus, McpViewError,
    add_mcp_server, edit_mcp_server, import_mcp_servers, mcp_servers, probe_mcp_servers,
    set_mcp_tool_enabled, transport_of,
};
use serde_json::json;

use crate::support::{TestProject, mock, mock_session_options};

const SERVER: &str = env!("CARGO_BIN_EXE_nerve-test-mcp-server");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_are_added_edited_switched_and_imported_as_the_app_does() {
    let p = TestProject::new();
    let options = p.options();
    let (root, locations) = (options.project_dir.clone(), options.locations.clone());
    let local = nerve::settings::local_settings_path(&root);
    let env = nerve::EngineEnv::default();

    // Added as written: the `${VAR}` stays in the file and in the editor's copy.
    let spec = McpServerSpec::Stdio {
        command: SERVER.into(),
        args: Vec::new(),
        env: BTreeMap::from([(
            "NERVE_TEST_MCP_STDERR".to_string(),
            "kit ready for ${NERVE_TEST_NO_SUCH_VAR:-you}".to_string(),
        )]),
    };
    let file = add_mcp_server(&root, &locations, "local", "kit", &transport_of(&spec).unwrap()).unwrap();
    assert_eq!(file, local);
    let listed = mcp_servers(&root, &locations, false).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].spec.as_ref(), Some(&spec));
    assert!(matches!(
        transport_of(&McpServerSpec::Http {
            url: "ftp://x".into(),
            headers: BTreeMap::new()
        }),
        Err(McpViewError::Invalid(_))
    ));

    // Started: its tools, none off, and its stderr (expanded when it started).
    let probed = probe_mcp_servers(&env, &root, &locations, false).await.unwrap();
    let McpServerStatus::Connected { tools } = &probed[0].status else {
        panic!("not connected: {:?}", probed[0].status)
    };
    assert!(tools.contains(&"mcp__kit__echo".to_string()), "{tools:?}");
    assert_eq!(probed[0].tools_off, Vec::<String>::new());
    assert_eq!(probed[0].stderr, vec!["kit ready for you".to_string()]);

    // One tool off: a deny rule of its bare name in the local settings hides it.
    assert_eq!(
        set_mcp_tool_enabled(&root, &locations, "mcp__kit__echo", false).unwrap(),
        local
    );
    let probed = probe_mcp_servers(&env, &root, &locations, false).await.unwrap();
    assert_eq!(probed[0].tools_off, vec!["mcp__kit__echo".to_string()]);
    let model = mock(json!([])).await;
    let session = nerve::Session::start(
        nerve::Project::open(p.options()).unwrap(),
        mock_session_options(&model),
    )
    .await
    .unwrap();
    let names = session.tool_names().to_vec();
    assert!(!names.contains(&"mcp__kit__echo".to_string()), "{names:?}");
    assert!(names.contains(&"mcp__kit__add".to_string()), "{names:?}");
    session.close().await;
    set_mcp_tool_enabled(&root, &locations, "mcp__kit__echo", true).unwrap();
    let probed = probe_mcp_servers(&env, &root, &locations, false).await.unwrap();
    assert_eq!(probed[0].tools_off, Vec::<String>::new());
    assert!(set_mcp_tool_enabled(&root, &locations, "Bash(rm *)", false).is_err());

    // The whole server off: later sessions do not start it; back on, they do.
    nerve::settings_view::set_mcp_server_enabled(&root, "kit", false).unwrap();
    let listed = probe_mcp_servers(&env, &root, &locations, false).await.unwrap();
    assert_eq!(
        (listed[0].enabled, &listed[0].status),
        (false, &McpServerStatus::NotStarted)
    );
    let session = nerve::Session::start(
        nerve::Project::open(p.options()).unwrap(),
        mock_session_options(&model),
    )
    .await
    .unwrap();
    assert!(
        !session.tool_names().iter().any(|t| t.starts_with("mcp__kit__")),
        "{:?}",
        session.tool_names()
    );
    session.close().await;
    nerve::settings_view::set_mcp_server_enabled(&root, "kit", true).unwrap();
    assert!(mcp_servers(&root, &locations, false).unwrap()[0].enabled);

    // Edited in place.
    let edited = McpServerSpec::Stdio {
        command: SERVER.into(),
        args: vec!["--flag".into()],
        env: BTreeMap::new(),
    };
    edit_mcp_server(&root, &locations, "local", "kit", &transport_of(&edited).unwrap()).unwrap();
    assert_eq!(
        mcp_servers(&root, &locations, false).unwrap()[0].spec.as_ref(),
        Some(&edited)
    );
    assert!(matches!(
        edit_mcp_server(
            &root,
            &locations,
            "local",
            "nope",
            &transport_of(&edited).unwrap()
        ),
        Err(McpViewError::Unknown(_))
    ));

    // Imported from Claude Code: its user servers and this project's, a clash and a bad name left out.
    assert!(matches!(
        import_mcp_servers(&root, &locations, McpImportSource::ClaudeCode, "local"),
        Err(McpViewError::Foreign { .. })
    ));
    std::fs::create_dir_all(&locations.home).unwrap();
    std::fs::write(
        locations.home.join(".claude.json"),
        json!({
            "mcpServers": {
                "gh": {"command": "npx", "args": ["-y", "server-github"], "env": {"TOKEN": "${GITHUB_TOKEN}"}},
                "kit": {"command": "other"},
                "bad name!": {"command": "x"},
                "broken": {"type": "stdio"}
            },
            "projects": {root.display().to_string(): {"mcpServers": {"db": {"type": "http", "url": "https://db.example/mcp"}}}}
        })
        .to_string(),
    )
    .unwrap();
    let report = import_mcp_servers(&root, &locations, McpImportSource::ClaudeCode, "local").unwrap();
    let skip = |name: &str, reason: &str| McpImportSkip {
        name: name.into(),
        reason: reason.into(),
    };
    assert_eq!(
        report,
        McpImportReport {
            file: local.display().to_string(),
            imported: vec!["gh".into(), "db".into()],
            skipped: vec![
                skip("kit", "the local scope has a server of that name"),
                skip("bad name!", "its name cannot name a server here"),
                skip("broken", "a stdio server needs a non-empty \"command\""),
            ],
        }
    );
    let gh = mcp_servers(&root, &locations, false)
        .unwrap()
        .into_iter()
        .find(|v| v.name == "gh")
        .unwrap();
    assert_eq!(
        gh.spec,
        Some(McpServerSpec::Stdio {
            command: "npx".into(),
            args: vec!["-y".into(), "server-github".into()],
            env: BTreeMap::from([("TOKEN".to_string(), "${GITHUB_TOKEN}".to_string())]),
        })
    );

    // From Claude Desktop, into the user's servers.
    let desktop = locations.config_dir.join("Claude/claude_desktop_config.json");
    std::fs::create_dir_all(desktop.parent().unwrap()).unwrap();
    std::fs::write(
        &desktop,
        json!({"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"]}}})
            .to_string(),
    )
    .unwrap();
    let report = import_mcp_servers(&root, &locations, McpImportSource::ClaudeDesktop, "user").unwrap();
    assert_eq!(report.imported, vec!["fs".to_string()]);
    assert_eq!(
        report.file,
        locations
            .path_for(nerve::permissions::RuleSource::UserSettings, &root)
            .unwrap()
            .display()
            .to_string()
    );
}
