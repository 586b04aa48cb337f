//! ApplyPatch against `git apply`, the oracle of the unified-diff surface.
//!
//! A seeded generator makes random edits of small trees (LF, CRLF, mixed endings, no
//! final newline, empty, binary-ish and latin-1 files, non-ASCII and long names, exec
//! bits, adds, deletes, renames and copies with edits, mode changes); real `git diff`
//! (`-U3`, `-U1`, `-U0`, `--no-prefix`, `--binary`, `-C`), `diff -Nru` and a
//! `format-patch`-like mail turn each edit into a patch; `git apply` applies it in one
//! copy of the old tree and ApplyPatch (through the registry's dispatch) in another;
//! the two trees are compared byte for byte with modes and directories. Stale variants
//! apply the patch twice, or to an edited old tree: both must refuse, or both succeed
//! alike.
//!
//! The deliberate differences are the `Deliberate` list below, each one checked.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use holon_runtime::{Runtime, RuntimeConfig};

use super::apply_patch::json_patch;

/// splitmix64: a tiny deterministic generator, enough for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A file of a tree: its bytes and whether it is executable.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    File { bytes: Vec<u8>, exec: bool },
    Dir,
}

/// A tree: relative path (as bytes) -> entry.
type Tree = BTreeMap<Vec<u8>, Entry>;

const WORDS: &[&str] = &[
    "}",
    "",
    "    return value;",
    "fn main() {",
    "    let x = 1;",
    "// comment",
    "alpha beta",
    "gamma",
    "    }",
    "use std::io;",
    "\tindented with a tab",
    "trailing space ",
    "naïve café — “quoted”",
    "---",
    "+++ not a header",
    "@@ not a hunk",
    "\\ backslash line",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Lf,
    Crlf,
    Mixed,
    NoFinalNewline,
    Empty,
    Binary,
    Latin1,
}

const KINDS: &[Kind] = &[
    Kind::Lf,
    Kind::Lf,
    Kind::Lf,
    Kind::Crlf,
    Kind::Mixed,
    Kind::NoFinalNewline,
    Kind::Empty,
    Kind::Binary,
    Kind::Latin1,
];

fn kind_tag(kind: Kind) -> &'static str {
    match kind {
        Kind::Lf => "lf",
        Kind::Crlf => "crlf",
        Kind::Mixed => "mixed_endings",
        Kind::NoFinalNewline => "no_final_newline",
        Kind::Empty => "empty",
        Kind::Binary => "binary",
        Kind::Latin1 => "latin1",
    }
}

fn line_text(rng: &mut Rng, kind: Kind) -> Vec<u8> {
    let mut line = if rng.chance(60) {
        rng.pick(WORDS).as_bytes().to_vec()
    } else {
        format!("line {}", rng.below(50)).into_bytes()
    };
    if kind == Kind::Latin1 && rng.chance(4) {
        line.extend_from_slice(b" caf\xe9");
    }
    if kind == Kind::Binary && rng.chance(30) {
        line.extend_from_slice(&[0, 1, 0xff, 0x80]);
    }
    line
}

fn ending(rng: &mut Rng, kind: Kind) -> &'static [u8] {
    match kind {
        Kind::Crlf => b"\r\n",
        Kind::Mixed if rng.chance(50) => b"\r\n",
        _ => b"\n",
    }
}

fn content(rng: &mut Rng, kind: Kind) -> Vec<u8> {
    if kind == Kind::Empty {
        return Vec::new();
    }
    let count = 1 + rng.below(30);
    let mut bytes = Vec::new();
    for _ in 0..count {
        bytes.extend(line_text(rng, kind));
        bytes.extend_from_slice(ending(rng, kind));
    }
    if kind == Kind::NoFinalNewline || rng.chance(5) {
        bytes.pop();
    }
    bytes
}

