//! The `holon-tools` command line: list the tools, print or check the schema
//! inventory, call a tool, run a session of calls on one runtime, export the tools for
//! a model API, or serve them over MCP.

mod approvals;
mod audit;
mod call;
mod catalog;
mod doctor;
mod export;
mod keys;
mod lint;
mod list;
mod operator_files;
mod otlp_endpoint;
mod output;
pub mod policy;
mod respond;
mod runtime_errors;
mod serve;
mod serve_discovery;
mod serve_oauth;
mod services;
#[cfg(feature = "otlp")]
mod telemetry;
mod warnings;

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;

use clap::{Parser, Subcommand};
use holon_core::{FamilyPolicy, Registry, RegistryError};

use holon_gates::process::{CommandNetwork, ResourceLimits};
use holon_runtime::{Runtime, RuntimeConfig};

pub use approvals::{Always, ApprovalsCommand};
pub use export::ExportFormat;
pub use keys::KeysCommand;
pub use serve_discovery::DiscoveryState;
pub use services::ServiceOptions;

/// Exit code of a tool call that returned an error.
pub const EXIT_TOOL_ERROR: u8 = 2;

/// The built-in tools of the holon agent runtime, from the command line.
#[derive(Debug, Parser)]
#[command(name = "holon-tools", version, about, long_about = None)]
// These options set up the runtime for every command, so they come before it
// (`holon-tools --workspace DIR serve`) and stay out of each command's own help.
#[command(next_help_heading = "Runtime options (before the command)")]
pub struct Cli {
    /// The workspace root tools act in [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,

    /// The state directory (store, task logs, model catalog override, worktrees)
    /// [default: $XDG_DATA_HOME/holon/workspaces/NAME-HASH, NAME the workspace's folder
    /// and HASH of its path, or ~/.local/share/holon/workspaces/...: outside the
    /// workspace].
    #[arg(long, value_name = "DIR", env = "HOLON_HOME")]
    pub state_dir: Option<PathBuf>,

    /// A model catalog file that overrides the embedded one
    /// [default: STATE_DIR/model-catalog.json when it exists].
    #[arg(long, value_name = "FILE", env = "HOLON_MODEL_CATALOG")]
    pub model_catalog: Option<PathBuf>,

    /// Days the logs of an ended command are kept; older ones are removed when the
    /// runtime starts (their records stay). 0 keeps them forever [default: 14].
    #[arg(long, value_name = "DAYS", env = "HOLON_TASK_LOG_RETENTION_DAYS")]
    pub task_log_retention_days: Option<u32>,

    /// Days the record of a tool call is kept in the store; 0 keeps them forever
    /// [default: 30].
    #[arg(long, value_name = "DAYS", env = "HOLON_EXECUTION_LOG_DAYS")]
    pub execution_log_days: Option<u32>,

    /// MiB the inputs of all recorded tool calls may hold; past that the oldest records
    /// go. 0: no bound [default: 256]. A refused call keeps 2 KiB of its input, with its
    /// size and SHA-1.
    #[arg(long, value_name = "MIB", env = "HOLON_EXECUTION_LOG_MIB")]
    pub execution_log_mib: Option<u64>,

    /// The resource limits of the commands ExecCommand and ExecCommandBatch run, as
    /// key=value pairs changing the defaults: nproc (processes a command may add to
    /// those of its user), fsize (largest file written), core (core dump size), as
    /// (address space of a process), cpu (CPU seconds of a process), pids (processes
    /// and threads of a command's cgroup), mem (memory of a command's cgroup); a
    /// number, sizes with K, M or G, or `none`
    /// [default: nproc=1024,fsize=4G,core=0,as=none,cpu=none,pids=1024,mem=8G].
    #[arg(long, value_name = "LIST", env = "HOLON_COMMAND_LIMITS", value_parser = parse_limits)]
    pub command_limits: Option<ResourceLimits>,

