//! Tasks in memory: as long as the server process.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::record::{TaskRecord, TaskState};
use super::store::{TaskStore, TaskStoreError};

/// A [`TaskStore`] in the server's memory: tasks live as long as the process.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn tasks(&self) -> MutexGuard<'_, HashMap<String, TaskRecord>> {
        // A panic elsewhere cannot leave a record half-written: every write is one
        // insert or one assignment.
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: &TaskRecord) -> Result<(), TaskStoreError> {
        let mut tasks = self.tasks();
        if tasks.contains_key(&record.id) {
            return Err(TaskStoreError::new(format!(
                "a task with id `{}` already exists",
                record.id
            )));
        }
        tasks.insert(record.id.clone(), record.clone());
        Ok(())
    }

    fn get(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        Ok(self.tasks().get(id).cloned())
    }

    fn advance(&self, id: &str, state: &TaskState, now_ms: u64) -> Result<bool, TaskStoreError> {
        let mut tasks = self.tasks();
        match tasks.get_mut(id) {
            Some(record) if !record.state.is_terminal() => {
                record.state = state.clone();
                record.updated_at_ms = now_ms;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn remove_expired(&self, now_ms: u64) -> Result<usize, TaskStoreError> {
        let mut tasks = self.tasks();
        let before = tasks.len();
        tasks.retain(|_, record| !record.is_expired(now_ms));
        Ok(before - tasks.len())
    }

    fn renew(&self, id: &str, lease_until_ms: u64) -> Result<bool, TaskStoreError> {
        match self.tasks().get_mut(id) {
            Some(record) if !record.state.is_terminal() => {
                record.lease_until_ms = lease_until_ms;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    fn fail_abandoned(&self, state: &TaskState, now_ms: u64) -> Result<usize, TaskStoreError> {
        let mut failed = 0;
        for record in self.tasks().values_mut() {
            if record.is_abandoned(now_ms) {
                record.state = state.clone();
                record.updated_at_ms = now_ms;
                failed += 1;
            }
        }
        Ok(failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::record::TaskOwner;

    fn record(id: &str, ttl_ms: Option<u64>) -> TaskRecord {
        TaskRecord::working(id, TaskOwner::anonymous(), "Tool", 1_000, ttl_ms)
    }

    #[test]
    fn an_ended_task_never_changes_and_expired_ones_go() {
        let store = MemoryTaskStore::new();
        store.create(&record("a", Some(10))).unwrap();
        store.create(&record("b", None)).unwrap();
        assert!(store.create(&record("a", None)).is_err(), "ids are unique");
        assert!(store.advance("a", &TaskState::Cancelled, 1_001).unwrap());
        assert!(!store.advance("a", &TaskState::Working, 1_002).unwrap());
        assert_eq!(store.get("a").unwrap().unwrap().state, TaskState::Cancelled);
        assert_eq!(store.remove_expired(1_010).unwrap(), 1);
        assert_eq!(store.get("a").unwrap(), None);
        assert!(store.get("b").unwrap().is_some());
    }
}