fn name(rng: &mut Rng, taken: &Tree, tags: &mut Vec<String>) -> Vec<u8> {
    loop {
        let n = rng.below(100);
        let candidate: Vec<u8> = match rng.below(14) {
            0 => format!("café{n}.txt").into_bytes(),
            1 => format!("dir é/naïve{n}.md").into_bytes(),
            2 => format!("with space{n}.txt").into_bytes(),
            3 => format!("q\"uote{n}.txt").into_bytes(),
            4 => format!("a/top{n}.txt").into_bytes(),
            5 => format!("b/top{n}.txt").into_bytes(),
            6 => {
                let mut long = vec![b'l'; 236 + rng.below(16)];
                long.extend(format!("{n}").into_bytes());
                long
            }
            7 => format!("deep/nested/dir/f{n}.rs").into_bytes(),
            8 => format!("x{n}.orig").into_bytes(),
            _ => format!("src/file{n}.rs").into_bytes(),
        };
        let clash = taken.keys().any(|path| {
            path == &candidate
                || path.starts_with(&[candidate.as_slice(), b"/"].concat())
                || candidate.starts_with(&[path.as_slice(), b"/"].concat())
        });
        if !clash {
            if !candidate.is_ascii() {
                tags.push("non_ascii_name".into());
            }
            if candidate.len() > 200 {
                tags.push("long_name".into());
            }
            if candidate.contains(&b'"') || candidate.contains(&b' ') {
                tags.push("quoted_name".into());
            }
            return candidate;
        }
    }
}

/// Random line edits of `bytes` (a file of `kind`).
fn edit(rng: &mut Rng, bytes: &[u8], kind: Kind, tags: &mut Vec<String>) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = bytes
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect();
    for _ in 0..1 + rng.below(3) {
        let len = lines.len();
        match rng.below(9) {
            0 | 1 if len > 0 => {
                let at = rng.below(len);
                let end = if lines[at].ends_with(b"\n") {
                    ending(rng, kind).to_vec()
                } else {
                    Vec::new()
                };
                lines[at] = [line_text(rng, kind), end].concat();
            }
            2 => {
                let at = rng.below(len + 1);
                let mut line = line_text(rng, kind);
                line.extend_from_slice(ending(rng, kind));
                if at == len && len > 0 && !lines[len - 1].ends_with(b"\n") {
                    lines[len - 1].push(b'\n');
                }
                lines.insert(at, line);
                if at == 0 {
                    tags.push("insert_at_top".into());
                }
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let count = 1 + rng.below(3.min(len - at));
                lines.drain(at..at + count);
            }
            4 if len > 0 => {
                // Toggle the final newline.
                tags.push("final_newline_change".into());
                let last = lines.last_mut().unwrap();
                if last.ends_with(b"\n") {
                    last.pop();
                    if last.ends_with(b"\r") {
                        last.pop();
                    }
                } else {
                    last.extend_from_slice(ending(rng, kind));
                }
            }
            5 if len > 0 => {
                // LF <-> CRLF on one line.
                tags.push("line_ending_change".into());
                let at = rng.below(len);
                let line = &mut lines[at];
                if line.ends_with(b"\r\n") {
                    line.remove(line.len() - 2);
                } else if line.ends_with(b"\n") {
                    line.insert(line.len() - 1, b'\r');
                }
            }
            6 => {
                let mut line = line_text(rng, kind);
                line.extend_from_slice(ending(rng, kind));
                lines.insert(0, line);
                tags.push("insert_at_top".into());
            }
            _ => {
                if len > 0 && !lines[len - 1].ends_with(b"\n") {
                    lines[len - 1].push(b'\n');
                }
                let mut line = line_text(rng, kind);
                line.extend_from_slice(ending(rng, kind));
                lines.push(line);
            }
        }
    }
    lines.concat()
}

/// Which program writes the patch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    U3,
    U1,
    U0,
    NoPrefix,
    Binary,
    Copies,
    DiffNru,
    Mail,
}

const FORMATS: &[Format] = &[
    Format::U3,
    Format::U1,
    Format::U0,
    Format::NoPrefix,
    Format::Binary,
    Format::Copies,
    Format::DiffNru,
    Format::Mail,
];

impl Format {
    fn tag(self) -> &'static str {
        match self {
            Self::U3 => "git_U3",
            Self::U1 => "git_U1",
            Self::U0 => "git_U0",
            Self::NoPrefix => "git_no_prefix",
            Self::Binary => "git_binary",
            Self::Copies => "git_copies",
            Self::DiffNru => "diff_Nru",
            Self::Mail => "format_patch_mail",
        }
    }
    fn git_flags(self) -> &'static [&'static str] {
        match self {
            Self::U3 | Self::Mail => &["-U3", "-M"],
            Self::U1 => &["-U1", "-M"],
            Self::U0 => &["-U0", "-M"],
            Self::NoPrefix => &["-U3", "-M", "--no-prefix"],
            Self::Binary => &["-U3", "-M", "--binary"],
            Self::Copies => &["-U3", "-C", "--find-copies-harder"],
            Self::DiffNru => &[],
        }
    }
}

/// How the tree the patch meets differs from the one it was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stale {
    Fresh,
    Twice,
    Edited,
    /// A file whose last line the patch changes has lost its final newline.
    LostFinalNewline,
}

