//! Switching the permission mode, between turns or while one runs.
//!
//! A running turn owns its permission context, so a front-end's mode switcher cannot change it in
//! place. The request waits in a [`ModeSwitch`] and the turn takes it at its next safe point:
//! before it starts a tool call and before each model request. Calls already running keep the
//! mode they were checked under.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::{PermissionContext, PermissionMode};

/// A mode change asked for while a turn runs; cheap to clone, shared by the front-end and the turn.
#[derive(Debug, Clone, Default)]
pub struct ModeSwitch(Arc<Mutex<Option<PermissionMode>>>);

impl ModeSwitch {
    /// Asks for `mode`; a later request replaces an earlier one not yet taken.
    pub fn request(&self, mode: PermissionMode) {
        *self.slot() = Some(mode);
    }

    /// The requested mode, if any, leaving none behind.
    pub fn take(&self) -> Option<PermissionMode> {
        self.slot().take()
    }

    fn slot(&self) -> MutexGuard<'_, Option<PermissionMode>> {
        // The slot holds a plain value: a panic elsewhere cannot leave it half-written.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Puts `permissions` in `mode`. Entering plan mode remembers the mode to return to, as the
/// EnterPlanMode tool does; any other switch forgets it. Returns whether the mode changed.
pub fn switch_mode(permissions: &mut PermissionContext, mode: PermissionMode) -> bool {
    if permissions.mode == mode {
        return false;
    }
    permissions.mode_before_plan = (mode == PermissionMode::Plan).then_some(permissions.mode);
    permissions.mode = mode;
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_request_wins_and_is_taken_once() {
        let switch = ModeSwitch::default();
        let front_end = switch.clone();
        assert_eq!(switch.take(), None);
        front_end.request(PermissionMode::AcceptEdits);
        front_end.request(PermissionMode::Plan);
        assert_eq!(switch.take(), Some(PermissionMode::Plan));
        assert_eq!(switch.take(), None);
    }

    #[test]
    fn plan_mode_remembers_where_it_came_from() {
        let mut permissions = PermissionContext::default();
        assert!(switch_mode(&mut permissions, PermissionMode::AcceptEdits));
        assert!(switch_mode(&mut permissions, PermissionMode::Plan));
        assert_eq!(permissions.mode_before_plan, Some(PermissionMode::AcceptEdits));
        assert!(!switch_mode(&mut permissions, PermissionMode::Plan), "no change");
        assert_eq!(permissions.mode_before_plan, Some(PermissionMode::AcceptEdits));
        assert!(switch_mode(&mut permissions, PermissionMode::Default));
        assert_eq!(permissions.mode_before_plan, None);
    }
}
