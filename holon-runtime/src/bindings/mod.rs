//! Workspace bindings: which directories the agent works in, and which one is active.
//!
//! The home workspace is the workspace root the runtime was opened on (id `home`).
//! AttachWorkspace binds more directories, CreateWorktree adds git worktrees of a
//! bound workspace, SwitchWorkspace picks the active execution root (a workspace's own
//! directory, or a worktree) and a working directory inside it. Every binding is a row
//! of the store, so a runtime reopened on the same state directory finds them again.
//!
//! [`Bindings::roots`] is what tools are confined to: every bound directory that still
//! exists, the active one first, rebuilt each time a binding changes.

mod records;
mod state;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};

pub use state::{
    ActiveRoot, BindingState, ExecutionRoot, HOME_WORKSPACE_ID, WorkspaceBinding, WorkspaceKind,
    WorktreeBinding,
};

use super::{RuntimeError, Store, StoreError, WorkspaceRoots};
use holon_gates::fs::{FileId, RootDir, root_refusal};

/// The folder under the state directory (or a scratch directory) holding worktrees.
pub const WORKTREES_DIR_NAME: &str = "worktrees";

pub use super::clock::now_ms;

/// The runtime's workspace bindings and the roots they confine tools to.
pub struct Bindings {
    store: Arc<Store>,
    home: PathBuf,
    state_dir: Option<PathBuf>,
    /// Holds the worktrees of an in-memory runtime; removed with it.
    scratch: OnceLock<tempfile::TempDir>,
    roots: RwLock<Arc<WorkspaceRoots>>,
    edits: Mutex<()>,
}

impl Bindings {
    /// Records `home` as the home workspace and builds the roots from the store.
    pub fn open(
        store: Arc<Store>,
        home: &Path,
        state_dir: Option<&Path>,
    ) -> Result<Self, RuntimeError> {
        let workspace_error = |source| RuntimeError::Workspace {
            path: home.to_path_buf(),
            source,
        };
        let roots = WorkspaceRoots::new([home.to_path_buf()]).map_err(workspace_error)?;
        let home = roots.active_root().to_path_buf();
        records::ensure_home(&mut store.connection(), &home, now_ms())
            .map_err(RuntimeError::Store)?;
        let bindings = Self {
            store,
            home,
            state_dir: state_dir.map(Path::to_path_buf),
            scratch: OnceLock::new(),
            roots: RwLock::new(Arc::new(roots)),
            edits: Mutex::new(()),
        };
        bindings.reload().map_err(RuntimeError::Store)?;
        Ok(bindings)
    }

    /// The roots tools are confined to, as of now; the first is the active one.
    pub fn roots(&self) -> Arc<WorkspaceRoots> {
        Arc::clone(&self.roots.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The canonical path of the home workspace.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Where CreateWorktree puts worktrees: `<state dir>/worktrees/`, or a scratch
    /// directory that lives as long as an in-memory runtime. Created when missing.
    pub fn worktrees_dir(&self) -> std::io::Result<PathBuf> {
        let dir = match &self.state_dir {
            Some(state_dir) => state_dir.join(WORKTREES_DIR_NAME),
            None => {
                if self.scratch.get().is_none() {
                    let scratch = tempfile::Builder::new()
                        .prefix("holon-worktrees-")
                        .tempdir()?;
                    // Another thread may have set it first; either directory works.
                    let _ = self.scratch.set(scratch);
                }
                match self.scratch.get() {
                    Some(scratch) => scratch.path().to_path_buf(),
                    None => return Err(std::io::Error::other("no scratch directory")),
                }
            }
        };
        crate::state_dir::ensure_dir(&dir)
    }

    /// Every binding, as the store has it now.
    pub fn state(&self) -> Result<BindingState, StoreError> {
        records::read(&self.store.connection())
    }

    /// Exclusive access for a change: holds off every other change until dropped, so
    /// that what a tool checked still holds when it writes.
    pub fn edit(&self) -> BindingsEdit<'_> {
        BindingsEdit {
            bindings: self,
            _guard: self.edits.lock().unwrap_or_else(PoisonError::into_inner),
        }
    }

    /// The working directories of every task the store records as running (by this
    /// runtime or another one on the same store).
    pub fn running_task_workdirs(&self) -> Result<Vec<PathBuf>, StoreError> {
        records::running_task_workdirs(&self.store.connection())
    }

    /// Binds `worktree` inside `transaction`, a larger change of the caller's (a
    /// spawned agent and its worktree are written together). Hold an
    /// [`Bindings::edit`] across it, and call [`Bindings::reload`] once committed.
    pub(crate) fn bind_worktree_in(
        transaction: &rusqlite::Transaction<'_>,
        worktree: &WorktreeBinding,
    ) -> Result<(), StoreError> {
        records::insert_worktree(transaction, worktree)
    }

    /// Reads the bindings and rebuilds the roots from them.
    pub fn reload(&self) -> Result<BindingState, StoreError> {
        let state = self.state()?;
        let guard = RootGuard::new(&self.home, self.state_dir.as_deref());
        if let Some(roots) = build_roots(&state, &guard) {
            *self.roots.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(roots);
        }
        Ok(state)
    }
}

/// What a bound directory may not be, by identity: a `.git` directory or the state
/// directory, or inside one (a worktree in the state directory's `worktrees` folder
/// excepted). The store is only data: a record planted in it by a command binds
/// nothing that CreateWorktree or AttachWorkspace would have refused.
struct RootGuard {
    /// The directory the runtime was opened on: the operator's choice, never refused.
    home: Option<FileId>,
    state_dir: Option<FileId>,
    worktrees: Option<FileId>,
}

impl RootGuard {
    fn new(home: &Path, state_dir: Option<&Path>) -> Self {
        Self {
            home: FileId::of_path(home),
            state_dir: state_dir.and_then(FileId::of_path),
            worktrees: state_dir.and_then(|dir| FileId::of_path(&dir.join(WORKTREES_DIR_NAME))),
        }
    }