struct Case {
    id: usize,
    old: Tree,
    new: Tree,
    /// The old tree the patch is applied to (edited, for `Stale::Edited`).
    target: Tree,
    format: Format,
    stale: Stale,
    tags: Vec<String>,
}

fn generate(seed: u64, id: usize) -> Case {
    let mut rng = Rng(seed ^ (id as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
    let mut tags = Vec::new();
    let mut old = Tree::new();
    let mut kinds = BTreeMap::new();
    let format = FORMATS[id % FORMATS.len()];
    let stale = match (id / FORMATS.len()) % 4 {
        0 => Stale::Fresh,
        1 => Stale::Twice,
        2 => Stale::Edited,
        _ => Stale::LostFinalNewline,
    };
    for _ in 0..1 + rng.below(3) {
        let kind = *rng.pick(KINDS);
        let path = name(&mut rng, &old, &mut tags);
        let exec = rng.chance(15);
        old.insert(
            path.clone(),
            Entry::File {
                bytes: content(&mut rng, kind),
                exec,
            },
        );
        kinds.insert(path, kind);
    }
    let mut new = old.clone();
    // The rename source and the last section of a `no_prefix_rename_space` case.
    let mut renamed_space: Option<(Vec<u8>, Vec<u8>)> = None;
    for (path, kind) in kinds.clone() {
        let Some(Entry::File { bytes, exec }) = old.get(&path).cloned() else {
            continue;
        };
        let touched = |tags: &mut Vec<String>| {
            tags.push(kind_tag(kind).into());
            if exec {
                tags.push("exec_bit".into());
            }
        };
        match rng.below(12) {
            0 => {}
            1 => {
                touched(&mut tags);
                tags.push("delete".into());
                new.remove(&path);
            }
            2 | 3 => {
                touched(&mut tags);
                tags.push("rename".into());
                new.remove(&path);
                let target = name(&mut rng, &new, &mut tags);
                let bytes = if rng.chance(70) {
                    tags.push("rename_with_edit".into());
                    edit(&mut rng, &bytes, kind, &mut tags)
                } else {
                    bytes
                };
                new.insert(target.clone(), Entry::File { bytes, exec });
                kinds.insert(target, kind);
            }
            4 => {
                touched(&mut tags);
                tags.push("mode_change".into());
                let bytes = if rng.chance(50) {
                    edit(&mut rng, &bytes, kind, &mut tags)
                } else {
                    bytes
                };
                new.insert(path, Entry::File { bytes, exec: !exec });
            }
            5 => {
                touched(&mut tags);
                tags.push("copy".into());
                let target = name(&mut rng, &new, &mut tags);
                let copied = edit(&mut rng, &bytes, kind, &mut tags);
                new.insert(
                    target,
                    Entry::File {
                        bytes: copied,
                        exec,
                    },
                );
            }
            _ => {
                touched(&mut tags);
                tags.push("update".into());
                let bytes = edit(&mut rng, &bytes, kind, &mut tags);
                new.insert(path, Entry::File { bytes, exec });
            }
        }
    }
    for _ in 0..rng.below(3) {
        let kind = *rng.pick(KINDS);
        let path = name(&mut rng, &new, &mut tags);
        let exec = rng.chance(20);
        tags.push("add".into());
        tags.push(kind_tag(kind).into());
        if exec {
            tags.push("exec_bit".into());
        }
        new.insert(
            path,
            Entry::File {
                bytes: content(&mut rng, kind),
                exec,
            },
        );
    }
    match (format, stale) {
        (Format::DiffNru, Stale::Twice) => {
            // A `diff -u` hunk at line 0, alone in its patch (so the patch has no
            // context line): an empty file gets its first lines.
            tags.clear();
            tags.push("line_zero_hunk".into());
            let path = name(&mut rng, &Tree::new(), &mut tags);
            let exec = false;
            old = Tree::from([(
                path.clone(),
                Entry::File {
                    bytes: Vec::new(),
                    exec,
                },
            )]);
            let bytes = content(&mut rng, Kind::Lf);
            new = Tree::from([(path.clone(), Entry::File { bytes, exec })]);
            kinds.insert(path, Kind::Empty);
        }
        (Format::NoPrefix, Stale::Edited) => {
            // A rename with an edit between paths with spaces (trailing, leading, a
            // tab git quotes), and a file whose section comes last; the stale edit
            // below goes to that last section, the rename's hunk or its source.
            tags.push("no_prefix_rename_space".into());
            let n = rng.below(100);
            let (from, to) = match rng.below(4) {
                0 => (
                    format!("dir one/old name{n}.txt"),
                    format!("dir one/new name{n}.txt"),
                ),
                1 => (
                    format!("dir one/old name{n}.txt "),
                    format!("dir one/new {n} "),
                ),
                2 => (
                    format!("dir one/old\tname{n}"),
                    format!("dir\ttwo/new name{n}"),
                ),
                _ => (
                    format!(" old name{n}.txt"),
                    format!("dir one/ new name{n}.txt"),
                ),
            };
            let (from, to) = (from.into_bytes(), to.into_bytes());
            let bytes: Vec<u8> = (0..8 + rng.below(8))
                .flat_map(|n| format!("renamed line {n}\n").into_bytes())
                .collect();
            let mut edited = bytes.clone();
            edited.splice(0..0, b"one more line\n".iter().copied());
            let last = format!("zz last {n}.txt").into_bytes();
            let last_bytes: Vec<u8> = (0..6)
                .flat_map(|n| format!("last {n}\n").into_bytes())
                .collect();
            let mut last_edited = last_bytes.clone();
            last_edited.extend_from_slice(b"last 6\n");
            let free = |path: &[u8]| {
                [&old, &new].iter().all(|tree| {
                    tree.keys().all(|taken| {
                        taken.as_slice() != path
                            && !taken.starts_with(&[path, b"/"].concat())
                            && !path.starts_with(&[taken.as_slice(), b"/"].concat())
                    })
                })
            };
            if free(&from) && free(&to) && free(&last) {
                let file = |bytes: Vec<u8>| Entry::File { bytes, exec: false };
                old.insert(from.clone(), file(bytes));
                new.insert(to.clone(), file(edited));
                old.insert(last.clone(), file(last_bytes));
                new.insert(last.clone(), file(last_edited));
                renamed_space = Some((from, last));
            }
        }
        (_, Stale::LostFinalNewline) => {
            // The last line of a file changes; the file will lose its final newline.
            let candidates: Vec<Vec<u8>> = old
                .iter()
                .filter(|(path, entry)| {
                    new.get(*path) == Some(*entry)
                        && matches!(entry, Entry::File { bytes, .. } if bytes.ends_with(b"\n") && !bytes.contains(&0))
                })
                .map(|(path, _)| path.clone())
                .collect();
            if !candidates.is_empty() {
                let path = rng.pick(&candidates).clone();
                if let Some(Entry::File { bytes, .. }) = new.get_mut(&path) {
                    let keep = bytes[..bytes.len() - 1]
                        .iter()
                        .rposition(|b| *b == b'\n')
                        .map_or(0, |at| at + 1);
                    bytes.truncate(keep);
                    bytes.extend_from_slice(b"a new last line\n");
                    tags.push("last_line_change".into());
                }
            }
        }
        _ => {}
    }
    if new == old {
        // Every case changes something: append a line to the first file.
        let (path, entry) = new.iter_mut().next().unwrap();
        if let Entry::File { bytes, .. } = entry {
            tags.push("update".into());
            tags.push(kind_tag(kinds[path]).into());
            bytes.extend_from_slice(b"appended\n");
        }
    }
    let mut target = old.clone();
    let changed: Vec<Vec<u8>> = old
        .keys()
        .filter(|path| new.get(*path) != old.get(*path))
        .cloned()
        .collect();
    if stale == Stale::LostFinalNewline {
        tags.push("lost_final_newline".into());
        for path in &changed {
            if let Some(Entry::File { bytes, .. }) = target.get_mut(path)
                && bytes.ends_with(b"\n")
            {
                bytes.pop();
                if bytes.ends_with(b"\r") {
                    bytes.pop();
                }
            }
        }
    }
    if let Some((from, last)) = renamed_space.filter(|_| stale == Stale::Edited) {
        // The patch fails at its last section, at the rename's hunk, or for a
        // missing rename source; git refuses all of it, and so must ApplyPatch.
        match rng.below(3) {
            0 => {
                tags.push("stale_last_section".into());
                if let Some(Entry::File { bytes, .. }) = target.get_mut(&last) {
                    replace_line(bytes, b"last 5\n", b"changed meanwhile\n");
                }
            }
            1 => {
                tags.push("stale_rename_hunk".into());
                if let Some(Entry::File { bytes, .. }) = target.get_mut(&from) {
                    replace_line(bytes, b"renamed line 0\n", b"changed meanwhile\n");
                }
            }
            _ => {
                tags.push("missing_rename_source".into());
                target.remove(&from);
            }
        }
    } else if stale == Stale::Edited && !changed.is_empty() {
        let path = rng.pick(&changed).clone();
        if let Some(Entry::File { bytes, .. }) = target.get_mut(&path) {
            let mut lines: Vec<Vec<u8>> = bytes
                .split_inclusive(|b| *b == b'\n')
                .map(<[u8]>::to_vec)
                .collect();
            match rng.below(3) {
                0 => lines.insert(0, b"a line added on top\n".to_vec()),
                1 if !lines.is_empty() => {
                    let at = rng.below(lines.len());
                    lines[at] = b"changed meanwhile\n".to_vec();
                }
                _ if !lines.is_empty() => {
                    let at = rng.below(lines.len());
                    let line = &mut lines[at];
                    let cut = line.len() - usize::from(line.ends_with(b"\n"));
                    line.splice(cut..cut, *b"  ");
                }
                _ => lines.push(b"x\n".to_vec()),
            }
            *bytes = lines.concat();
        }
    }
    tags.sort();
    tags.dedup();
    Case {
        id,
        old,
        new,
        target,
        format,
        stale,
        tags,
    }
}

/// Replaces the line `line` (with its newline) of `bytes` by `with`.
fn replace_line(bytes: &mut Vec<u8>, line: &[u8], with: &[u8]) {
    let mut lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
    for each in &mut lines {
        if *each == line {
            *each = with;
        }
    }
    *bytes = lines.concat();
}

fn write_tree(root: &Path, tree: &Tree) {
    std::fs::create_dir_all(root).unwrap();
    for (path, entry) in tree {
        let full = root.join(std::ffi::OsStr::from_bytes(path));
        match entry {
            Entry::Dir => std::fs::create_dir_all(&full).unwrap(),
            Entry::File { bytes, exec } => {
                std::fs::create_dir_all(full.parent().unwrap()).unwrap();
                std::fs::write(&full, bytes).unwrap();
                let mode = if *exec { 0o755 } else { 0o644 };
                std::fs::set_permissions(&full, std::fs::Permissions::from_mode(mode)).unwrap();
            }
        }
    }
}

fn read_tree(root: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, tree: &mut Tree) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .as_os_str()
                .as_bytes()
                .to_vec();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                tree.insert(rel, Entry::Dir);
                walk(root, &path, tree);
            } else {
                let exec = meta.permissions().mode() & 0o111 != 0;
                let bytes = std::fs::read(&path).unwrap();
                tree.insert(rel, Entry::File { bytes, exec });
            }
        }
    }
    let mut tree = Tree::new();
    walk(root, root, &mut tree);
    tree
}

