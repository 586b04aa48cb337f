//! `notifications/tasks` on a `subscriptions/listen` stream: for each hint that a
//! task changed, the task as `tasks/get` reads it then, when it is the stream
//! owner's and shows something the stream has not been sent. rmcp's subscription
//! sink refuses this notification (its filter has no field for tasks), so it is
//! sent on the listen request's peer, tagged with the subscription's id as the
//! sink tags what it sends.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    DetailedTask, GetMeta, Notification, RequestId, ServerNotification,
    TaskStatusNotificationParams,
};
use rmcp::service::{Peer, RequestContext};

use super::hints::Watch;
use super::record::TaskOwner;
use super::runner::Tasks;
use super::serve::owner_of;

/// The task notifications of one listen stream.
pub(crate) struct TaskNotifier {
    tasks: Arc<Tasks>,
    owner: TaskOwner,
    peer: Peer<RoleServer>,
    subscription: RequestId,
    watch: Watch,
    sent: Sent<DetailedTask>,
}

impl TaskNotifier {
    /// The notifications of the tasks of `listen`'s owner (the owner `tasks/get`
    /// checks), watching from the return on.
    pub(crate) async fn open(tasks: &Arc<Tasks>, listen: &RequestContext<RoleServer>) -> Self {
        Self {
            tasks: Arc::clone(tasks),
            owner: owner_of(listen),
            peer: listen.peer.clone(),
            subscription: listen.id.clone(),
            watch: tasks.hints().watch().await,
            sent: Sent::default(),
        }
    }

    /// Sends the notifications as hints come, until the stream is gone.
    pub(crate) async fn run(mut self) {
        while let Some(id) = self.watch.next().await {
            let Some(task) = self.changed(&id) else {
                continue;
            };
            let mut notification = ServerNotification::TaskStatusNotification(Notification::new(
                TaskStatusNotificationParams::new(task),
            ));
            notification
                .get_meta_mut()
                .set_subscription_id(self.subscription.clone());
            if self.peer.send_notification(notification).await.is_err() {
                return;
            }
        }
    }

    /// Task `id` as `tasks/get` reads it for the stream's owner, if the stream was
    /// not sent it as it is: `None` for another owner's task, one unknown, or a
    /// store that failed (a hint is not the truth).
    fn changed(&mut self, id: &str) -> Option<DetailedTask> {
        let task = self.tasks.get(&self.owner, id).ok()?.task;
        let terminal = task.status().is_terminal();
        self.sent.fresh(id, &task, terminal).then_some(task)
    }
}

/// How many ended tasks a stream remembers having sent.
const ENDED_KEPT: usize = 1024;

/// What a stream was sent: each unfinished task's last state, and the last ended
/// tasks' ids. A hint can come twice for one write (this replica's, and the
/// database's notification of it): the second finds nothing new.
struct Sent<T> {
    unfinished: HashMap<String, T>,
    ended: HashSet<String>,
    ended_order: VecDeque<String>,
}

impl<T> Default for Sent<T> {
    fn default() -> Self {
        Self {
            unfinished: HashMap::new(),
            ended: HashSet::new(),
            ended_order: VecDeque::new(),
        }
    }
}

impl<T: PartialEq + Clone> Sent<T> {
    /// Whether `task` (task `id` as read now, `terminal` when it has ended) is news
    /// to the stream; remembered as sent when it is.
    fn fresh(&mut self, id: &str, task: &T, terminal: bool) -> bool {
        if self.ended.contains(id) {
            // An ended task never changes again.
            return false;
        }
        if terminal {
            self.unfinished.remove(id);
            if self.ended_order.len() == ENDED_KEPT {
                let oldest = self.ended_order.pop_front();
                self.ended.remove(oldest.as_deref().unwrap_or_default());
            }
            self.ended.insert(id.to_string());
            self.ended_order.push_back(id.to_string());
            return true;
        }
        if self.unfinished.get(id) == Some(task) {
            return false;
        }
        self.unfinished.insert(id.to_string(), task.clone());
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_hinted_twice_is_sent_once_and_an_ended_task_never_again() {
        let mut sent = Sent::default();
        assert!(sent.fresh("t1", &"working", false));
        assert!(!sent.fresh("t1", &"working", false));
        assert!(sent.fresh("t1", &"input_required", false));
        assert!(sent.fresh("t1", &"completed", true));
        // The database's notification of the same end, after this replica's hint.
        assert!(!sent.fresh("t1", &"completed", true));
        assert!(!sent.fresh("t1", &"working", false));
        assert!(sent.fresh("t2", &"completed", true));
    }

    #[test]
    fn a_stream_remembers_a_bounded_number_of_ended_tasks() {
        let mut sent = Sent::default();
        for n in 0..=ENDED_KEPT {
            assert!(sent.fresh(&format!("t{n}"), &"completed", true));
        }
        assert_eq!(sent.ended.len(), ENDED_KEPT);
        assert_eq!(sent.ended_order.len(), ENDED_KEPT);
        // The oldest was forgotten; the newest is still known.
        assert!(sent.fresh("t0", &"completed", true));
        assert!(!sent.fresh(&format!("t{ENDED_KEPT}"), &"completed", true));
    }
}
