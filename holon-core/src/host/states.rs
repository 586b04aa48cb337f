//! A context's states: the values handlers take as `&T`, by type.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

/// One state value.
pub(crate) type State = Arc<dyn Any + Send + Sync>;

/// How many states a context keeps in its own list before it folds them into the
/// shared map: about what one call adds (its request's data and client).
const ADDED_MAX: usize = 8;

/// The host's states, in a map every clone of a context shares, and the few added to
/// a clone since (a call's request data, its client), in a short list of its own in
/// front of them: adding a call's states copies nothing of the host's and hashes
/// nothing, where one map would be copied whole on every call.
#[derive(Clone, Default)]
pub(crate) struct States {
    shared: Arc<HashMap<TypeId, State>>,
    /// Newer than every entry of `shared`; one entry a type.
    added: Vec<(TypeId, State)>,
}

impl States {
    /// Sets the state of type `id`, in place of any earlier one.
    pub(crate) fn insert(&mut self, id: TypeId, value: State) {
        // A map no clone shares (a host building its context) takes it in place, so
        // that the host's states stay in the map and its clones copy no list.
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.extend(self.added.drain(..));
            shared.insert(id, value);
            return;
        }
        if let Some(slot) = self.added.iter_mut().find(|(own, _)| *own == id) {
            slot.1 = value;
            return;
        }
        if self.added.len() == ADDED_MAX {
            Arc::make_mut(&mut self.shared).extend(self.added.drain(..));
        }
        if self.added.capacity() == 0 {
            self.added.reserve_exact(ADDED_MAX);
        }
        self.added.push((id, value));
    }

    /// The state of type `id`, if set.
    pub(crate) fn get(&self, id: TypeId) -> Option<&State> {
        self.added
            .iter()
            .find(|(own, _)| *own == id)
            .map(|(_, value)| value)
            .or_else(|| self.shared.get(&id))
    }

    /// How many types have a state.
    pub(crate) fn len(&self) -> usize {
        let shadowed = self
            .added
            .iter()
            .filter(|(id, _)| self.shared.contains_key(id))
            .count();
        self.shared.len() + self.added.len() - shadowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(value: u32) -> State {
        Arc::new(value)
    }

    fn value(states: &States, id: TypeId) -> Option<u32> {
        states.get(id)?.downcast_ref::<u32>().copied()
    }

    /// Distinct type ids, more than one list holds.
    fn ids() -> Vec<TypeId> {
        struct Tag<const N: usize>;
        macro_rules! ids {
            ($($n:literal)*) => { vec![$(TypeId::of::<Tag<$n>>()),*] };
        }
        ids!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17)
    }

    /// Against a plain map, the model: every sequence of sets (new types, types set
    /// again before and after a fold) and clones reads the same, and a clone's sets
    /// never show in the states it was cloned from.
    #[test]
    fn reads_as_one_map_would_through_folds_and_clones() {
        let ids = ids();
        let mut states = States::default();
        let mut model = HashMap::new();
        let mut snapshots = Vec::new();
        // A fixed walk that sets new types and old ones again, past several folds.
        for step in 0..200u32 {
            let id = ids[(step as usize * 5 + step as usize / 18) % ids.len()];
            states.insert(id, state(step));
            model.insert(id, step);
            if step % 13 == 0 {
                snapshots.push((states.clone(), model.clone()));
            }
            // With no clone left, the map is the states' own again.
            if step % 50 == 49 {
                check(&snapshots, &ids);
                snapshots.clear();
            }
            for id in &ids {
                assert_eq!(value(&states, *id), model.get(id).copied(), "step {step}");
            }
            assert_eq!(states.len(), model.len(), "step {step}");
        }
        assert!(
            !states.shared.is_empty(),
            "the walk folds the list into the map"
        );
        check(&snapshots, &ids);
    }

    fn check(snapshots: &[(States, HashMap<TypeId, u32>)], ids: &[TypeId]) {
        for (states, model) in snapshots {
            for id in ids {
                assert_eq!(value(states, *id), model.get(id).copied());
            }
        }
    }

    #[test]
    fn a_host_building_its_states_keeps_them_in_the_map_and_a_clone_adds_to_its_list() {
        let ids = ids();
        let mut host = States::default();
        for (n, id) in ids.iter().take(3).enumerate() {
            host.insert(*id, state(n as u32));
        }
        assert!(host.added.is_empty(), "a host's states go into its map");
        let mut call = host.clone();
        call.insert(ids[3], state(3));
        call.insert(ids[0], state(10));
        assert_eq!(call.added.len(), 2, "a clone's states go into its list");
        assert_eq!(value(&call, ids[0]), Some(10));
        assert_eq!(value(&host, ids[0]), Some(0));
        assert_eq!(value(&host, ids[3]), None);
        assert_eq!(call.len(), 4);
    }
}