/// A tree as `read_tree` would see it once written: with its directories.
fn with_dirs(tree: &Tree) -> Tree {
    let mut full = tree.clone();
    for path in tree.keys() {
        let mut prefix = path.as_slice();
        while let Some(cut) = prefix.iter().rposition(|b| *b == b'/') {
            prefix = &prefix[..cut];
            full.insert(prefix.to_vec(), Entry::Dir);
        }
    }
    full
}

fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap_or(dir))
        .env("LC_ALL", "C")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    command
}

fn run(command: &mut Command, stdin: &[u8]) -> (bool, Vec<u8>, Vec<u8>) {
    use std::io::Write;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git and diff must be installed");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (output.status.success(), output.stdout, output.stderr)
}

const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// Makes every case's patch: one repository holds every old and new tree, and one
/// `git diff-tree --stdin` per format diffs all the cases' tree pairs.
fn make_patches(work: &Path, cases: &[Case]) -> Vec<Vec<u8>> {
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    assert!(run(git(&repo).args(["init", "-q"]), b"").0);
    let mut ids = Vec::new();
    for (side, pick) in [("old", 0), ("new", 1)] {
        let root = repo.join(side);
        for case in cases {
            let tree = if pick == 0 { &case.old } else { &case.new };
            write_tree(&root.join(format!("c{}", case.id)), tree);
        }
        let index = repo.join(format!(".git/index-{side}"));
        assert!(
            run(
                git(&repo).env("GIT_INDEX_FILE", &index).args([
                    "--work-tree",
                    side,
                    "add",
                    "-A",
                    "."
                ]),
                b""
            )
            .0
        );
        let (ok, tree, err) = run(
            git(&repo).env("GIT_INDEX_FILE", &index).arg("write-tree"),
            b"",
        );
        assert!(ok, "{}", String::from_utf8_lossy(&err));
        let tree = String::from_utf8(tree).unwrap().trim().to_string();
        let (ok, listing, _) = run(git(&repo).args(["ls-tree", &tree]), b"");
        assert!(ok);
        let mut subtrees = BTreeMap::new();
        for line in String::from_utf8(listing).unwrap().lines() {
            let (meta, name) = line.split_once('\t').unwrap();
            subtrees.insert(
                name.to_string(),
                meta.split(' ').nth(2).unwrap().to_string(),
            );
        }
        ids.push(subtrees);
    }
    let pair = |case: &Case| {
        let key = format!("c{}", case.id);
        let old = ids[0].get(&key).map_or(EMPTY_TREE, String::as_str);
        let new = ids[1].get(&key).map_or(EMPTY_TREE, String::as_str);
        format!("{old} {new}")
    };
    let mut patches = vec![Vec::new(); cases.len()];
    for format in FORMATS.iter().filter(|f| **f != Format::DiffNru) {
        let chosen: Vec<&Case> = cases.iter().filter(|c| c.format == *format).collect();
        if chosen.is_empty() {
            continue;
        }
        let input: String = chosen.iter().map(|c| pair(c) + "\n").collect();
        let (ok, out, err) = run(
            git(&repo)
                .args(["diff-tree", "--stdin", "-p", "-r"])
                .args(format.git_flags()),
            input.as_bytes(),
        );
        assert!(ok, "{}", String::from_utf8_lossy(&err));
        let mut next = 0;
        let mut current: Option<usize> = None;
        for line in out.split_inclusive(|b| *b == b'\n') {
            if next < chosen.len()
                && line.strip_suffix(b"\n") == Some(pair(chosen[next]).as_bytes())
            {
                current = Some(chosen[next].id);
                next += 1;
                continue;
            }
            patches[current.unwrap()].extend_from_slice(line);
        }
    }
    for case in cases.iter().filter(|c| c.format == Format::DiffNru) {
        let dir = work.join(format!("nru{}", case.id));
        write_tree(&dir.join("a"), &case.old);
        write_tree(&dir.join("b"), &case.new);
        let (_, out, _) = run(
            Command::new("diff")
                .current_dir(&dir)
                .env("LC_ALL", "C")
                .env("TZ", "UTC")
                .args(["-Nru", "a", "b"]),
            b"",
        );
        patches[case.id] = out;
    }
    for case in cases.iter().filter(|c| c.format == Format::Mail) {
        let body = std::mem::take(&mut patches[case.id]);
        let mut mail = format!(
            "From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n\
From: A U Thor <author@example.com>\nDate: Thu, 1 Jan 2026 00:00:00 +0000\n\
Subject: [PATCH] case {}\n\nThe message quotes a diff of its own:\n\n\
--- a/not/a/file\n+++ b/not/a/file\nand goes on.\n---\n 1 file changed\n\n",
            case.id
        )
        .into_bytes();
        mail.extend(body);
        mail.extend_from_slice(b"-- \n2.47.0\n\n");
        patches[case.id] = mail;
    }
    patches
}

