//! Placements per tier, in the cluster's own order (tightest first), for summaries. A map
//! keyed by name would sort alphabetically ("cluster", "rack", "server") and make every
//! reader re-sort; this keeps the order the topology gives, and reads and writes as a JSON
//! object whose keys come in that order.

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Placements per tier, tightest first: `(tier name, placements)`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TierCounts(Vec<(String, u64)>);

impl TierCounts {
    /// Counts in tier order, tightest first.
    pub fn new(counts: impl IntoIterator<Item = (String, u64)>) -> TierCounts {
        TierCounts(counts.into_iter().collect())
    }

    /// Placements at the tier of that name; `None` for a name the cluster does not have.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.iter().find(|(n, _)| n == name).map(|&(_, c)| c)
    }

    /// `(name, placements)`, tightest first.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(n, c)| (n.as_str(), *c))
    }

    pub fn total(&self) -> u64 {
        self.0.iter().map(|&(_, c)| c).sum()
    }

    /// `server 3, rack 1, cluster 0`.
    pub fn describe(&self) -> String {
        self.iter().map(|(n, c)| format!("{n} {c}")).collect::<Vec<_>>().join(", ")
    }
}

impl std::ops::Index<&str> for TierCounts {
    type Output = u64;

    fn index(&self, name: &str) -> &u64 {
        &self.0.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no tier named {name}")).1
    }
}

impl Serialize for TierCounts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, count) in &self.0 {
            map.serialize_entry(name, count)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for TierCounts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TierCounts, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = TierCounts;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of placements per tier")
            }

            // Entries arrive in the document's order, which is the tiers' order.
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TierCounts, A::Error> {
                let mut counts = Vec::new();
                while let Some((name, count)) = map.next_entry::<String, u64>()? {
                    counts.push((name, count));
                }
                Ok(TierCounts(counts))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_keep_the_tiers_order_through_json() {
        let c = TierCounts::new([("server".to_string(), 3), ("rack".into(), 1), ("cluster".into(), 0)]);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, r#"{"server":3,"rack":1,"cluster":0}"#);
        let back: TierCounts = serde_json::from_str(&json).unwrap();
        assert_eq!(back, c);
        assert_eq!((back.get("rack"), back.get("pod"), back["server"], back.total()), (Some(1), None, 3, 4));
        assert_eq!(back.describe(), "server 3, rack 1, cluster 0");
    }
}
