//! The one form an error the engine writes takes for the model: `<tool_use_error>message</tool_use_error>`.
//! Written and read back only here, so front-ends get the message itself (live in the
//! `tool_completed` event, resumed in the past calls) and never parse the wrapper.

const OPEN: &str = "<tool_use_error>";
const CLOSE: &str = "</tool_use_error>";

/// `message` as the model receives an engine-written error.
pub fn wrap_tool_use_error(message: &str) -> String {
    format!("{OPEN}{message}{CLOSE}")
}

/// The message inside an engine-written error, when `text` is one.
pub fn tool_use_error_message(text: &str) -> Option<&str> {
    text.trim().strip_prefix(OPEN)?.strip_suffix(CLOSE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_reads_back_as_its_message() {
        let wrapped = wrap_tool_use_error("File has not been read yet.");
        assert_eq!(
            wrapped,
            "<tool_use_error>File has not been read yet.</tool_use_error>"
        );
        assert_eq!(
            tool_use_error_message(&wrapped),
            Some("File has not been read yet.")
        );
        assert_eq!(tool_use_error_message("exit code 1\nerror: no such file"), None);
    }
}