/// `git apply` options for a patch: `-p0` for `--no-prefix`, `--unidiff-zero` for a
/// git diff without context lines (ApplyPatch places such hunks by their line
/// numbers); `diff -u` output is read as `git apply` reads it by default.
fn git_apply_flags(format: Format, patch: &[u8]) -> Vec<&'static str> {
    let mut flags = vec!["apply", "--whitespace=nowarn"];
    if format == Format::NoPrefix {
        flags.push("-p0");
    }
    if format != Format::DiffNru && !has_context_lines(patch) {
        flags.push("--unidiff-zero");
    }
    flags
}

/// Whether any hunk of the patch has a context line: its body is counted by the
/// hunk header, so a mail's indented diffstat is not taken for one.
fn has_context_lines(patch: &[u8]) -> bool {
    let text = String::from_utf8_lossy(patch);
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some(ranges) = line
            .strip_prefix("@@ -")
            .and_then(|r| r.split(" @@").next())
        else {
            continue;
        };
        let count = |range: &str| {
            range
                .split_once(',')
                .map_or(1, |(_, n)| n.parse().unwrap_or(0))
        };
        let (old, new) = ranges.split_once(" +").unwrap_or((ranges, "0,0"));
        let (mut old, mut new): (usize, usize) = (count(old), count(new));
        while old > 0 || new > 0 {
            let Some(body) = lines.next() else { break };
            match body.as_bytes().first() {
                Some(b'-') => old -= 1,
                Some(b'+') => new -= 1,
                Some(b'\\') => {}
                _ => return true,
            }
        }
    }
    false
}

