//! State a session's tools keep for themselves, shared by every clone of the context: Bash keeps
//! its background commands here, TaskOutput and TaskStop find them here. The contract knows only
//! that such state exists, not what it is, so it depends on no tool.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

type Entries = HashMap<TypeId, Arc<dyn Any + Send + Sync>>;

/// One value per type, created on first use. Cheap to clone; clones share the values, and the
/// values are dropped with the last clone (so background commands end with the session).
#[derive(Clone, Default)]
pub struct SessionExtensions(Arc<Mutex<Entries>>);

impl SessionExtensions {
    /// The session's `T`, created with `T::default()` the first time anyone asks.
    pub fn get_or_default<T: Any + Clone + Default + Send + Sync>(&self) -> T {
        let mut entries = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Arc::new(T::default()));
        match entry.downcast_ref::<T>() {
            Some(value) => value.clone(),
            // The key is `T`'s own type id, so the entry is a `T`; this arm cannot run.
            None => T::default(),
        }
    }
}

impl std::fmt::Debug for SessionExtensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().unwrap_or_else(PoisonError::into_inner).len();
        write!(f, "SessionExtensions({n} values)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Default)]
    struct Counter(Arc<std::sync::atomic::AtomicU32>);

    #[test]
    fn clones_share_one_value_per_type() {
        let a = SessionExtensions::default();
        let b = a.clone();
        a.get_or_default::<Counter>()
            .0
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(
            b.get_or_default::<Counter>()
                .0
                .load(std::sync::atomic::Ordering::SeqCst),
            1
        );
        assert_eq!(
            SessionExtensions::default()
                .get_or_default::<Counter>()
                .0
                .load(std::sync::atomic::Ordering::SeqCst),
            0
        );
    }
}
