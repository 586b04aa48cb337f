//! Hints from the other replicas on one PostgreSQL database. Every write that
//! changes a task's status notifies [`CHANNEL`] with the task's id (see the
//! store); while at least one listen stream of this replica is open, one
//! connection of its own (not the pool's: a pooled one serves statements) is
//! `LISTEN`ing there and forwards each id into the replica's hints. Once the
//! connection is lost it connects again, with a growing pause, until the database
//! is back; what was notified meanwhile is not heard (`tasks/get` still shows it).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{broadcast, watch};
use tokio_postgres::{AsyncMessage, NoTls};
use tokio_util::sync::CancellationToken;

/// The channel the task store notifies.
pub(crate) const CHANNEL: &str = "holon_tasks";

/// The pause before the first reconnection, doubled up to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(250);
const LONGEST_PAUSE: Duration = Duration::from_secs(5);

/// The listening of one replica, shared by its listen streams.
pub(crate) struct ReplicaHints {
    config: tokio_postgres::Config,
    /// The database's runtime: the connection lives there, as the pool's do.
    runtime: tokio::runtime::Handle,
    sender: broadcast::Sender<String>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// How many streams listen.
    streams: usize,
    /// Stops the connection; `None` while no stream listens.
    stop: Option<CancellationToken>,
    /// How many times the connection has tried to listen, since it started.
    tries: Option<watch::Receiver<u64>>,
}

/// One stream's share of the listening: the last one dropped closes the connection.
pub(crate) struct Listening {
    hints: Arc<ReplicaHints>,
}

impl Drop for Listening {
    fn drop(&mut self) {
        let mut state = self.hints.lock();
        state.streams = state.streams.saturating_sub(1);
        if state.streams == 0 {
            if let Some(stop) = state.stop.take() {
                stop.cancel();
            }
            state.tries = None;
        }
    }
}

impl ReplicaHints {
    /// The listening on `database`, forwarding into `sender`; `None` when the
    /// database is closed.
    pub(crate) fn new(
        database: &crate::postgres::Database,
        sender: broadcast::Sender<String>,
    ) -> Option<Self> {
        Some(Self {
            config: database.config().clone(),
            runtime: database.runtime()?,
            sender,
            state: Mutex::default(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One more stream listens: the connection opens if it was the first, and
    /// this returns once it listens, or its first try failed.
    pub(crate) async fn listen(self: &Arc<Self>) -> Listening {
        let tries = {
            let mut state = self.lock();
            state.streams += 1;
            if state.stop.is_none() {
                let stop = CancellationToken::new();
                let (tried, tries) = watch::channel(0);
                self.runtime.spawn(keep_listening(
                    self.config.clone(),
                    self.sender.clone(),
                    stop.clone(),
                    tried,
                ));
                state.stop = Some(stop);
                state.tries = Some(tries);
            }
            state.tries.clone()
        };
        // Made before the wait: a stream dropped while it waits still counts out.
        let listening = Listening {
            hints: Arc::clone(self),
        };
        if let Some(mut tries) = tries {
            // An error is a connection stopped meanwhile: nothing to wait for.
            let _ = tries.wait_for(|tries| *tries > 0).await;
        }
        listening
    }
}

/// Listens until `stop`, connecting again whenever the connection is lost.
async fn keep_listening(
    config: tokio_postgres::Config,
    sender: broadcast::Sender<String>,
    stop: CancellationToken,
    tried: watch::Sender<u64>,
) {
    let mut pause = FIRST_PAUSE;
    loop {
        let listened = tokio::select! {
            () = stop.cancelled() => return,
            listened = listen_once(&config, &sender, &tried) => listened,
        };
        tried.send_modify(|tries| *tries += 1);
        if listened {
            pause = FIRST_PAUSE;
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(LONGEST_PAUSE);
    }
}

/// One connection: `LISTEN`, then forward what is notified until the connection
/// ends. Whether it listened.
async fn listen_once(
    config: &tokio_postgres::Config,
    sender: &broadcast::Sender<String>,
    tried: &watch::Sender<u64>,
) -> bool {
    let Ok((client, mut connection)) = config.connect(NoTls).await else {
        return false;
    };
    let forward = sender.clone();
    // The connection is driven apart from the client: its notifications come
    // between the answers to the client's statements. It ends once the client is
    // dropped (this future stopped) or the server goes.
    let driving = tokio::spawn(async move {
        while let Some(message) =
            std::future::poll_fn(|context| connection.poll_message(context)).await
        {
            match message {
                Ok(AsyncMessage::Notification(notification))
                    if notification.channel() == CHANNEL =>
                {
                    // No stream watching is no error.
                    let _ = forward.send(notification.payload().to_string());
                }
                Ok(_) => {}
                Err(_) => return,
            }
        }
    });
    if client
        .batch_execute(&format!("LISTEN {CHANNEL}"))
        .await
        .is_err()
    {
        return false;
    }
    tried.send_modify(|tries| *tries += 1);
    let _ = driving.await;
    drop(client);
    true
}