    /// More variables commands may see, besides PATH, HOME, USER, LOGNAME, SHELL,
    /// LANG, LANGUAGE, LC_*, TERM, COLORTERM, NO_COLOR, TZ, TMPDIR, EDITOR, VISUAL and
    /// PAGER: a comma-separated list of names, a name ending in `*` allows every
    /// variable it starts (`GITHUB_TOKEN,CARGO_*`). No other variable of this process
    /// reaches a command, and the runtime's own credentials never do.
    #[arg(long, global = true, value_name = "NAMES", env = "HOLON_COMMAND_ENV", value_parser = parse_env_list)]
    pub command_env: Option<EnvNames>,

    /// Which commands may use the network (sockets other than Unix ones, TCP connect
    /// and bind): `by-family` (those of a caller allowed the web family), `allow` or
    /// `deny`. The others may create Unix sockets only (a seccomp filter) and get no
    /// TCP connect or bind (Landlock ABI 4, Linux 6.7) [default: by-family].
    #[arg(long, global = true, value_name = "RULE", env = "HOLON_COMMAND_NETWORK", value_parser = parse_network)]
    pub command_network: Option<CommandNetwork>,

    /// The most MiB one log file of a command keeps: its first and last halves, and a
    /// note of the cut between them [default: 64].
    #[arg(long, value_name = "MIB", env = "HOLON_TASK_LOG_CAP_MIB")]
    pub task_log_cap_mib: Option<u64>,

    /// Append a hash-chained record of every call to the audit log (`call`, `session`,
    /// `respond`, `serve`) [default: off].
    #[arg(long, env = "HOLON_AUDIT")]
    pub audit: bool,

    /// The audit log's file; setting it turns the log on
    /// [default: STATE_DIR/audit.jsonl].
    #[arg(long, value_name = "FILE", env = "HOLON_AUDIT_FILE")]
    pub audit_file: Option<PathBuf>,

    /// Keep each call's arguments in its audit record, not only their SHA-256 (they
    /// may hold secrets) [default: digest only].
    #[arg(long, env = "HOLON_AUDIT_ARGUMENTS")]
    pub audit_arguments: bool,
    /// The approval policy calls are put to: a TOML file, `builtin` for the built-in
    /// one (ask before authority-expanding and agent-creating tools and commands), or
    /// `none` [default: STATE_DIR/policy.toml when it exists, else builtin for `serve`,
    /// `respond` and a `session` not at a terminal, none for `call` and a `session` at
    /// a terminal]. See docs/approvals.md.
    #[arg(long, value_name = "FILE", env = "HOLON_POLICY")]
    pub policy: Option<String>,

    /// Export the spans of every call and MCP request over OTLP/HTTP (protobuf) to the
    /// collector at this base URL, e.g. http://localhost:4318 (`/v1/traces` is
    /// appended) [default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
    /// OTEL_EXPORTER_OTLP_ENDPOINT, else no export]. The service name is holon-tools
    /// unless OTEL_SERVICE_NAME is set.
    #[arg(long, value_name = "URL")]
    pub otlp_endpoint: Option<String>,

