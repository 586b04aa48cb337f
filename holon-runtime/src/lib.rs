//! # holon-runtime
//!
//! The embedded agent runtime the built-in tools of `holon-tools` work on, usable by a
//! host on its own. It keeps the state and the services over it: the workspace roots,
//! the state directory and its SQLite store, the model catalog, and the services
//! (work items, agents and waits, timers, tasks, workspace, memory).
//!
//! It has no effect of its own on the outside world: files, the network and commands
//! go through the gates of [`holon_gates`] (`fs`, `net`, `process`), which a host
//! configures through [`RuntimeConfig`] (`web`, `ca_file`, `commands`).
//!
//! Tool handlers take `&Runtime`; [`Runtime::context`] builds a [`ToolContext`] that
//! carries it and records every dispatched call in the store.

// Tests set their fixtures up with std::fs and std::process freely; the code
// they test is linted without this.
#![cfg_attr(test, allow(clippy::disallowed_methods, clippy::disallowed_types))]

pub mod agency;
pub mod approvals;
pub mod audit_log;
pub mod bindings;
pub mod catalog;
mod clock;
pub mod execution_log;
pub mod git;
pub mod memory;
mod migrations;
#[cfg(feature = "postgres")]
mod postgres;
pub mod service_error;
pub mod services;
pub mod state_dir;
mod store;
pub mod tasks;
pub mod workspace;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use holon_core::{
    DispatchObserver, Execution, FamilyPolicy, Registry, ToolCall, ToolContext, ToolResult,
};
use holon_policy::{
    ApprovalPolicy, ApprovalStore, Approvals, CallSite, CallSiteSource, DirIdentity, OperatorKey,
    OperatorKeySource, WithApprovals,
};

pub use bindings::Bindings;
pub use services::{ApiKey, ImageConfig, MediaDir, SearchProvider, WebConfig, XSearchConfig};
pub use store::begin_write;
pub use store::{ExecutionRecord, Store, StoreError};
pub use tasks::TaskManager;
pub use workspace::{WorkspaceRoots, Workspaces};

use crate::catalog::{CatalogError, ModelCatalog};
use execution_log::ExecutionRetention;
use holon_gates::net::{NetGate, TlsTrust};
use holon_gates::process::{HiddenEnv, LauncherConfig};

/// The file name of the store inside the state directory.
pub const STORE_FILE_NAME: &str = "state.sqlite3";

/// Adds every credential the runtime reads to `hidden`: `HOLON_*_API_KEY` (the image
/// and xAI keys and any later one) and each provider's `credential_env` in `catalog`.
/// The host's own credentials are its to name ([`RuntimeConfig::hide_host_credential`]).
fn hide_credentials(hidden: &mut HiddenEnv, catalog: &ModelCatalog) {
    hidden.hide_pattern("HOLON_", "_API_KEY");
    for provider in catalog.providers() {
        hidden.hide(provider.credential_env.clone());
    }
}

/// The file name of a user's model catalog override inside the state directory.
pub const CATALOG_OVERRIDE_FILE_NAME: &str = "model-catalog.json";

/// Where provider credentials are looked up.
#[derive(Debug, Clone, Default)]
pub enum Credentials {
    /// The process environment (`OPENAI_API_KEY`, ...).
    #[default]
    Environment,
    /// Exactly these variable names count as set (for tests and embedding hosts).
    Fixed(BTreeSet<String>),
}

impl Credentials {
    /// Whether the variable `name` is set to a non-empty value.
    pub fn is_set(&self, name: &str) -> bool {
        match self {
            Self::Environment => std::env::var_os(name).is_some_and(|v| !v.is_empty()),
            Self::Fixed(names) => names.contains(name),
        }
    }
}

