//! `notifications/tasks` on a `subscriptions/listen` stream: for each hint that a
//! task changed, the task as `tasks/get` reads it then, when it is the stream
//! owner's and shows something the stream has not been sent. rmcp's subscription
//! sink refuses this notification (its filter has no field for tasks), so it is
//! sent on the listen request's peer, tagged with the subscription's id as the
//! sink tags what it sends.

use std::collections::HashMap;
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
    /// What each unfinished task was when last sent: a hint that finds the same
    /// sends nothing.
    sent: HashMap<String, DetailedTask>,
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
            sent: HashMap::new(),
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
        if self.sent.get(id) == Some(&task) {
            return None;
        }
        if task.status().is_terminal() {
            // An ended task never changes again.
            self.sent.remove(id);
        } else {
            self.sent.insert(id.to_string(), task.clone());
        }
        Some(task)
    }
}
