//! Reading a crate's modules and the paths they name, without a Rust parser: a small lexer
//! (comments and literals skipped, so that a path in a doc comment or a string is no
//! import) and a walk over the tokens that follows `mod` declarations from the crate's root
//! file, as the compiler does, so a file the crate does not declare is not read and a
//! `#[path]` is honoured.
//!
//! What it records per module: its child modules, the names its `use` declarations bind
//! (to follow re-exports), the items it defines (to follow glob re-exports), and every path
//! it names that starts with `crate::`, `super::` or `self::`, or that a `use` starts from a
//! child module. Code under `#[cfg(test)]` or `#[test]` is marked as test code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path from the crate root: `[]` is the root, `["policy", "dally"]` is
/// `crate::policy::dally`.
pub type ModPath = Vec<String>;

/// A path named in the code, as written, with where it was written.
#[derive(Clone, Debug)]
pub struct Named {
    /// The module whose code names it.
    pub from: ModPath,
    /// As written; a glob `use a::b::*` as `a::b`.
    pub path: Vec<String>,
    pub file: PathBuf,
    pub line: usize,
    /// Inside `#[cfg(test)]` or `#[test]` code.
    pub test: bool,
}

#[derive(Debug, Default)]
pub struct Module {
    /// Declared under `#[cfg(test)]` (or inside test code).
    pub test: bool,
    pub children: BTreeSet<String>,
    /// What each `use` binds here: the name (or its `as` alias) and the path as written.
    pub bindings: BTreeMap<String, Vec<String>>,
    /// Paths of `use ...::*`, as written.
    pub globs: Vec<Vec<String>>,
    /// Names of the items defined here (functions, types, constants, traits, macros).
    pub defines: BTreeSet<String>,
}

/// A crate: its modules and every path its code names.
#[derive(Debug, Default)]
pub struct Crate {
    pub modules: BTreeMap<ModPath, Module>,
    pub named: Vec<Named>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Path,
    Str(String),
    Punct(char),
}