/// How to open a runtime.
#[derive(Debug, Clone)]
pub struct RuntimeConfig {
    /// The workspace root tools act in.
    pub workspace_root: PathBuf,
    /// The state directory; `None` keeps everything in memory.
    pub state_dir: Option<PathBuf>,
    /// A model catalog file that overrides the embedded one; by default
    /// `<state_dir>/model-catalog.json` when it exists.
    pub model_catalog: Option<PathBuf>,
    /// Where provider credentials are looked up.
    pub credentials: Credentials,
    /// How WebFetch and WebSearch reach the network.
    pub web: WebConfig,
    /// The image provider of GenerateImage and the media directory.
    pub images: ImageConfig,
    /// A PEM file of certificate authorities trusted for https besides Mozilla's
    /// roots (an internal CA, a TLS-inspecting proxy's), by WebFetch, WebSearch and
    /// GenerateImage.
    pub ca_file: Option<PathBuf>,
    /// How long the logs of an ended task are kept: older ones are removed when the
    /// runtime opens (default 14 days; `None` keeps them forever).
    pub task_log_retention: Option<Duration>,
    /// How long and how much of the execution log is kept (default 30 days, 256 MiB
    /// of inputs); pruned when the runtime opens and as records are written.
    pub execution_retention: ExecutionRetention,
    /// How commands are started: resource limits, the limits helper, log cap, and
    /// variables to hide besides the credentials the runtime reads (always hidden).
    pub commands: LauncherConfig,
    /// The audit log of every call, when set (default: none).
    pub audit: Option<audit_log::AuditConfig>,
    /// The approval policy every call of [`Runtime::context`] is put to; `None` lets
    /// every call run (see [`holon_policy`]).
    pub policy: Option<ApprovalPolicy>,
    /// How long an asked call waits for the operator.
    pub approval_ttl: Duration,
    /// The file of the operator's key, which signs approvals (default:
    /// `<state_dir>/operator.key`, made on first use; a key of its own per runtime
    /// when the state is in memory).
    pub operator_key_file: Option<PathBuf>,
    /// The PostgreSQL database (`postgres://...`, feature `postgres`) that keeps the
    /// asked calls, the standing grants and the operator keys instead of the state
    /// directory, shared by every replica of a server on it; an approval is then bound
    /// to the workspace it was asked in, not to a replica's state directory.
    pub approvals_database: Option<String>,
}

impl RuntimeConfig {
    /// A runtime on `workspace_root` with its state outside the workspace, in the
    /// user's data directory ([`state_dir::default_state_dir`]); in
    /// `<workspace_root>/.holon/` only where the user has no data directory (neither
    /// `XDG_DATA_HOME` nor `HOME` is set).
    pub fn new(workspace_root: impl Into<PathBuf>) -> Self {
        let workspace_root = workspace_root.into();
        Self {
            state_dir: Some(
                state_dir::default_state_dir(&workspace_root)
                    .unwrap_or_else(|| workspace_root.join(".holon")),
            ),
            workspace_root,
            model_catalog: None,
            credentials: Credentials::Environment,
            web: WebConfig::default(),
            images: ImageConfig::default(),
            ca_file: None,
            task_log_retention: Some(DEFAULT_TASK_LOG_RETENTION),
            commands: LauncherConfig::default(),
            execution_retention: ExecutionRetention::default(),
            audit: None,
            policy: None,
            approval_ttl: holon_policy::DEFAULT_APPROVAL_TTL,
            operator_key_file: None,
            approvals_database: None,
        }
    }

    /// A runtime on `workspace_root` whose state lives in memory only.
    pub fn in_memory(workspace_root: impl Into<PathBuf>) -> Self {
        Self {
            state_dir: None,
            ..Self::new(workspace_root)
        }
    }

    /// Hides the host's own credential variable `name` (an MCP server's bearer token,
    /// say) from the environment of every command, as the runtime hides the ones it
    /// reads itself.
    pub fn hide_host_credential(&mut self, name: impl Into<String>) -> &mut Self {
        self.commands.hidden_env.hide(name);
        self
    }
}

/// How long the logs of an ended task are kept by default: 14 days.
pub const DEFAULT_TASK_LOG_RETENTION: Duration = Duration::from_secs(14 * 24 * 60 * 60);

