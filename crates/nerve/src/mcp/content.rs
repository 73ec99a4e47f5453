//! MCP tool results to the engine's result blocks.

use rmcp::model::{CallToolResult, ContentBlock};

use crate::tool::ResultBlock;

/// Image types the Messages API accepts inside a tool result.
const API_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Maps one content block: text to text, API-supported images to images, anything else (audio,
/// embedded resources, resource links, other image types) to its JSON as text, so the model still
/// sees what came back.
fn block(content: &ContentBlock) -> ResultBlock {
    match content {
        ContentBlock::Text(t) => ResultBlock::text(t.text.clone()),
        ContentBlock::Image(i) if API_IMAGE_TYPES.contains(&i.mime_type.as_str()) => ResultBlock::Image {
            media_type: i.mime_type.clone(),
            data: i.data.clone(),
        },
        other => ResultBlock::text(
            serde_json::to_string(other).unwrap_or_else(|e| format!("(unreadable MCP content: {e})")),
        ),
    }
}

/// The result's content as blocks. With no content blocks, the structured content (as JSON text)
/// stands in; with neither, a line saying so (an empty tool result reads as a failure to the model).
pub fn result_blocks(result: &CallToolResult) -> Vec<ResultBlock> {
    let mut blocks: Vec<ResultBlock> = result.content.iter().map(block).collect();
    if blocks.is_empty() {
        blocks.push(match &result.structured_content {
            Some(v) => ResultBlock::text(v.to_string()),
            None => ResultBlock::text("(the MCP tool returned no content)"),
        });
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn maps_each_kind() {
        let result = CallToolResult::success(vec![
            ContentBlock::text("hi"),
            ContentBlock::image("AAAA", "image/png"),
            ContentBlock::image("BBBB", "image/tiff"),
            ContentBlock::embedded_text("file:///a.txt", "body"),
        ]);
        let blocks = result_blocks(&result);
        assert_eq!(blocks[0], ResultBlock::text("hi"));
        assert_eq!(
            blocks[1],
            ResultBlock::Image {
                media_type: "image/png".into(),
                data: "AAAA".into()
            }
        );
        let ResultBlock::Text { text } = &blocks[2] else {
            panic!("{:?}", blocks[2])
        };
        assert!(text.contains("image/tiff"), "{text}");
        let ResultBlock::Text { text } = &blocks[3] else {
            panic!("{:?}", blocks[3])
        };
        let v: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(v["resource"]["text"], json!("body"));
    }

    #[test]
    fn empty_content_uses_structured_content_or_says_so() {
        let mut result = CallToolResult::success(vec![]);
        assert_eq!(
            result_blocks(&result),
            vec![ResultBlock::text("(the MCP tool returned no content)")]
        );
        result.structured_content = Some(json!({"n": 1}));
        assert_eq!(result_blocks(&result), vec![ResultBlock::text(r#"{"n":1}"#)]);
    }
}