/// The tokens of a file with their 1-based lines, comments, character literals and
/// lifetimes left out.
fn lex(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = text.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let ch = c[i];
        let next = c.get(i + 1).copied().unwrap_or(' ');
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && next == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && next == '*' {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if (ch == 'r' || (ch == 'b' && next == 'r')) && (i == 0 || !ident_char(c[i - 1])) && {
            let mut j = i + if ch == 'b' { 2 } else { 1 };
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            c.get(j) == Some(&'"')
        } {
            // A raw string: r"..." or r#"..."#, with as many hashes to close as to open.
            i += if ch == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[i] == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            let start = (i, line);
            loop {
                if c[i] == '"' && (0..hashes).all(|k| c.get(i + 1 + k) == Some(&'#')) {
                    break;
                }
                line += usize::from(c[i] == '\n');
                i += 1;
            }
            out.push((Tok::Str(c[start.0..i].iter().collect()), start.1));
            i += 1 + hashes;
        } else if ch == '"' {
            let (start, at) = (i + 1, line);
            i += 1;
            while c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                line += usize::from(c[i] == '\n');
                i += 1;
            }
            out.push((Tok::Str(c[start..i].iter().collect()), at));
            i += 1;
        } else if ch == '\'' {
            // A character literal ('a', '\n', '\u{1F600}') or a lifetime ('a), neither a path.
            if next == '\\' {
                i += 3;
                while c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if ident_char(ch) {
            let start = i;
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
            out.push((Tok::Ident(c[start..i].iter().collect()), line));
        } else if ch == ':' && next == ':' {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

fn ident(t: Option<&(Tok, usize)>) -> Option<&str> {
    match t {
        Some((Tok::Ident(s), _)) => Some(s),
        _ => None,
    }
}

fn is(t: Option<&(Tok, usize)>, p: char) -> bool {
    matches!(t, Some((Tok::Punct(c), _)) if *c == p)
}

/// Reads the crate whose root file is `root` (`lib.rs` or `main.rs`).
pub fn read_crate(root: &Path) -> Crate {
    let mut krate = Crate::default();
    read_file(&mut krate, root, &[], root.parent().unwrap(), false);
    krate
}

/// One use tree (`a::{b, c::d as e, f::*}`), flattened into its paths.
fn use_tree(toks: &[(Tok, usize)], i: &mut usize, prefix: Vec<String>, out: &mut Vec<(Vec<String>, bool, String)>) {
    let mut path = prefix;
    loop {
        match toks.get(*i).map(|t| &t.0) {
            Some(Tok::Path) => *i += 1,
            Some(Tok::Punct('{')) => {
                *i += 1;
                while !is(toks.get(*i), '}') {
                    use_tree(toks, i, path.clone(), out);
                    if is(toks.get(*i), ',') {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((path, true, String::new()));
                return;
            }
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
                if !matches!(toks.get(*i).map(|t| &t.0), Some(Tok::Path)) {
                    let mut name = if s == "self" { path[path.len().saturating_sub(2)].clone() } else { s.clone() };
                    if ident(toks.get(*i)) == Some("as") {
                        name = ident(toks.get(*i + 1)).unwrap_or("_").to_string();
                        *i += 2;
                    }
                    if path.last().is_some_and(|l| l == "self") {
                        path.pop();
                    }
                    out.push((path, false, name));
                    return;
                }
            }
            _ => return,
        }
    }
}

/// A path in code starting at `toks[i]`, the keyword `kw` (`crate::a::B`,
/// `super::super::c()`), and the index after it.
fn code_path(toks: &[(Tok, usize)], i: usize, kw: &str) -> (Vec<String>, usize) {
    let mut path = vec![kw.to_string()];
    let mut j = i + 1;
    while matches!(toks.get(j).map(|t| &t.0), Some(Tok::Path)) {
        match ident(toks.get(j + 1)) {
            Some(s) => path.push(s.to_string()),
            None => break,
        }
        j += 2;
    }
    (path, j)
}

impl Module {
    /// Records what a `use` path binds here: a glob, or a name (`_` binds none).
    fn bind(&mut self, path: &[String], glob: bool, name: String) {
        if glob {
            self.globs.push(path.to_vec());
        } else if name != "_" {
            self.bindings.insert(name, path.to_vec());
        }
    }
}

/// The file of module `name` declared in `file` (`mod name;`), whose children's files are
/// in `dir`: at its `#[path]` if it has one, else `name.rs` or `name/mod.rs`.
fn child_file(file: &Path, dir: &Path, name: &str, path_attribute: Option<String>) -> PathBuf {
    match path_attribute {
        Some(p) => file.parent().unwrap().join(p),
        None if dir.join(format!("{name}.rs")).exists() => dir.join(format!("{name}.rs")),
        None => dir.join(name).join("mod.rs"),
    }
}

/// The attribute starting at `toks[i]` (`#[…]` or `#![…]`): where it ends, whether it is
/// `cfg(test)` or `test`, and the file of a `path = "…"`.
fn attribute(toks: &[(Tok, usize)], i: usize) -> (usize, bool, Option<String>) {
    let mut j = i + if is(toks.get(i + 1), '!') { 2 } else { 1 };
    let (start, mut d) = (j, 0);
    loop {
        match toks[j].0 {
            Tok::Punct('[') | Tok::Punct('(') => d += 1,
            Tok::Punct(']') | Tok::Punct(')') => d -= 1,
            _ => {}
        }
        j += 1;
        if d == 0 {
            break;
        }
    }
    let words: Vec<&Tok> = toks[start + 1..j - 1].iter().map(|t| &t.0).collect();
    let word = |k: usize| match words.get(k) {
        Some(Tok::Ident(s)) => s.as_str(),
        _ => "",
    };
    let is_test =
        (word(0) == "cfg" && word(2) == "test" && words.len() == 4) || (word(0) == "test" && words.len() == 1);
    let path = match (words.first(), words.get(2)) {
        (Some(Tok::Ident(p)), Some(Tok::Str(s))) if p == "path" => Some(s.clone()),
        _ => None,
    };
    (j, is_test, path)
}

/// Reads one file of module `at` and, through its `mod` declarations, the files below it.
/// `dir` is where its child modules' files are.
fn read_file(krate: &mut Crate, file: &Path, at: &[String], dir: &Path, test: bool) {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let toks = lex(&text);
    krate.modules.entry(at.to_vec()).or_default().test = test;
    // Open brackets of every kind; an inline module or a test item ends when the depth
    // returns to where it started.
    let mut depth = 0usize;
    // (module path, directory of its children, depth its body closes at)
    let mut scopes: Vec<(ModPath, PathBuf, usize)> = vec![(at.to_vec(), dir.to_path_buf(), usize::MAX)];
    let mut test_from: Option<usize> = if test { Some(0) } else { None };
    let (mut pending_test, mut pending_path): (bool, Option<String>) = (false, None);
    let mut i = 0;
    while i < toks.len() {
        let (tok, line) = (&toks[i].0, toks[i].1);
        let here = scopes.last().unwrap().0.clone();
        match tok {
            Tok::Punct('#') if is(toks.get(i + 1), '[') || is(toks.get(i + 2), '[') => {
                let (end, is_test, path) = attribute(&toks, i);
                pending_test |= is_test;
                pending_path = path.or(pending_path);
                i = end;
                continue;
            }
            Tok::Punct('{') | Tok::Punct('(') | Tok::Punct('[') => depth += 1,
            Tok::Punct('}') | Tok::Punct(')') | Tok::Punct(']') => {
                depth -= 1;
                if scopes.last().unwrap().2 == depth {
                    scopes.pop();
                }
                if test_from == Some(depth) && matches!(tok, Tok::Punct('}')) && !test {
                    test_from = None;
                }
            }
            Tok::Punct(';') if test_from == Some(depth) && !test => test_from = None,
            _ => {}
        }
        if pending_test && !matches!(tok, Tok::Punct('#')) {
            // The item the attribute is on starts here.
            if test_from.is_none() {
                test_from = Some(depth);
            }
            pending_test = false;
        }
        let in_test = test_from.is_some();
        let module = krate.modules.get_mut(&here).unwrap();
        match (tok, ident(toks.get(i + 1))) {
            (Tok::Ident(kw), Some(name)) if kw == "mod" => {
                let mut child = here.clone();
                child.push(name.to_string());
                module.children.insert(name.to_string());
                let child_dir = scopes.last().unwrap().1.join(name);
                if is(toks.get(i + 2), ';') {
                    let path = child_file(file, &scopes.last().unwrap().1, name, pending_path.take());
                    read_file(krate, &path, &child, &child_dir, in_test);
                } else {
                    krate.modules.entry(child.clone()).or_default().test = in_test;
                    scopes.push((child, child_dir, depth));
                }
                i += 2;
                continue;
            }
            (Tok::Ident(kw), Some(name))
                if ["fn", "struct", "enum", "const", "static", "type", "trait", "union"].contains(&kw.as_str()) =>
            {
                module.defines.insert(name.to_string());
            }
            (Tok::Ident(kw), _) if kw == "macro_rules" => {
                if let Some(name) = ident(toks.get(i + 2)) {
                    module.defines.insert(name.to_string());
                }
            }
            (Tok::Ident(kw), _) if kw == "use" => {
                let mut trees = Vec::new();
                i += 1;
                use_tree(&toks, &mut i, Vec::new(), &mut trees);
                for (path, glob, name) in trees {
                    module.bind(&path, glob, name);
                    krate.named.push(Named { from: here.clone(), path, file: file.to_path_buf(), line, test: in_test });
                }
                continue;
            }
            (Tok::Ident(kw), _)
                if ["crate", "super", "self"].contains(&kw.as_str())
                    && matches!(toks.get(i + 1).map(|t| &t.0), Some(Tok::Path))
                    && !matches!(i.checked_sub(1).map(|k| &toks[k].0), Some(Tok::Path)) =>
            {
                let (path, j) = code_path(&toks, i, kw);
                krate.named.push(Named { from: here, path, file: file.to_path_buf(), line, test: in_test });
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}