/// Why a runtime could not start.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The state directory could not be created.
    #[error("cannot create the state directory {}: {source}", .path.display())]
    StateDir {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The workspace root is not a readable directory.
    #[error("the workspace root {} cannot be used: {source}", .path.display())]
    Workspace {
        /// The directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The store failed.
    #[error("{0}")]
    Store(StoreError),
    /// The model catalog is invalid.
    #[error("{0}")]
    Catalog(CatalogError),
    /// The certificate authorities of `ca_file` cannot be used.
    #[error("the extra certificate authorities cannot be used: {0}")]
    CaFile(String),
    /// The launcher of commands cannot set their limits with the helper it names.
    #[error("{0}")]
    Commands(holon_gates::process::HelperError),
    /// The audit log cannot be opened.
    #[error("{0}")]
    Audit(audit_log::AuditError),
    /// The approvals' database cannot be opened, or its operator keys read.
    #[error("the approvals in the database cannot be used: {0}")]
    ApprovalsDatabase(String),
    /// The operator's key cannot be read or made.
    #[error("the operator key {} cannot be used: {source}", .path.display())]
    OperatorKey {
        /// The key file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The runtime shared by every call of a session.
pub struct Runtime {
    workspace_root: PathBuf,
    bindings: Bindings,
    state_dir: Option<PathBuf>,
    store: Arc<Store>,
    tasks: TaskManager,
    catalog: ModelCatalog,
    credentials: Credentials,
    web: WebConfig,
    images: ImageConfig,
    media: MediaDir,
    net: NetGate,
    audit: Option<audit_log::AuditSink>,
    policy: Option<ApprovalPolicy>,
    approval_ttl: Duration,
    operator_key_file: Option<PathBuf>,
    /// The state directory as opened when the runtime started, which approvals are
    /// bound to (`None` when the state is in memory).
    state_dir_identity: Option<DirIdentity>,
    /// The approvals of this runtime, made on first use (the key file with them).
    approvals: std::sync::OnceLock<Arc<Approvals>>,
    /// The database's approval store and operator keys, when one was named.
    approvals_database: Option<DatabaseApprovals>,
}

/// The approval store and operator keys of a database.
type DatabaseApprovals = (Arc<dyn ApprovalStore>, Arc<dyn OperatorKeySource>);

impl Runtime {
    /// Opens the runtime: creates the state directory, opens and migrates the store,
    /// loads the model catalog.
    pub fn open(config: RuntimeConfig) -> Result<Arc<Self>, RuntimeError> {
        WorkspaceRoots::new([config.workspace_root.clone()]).map_err(|source| {
            RuntimeError::Workspace {
                path: config.workspace_root.clone(),
                source,
            }
        })?;
        let mut state_dir_identity = None;
        let store = Arc::new(match &config.state_dir {
            Some(dir) => {
                let state_error = |source| RuntimeError::StateDir {
                    path: dir.clone(),
                    source,
                };
                state_dir::ensure_dir(dir).map_err(state_error)?;
                state_dir_identity = Some(
                    holon_gates::fs::RootDir::open(dir)
                        .and_then(|opened| dir_identity(&opened))
                        .map_err(state_error)?,
                );
                Store::open(&dir.join(STORE_FILE_NAME)).map_err(RuntimeError::Store)?
            }
            None => Store::in_memory().map_err(RuntimeError::Store)?,
        });
        store
            .set_execution_retention(config.execution_retention)
            .map_err(RuntimeError::Store)?;
        let bindings = Bindings::open(
            Arc::clone(&store),
            &config.workspace_root,
            config.state_dir.as_deref(),
        )?;
        let override_file = config.model_catalog.clone().or_else(|| {
            config
                .state_dir
                .as_deref()
                .and_then(|dir| state_dir::config_file(dir, CATALOG_OVERRIDE_FILE_NAME))
        });
        let catalog =
            ModelCatalog::load(override_file.as_deref()).map_err(RuntimeError::Catalog)?;
        let mut commands = config.commands.clone();
        hide_credentials(&mut commands.hidden_env, &catalog);
        if commands.limiter.is_some() {
            // Commands are confined by the helper: say once what this kernel lacks.
            holon_gates::process::sandbox::report_gaps_once();
        }
        let tasks = TaskManager::open(
            Arc::clone(&store),
            config.state_dir.as_deref(),
            config.task_log_retention,
            commands,
        )?;
        let media = MediaDir::new(config.images.media_dir.clone().or_else(|| {
            config
                .state_dir
                .as_ref()
                .map(|dir| dir.join(services::MEDIA_DIR_NAME))
        }));
        let tls = match &config.ca_file {
            Some(path) => TlsTrust::with_ca_file(path).map_err(RuntimeError::CaFile)?,
            None => TlsTrust::default(),
        };
        let net = NetGate {
            tls,
            proxy_from_env: config.web.proxy_from_env,
        };
        let operator_key_file = config.operator_key_file.or_else(|| {
            config
                .state_dir
                .as_ref()
                .map(|dir| dir.join(state_dir::OPERATOR_KEY_FILE_NAME))
        });
        let audit = match &config.audit {
            Some(audit) => Some(open_audit(audit, &config.state_dir, &operator_key_file)?),
            None => None,
        };
        let approvals_database = match &config.approvals_database {
            Some(url) => Some(open_approvals_database(url)?),
            None => None,
        };
        Ok(Arc::new(Self {
            workspace_root: config.workspace_root,
            bindings,
            state_dir: config.state_dir,
            store,
            tasks,
            catalog,
            credentials: config.credentials,
            media,
            web: config.web,
            images: config.images,
            net,
            audit,
            operator_key_file,
            state_dir_identity,
            policy: config.policy,
            approval_ttl: config.approval_ttl,
            approvals: std::sync::OnceLock::new(),
            approvals_database,
        }))
        .and_then(|runtime: Arc<Self>| {
            // The key is read (or made) now when a policy needs it, so that a bad key
            // file stops the start, not the first asked call.
            if runtime.policy.is_some() {
                runtime.approvals()?;
            }
            Ok(runtime)
        })
    }

    /// The runtime's approvals: its policy (or, without one, a policy that allows
    /// everything, for deciding calls that another runtime on the same state asked
    /// about), the store, and the operator's key.
    pub fn approvals(&self) -> Result<Arc<Approvals>, RuntimeError> {
        if let Some(approvals) = self.approvals.get() {
            return Ok(Arc::clone(approvals));
        }
        let policy = self.policy.clone().unwrap_or_default();
        if let Some((store, keys)) = &self.approvals_database {
            // The database's ring, never a key of this process: every replica signs
            // and verifies with it.
            let made = Approvals::from_key_source(policy, Arc::clone(store), Arc::clone(keys))
                .map_err(RuntimeError::ApprovalsDatabase)?
                .with_ttl(self.approval_ttl);
            return Ok(Arc::clone(self.approvals.get_or_init(|| Arc::new(made))));
        }
        let key = match &self.operator_key_file {
            Some(path) => {
                state_dir::operator_key(path).map_err(|source| RuntimeError::OperatorKey {
                    path: path.clone(),
                    source,
                })?
            }
            None => OperatorKey::generate().map_err(|error| RuntimeError::OperatorKey {
                path: PathBuf::new(),
                source: std::io::Error::other(error.message),
            })?,
        };
        let store: Arc<dyn ApprovalStore> = Arc::clone(&self.store) as Arc<dyn ApprovalStore>;
        let made = Arc::new(Approvals::new(policy, store, key).with_ttl(self.approval_ttl));
        Ok(Arc::clone(self.approvals.get_or_init(|| made)))
    }

    /// Where a call made now runs: the active workspace root as it is open now, and
    /// the state directory. An asked call is bound to it, and approved runs only here.
    pub fn call_site(&self) -> std::io::Result<CallSite> {
        let roots = self.workspace_roots();
        let active = roots
            .dirs()
            .first()
            .ok_or_else(|| std::io::Error::other("no workspace root is bound"))?;
        // With a database, the store and keys an approval needs are the database's,
        // shared by replicas that each have a state directory of their own.
        let state_dir = match self.approvals_database {
            Some(_) => None,
            None => self.state_dir_identity.clone(),
        };
        Ok(CallSite {
            workspace: dir_identity(active)?,
            state_dir,
        })
    }

    /// The approval policy calls are put to, when one is set.
    pub fn policy(&self) -> Option<&ApprovalPolicy> {
        self.policy.as_ref()
    }

    /// The audit log calls are appended to, when the operator enabled it.
    pub fn audit_log(&self) -> Option<&audit_log::AuditSink> {
        self.audit.as_ref()
    }

    /// The workspace root.
    pub fn workspace_root(&self) -> &Path {
        &self.workspace_root
    }

    /// The workspace roots tools are confined to, as bound now (canonical; the first
    /// is the active one). Attaching, detaching and switching replace them.
    pub fn workspace_roots(&self) -> Arc<WorkspaceRoots> {
        self.bindings.roots()
    }

    /// What a command of a caller may reach: writes beneath the workspace roots (and
    /// worktrees) as bound now, nothing of the state directory, TCP when `web` (the
    /// caller has the `web` family; the launcher's network rule decides last).
    pub fn confinement(&self, web: bool) -> holon_gates::process::Confinement {
        holon_gates::process::Confinement {
            write_roots: self.workspace_roots().roots().to_vec(),
            hidden: self.state_dir.iter().cloned().collect(),
            network: web,
        }
    }

    /// The workspace bindings: attached workspaces, worktrees, the active root.
    pub fn bindings(&self) -> &Bindings {
        &self.bindings
    }

    /// The state directory, if the state is on disk.
    pub fn state_dir(&self) -> Option<&Path> {
        self.state_dir.as_deref()
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The commands started as tasks, live and recorded.
    pub fn tasks(&self) -> &TaskManager {
        &self.tasks
    }

    /// Git, started through the same process gate as the tasks.
    pub fn git(&self) -> git::Git<'_> {
        git::Git::new(self.tasks.launcher())
    }

    /// The model catalog.
    pub fn catalog(&self) -> &ModelCatalog {
        &self.catalog
    }

    /// Where provider credentials are looked up.
    pub fn credentials(&self) -> &Credentials {
        &self.credentials
    }

    /// How WebFetch and WebSearch reach the network.
    pub fn web(&self) -> &WebConfig {
        &self.web
    }

    /// What every HTTP client shares: the trusted authorities, the proxy choice.
    pub fn net(&self) -> &NetGate {
        &self.net
    }

    /// The image provider of GenerateImage.
    pub fn images(&self) -> &ImageConfig {
        &self.images
    }

    /// The directory generated media are saved in.
    pub fn media(&self) -> &MediaDir {
        &self.media
    }

    /// A context for calls of the default agent (`root`) under `policy` that carries
    /// this runtime and records every call in the store. Use
    /// [`Runtime::agent_context`] for another agent.
    pub fn context(self: &Arc<Self>, policy: FamilyPolicy) -> ToolContext {
        // Weak: a context kept by a host does not keep the runtime open.
        let runtime = Arc::downgrade(self);
        let site = CallSiteSource::new(move || match runtime.upgrade() {
            Some(runtime) => runtime.call_site().map_err(|error| error.to_string()),
            None => Err("the runtime has shut down".to_string()),
        });
        let context = ToolContext::new(policy)
            .with_caller(agency::ROOT_AGENT_ID)
            .with_shared_state(Arc::clone(self))
            .with_state(site)
            .with_observer(Arc::new(ExecutionRecorder {
                runtime: Arc::clone(self),
            }));
        // Made when the runtime opened, whenever a policy is set.
        match (&self.policy, self.approvals.get()) {
            (Some(_), Some(approvals)) => context.with_approvals(Arc::clone(approvals)),
            _ => context,
        }
    }

    /// Dispatches one call of the default agent (`root`) through the global registry
    /// under `policy`, behind the turn gate: a call made while the agent's turn awaits
    /// its final brief is refused with `turn_awaiting_final` (see [`agency`]).
    pub async fn dispatch(self: &Arc<Self>, policy: FamilyPolicy, call: ToolCall) -> ToolResult {
        let input_json = || call.input.to_string();
        let call_id = call.call_id.as_deref();
        if let Some(refused) = self.admit(agency::ROOT_AGENT_ID, &call.name, input_json, call_id) {
            return refused;
        }
        Registry::global()
            .dispatch(&self.context(policy), call)
            .await
    }

    /// [`Runtime::dispatch`] of a call whose arguments are the JSON text as sent (a
    /// command line, a session line): parsed straight into the tool's arguments, and
    /// a repeated key is refused (`duplicate_field`) instead of keeping the last.
    pub async fn dispatch_text(
        self: &Arc<Self>,
        policy: FamilyPolicy,
        name: &str,
        arguments: &str,
        call_id: Option<String>,
    ) -> ToolResult {
        let input_json = || arguments.to_string();
        if let Some(refused) =
            self.admit(agency::ROOT_AGENT_ID, name, input_json, call_id.as_deref())
        {
            return refused;
        }
        Registry::global()
            .dispatch_text_with_id(&self.context(policy), name, arguments, call_id)
            .await
    }
}

/// What the directory `dir` holds is, as approvals are bound to it: its canonical path
/// as opened, and the device and inode of the open handle.
fn dir_identity(dir: &holon_gates::fs::RootDir) -> std::io::Result<DirIdentity> {
    let id = holon_gates::fs::FileId::of_fd(dir)?;
    Ok(DirIdentity {
        path: dir.path().to_string_lossy().into_owned(),
        device: id.device(),
        inode: id.inode(),
    })
}

/// Writes every dispatched call into the store.
struct ExecutionRecorder {
    runtime: Arc<Runtime>,
}

impl DispatchObserver for ExecutionRecorder {
    fn record(&self, execution: &Execution<'_>) {
        let result = execution.result;
        let record = ExecutionRecord::new(
            execution.requested_name,
            execution.input_json.to_string(),
            result,
            execution.started_at,
            execution.elapsed,
        );
        // A failed write must not fail the call the model already has the result of;
        // it is reported to the host for the operator.
        if let Err(error) = agency::record_execution(&self.runtime.store, &record, result) {
            tracing::warn!(tool = %record.tool_name, %error, "the call was not recorded in the execution log");
        }
        if let Some(audit) = &self.runtime.audit
            && let Err(error) = audit.append(execution)
        {
            tracing::error!(tool = %record.tool_name, %error, "the call was not appended to the audit log");
        }
    }
}

/// The approval store and operator keys of the database `url` names.
#[cfg(feature = "postgres")]
fn open_approvals_database(url: &str) -> Result<DatabaseApprovals, RuntimeError> {
    let store = approvals::postgres::PostgresApprovalStore::open(url)
        .map_err(|error| RuntimeError::ApprovalsDatabase(error.to_string()))?;
    let keys = Arc::new(store.keys());
    Ok((Arc::new(store), keys))
}

/// Without the `postgres` feature a database cannot keep the approvals.
#[cfg(not(feature = "postgres"))]
fn open_approvals_database(_url: &str) -> Result<DatabaseApprovals, RuntimeError> {
    Err(RuntimeError::ApprovalsDatabase(
        "this build has no PostgreSQL support (holon-runtime feature `postgres`)".to_string(),
    ))
}

/// Opens the audit chain `audit` names: a PostgreSQL database, or a file (`audit.jsonl`
/// in `state_dir` by default), signed with the operator's key when there is a state
/// directory.
fn open_audit(
    audit: &audit_log::AuditConfig,
    state_dir: &Option<PathBuf>,
    operator_key_file: &Option<PathBuf>,
) -> Result<audit_log::AuditSink, RuntimeError> {
    if let Some(url) = &audit.store {
        if audit.path.is_some() {
            return Err(RuntimeError::Audit(audit_log::AuditError::FileAndStore));
        }
        #[cfg(feature = "postgres")]
        return audit_log::postgres::PostgresAuditLog::open(url, audit.keep_arguments)
            .map(audit_log::AuditSink::Postgres)
            .map_err(RuntimeError::Audit);
        #[cfg(not(feature = "postgres"))]
        {
            let _ = url;
            return Err(RuntimeError::Audit(audit_log::AuditError::NotBuilt));
        }
    }
    let path = match (&audit.path, state_dir) {
        (Some(path), _) => path.clone(),
        (None, Some(dir)) => dir.join(audit_log::AUDIT_FILE_NAME),
        (None, None) => return Err(RuntimeError::Audit(audit_log::AuditError::NoPath)),
    };
    // Checkpoints need a key that outlives this process and a place no command
    // reaches: the state directory's.
    let checkpoints = match (state_dir, operator_key_file) {
        (Some(dir), Some(key_file)) => Some((
            audit_log::checkpoint_path(dir, &path),
            state_dir::operator_key(key_file).map_err(|source| RuntimeError::OperatorKey {
                path: key_file.clone(),
                source,
            })?,
        )),
        _ => None,
    };
    audit_log::AuditLog::open(&path, audit.keep_arguments, checkpoints)
        .map(audit_log::AuditSink::File)
        .map_err(RuntimeError::Audit)
}
