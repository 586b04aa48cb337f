//! Tasks in memory: as long as the server process.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde_json::{Map, Value};

use super::record::{TaskRecord, TaskState, answering, asking};
use super::store::{TaskStore, TaskStoreError};

/// A [`TaskStore`] in the server's memory: tasks live as long as the process.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    tasks: Mutex<HashMap<String, TaskRecord>>,
    /// The answers recorded for each task and not taken yet; written under the
    /// lock of `tasks` (taken first), so a task and its answers change together.
    answers: Mutex<HashMap<String, Map<String, Value>>>,
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

    fn answers(&self) -> MutexGuard<'_, HashMap<String, Map<String, Value>>> {
        self.answers.lock().unwrap_or_else(PoisonError::into_inner)
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
        self.answers().retain(|id, _| tasks.contains_key(id));
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

    fn ask(
        &self,
        id: &str,
        key: &str,
        request: &Value,
        now_ms: u64,
    ) -> Result<bool, TaskStoreError> {
        let mut tasks = self.tasks();
        let Some(record) = tasks.get_mut(id) else {
            return Ok(false);
        };
        match asking(&record.state, key, request) {
            Some(state) => {
                record.state = state;
                record.updated_at_ms = now_ms;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn answer(
        &self,
        id: &str,
        responses: &Map<String, Value>,
        now_ms: u64,
    ) -> Result<Vec<String>, TaskStoreError> {
        let mut tasks = self.tasks();
        let Some(record) = tasks.get_mut(id) else {
            return Ok(Vec::new());
        };
        let mut answers = self.answers();
        let recorded = answers.get(id).cloned().unwrap_or_default();
        match answering(&record.state, &recorded, responses) {
            Some((state, recorded, keys)) => {
                record.state = state;
                record.updated_at_ms = now_ms;
                answers.insert(id.to_string(), recorded);
                Ok(keys)
            }
            None => Ok(Vec::new()),
        }
    }

    fn take_answers(&self, id: &str) -> Result<Map<String, Value>, TaskStoreError> {
        let _tasks = self.tasks();
        Ok(self.answers().remove(id).unwrap_or_default())
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