    /// The web and image tools' options.
    #[command(
        flatten,
        next_help_heading = "Web and image tools (before the command)"
    )]
    pub services: ServiceOptions,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the tools: name, family, plane, stability, visibility.
    List {
        /// Include runtime-only tools, which models never see.
        #[arg(long)]
        all: bool,
    },
    /// Print a tool's input and result schema as JSON.
    Schema {
        /// Tool name (or alias).
        name: String,
    },
    /// Print the model-tool schema inventory, or check a file against it.
    Inventory {
        /// Compare PATH with the generated inventory; exit 1 with a diff on drift.
        #[arg(long, value_name = "PATH")]
        check: Option<PathBuf>,
    },
    /// Call one tool with a JSON input and print its receipt.
    Call {
        /// Tool name (or alias).
        name: String,
        /// The input: a JSON object (or a JSON string for a freeform tool), or `-` to
        /// read it from stdin (for an input too long for a command line) [default: {}].
        input: Option<String>,
        /// Print the whole result envelope as JSON instead of the receipt.
        #[arg(long)]
        json: bool,
        /// The capability families the call may use, comma-separated (or `all`).
        #[arg(long, value_name = "LIST", default_value = "all", value_parser = parse_families)]
        families: FamilyPolicy,
    },
    /// Read one call a line on stdin (`{"name": ..., "input": ...}`) and write one
    /// result envelope a line on stdout, all on one runtime.
    Session {
        /// The capability families the calls may use, comma-separated (or `all`).
        #[arg(long, value_name = "LIST", default_value = "all", value_parser = parse_families)]
        families: FamilyPolicy,
        /// The longest line read, in bytes; a longer one is answered with
        /// `session_line_too_long` and dropped, and the session goes on.
        #[arg(long, value_name = "BYTES", default_value_t = call::DEFAULT_MAX_LINE_BYTES)]
        max_line_bytes: usize,
    },
    /// Read one model API response body on stdin, dispatch its tool calls, and print
    /// (JSON) the items to append to the next request: the model's output, then the
    /// results in the provider's form.
    Respond {
        /// The API the body is from: openai-chat, openai-responses, anthropic, gemini.
        #[arg(long, value_name = "PROVIDER", value_parser = respond::parse_provider)]
        provider: holon_export::Provider,
        /// The capability families the calls may use, comma-separated (or `all`).
        #[arg(long, value_name = "LIST", default_value = "all", value_parser = parse_families)]
        families: FamilyPolicy,
    },
    /// Print the model-facing tools in the form a model API takes (the request's
    /// `tools`) or, for `mcp`, the result of `tools/list`.
    ///
    /// Freeform tools become custom grammar tools on OpenAI and use their JSON surface
    /// elsewhere (noted on stderr). Runtime-only tools never appear.
    Export {
        /// The API to export for.
        #[arg(long, value_name = "FORMAT")]
        format: ExportFormat,
        /// The capability families to export, comma-separated (or `all`).
        #[arg(long, value_name = "LIST", default_value = "all", value_parser = parse_families)]
        families: FamilyPolicy,
        /// OpenAI only: lower each schema to the strict subset and mark it `strict: true`;
        /// a schema that cannot be lowered stays `strict: false`, with a warning that
        /// names the keyword.
        #[arg(long)]
        strict: bool,
        /// Print the whole export as JSON: each tool's wire form, its input surface
        /// (json, freeform or json_fallback) and strictness, and the warnings.
        #[arg(long)]
        report: bool,
    },
    /// Serve the tools over MCP (Model Context Protocol): stdio by default, or
    /// streamable HTTP at http://ADDR/mcp with --http.
    ///
    /// Point an MCP client at the command `holon-tools serve`, e.g. in Claude Desktop's
    /// claude_desktop_config.json: {"mcpServers": {"holon": {"command": "holon-tools",
    /// "args": ["--workspace", "/path/to/project", "serve"]}}}. Stops when the client
    /// closes stdin, or on Ctrl-C or SIGTERM.
    Serve {
        /// Serve streamable HTTP on this address instead of stdio, e.g. 127.0.0.1:8080
        /// (port 0 picks a free port; the URL is printed on stderr). Every request must
        /// carry `Authorization: Bearer TOKEN`: the token of --token-file, else of
        /// HOLON_MCP_TOKEN, else one generated at start and printed on stderr.
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
        /// Read the bearer token from this file (surrounding whitespace ignored).
        #[arg(
            long,
            value_name = "FILE",
            requires = "http",
            conflicts_with = "no_auth"
        )]
        token_file: Option<PathBuf>,
        /// Serve HTTP without a bearer token. Allowed only when --http binds a loopback
        /// address (127.0.0.1, ::1); refused on any other, such as 0.0.0.0.
        #[arg(long, requires = "http")]
        no_auth: bool,
        /// Also serve browser pages of this origin (scheme://host, or scheme://host:port);
        /// repeatable.
        /// Requests with any other Origin header than the server's own are refused
        /// with 403; requests without one (clients that are not browsers) are served.
        #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http", value_parser = holon_mcp::http_guard::parse_origin)]
        allow_origins: Vec<String>,
        /// Also answer requests whose Host header is NAME (host, or host:port for that
        /// port only); repeatable. A loopback bind answers to localhost, 127.0.0.1 and
        /// `[::1]`; another bind to any Host until one is named, then to the named ones
        /// only. Requests with another Host are refused with 403 (DNS rebinding). Behind
        /// a balancer, name the host clients reach it by.
        #[arg(long = "allowed-host", value_name = "NAME", requires = "http", value_parser = holon_mcp::http_guard::parse_allowed_host)]
        allowed_hosts: Vec<String>,
        /// How many connections one client address may hold before its first request
        /// with a valid token (default 16); a further one is answered 503. Behind a
        /// balancer every connection comes from the balancer's address: raise it to
        /// the balancer's connection count.
        #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
        max_unauthenticated_per_peer: Option<u32>,
        /// The capability families clients may use, comma-separated (or `all`).
        #[arg(long, value_name = "LIST", default_value = "all", value_parser = parse_families)]
        families: FamilyPolicy,
        /// List only the discovery meta-tools (SearchTools, DescribeTool) and the
        /// --pin tools in tools/list; every tool stays callable by name, so a model
        /// finds the rest with SearchTools. See docs/discovery.md.
        #[arg(long)]
        discovery: bool,
        /// With --discovery: also list this tool (repeatable).
        #[arg(long = "pin", value_name = "NAME", requires = "discovery")]
        pinned: Vec<String>,
        /// Where the server keeps its state (the tasks of tools that run as tasks):
        /// `memory` (the default), `sqlite:PATH`, or `postgres://USER@HOST/DATABASE`
        /// (one database every replica of the server shares). See docs/scale-out.md.
        // A string, parsed after clap: clap's error would echo a password of the URL.
        #[arg(long, value_name = "URL", env = holon_mcp::STORE_URL_ENV, default_value = "memory")]
        store: String,
        /// Seal the `requestState` of 2026-07-28 rounds with the keys of this file
        /// rather than the store's keyring: one key a line, `ID BASE64_SECRET`, the
        /// current key first. Give every replica the same file. See docs/scale-out.md.
        #[arg(long, value_name = "FILE", env = "HOLON_KEY_FILE")]
        key_file: Option<PathBuf>,
        /// OAuth access tokens instead of the generated token (boxed: the other
        /// commands are small).
        #[command(flatten)]
        oauth: Box<serve_oauth::OAuthArgs>,
    },
    /// The keyring that seals `requestState` for the servers of a store URL: rotate it.
    Keys {
        /// What to do.
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// The calls the approval policy asked about: list and show them, approve one
    /// (it runs now, once) or deny it (the model reads the message).
    Approvals {
        /// The PostgreSQL store (`postgres://USER@HOST/DATABASE`) whose asked calls
        /// to decide, as given to `serve --store`; other stores keep them in the
        /// state directory.
        // A string, parsed after clap: clap's error would echo a password of the URL.
        #[arg(long, value_name = "URL", env = holon_mcp::STORE_URL_ENV, global = true)]
        store: Option<String>,
        /// What to do.
        #[command(subcommand)]
        command: ApprovalsCommand,
    },
    /// Print what confines the commands of the model on this machine: Landlock ABI
    /// and rights, network rule, signal scoping, non-dumpable runtime, cgroup limits,
    /// environment allow-list, resource limits.
    Doctor {
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the audit log's records (see --audit), export them as JSON lines, or
    /// verify its hash chain (`audit verify`).
    Audit {
        /// Verify instead of listing.
        #[command(subcommand)]
        action: Option<audit::AuditAction>,
        /// Only calls of this tool (as the caller named it).
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        /// Only calls started at or after this time, in Unix milliseconds.
        #[arg(long, value_name = "UNIX_MS")]
        since: Option<u64>,
        /// Print the records as the JSON lines they are stored as.
        #[arg(long)]
        json: bool,
        /// Read the chain in this PostgreSQL database (`postgres://USER@HOST/DATABASE`,
        /// where `serve --store` appends it) instead of the file.
        // A string, parsed after clap: clap's error would echo a password of the URL.
        // Global: `audit verify --store URL` reads as `audit --store URL verify`.
        #[arg(long, value_name = "URL", global = true)]
        store: Option<String>,
    },
    /// Check prompt guidance (Markdown files, or folders of them) and every tool
    /// description against the tools: unknown tools and fields, enum values and
    /// defaults that differ, example calls whose stated verdict is wrong. Prints
    /// `file:line: kind: message` per finding; exits 1 on any.
    LintGuidance {
        /// Markdown files, or folders whose `.md` files are read.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Lint the files only, not the tool descriptions.
        #[arg(long)]
        no_descriptions: bool,
    },
}

fn parse_limits(list: &str) -> Result<ResourceLimits, String> {
    ResourceLimits::parse(list).map_err(|error| error.to_string())
}

fn parse_network(rule: &str) -> Result<CommandNetwork, String> {
    CommandNetwork::parse(rule)
        .ok_or_else(|| format!("`{rule}` is not a network rule: use by-family, allow or deny"))
}

/// Names of variables (a name ending in `*`: a prefix) commands may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvNames(pub Vec<String>);

fn parse_env_list(list: &str) -> Result<EnvNames, String> {
    holon_gates::process::parse_env_names(list)
        .map(EnvNames)
        .map_err(|error| error.to_string())
}

fn parse_families(list: &str) -> Result<FamilyPolicy, String> {
    FamilyPolicy::parse_list(list).map_err(|error| error.to_string())
}

/// Runs the CLI with the process arguments, `serve --discovery` serving the
/// meta-tools of the binary's holon-discovery with the state `state` puts in each call's
/// context (as an MCP client takes a tool's definition).
pub fn main_with_discovery(state: DiscoveryState) -> ExitCode {
    let _ = serve_discovery::STATE.set(state);
    main()
}

/// Runs the CLI with the process arguments (`serve --discovery` refuses to start:
/// see [`main_with_discovery`]).
pub fn main() -> ExitCode {
    match Cli::try_parse() {
        Ok(cli) => run(cli),
        Err(error) => {
            let misplaced = misplaced_option(&error);
            // Prints the help, the version or clap's error, as `Cli::parse` would.
            let _ = error.print();
            if let Some(option) = misplaced {
                eprintln!(
                    "\nholon-tools: `{option}` sets up the runtime for every command: put it before the command, as in `holon-tools {option} ... COMMAND`"
                );
            }
            ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
        }
    }
}

/// The option of holon-tools itself that `error` found after a command, if that is
/// what it is.
fn misplaced_option(error: &clap::Error) -> Option<String> {
    if error.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    let Some(clap::error::ContextValue::String(given)) =
        error.get(clap::error::ContextKind::InvalidArg)
    else {
        return None;
    };
    let long = given
        .split('=')
        .next()
        .unwrap_or(given)
        .strip_prefix("--")?;
    let command = <Cli as clap::CommandFactory>::command();
    command
        .get_arguments()
        .any(|argument| argument.get_long() == Some(long))
        .then(|| format!("--{long}"))
}

/// Runs the CLI.
pub fn run(cli: Cli) -> ExitCode {
    let registry = match built_in_tools() {
        Ok(registry) => registry,
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return ExitCode::FAILURE;
        }
    };
    match &cli.command {
        Command::List { all } => {
            output::emit(&list::table(registry, *all));
            ExitCode::SUCCESS
        }
        Command::Schema { name } => catalog::schema(registry, name),
        Command::Inventory { check } => catalog::inventory(registry, check.as_deref()),
        Command::Call {
            name,
            input,
            json,
            families,
        } => with_runtime(&cli, |runtime| {
            call::call(runtime, *families, name, input.as_deref(), *json)
        }),
        Command::Session {
            families,
            max_line_bytes,
        } => with_runtime(&cli, |runtime| {
            call::session(runtime, *families, *max_line_bytes)
        }),
        Command::Respond { provider, families } => with_runtime(&cli, |runtime| {
            respond::respond(runtime, *families, *provider)
        }),
        Command::Export {
            format,
            families,
            strict,
            report,
        } => export::export(registry, *format, *families, *strict, *report),
        Command::Doctor { json } => doctor::doctor(&cli, *json),
        Command::Keys { command } => keys::keys(command),
        Command::Audit {
            action,
            tool,
            since,
            json,
            store,
        } => {
            let filter = audit::AuditFilter {
                tool: tool.clone(),
                since: *since,
            };
            match store {
                Some(store) => audit::audit_store(&cli, store, *action, &filter, *json),
                None => audit::audit(&cli, *action, &filter, *json),
            }
        }
        Command::Approvals { command, store } => {
            if let Some(Err(error)) = store.as_ref().map(|url| url.parse::<holon_mcp::StoreUrl>()) {
                eprintln!("holon-tools approvals: --store: {error}");
                return ExitCode::from(2);
            }
            with_runtime(&cli, async |runtime| {
                approvals::approvals(runtime, command).await
            })
        }
        Command::LintGuidance {
            paths,
            no_descriptions,
        } => lint::lint_guidance_paths(registry, paths, *no_descriptions),
        Command::Serve {
            http,
            token_file,
            no_auth,
            allow_origins,
            allowed_hosts,
            max_unauthenticated_per_peer,
            families,
            discovery,
            pinned,
            store,
            key_file,
            oauth,
        } => {
            // Settings that do not fit are refused before the runtime starts.
            let oauth = match oauth.config() {
                Ok(oauth) => oauth,
                Err(error) => {
                    eprintln!("holon-tools serve: {error}");
                    return ExitCode::from(2);
                }
            };
            let discovery = discovery.then(|| serve_discovery::discovery(registry, pinned));
            let (registry, listed) = match discovery {
                None => (registry, None),
                Some(Ok((served, listed))) => (served, Some(listed)),
                Some(Err(error)) => {
                    eprintln!("holon-tools serve: {error}");
                    return ExitCode::from(2);
                }
            };
            let store = match store.parse::<holon_mcp::StoreUrl>() {
                Ok(store) => store,
                Err(error) => {
                    eprintln!("holon-tools serve: --store: {error}");
                    return ExitCode::from(2);
                }
            };
            let keyring = match key_file.as_ref().map(holon_mcp::Keyring::from_file) {
                None => None,
                Some(Ok(keyring)) => Some(keyring),
                Some(Err(error)) => {
                    eprintln!("holon-tools serve: --key-file: {error}");
                    return ExitCode::from(2);
                }
            };
            with_runtime(&cli, async |runtime| {
                let options = serve::ServeOptions {
                    http: *http,
                    token_file: token_file.clone(),
                    no_auth: *no_auth,
                    allow_origins: allow_origins.clone(),
                    allowed_hosts: allowed_hosts.clone(),
                    max_unauthenticated_per_peer: *max_unauthenticated_per_peer,
                    families: *families,
                    oauth,
                    listed,
                    store: store.clone(),
                    keyring: keyring.clone(),
                };
                serve::serve(registry, runtime, options).await
            })
        }
    }
}

