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

/// Why [`switch_mode`] left the mode as it was.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModeRefused {
    /// Settings disable bypassPermissions mode.
    #[error(
        "bypassPermissions mode is disabled by settings (disableBypassPermissionsMode); the mode stays {current}"
    )]
    BypassDisabled {
        /// The mode that stays in force.
        current: PermissionMode,
    },
}

/// Puts `permissions` in `mode`: the one place a session's mode changes, so the settings' limits
/// hold whoever asks (a front-end, a tool, a test). Entering plan mode remembers the mode to return
/// to, as the EnterPlanMode tool does; any other switch forgets it. Returns whether the mode changed.
pub fn switch_mode(permissions: &mut PermissionContext, mode: PermissionMode) -> Result<bool, ModeRefused> {
    if permissions.mode == mode {
        return Ok(false);
    }
    if mode == PermissionMode::BypassPermissions && permissions.bypass_disabled {
        return Err(ModeRefused::BypassDisabled {
            current: permissions.mode,
        });
    }
    permissions.mode_before_plan = (mode == PermissionMode::Plan).then_some(permissions.mode);
    permissions.mode = mode;
    Ok(true)
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
        assert_eq!(
            switch_mode(&mut permissions, PermissionMode::AcceptEdits),
            Ok(true)
        );
        assert_eq!(switch_mode(&mut permissions, PermissionMode::Plan), Ok(true));
        assert_eq!(permissions.mode_before_plan, Some(PermissionMode::AcceptEdits));
        assert_eq!(
            switch_mode(&mut permissions, PermissionMode::Plan),
            Ok(false),
            "no change"
        );
        assert_eq!(permissions.mode_before_plan, Some(PermissionMode::AcceptEdits));
        assert_eq!(switch_mode(&mut permissions, PermissionMode::Default), Ok(true));
        assert_eq!(permissions.mode_before_plan, None);
    }

    #[test]
    fn disabled_bypass_stays_disabled() {
        let mut permissions = PermissionContext {
            mode: PermissionMode::AcceptEdits,
            bypass_disabled: true,
            ..PermissionContext::default()
        };
        assert_eq!(
            switch_mode(&mut permissions, PermissionMode::BypassPermissions),
            Err(ModeRefused::BypassDisabled {
                current: PermissionMode::AcceptEdits
            })
        );
        assert_eq!(permissions.mode, PermissionMode::AcceptEdits);
        assert_eq!(switch_mode(&mut permissions, PermissionMode::Default), Ok(true));
    }
}
