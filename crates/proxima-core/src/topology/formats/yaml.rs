//! Reading Kubernetes objects out of a YAML file for the importers that take them (Kueue's
//! `Topology` and `Node` objects): the documents of a file, and the few questions an
//! importer asks of a node of the tree (a key of a mapping, a string, a whole number),
//! each answered with an [`InputError`] on the node's line and a field spelt as a path
//! (`spec.levels[1].nodeLabel`) when the answer is not there.
//!
//! The parser is the `saphyr` crate (YAML 1.2, core schema), whose marked nodes carry the
//! line they start on; this module is the only one that knows it.

use crate::error::InputError;
use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};

/// One node of a YAML document, with its line.
pub(crate) type Node<'a> = MarkedYaml<'a>;

/// The documents of a YAML stream, in order; a syntax error names its line and the field
/// `yaml`. A byte-order mark is skipped.
pub(crate) fn documents(text: &str) -> Result<Vec<Node<'_>>, InputError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    MarkedYaml::load_from_str(text).map_err(|e| {
        let line = e.marker().line().max(1) as u32;
        InputError::at_line(line, "yaml", format!("not valid YAML: {}", e.info()))
    })
}

/// The line a node starts on (1-based).
pub(crate) fn line(node: &Node) -> u32 {
    node.span.start.line().max(1) as u32
}

/// The node itself, or the node a tag (`!!map`, `!custom`) wraps.
fn untagged<'n, 'a>(node: &'n Node<'a>) -> &'n Node<'a> {
    match &node.data {
        YamlData::Tagged(_, inner) => untagged(inner),
        _ => node,
    }
}

/// Whether a node is absent in the YAML sense: `~`, `null` or nothing after the key.
pub(crate) fn is_null(node: &Node) -> bool {
    matches!(untagged(node).data, YamlData::Value(Scalar::Null))
}

/// The value of `key` in a mapping, if the node is a mapping that has it. Keys are
/// compared as text, as Kubernetes compares them.
pub(crate) fn get<'n, 'a>(node: &'n Node<'a>, key: &str) -> Option<&'n Node<'a>> {
    match &untagged(node).data {
        YamlData::Mapping(map) => map.iter().find(|(k, _)| scalar_text(k).as_deref() == Some(key)).map(|(_, v)| v),
        _ => None,
    }
}

/// The entries of a mapping with text keys, in the file's order; an error names `field`
/// when the node is not a mapping.
pub(crate) fn entries<'n, 'a>(node: &'n Node<'a>, field: &str) -> Result<Vec<(String, &'n Node<'a>)>, InputError> {
    match &untagged(node).data {
        YamlData::Mapping(map) => map
            .iter()
            .map(|(k, v)| {
                scalar_text(k)
                    .map(|key| (key, v))
                    .ok_or_else(|| InputError::at_line(line(k), field, "a key must be a plain value"))
            })
            .collect(),
        _ => Err(InputError::at_line(
            line(node),
            field,
            format!("expected a mapping (key: value lines), got {}", kind(node)),
        )),
    }
}

/// The entries of a mapping as [`entries`] gives them, each with the line of its key: a
/// value that is a block of lines starts below its key, and errors about a key name the
/// key's line.
pub(crate) fn entries_with_lines<'n, 'a>(
    node: &'n Node<'a>,
    field: &str,
) -> Result<Vec<(String, u32, &'n Node<'a>)>, InputError> {
    let YamlData::Mapping(map) = &untagged(node).data else {
        return entries(node, field).map(|_| Vec::new());
    };
    let keys = map.keys().map(line);
    Ok(entries(node, field)?.into_iter().zip(keys).map(|((key, value), line)| (key, line, value)).collect())
}

/// The items of a sequence; an error names `field` when the node is not one.
pub(crate) fn items<'n, 'a>(node: &'n Node<'a>, field: &str) -> Result<&'n [Node<'a>], InputError> {
    match &untagged(node).data {
        YamlData::Sequence(items) => Ok(items),
        _ => Err(InputError::at_line(line(node), field, format!("expected a list (- item lines), got {}", kind(node)))),
    }
}

/// A scalar's text as Kubernetes reads it: strings as written, numbers and booleans in
/// their plain spelling (a label value `2` is the string "2"). `None` for mappings,
/// sequences and nulls.
pub(crate) fn scalar_text(node: &Node) -> Option<String> {
    match &untagged(node).data {
        YamlData::Value(Scalar::String(s)) => Some(s.to_string()),
        YamlData::Value(Scalar::Integer(i)) => Some(i.to_string()),
        YamlData::Value(Scalar::FloatingPoint(x)) => Some(x.to_string()),
        YamlData::Value(Scalar::Boolean(b)) => Some(b.to_string()),
        YamlData::Representation(text, _, _) => Some(text.to_string()),
        _ => None,
    }
}

/// A string-valued field: present, a scalar and not empty; errors name `field` on the
/// line of `owner` when the key is missing, else on the value's line.
pub(crate) fn required_text(owner: &Node, key: &str, field: &str) -> Result<String, InputError> {
    let value =
        get(owner, key).filter(|v| !is_null(v)).ok_or_else(|| InputError::at_line(line(owner), field, "missing"))?;
    match scalar_text(value) {
        Some(text) if !text.trim().is_empty() => Ok(text),
        Some(_) => Err(InputError::at_line(line(value), field, "empty")),
        None => Err(InputError::at_line(line(value), field, format!("expected a text value, got {}", kind(value)))),
    }
}

/// What a node is, for messages.
pub(crate) fn kind(node: &Node) -> &'static str {
    match &untagged(node).data {
        YamlData::Mapping(_) => "a mapping",
        YamlData::Sequence(_) => "a list",
        YamlData::Value(Scalar::Null) => "nothing",
        YamlData::Value(Scalar::String(_)) | YamlData::Representation(..) => "text",
        YamlData::Value(Scalar::Boolean(_)) => "true/false",
        YamlData::Value(_) => "a number",
        YamlData::Alias(_) => "an alias",
        _ => "a value that is not valid YAML",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_keep_their_lines_and_syntax_errors_name_theirs() {
        let docs = documents("a: 1\n---\n# note\nb:\n  c: [x, 2]\n").unwrap();
        assert_eq!(docs.len(), 2);
        let c = get(get(&docs[1], "b").unwrap(), "c").unwrap();
        assert_eq!(line(c), 5);
        let texts: Vec<_> = items(c, "b.c").unwrap().iter().map(|n| scalar_text(n).unwrap()).collect();
        assert_eq!(texts, ["x", "2"]);
        assert_eq!(entries(c, "b.c").unwrap_err().field, "b.c");
        let e = documents("a: 1\nb: [unclosed\n").unwrap_err();
        assert_eq!((e.field.as_str(), e.line.is_some()), ("yaml", true));
    }

    #[test]
    fn required_text_says_missing_empty_or_of_what_kind() {
        let doc = &documents("name: n1\nempty: ''\nnone:\nmap: {a: 1}\n").unwrap()[0];
        assert_eq!(required_text(doc, "name", "metadata.name").unwrap(), "n1");
        for (key, message) in [("empty", "empty"), ("none", "missing"), ("gone", "missing")] {
            assert_eq!(required_text(doc, key, key).unwrap_err().message, message, "{key}");
        }
        let e = required_text(doc, "map", "map").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (Some(4), "expected a text value, got a mapping"));
    }
}
