//! The document a sweep spec is read from, whatever its syntax: a tree of values that
//! remember their line. TOML files give lines; a spec handed over as JSON (the Python
//! package's dicts) has none. Tables keep the order their keys were written in, because
//! that order becomes the order of the table's columns.

use crate::error::{problem, SourcedError};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    /// 1-based line where the value starts, when the syntax has lines.
    pub line: Option<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    Array(Vec<Node>),
    /// Keys in the order written.
    Table(Vec<(String, Node)>),
}

impl Value {
    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Array(_) => "a list",
            Value::Table(_) => "a table",
        }
    }
}

fn line_of(text: &str, offset: usize) -> u32 {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() as u32 + 1
}

/// Parses TOML text; syntax errors name `source` and the line.
pub fn from_toml(text: &str, source: &str) -> Result<Node, SourcedError> {
    let doc = DeTable::parse(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        let message = e.message().trim().trim_end_matches('.').to_string();
        problem(source, line, "toml", message)
    })?;
    let line = Some(line_of(text, doc.span().start));
    convert_table(doc.get_ref(), text, source).map(|t| Node { value: Value::Table(t), line })
}

fn convert_table(table: &DeTable, text: &str, source: &str) -> Result<Vec<(String, Node)>, SourcedError> {
    table.iter().map(|(k, v)| Ok((k.get_ref().to_string(), convert(v, text, source, k.get_ref())?))).collect()
}

fn convert(v: &Spanned<DeValue>, text: &str, source: &str, field: &str) -> Result<Node, SourcedError> {
    let line = Some(line_of(text, v.span().start));
    let bad = |what: &str| problem(source, line, field, what.to_string());
    let value = match v.get_ref() {
        DeValue::String(s) => Value::Str(s.to_string()),
        DeValue::Integer(i) => {
            let digits = i.as_str().replace('_', "");
            Value::Int(i64::from_str_radix(&digits, i.radix()).map_err(|_| bad("integer out of range"))?)
        }
        DeValue::Float(f) => {
            let x: f64 = f.as_str().replace('_', "").parse().map_err(|_| bad("not a number"))?;
            if !x.is_finite() {
                return Err(bad("expected a finite number"));
            }
            Value::Float(x)
        }
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(_) => return Err(bad("dates have no meaning in a sweep spec")),
        DeValue::Array(items) => {
            Value::Array(items.iter().map(|item| convert(item, text, source, field)).collect::<Result<_, _>>()?)
        }
        DeValue::Table(t) => Value::Table(convert_table(t, text, source)?),
    };
    Ok(Node { value, line })
}

/// Parses JSON text (an object), keeping the order of keys; errors name `source`.
pub fn from_json(text: &str, source: &str) -> Result<Node, SourcedError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| problem(source, Some(e.line() as u32), "json", e.to_string()))?;
    Ok(Node { value, line: None })
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string, number, boolean, list or table")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        i64::try_from(v).map(Value::Int).map_err(|_| E::custom("integer out of range"))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        Err(E::custom("null has no meaning in a sweep spec"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(value) = seq.next_element::<Value>()? {
            items.push(Node { value, line: None });
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            entries.push((key, Node { value, line: None }));
        }
        Ok(Value::Table(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_keeps_order_and_lines() {
        let n = from_toml("[grid]\nseed = [2, 1]\npolicy = ['b', 'a']\n", "s.toml").unwrap();
        let Value::Table(top) = n.value else { panic!() };
        let Value::Table(grid) = &top[0].1.value else { panic!() };
        assert_eq!(grid.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["seed", "policy"]);
        assert_eq!(grid[1].1.line, Some(3));
        let Value::Array(items) = &grid[0].1.value else { panic!() };
        assert_eq!(items[0].value, Value::Int(2));
    }

    #[test]
    fn toml_errors_have_lines() {
        let e = from_toml("[grid]\nseed = [1,\n", "s.toml").unwrap_err();
        assert_eq!((e.source.as_str(), e.field.as_str()), ("s.toml", "toml"));
        assert!(e.line.is_some());
    }

    #[test]
    fn json_keeps_order() {
        let n = from_json(r#"{"grid": {"z": [1], "a": [2.5, true]}}"#, "<spec>").unwrap();
        let Value::Table(top) = n.value else { panic!() };
        let Value::Table(grid) = &top[0].1.value else { panic!() };
        assert_eq!(grid[0].0, "z");
        let Value::Array(items) = &grid[1].1.value else { panic!() };
        assert_eq!(items[0].value, Value::Float(2.5));
        assert_eq!(items[1].value, Value::Bool(true));
    }
}
