//! The length of production functions and files, read with syn: a function is measured
//! from its `fn` line to its closing brace, and a file by its lines outside test items, so
//! a `#[cfg(test)]` module in the middle of a file is skipped and what follows it is still
//! read. Test items are those under `#[cfg(test)]` (or a `cfg` that needs `test`), and the
//! functions marked `#[test]` or `#[…::test]` (`tokio::test`, `wasm_bindgen_test`).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{Attribute, Block, ImplItem, Item, Signature, TraitItem};

/// The longest a production function may be, in lines (CONTRIBUTING.md).
pub const MAX_FUNCTION_LINES: usize = 100;
/// The longest a production file may be, in lines outside test items.
pub const MAX_FILE_LINES: usize = 500;

/// A function of a file, where it starts and how long it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// `name`, `Type::name` for a method, `module::name` inside an inline module.
    pub name: String,
    pub line: usize,
    pub lines: usize,
}

/// What the parser measured in one file.
#[derive(Debug, Default)]
pub struct Measured {
    /// Every production function, nested ones too.
    pub functions: Vec<Function>,
    /// Lines outside test items.
    pub production_lines: usize,
}

/// Whether an attribute makes its item test code.
fn is_test_attribute(attr: &Attribute) -> bool {
    let path = attr.path();
    if path.is_ident("cfg") {
        let tokens = attr.meta.require_list().map(|l| l.tokens.to_string()).unwrap_or_default();
        let words: Vec<&str> = tokens.split(|c: char| !c.is_alphanumeric() && c != '_').collect();
        // `cfg(test)`, `cfg(all(test, …))`; not `cfg(not(test))` or `cfg(any(test, …))`.
        return words.contains(&"test") && !words.contains(&"not") && !words.contains(&"any");
    }
    path.segments.last().is_some_and(|s| s.ident == "test" || s.ident.to_string().ends_with("_test"))
}

fn item_attrs(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn line(span: Span) -> usize {
    span.start().line
}

struct Walker {
    /// Inline modules and impl types around the current item.
    scope: Vec<String>,
    functions: Vec<Function>,
    /// Line ranges of test items, inclusive.
    test_ranges: Vec<(usize, usize)>,
}

impl Walker {
    /// Records a function, or its test range when `attrs` make it test code; returns whether
    /// to read inside it.
    fn function(&mut self, attrs: &[Attribute], whole: Span, sig: &Signature, block: &Block) {
        let name = self.scope.iter().cloned().chain([sig.ident.to_string()]).collect::<Vec<_>>().join("::");
        let (start, end) = (line(sig.fn_token.span), block.brace_token.span.close().end().line);
        if attrs.iter().any(is_test_attribute) {
            self.test_ranges.push((line(whole), whole.end().line));
        } else {
            self.functions.push(Function { name, line: start, lines: end + 1 - start });
        }
    }

    fn test_item(&mut self, attrs: &[Attribute], whole: Span) -> bool {
        let test = attrs.iter().any(is_test_attribute);
        if test {
            self.test_ranges.push((line(whole), whole.end().line));
        }
        test
    }
}

impl<'ast> Visit<'ast> for Walker {
    fn visit_item(&mut self, item: &'ast Item) {
        if self.test_item(item_attrs(item), item.span()) {
            return;
        }
        match item {
            Item::Fn(f) => self.function(&f.attrs, f.span(), &f.sig, &f.block),
            Item::Mod(m) => self.scope.push(m.ident.to_string()),
            Item::Impl(i) => self.scope.push(match &*i.self_ty {
                syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
                _ => "impl".to_string(),
            }),
            Item::Trait(t) => self.scope.push(t.ident.to_string()),
            _ => {}
        }
        visit::visit_item(self, item);
        if matches!(item, Item::Mod(_) | Item::Impl(_) | Item::Trait(_)) {
            self.scope.pop();
        }
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        if let ImplItem::Fn(f) = item {
            if self.test_item(&f.attrs, f.span()) {
                return;
            }
            self.function(&f.attrs, f.span(), &f.sig, &f.block);
        }
        visit::visit_impl_item(self, item);
    }

    fn visit_trait_item(&mut self, item: &'ast TraitItem) {
        if let TraitItem::Fn(f) = item {
            if self.test_item(&f.attrs, f.span()) {
                return;
            }
            if let Some(block) = &f.default {
                self.function(&f.attrs, f.span(), &f.sig, block);
            }
        }
        visit::visit_trait_item(self, item);
    }
}

/// Measures one file's text; the error is syn's, with its line.
pub fn measure(text: &str) -> Result<Measured, String> {
    let file = syn::parse_file(text).map_err(|e| format!("{}: {e}", line(e.span())))?;
    let mut walker = Walker { scope: Vec::new(), functions: Vec::new(), test_ranges: Vec::new() };
    walker.visit_file(&file);
    let total = text.lines().count();
    let mut in_test = vec![false; total + 2];
    for (start, end) in walker.test_ranges {
        for flag in &mut in_test[start.min(total + 1)..=end.min(total + 1)] {
            *flag = true;
        }
    }
    let production_lines = (1..=total).filter(|&n| !in_test[n]).count();
    Ok(Measured { functions: walker.functions, production_lines })
}

#[cfg(test)]
#[path = "length_tests.rs"]
mod tests;
