//! The worked example of `docs/adding-a-tool.md`, compiled and run here so the guide cannot drift
//! from the contract it teaches.

include!("../../../../docs/examples/word_count.rs");

#[test]
fn the_guide_shows_exactly_this_example() {
    let guide = include_str!("../../../../docs/adding-a-tool.md");
    assert!(guide.contains(include_str!("../../../../docs/examples/word_count.rs")));
}

#[tokio::test]
async fn the_example_counts_words_and_says_what_it_reads() {
    use crate::tools::test_support::{context_in, no_progress, text};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "one two\nthree  four\n").unwrap();
    let ctx = context_in(dir.path());
    let input = WordCountInput {
        file_path: "notes.txt".into(),
    };
    let tool = WordCountTool;
    assert_eq!(tool.summary(&input, dir.path()), "notes.txt");
    assert!(matches!(
        tool.permission_subject(&input, &ctx),
        PermissionSubject::Paths {
            access: Access::Read,
            ..
        }
    ));
    let out = tool.call(input, &ctx, &no_progress()).await.unwrap();
    assert_eq!(text(&out), "4 words");
    let missing = WordCountInput {
        file_path: "gone.txt".into(),
    };
    let err = tool.call(missing, &ctx, &no_progress()).await.unwrap_err();
    assert!(err.to_string().contains("cannot read"), "{err}");
}