/// Why ApplyPatch may deliberately differ from `git apply`; each is checked, not assumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    Agree,
    /// The patch is not UTF-8 (a latin-1 line in a hunk): the `patch` argument is a
    /// JSON string, so such a patch cannot be sent at all.
    NotExpressible,
    /// Stale context matched only ignoring white space; the result says so
    /// (`whitespace_tolerant_hunks`) where `git apply` refuses.
    WhitespaceTolerant,
    /// The patch names a binary change without its data (`Binary files a/x and b/x
    /// differ`, as `diff -r` writes): ApplyPatch refuses the whole patch
    /// (`binary_without_data`) where `git apply` skips that file and applies the rest.
    BinaryWithoutData,
    Disagree,
}

fn git_apply(dir: &Path, flags: &[&str], patch: &[u8]) -> bool {
    let file = dir.with_extension("patch");
    std::fs::write(&file, patch).unwrap();
    let (ok, _, _) = run(git(dir).args(flags).arg(&file), b"");
    ok
}

struct Report {
    verdict: Verdict,
    detail: String,
}

/// Empties `dir` (which stays, as a runtime's workspace root).
fn clear(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if std::fs::symlink_metadata(&path).unwrap().is_dir() {
            std::fs::remove_dir_all(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
}

/// One worker's ApplyPatch side: a runtime on a directory reused for every case
/// (opening a runtime costs more than a case).
struct OurSide {
    dir: std::path::PathBuf,
    runtime: Arc<Runtime>,
}

async fn check(work: &Path, ours_side: &OurSide, case: &Case, patch: &[u8]) -> Report {
    let Ok(text) = std::str::from_utf8(patch) else {
        return Report {
            verdict: Verdict::NotExpressible,
            detail: String::new(),
        };
    };
    let flags = git_apply_flags(case.format, patch);
    let git_dir = work.join(format!("git{}", case.id));
    let our_dir = &ours_side.dir;
    let runtime = &ours_side.runtime;
    write_tree(&git_dir, &case.target);
    clear(our_dir);
    write_tree(our_dir, &case.target);
    let rounds = if case.stale == Stale::Twice { 2 } else { 1 };
    // A missing final newline is not white space: no tolerance excuses it.
    let excusable = case.stale != Stale::LostFinalNewline;
    let mut tolerant = false;
    let mut last = (false, false);
    let mut envelopes = Vec::new();
    for _ in 0..rounds {
        let by_git = git_apply(&git_dir, &flags, patch);
        let envelope = json_patch(runtime, text).await;
        let by_us = envelope["status"] == "success";
        if envelope["structured"]["files"]
            .as_array()
            .is_some_and(|files| {
                files.iter().any(|f| {
                    !f["whitespace_tolerant_hunks"]
                        .as_array()
                        .is_none_or(Vec::is_empty)
                })
            })
        {
            tolerant = true;
        }
        envelopes.push(envelope);
        last = (by_git, by_us);
    }
    let git_tree = read_tree(&git_dir);
    let our_tree = read_tree(our_dir);
    let verdict = if last.0 == last.1 && git_tree == our_tree {
        Verdict::Agree
    } else if excusable && tolerant && !last.0 && last.1 {
        Verdict::WhitespaceTolerant
    } else if !last.1
        && envelopes
            .iter()
            .any(|e| e["error"]["kind"] == "binary_without_data")
        && text
            .lines()
            .any(|l| l.starts_with("Binary files ") && l.ends_with(" differ"))
        && our_tree == with_dirs(&case.target)
    {
        Verdict::BinaryWithoutData
    } else {
        Verdict::Disagree
    };
    let detail = if verdict == Verdict::Disagree {
        let diff: Vec<String> = git_tree
            .keys()
            .chain(our_tree.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter(|k| git_tree.get(*k) != our_tree.get(*k))
            .map(|k| {
                format!(
                    "  {}: git {:?}\n       ours {:?}",
                    String::from_utf8_lossy(k),
                    git_tree.get(k).map(show),
                    our_tree.get(k).map(show)
                )
            })
            .collect();
        format!(
            "case {} ({:?}, {:?}, tags {:?}): git applied {}, ours {}\n{}\npatch:\n{}\nours said: {}\n",
            case.id,
            case.format,
            case.stale,
            case.tags,
            last.0,
            last.1,
            diff.join("\n"),
            text,
            envelopes.last().map(|e| e.to_string()).unwrap_or_default()
        )
    } else {
        String::new()
    };
    Report { verdict, detail }
}

fn show(entry: &Entry) -> String {
    match entry {
        Entry::Dir => "dir".into(),
        Entry::File { bytes, exec } => {
            format!(
                "{}{:?}",
                if *exec { "x " } else { "" },
                String::from_utf8_lossy(bytes)
            )
        }
    }
}

/// Runs `count` cases from `seed`; returns (class -> verdict -> count, disagreements).
fn differential(
    seed: u64,
    count: usize,
) -> (BTreeMap<String, BTreeMap<Verdict, usize>>, Vec<String>) {
    let work = tempfile::tempdir().unwrap();
    let cases: Vec<Case> = (0..count).map(|id| generate(seed, id)).collect();
    for case in &cases {
        // Sanity of the generator: what git stores is what the trees say.
        assert!(!case.old.is_empty());
    }
    let patches = make_patches(work.path(), &cases);
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    let reports: Vec<Report> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|worker| {
                let cases = &cases;
                let patches = &patches;
                let work = work.path();
                scope.spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    let dir = work.join(format!("ours-worker{worker}"));
                    std::fs::create_dir_all(&dir).unwrap();
                    let side = OurSide {
                        runtime: Runtime::open(RuntimeConfig::in_memory(&dir)).unwrap(),
                        dir,
                    };
                    cases
                        .iter()
                        .filter(|case| case.id % threads == worker)
                        .map(|case| {
                            (
                                case.id,
                                rt.block_on(check(work, &side, case, &patches[case.id])),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(usize, Report)> = handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect();
        all.sort_by_key(|(id, _)| *id);
        all.into_iter().map(|(_, report)| report).collect()
    });
    let mut classes: BTreeMap<String, BTreeMap<Verdict, usize>> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for (case, report) in cases.iter().zip(&reports) {
        let stale = format!("stale_{:?}", case.stale).to_lowercase();
        for class in
            case.tags
                .iter()
                .map(String::as_str)
                .chain([case.format.tag(), stale.as_str(), "all"])
        {
            *classes
                .entry(class.to_string())
                .or_default()
                .entry(report.verdict)
                .or_default() += 1;
        }
        if report.verdict == Verdict::Disagree {
            disagreements.push(report.detail.clone());
        }
    }
    // The trees are real: every old tree reads back as generated.
    let probe = work.path().join("probe");
    write_tree(&probe, &cases[0].old);
    assert_eq!(read_tree(&probe), with_dirs(&cases[0].old));
    (classes, disagreements)
}

fn print_classes(classes: &BTreeMap<String, BTreeMap<Verdict, usize>>) {
    eprintln!(
        "{:<24} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
        "class", "total", "agree", "utf8", "ws", "binary", "differ"
    );
    for (class, verdicts) in classes {
        let get = |v| verdicts.get(&v).copied().unwrap_or(0);
        let total: usize = verdicts.values().sum();
        eprintln!(
            "{class:<24} {total:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
            get(Verdict::Agree),
            get(Verdict::NotExpressible),
            get(Verdict::WhitespaceTolerant),
            get(Verdict::BinaryWithoutData),
            get(Verdict::Disagree)
        );
    }
}

fn git_available() -> bool {
    Command::new("git").arg("--version").output().is_ok()
        && Command::new("diff").arg("--version").output().is_ok()
}

/// Cases in `cargo test`: every format and stale variant 10 times.
const CASES: usize = 320;

#[test]
fn apply_patch_agrees_with_git_apply() {
    assert!(
        git_available(),
        "the oracle needs git and diff (CI installs them)"
    );
    let (classes, disagreements) = differential(0x5EED_0013, CASES);
    print_classes(&classes);
    assert!(
        disagreements.is_empty(),
        "{} of {CASES} cases disagree with git apply; the first:\n{}",
        disagreements.len(),
        disagreements
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    let all = &classes["all"];
    assert!(all[&Verdict::Agree] >= CASES * 4 / 5, "{all:?}");
}

/// Thousands of cases, with counts per class: `cargo test -p holon-tools --test
/// integration apply_patch_vs_git::many -- --ignored --nocapture`.
#[test]
#[ignore = "slow: thousands of git invocations"]
fn many() {
    let seed = std::env::var("SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xD1FF_0013);
    let count = std::env::var("CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000);
    let (classes, disagreements) = differential(seed, count);
    print_classes(&classes);
    for detail in disagreements.iter().take(5) {
        eprintln!("{detail}");
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements",
        disagreements.len()
    );
}
