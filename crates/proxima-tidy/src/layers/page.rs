//! The page's split between models and views: the web app (`src/`) is arranged by feature,
//! each folder holding a pure model and the views that render it, and a model never imports
//! a view. A module is a view here when its `use` declarations name yew (the page's
//! components and `html!`); every other module is a model, and may not name anything
//! defined in a view, directly or through a re-export: the model would then carry the
//! view's components into every test and every worker that uses it. (The wire format's use
//! of `web_sys` for a file's blob is not a view.) The crate's root is the crate's surface,
//! not a model, and test code is left out, as for circles.

use super::parse::{read_crate, Crate, ModPath};
use super::{absolute, resolve};
use crate::sources::shown;
use crate::Problem;
use std::path::Path;

/// Whether the module's own `use` declarations name yew.
fn is_view(krate: &Crate, module: &[String]) -> bool {
    let Some(m) = krate.modules.get(module) else { return false };
    let yew = |path: &Vec<String>| path.first().is_some_and(|first| first == "yew");
    m.bindings.values().any(yew) || m.globs.iter().any(yew)
}

fn name(module: &[String]) -> String {
    format!("crate::{}", module.join("::"))
}

/// Every import of a view by a model in the crate rooted at `lib`, one problem per pair of
/// modules, at the first place that makes it.
pub fn check_models_import_no_view(lib: &Path, crate_name: &str, root: &Path) -> Vec<Problem> {
    let krate = read_crate(lib);
    let mut seen = std::collections::BTreeSet::new();
    let mut problems = Vec::new();
    for named in &krate.named {
        let test = named.test || (1..=named.from.len()).any(|n| krate.modules[&named.from[..n]].test);
        if test || named.from.is_empty() || is_view(&krate, &named.from) {
            continue;
        }
        let Some(path) = absolute(&krate, &named.from, &named.path) else { continue };
        let to = resolve(&krate, &path);
        if !is_view(&krate, &to) || !seen.insert((named.from.clone(), to.clone())) {
            continue;
        }
        let (from, to): (ModPath, ModPath) = (named.from.clone(), to);
        problems.push(Problem {
            path: shown(root, &named.file),
            line: named.line,
            rule: "layer",
            item: format!("{crate_name} {} → {}", name(&from), name(&to)),
            message: format!(
                "{crate_name}'s model {} imports the view {}: a model uses no yew and names no view",
                name(&from),
                name(&to)
            ),
        });
    }
    problems
}

/// The page's check: the web app's `src/lib.rs`.
pub fn check_page_models(root: &Path) -> Vec<Problem> {
    let lib = root.join("src/lib.rs");
    if !lib.exists() {
        return Vec::new();
    }
    check_models_import_no_view(&lib, "proxima-web", root)
}
