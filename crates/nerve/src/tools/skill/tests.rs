use super::*;
use crate::definitions::Definitions;
use crate::tools::test_support::{context_in, no_progress, text};

fn skills_in(root: &std::path::Path) -> Vec<Arc<Skill>> {
    let write = |rel: &str, body: &str| {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, body).unwrap();
    };
    write(
        "project/.claude/skills/notes/SKILL.md",
        "---\nname: notes\ndescription: Write release\n  notes from the log\n---\nUse template.md.\n",
    );
    write(
        "project/.claude/skills/deploy/SKILL.md",
        "---\nname: deploy\ndescription: Deploy\ndisable-model-invocation: true\n---\nDeploy.\n",
    );
    Definitions::load(&root.join("project"), &root.join("home"), &root.join("config")).skills()
}

#[test]
fn only_skills_the_model_may_load_are_offered_each_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let tool = SkillTool::new(skills_in(dir.path()));
    let description = tool.description();
    assert!(
        description.ends_with("Available skills:\n- notes: Write release notes from the log"),
        "{description}"
    );
    assert!(tool.offers_any());
    assert!(!SkillTool::new(Vec::new()).offers_any());
}

#[tokio::test]
async fn loading_gives_the_body_the_folder_and_the_task_and_unknown_names_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tool = SkillTool::new(skills_in(dir.path()));
    let ctx = context_in(&dir.path().join("project"));
    let folder = dir.path().join("project/.claude/skills/notes");
    let input = SkillInput {
        skill: "notes".into(),
        args: Some("v1.2".into()),
    };
    assert_eq!(tool.validate_input(&input, &ctx).await, Ok(()));
    let out = tool.call(input, &ctx, &no_progress()).await.unwrap();
    assert_eq!(
        text(&out),
        format!(
            "Skill `notes` loaded. Its folder is {}: paths in these instructions are relative to it.\n\nUse template.md.\n\nApply it to: v1.2",
            folder.display()
        )
    );
    // A skill kept for the user is not the model's to load.
    let refused = tool
        .validate_input(
            &SkillInput {
                skill: "deploy".into(),
                args: None,
            },
            &ctx,
        )
        .await;
    assert_eq!(
        refused,
        Err("There is no skill `deploy`; the skills are: notes.".into())
    );
    // The file removed during the session: a clear error, not a panic.
    std::fs::remove_file(folder.join("SKILL.md")).unwrap();
    let gone = tool
        .call(
            SkillInput {
                skill: "notes".into(),
                args: None,
            },
            &ctx,
            &no_progress(),
        )
        .await
        .unwrap_err();
    assert!(
        gone.to_string()
            .starts_with("The skill `notes` could not be loaded from"),
        "{gone}"
    );
}