    /// `path` opened as a root, unless it is gone or refused.
    fn open(&self, path: &Path) -> Option<RootDir> {
        let dir = RootDir::open(path).ok()?;
        if self.home.is_some() && FileId::of_fd(&dir).ok() == self.home {
            return Some(dir);
        }
        match root_refusal(&dir, self.state_dir, self.worktrees) {
            Ok(None) => Some(dir),
            Ok(Some(_)) | Err(_) => None,
        }
    }
}

/// The roots of `state`: the active execution root first (with its working
/// directory), then every other bound directory that exists. A directory `guard`
/// refuses is left out (an active one gives way to home). `None` when not even the
/// active root exists any more.
fn build_roots(state: &BindingState, guard: &RootGuard) -> Option<WorkspaceRoots> {
    let recorded = state.active_root()?;
    let (active, active_dir) = match guard.open(recorded.path) {
        Some(dir) => (recorded, dir),
        None => {
            let home = state.execution_root(HOME_WORKSPACE_ID)?;
            let dir = guard.open(home.path)?;
            (home, dir)
        }
    };
    // Each opened once, and held: a directory that is gone or refused is left out.
    let mut paths = vec![active.path];
    let mut dirs = vec![active_dir];
    for root in state.execution_roots() {
        if !paths.contains(&root.path) {
            paths.push(root.path);
            dirs.extend(guard.open(root.path));
        }
    }
    let roots = WorkspaceRoots::from_dirs(dirs).ok()?;
    let cwd = state
        .active
        .cwd
        .as_deref()
        .filter(|_| active.execution_root_id == state.active.execution_root_id);
    Some(match cwd {
        Some(cwd) => match roots.with_working_dir(&active.path.join(cwd)) {
            Ok(roots) => roots,
            Err((roots, _)) => roots,
        },
        None => roots,
    })
}

/// Exclusive access to the bindings for one change; see [`Bindings::edit`]. Every
/// change is one transaction and rebuilds the roots; it returns the new state.
pub struct BindingsEdit<'a> {
    bindings: &'a Bindings,
    _guard: MutexGuard<'a, ()>,
}

impl BindingsEdit<'_> {
    /// Every binding, as the store has it now.
    pub fn state(&self) -> Result<BindingState, StoreError> {
        self.bindings.state()
    }

    fn change(
        &self,
        doing: &'static str,
        write: impl FnOnce(&rusqlite::Transaction<'_>) -> Result<(), StoreError>,
    ) -> Result<BindingState, StoreError> {
        let sqlite = |source| StoreError::Sqlite {
            doing: doing.to_string(),
            source,
        };
        {
            let mut connection = self.bindings.store.connection();
            let transaction = crate::begin_write(&mut connection).map_err(sqlite)?;
            write(&transaction)?;
            transaction.commit().map_err(sqlite)?;
        }
        self.bindings.reload()
    }

    /// Binds an attached workspace.
    pub fn attach(&self, binding: &WorkspaceBinding) -> Result<BindingState, StoreError> {
        self.change("attaching a workspace", |tx| {
            records::insert_workspace(tx, binding)
        })
    }

    /// Unbinds the workspace `workspace_id`, making `active` the active root when given.
    pub fn detach(
        &self,
        workspace_id: &str,
        active: Option<&ActiveRoot>,
    ) -> Result<BindingState, StoreError> {
        self.change("detaching a workspace", |tx| {
            if let Some(active) = active {
                records::set_active(tx, active)?;
            }
            records::delete_workspace(tx, workspace_id)
        })
    }

    /// Binds a worktree, making `active` the active root when given.
    pub fn add_worktree(
        &self,
        worktree: &WorktreeBinding,
        active: Option<&ActiveRoot>,
    ) -> Result<BindingState, StoreError> {
        self.change("recording a worktree", |tx| {
            records::insert_worktree(tx, worktree)?;
            match active {
                Some(active) => records::set_active(tx, active),
                None => Ok(()),
            }
        })
    }

    /// Unbinds the worktree `execution_root_id`, making `active` the active root when given.
    pub fn remove_worktree(
        &self,
        execution_root_id: &str,
        active: Option<&ActiveRoot>,
    ) -> Result<BindingState, StoreError> {
        self.change("forgetting a worktree", |tx| {
            if let Some(active) = active {
                records::set_active(tx, active)?;
            }
            records::delete_worktree(tx, execution_root_id)
        })
    }

    /// Makes `active` the active execution root.
    pub fn set_active(&self, active: &ActiveRoot) -> Result<BindingState, StoreError> {
        self.change("recording the active workspace", |tx| {
            records::set_active(tx, active)
        })
    }
}
