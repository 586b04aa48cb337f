//! Where a call runs: the workspace root and the state directory, each as the kernel
//! knows it, that an asked call records and an approval is bound to.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A directory as the kernel knows it: the canonical path it was opened at, and the
/// device and inode of what was opened there (a path alone can be made to name
/// another directory).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirIdentity {
    /// The canonical path.
    pub path: String,
    /// The device of the directory.
    pub device: u64,
    /// The inode of the directory.
    pub inode: u64,
}

impl fmt::Display for DirIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (device {}, inode {})",
            self.path, self.device, self.inode
        )
    }
}

/// Where a call runs: the workspace root it acts in and the state directory that
/// keeps it. An asked call records its site, the operator's decision is signed over
/// it, and an approval runs the call at that site only.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallSite {
    /// The active workspace root.
    pub workspace: DirIdentity,
    /// The state directory; `None` when the state is in memory.
    pub state_dir: Option<DirIdentity>,
}

/// How a host names the [`CallSite`] of the calls through a context: read afresh for
/// each call, since a session may switch its workspace between two calls. A host
/// puts it into the context with [`ToolContext::with_state`](holon_core::ToolContext::with_state);
/// without it, calls are asked and approved with no site.
#[derive(Clone)]
pub struct CallSiteSource(Arc<dyn Fn() -> Result<CallSite, String> + Send + Sync>);

impl CallSiteSource {
    /// The source that asks `site` each time; its error says why the site is unknown.
    pub fn new(site: impl Fn() -> Result<CallSite, String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(site))
    }

    /// The site of a call made now.
    pub fn current(&self) -> Result<CallSite, String> {
        (self.0)()
    }
}

impl fmt::Debug for CallSiteSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CallSiteSource(..)")
    }
}
