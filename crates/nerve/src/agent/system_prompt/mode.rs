//! Telling the model the permission mode. The mode is not in the system prompt: a switch would
//! change the prompt and with it the cached prefix of the whole conversation. The model is told
//! in a `<system-reminder>` of the next user message whenever the mode differs from the last one
//! it was told (a session starts in `default`, which the guidance describes).

use crate::permissions::PermissionMode;

/// What the model reads when the mode becomes `mode`. `exit_plan` says whether ExitPlanMode is
/// offered (the note names it only then).
pub fn mode_note(mode: PermissionMode, exit_plan: bool) -> String {
    let what = match mode {
        PermissionMode::Default | PermissionMode::Bubble => {
            "edits and commands that no rule allows wait for the user's approval."
        }
        PermissionMode::AcceptEdits => {
            "file edits inside the working folders go through without asking; shell commands and edits elsewhere still need approval unless a rule allows them."
        }
        PermissionMode::Plan if exit_plan => {
            "explore and design only. Calls that would change anything are refused until the user approves your plan: when it is ready, present it with ExitPlanMode."
        }
        PermissionMode::Plan => {
            "explore and design only. Calls that would change anything are refused until the user approves a plan: when yours is ready, present it in your answer."
        }
        PermissionMode::DontAsk => {
            "calls that no rule allows are denied without asking; work within what is allowed and say what you could not do."
        }
        PermissionMode::BypassPermissions => {
            "calls run without asking the user. Take the same care as if each were reviewed: look before anything destructive and confirm outward-facing actions first."
        }
        PermissionMode::Auto => {
            "a reviewer model approves or denies calls that no rule decides, instead of the user. A denial stands as the user's would."
        }
    };
    let name = match mode {
        // A sub-agent bubbling its prompts up behaves, from its side, like the default mode.
        PermissionMode::Bubble => PermissionMode::Default.as_str(),
        other => other.as_str(),
    };
    format!("The permission mode is now {name}: {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_has_a_note_naming_it() {
        for mode in PermissionMode::ALL {
            for exit_plan in [true, false] {
                let note = mode_note(*mode, exit_plan);
                assert!(note.starts_with("The permission mode is now "), "{note}");
                assert_eq!(
                    note.contains("ExitPlanMode"),
                    exit_plan && *mode == PermissionMode::Plan
                );
            }
        }
    }
}
