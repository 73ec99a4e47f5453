//! The permission state a call is judged in.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use crate::permissions::protected::is_inside_working_dirs;
use crate::permissions::{PermissionMode, PermissionRule, RuleSet};

/// Rules shared by every call of a session. "Always allow" answers add to them while a turn runs,
/// so later calls (even in the same turn) see the new rules.
#[derive(Debug, Clone, Default)]
pub struct SharedRules(Arc<RwLock<Arc<RuleSet>>>);

impl SharedRules {
    /// Shares `rules`.
    pub fn new(rules: RuleSet) -> Self {
        Self(Arc::new(RwLock::new(Arc::new(rules))))
    }

    /// The rules as they are now.
    pub fn snapshot(&self) -> Arc<RuleSet> {
        Arc::clone(&self.0.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Adds a rule for every holder of this handle.
    pub fn add(&self, rule: PermissionRule) {
        let mut guard = self.0.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut next = RuleSet::clone(&guard);
        next.add(rule);
        *guard = Arc::new(next);
    }
}

impl PermissionContext {
    /// Whether `path` (absolute) may be read without asking: inside a working directory or this
    /// session's saved outputs, or a skill's folder.
    pub fn may_read_freely(&self, path: &Path) -> bool {
        is_inside_working_dirs(path, &self.working_dirs)
            || self.is_own_output(path)
            || is_inside_working_dirs(path, &self.skill_dirs)
    }

    /// Whether `path` lies in this session's saved outputs.
    pub fn is_own_output(&self, path: &Path) -> bool {
        is_inside_working_dirs(path, &self.own_outputs)
    }
}

/// Mode, rules and folders in force for a call. Changed only through context modifiers (plan mode)
/// and by the session (mode switcher, "always allow").
#[derive(Debug, Clone)]
pub struct PermissionContext {
    /// The permission mode.
    pub mode: PermissionMode,
    /// Settings forbid bypassPermissions mode (`disableBypassPermissionsMode`): the mode switch
    /// refuses to enter it, whoever asks.
    pub bypass_disabled: bool,
    /// Every rule from every source, plus the session's.
    pub rules: SharedRules,
    /// The project folder and any additional working directories.
    pub working_dirs: Vec<PathBuf>,
    /// The user's home (for `~/` rules and protected rc files).
    pub home: PathBuf,
    /// Headless runs: nobody can be asked, so what would ask is denied (and listed).
    pub avoid_prompts: bool,
    /// The mode in force when EnterPlanMode switched to plan mode; ExitPlanMode restores it
    /// (`None`: the session was not put in plan mode by EnterPlanMode, so leaving it goes to
    /// `default`).
    pub mode_before_plan: Option<PermissionMode>,
    /// Folders holding this session's own saved tool outputs (a sub-agent adds its own). The model is
    /// told to read them back, so reads there are allowed in every mode; nothing may write there.
    pub own_outputs: Vec<PathBuf>,
    /// The folders of the skills the session offers. The Skill tool sends the model there for a
    /// skill's templates and references, so reads there are allowed in every mode (a Read deny
    /// rule still wins); writes are judged like anywhere else.
    pub skill_dirs: Vec<PathBuf>,
}

impl Default for PermissionContext {
    fn default() -> Self {
        Self {
            mode: PermissionMode::Default,
            bypass_disabled: false,
            rules: SharedRules::default(),
            working_dirs: Vec::new(),
            home: dirs::home_dir().unwrap_or_else(|| PathBuf::from("/")),
            avoid_prompts: false,
            mode_before_plan: None,
            own_outputs: Vec::new(),
            skill_dirs: Vec::new(),
        }
    }
}