/// The policy of `command` when neither `--policy` nor the state directory names one:
/// the built-in policy where a model chooses the calls (a server, a model's response,
/// a session fed by a program), none where the operator does (`call`, a session
/// typed at a terminal).
fn default_policy(command: &Command) -> policy::Fallback {
    match command {
        Command::Serve { .. } | Command::Respond { .. } => policy::Fallback::Builtin,
        Command::Session { .. } if !std::io::stdin().is_terminal() => policy::Fallback::Builtin,
        _ => policy::Fallback::None,
    }
}

/// The built-in tools: every linked tool but the discovery meta-tools, which the
/// binary links for `serve --discovery` alone.
fn built_in_tools() -> Result<&'static Registry, RegistryError> {
    static BUILT_IN: OnceLock<Result<Registry, RegistryError>> = OnceLock::new();
    let global = Registry::try_global().map_err(Clone::clone)?;
    if !global
        .definitions()
        .any(|definition| serve_discovery::is_meta_tool(definition.defined_at.module))
    {
        return Ok(global);
    }
    BUILT_IN
        .get_or_init(|| {
            Registry::filtered(|meta| !serve_discovery::is_meta_tool(meta.defined_at.module))
        })
        .as_ref()
        .map_err(Clone::clone)
}

fn with_runtime(
    cli: &Cli,
    body: impl AsyncFnOnce(std::sync::Arc<Runtime>) -> ExitCode,
) -> ExitCode {
    let workspace = match &cli.workspace {
        Some(dir) => dir.clone(),
        None => match std::env::current_dir() {
            Ok(dir) => dir,
            Err(error) => {
                eprintln!(
                    "holon-tools: cannot read the current directory: {error}; pass --workspace"
                );
                return ExitCode::FAILURE;
            }
        },
    };
    let mut config = RuntimeConfig::new(workspace);
    // The server's bearer token is no business of the commands the runtime starts.
    config.hide_host_credential(holon_mcp::TOKEN_ENV);
    if let Some(dir) = &cli.state_dir {
        config.state_dir = Some(dir.clone());
    }
    config.model_catalog = cli.model_catalog.clone();
    // Deciding asked calls needs no policy: the one they were asked under is done.
    if !matches!(cli.command, Command::Approvals { .. }) {
        match policy::load(
            Registry::global(),
            cli.policy.as_deref(),
            config.state_dir.as_deref(),
            default_policy(&cli.command),
        ) {
            Ok(loaded) => {
                // A server runs what its clients' models choose: its operator sees
                // which policy stands between them and the machine.
                if matches!(cli.command, Command::Serve { .. }) {
                    eprintln!("holon-tools serve: approval policy: {}", loaded.source);
                }
                config.policy = loaded.policy;
            }
            Err(error) => {
                eprintln!("holon-tools: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    // 0 days: kept forever.
    let days = |days: u32| {
        (days > 0).then(|| std::time::Duration::from_secs(u64::from(days) * 24 * 60 * 60))
    };
    if let Some(kept) = cli.task_log_retention_days {
        config.task_log_retention = days(kept);
    }
    if let Some(kept) = cli.execution_log_days {
        config.execution_retention.max_age = days(kept);
    }
    if let Some(mib) = cli.execution_log_mib {
        config.execution_retention.max_input_bytes = (mib > 0).then(|| mib.saturating_mul(1 << 20));
    }
    if let Some(limits) = cli.command_limits {
        config.commands.limits = limits;
    }
    // Commands of the model must not read this process's memory or environment.
    if let Err(error) = holon_gates::process::sandbox::make_undumpable() {
        eprintln!("holon-tools: cannot make this process non-dumpable: {error}");
    }
    if let Some(rule) = cli.command_network {
        config.commands.network = rule;
    }
    if let Command::Serve {
        token_file: Some(file),
        ..
    } = &cli.command
    {
        // Its name is in this process's command line, which every command can read.
        config.commands.hidden_paths.push(file.clone());
    }
    // With a PostgreSQL store the asked calls, grants and operator keys are the
    // database's, which every replica shares.
    config.approvals_database = postgres_store(&cli.command);
    if cli.audit || cli.audit_file.is_some() {
        // A server on a PostgreSQL store appends to the chain in its database, which
        // every replica shares; a file named too is refused, not silently ignored.
        let store = match &cli.command {
            Command::Serve { .. } => postgres_store(&cli.command),
            _ => None,
        };
        if store.is_some() && cli.audit_file.is_some() {
            eprintln!(
                "holon-tools serve: --audit-file and --store postgres://... both name where the audit chain goes: with a PostgreSQL store the chain is in its database; drop --audit-file (or HOLON_AUDIT_FILE), or use --store memory or sqlite:PATH to keep the file"
            );
            return ExitCode::from(2);
        }
        config.audit = Some(holon_runtime::audit_log::AuditConfig {
            path: cli.audit_file.clone(),
            store,
            keep_arguments: cli.audit_arguments,
        });
        // Commands of the model must not rewrite the record of what they did.
        if let Some(file) = &cli.audit_file {
            config.commands.hidden_paths.push(file.clone());
        }
    }
    for name in cli.command_env.iter().flat_map(|names| &names.0) {
        config.commands.allowed_env.allow(name.clone());
    }
    if let Some(mib) = cli.task_log_cap_mib {
        config.commands.log_cap_bytes = mib.saturating_mul(1 << 20);
    }
    // Commands get their limits from this very binary's helper mode.
    match std::env::current_exe() {
        Ok(exe) => config.commands.limiter = Some(exe),
        Err(error) => {
            eprintln!(
                "holon-tools: cannot find this program's own path ({error}), which sets the resource limits of commands"
            );
            return ExitCode::FAILURE;
        }
    }
    cli.services.apply(&mut config);
    // Before the runtime, so that its first call is exported; dropped after it, so
    // that its last one is.
    let _telemetry = match export_spans(cli) {
        Ok(None) => {
            warnings::install();
            None
        }
        Ok(telemetry) => telemetry,
        Err(error) => {
            eprintln!("holon-tools: {error}");
            return ExitCode::from(2);
        }
    };
    // Before the runtime opens (and creates the audit log) for the workspace named,
    // after for every root its store binds (attached workspaces, worktrees).
    if let Err(refused) =
        named_files_outside_workspaces(cli, std::slice::from_ref(&config.workspace_root))
    {
        eprintln!("holon-tools: {refused}");
        return ExitCode::FAILURE;
    }
    let runtime = match Runtime::open(config) {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("holon-tools: {}", runtime_errors::describe(&error));
            return ExitCode::FAILURE;
        }
    };
    if let Err(refused) = named_files_outside_workspaces(cli, runtime.workspace_roots().roots()) {
        eprintln!("holon-tools: {refused}");
        return ExitCode::FAILURE;
    }
    let tokio = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(tokio) => tokio,
        Err(error) => {
            eprintln!("holon-tools: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    tokio.block_on(body(runtime))
}

/// The PostgreSQL URL of `command`'s `--store`, when it names one.
fn postgres_store(command: &Command) -> Option<String> {
    let store = match command {
        Command::Serve { store, .. } => Some(store),
        Command::Approvals { store, .. } => store.as_ref(),
        _ => None,
    }?;
    match store.parse::<holon_mcp::StoreUrl>() {
        Ok(holon_mcp::StoreUrl::Postgres(url)) => Some(url),
        _ => None,
    }
}

/// Refuses a policy or audit file named on the command line that lies inside one of
/// the workspace roots `roots`: the model could rewrite it there.
fn named_files_outside_workspaces(
    cli: &Cli,
    roots: &[PathBuf],
) -> Result<(), operator_files::InsideWorkspace> {
    // `approvals` reads no policy.
    let policy_file = cli
        .policy
        .as_deref()
        .filter(|choice| !matches!(*choice, "none" | "builtin"))
        .filter(|_| !matches!(cli.command, Command::Approvals { .. }));
    if let Some(file) = policy_file {
        operator_files::refuse_inside("--policy (HOLON_POLICY)", Path::new(file), roots)?;
    }
    if let Some(file) = &cli.audit_file {
        operator_files::refuse_inside("--audit-file (HOLON_AUDIT_FILE)", file, roots)?;
    }
    Ok(())
}

/// The span exporter of the endpoint the operator named, if any.
#[cfg(feature = "otlp")]
fn export_spans(cli: &Cli) -> Result<Option<telemetry::Telemetry>, String> {
    let Some(endpoint) = otlp_endpoint::resolve(cli.otlp_endpoint.as_deref(), |name| {
        std::env::var(name).ok()
    })?
    else {
        return Ok(None);
    };
    let trust = match &cli.services.ca_file {
        Some(path) if !path.as_os_str().is_empty() => {
            holon_gates::net::TlsTrust::with_ca_file(path)?
        }
        _ => holon_gates::net::TlsTrust::default(),
    };
    telemetry::start(endpoint, &trust).map(Some)
}

/// Without the `otlp` feature: `--otlp-endpoint` is refused, an endpoint in the
/// environment is noted and ignored.
#[cfg(not(feature = "otlp"))]
fn export_spans(cli: &Cli) -> Result<Option<std::convert::Infallible>, String> {
    let endpoint = otlp_endpoint::resolve(cli.otlp_endpoint.as_deref(), |name| {
        std::env::var(name).ok()
    })?;
    match endpoint {
        None => Ok(None),
        Some(endpoint) if endpoint.source() == otlp_endpoint::Source::Flag => Err(format!(
            "{}: this holon-tools was built without OTLP export (feature `otlp`)",
            endpoint.named()
        )),
        Some(endpoint) => {
            eprintln!(
                "holon-tools: {} is set, but this holon-tools was built without OTLP export (feature `otlp`): no spans are exported",
                endpoint.named()
            );
            Ok(None)
        }
    }
}
