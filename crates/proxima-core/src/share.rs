//! Share links: a scenario (topology, synthetic-trace settings, model mix, policies, seed)
//! as a short, versioned text that fits in a URL fragment and reads back to the same
//! scenario.
//!
//! A share code is `VERSION.DATA`: the format version in decimal, a dot, then base64url
//! (RFC 4648 §5, without padding) of a compact JSON document followed by a 4-byte FNV-1a
//! checksum of that JSON. The version comes first and in clear so that a link made by a
//! newer Proxima is recognised as such instead of as garbage. The checksum is not a
//! security measure: it catches links that were cut off or edited by hand, so that the
//! user is told the link is damaged rather than given a scenario nobody wrote.
//!
//! Decoding checks everything a run would check (the topology builds, the policies resolve,
//! the mix names known models, the generator's numbers are in range), so a decoded scenario
//! is one the app can run, and a tampered link fails here with a message that names the
//! field. Uploaded traces are never part of a link (they may be large or private); a link
//! only says that its author used one, and under which file name.
//!
//! The codec is pure and total: [`decode`] returns an error for any input, never panics,
//! and `decode(&encode(s)) == Ok(s)` for every scenario `decode` returns.

use crate::base64url::Base64Error;
use crate::error::InputError;
use crate::model::Catalog;
use crate::policy::resolve_policy;
use crate::topology::{all_presets, preset, ParametricSpec, Topology, TopologySpec};
use crate::trace::synthetic::{MAX_JOBS, MAX_LOAD};
use crate::trace::tenant_mix::MAX_TENANTS;
use crate::workload::ModelMix;
use serde::{Deserialize, Serialize};

/// The format version [`encode`] writes and [`decode`] reads.
pub const SHARE_VERSION: u32 = 1;

/// The longest share code [`decode`] reads. A hand-built topology of the largest preset's
/// size takes about 60 KB; four megabytes leave room for much larger ones while keeping a
/// pasted novel from being parsed.
pub const MAX_CODE_LEN: usize = 4 << 20;

/// At most this many policies in one scenario: each is a full run, one after another.
pub const MAX_POLICIES: usize = 16;

/// The cluster of a scenario, typed: links carry a parametric cluster as its canonical
/// text (`tf`), read into a [`ParametricSpec`] once when the link is decoded.
pub use crate::topology::TopologyChoice;

/// Where the jobs of a scenario come from.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceChoice {
    /// `synthetic:jobs=N,load=L,seed=S[,tenants=T]`.
    Synthetic { jobs: u32, load: f64, seed: u64, tenants: Option<u32> },
    /// A file the author loaded; links never carry its content, only its name.
    Uploaded { name: String },
}

/// A scenario as a link carries it.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedScenario {
    pub topology: TopologyChoice,
    pub trace: TraceChoice,
    /// The model mix `name[:weight],...` for jobs whose trace names no model; `None` for
    /// the default mix.
    pub mix: Option<String>,
    /// Policy specs, e.g. `dally:preempt=off`, run one after another.
    pub policies: Vec<String>,
    /// The run's seed (model assignment).
    pub seed: u64,
}

/// The JSON inside a code. Keys are one or two letters because the whole document ends up
/// in a URL; exactly one of `tp`/`tf`/`tj` and one of `g`/`u` is present.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tf: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tj: Option<TopologySpec>,
    /// Synthetic trace: jobs, load, seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    g: Option<(u32, f64, u64)>,
    /// Synthetic trace: the tenants its jobs are spread over, if any (left out otherwise, so
    /// codes made before tenants existed read the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    gt: Option<u32>,
    /// Uploaded trace: its file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    u: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    m: Option<String>,
    p: Vec<String>,
    s: u64,
}

/// The share code of a scenario.
pub fn encode(scenario: &SharedScenario) -> String {
    let mut wire = Wire {
        tp: None,
        tf: None,
        tj: None,
        g: None,
        gt: None,
        u: None,
        m: scenario.mix.clone(),
        p: scenario.policies.clone(),
        s: scenario.seed,
    };
    match &scenario.topology {
        TopologyChoice::Preset(name) => wire.tp = Some(name.clone()),
        TopologyChoice::Parametric(spec) => wire.tf = Some(spec.to_string()),
        TopologyChoice::Custom(spec) => wire.tj = Some(spec.clone()),
    }
    match &scenario.trace {
        TraceChoice::Synthetic { jobs, load, seed, tenants } => {
            wire.g = Some((*jobs, *load, *seed));
            wire.gt = *tenants;
        }
        TraceChoice::Uploaded { name } => wire.u = Some(name.clone()),
    }
    let mut bytes = serde_json::to_vec(&wire).expect("a share document always serialises");
    let sum = fnv1a32(&bytes);
    bytes.extend_from_slice(&sum.to_be_bytes());
    format!("{SHARE_VERSION}.{}", base64url_encode(&bytes))
}

/// Reads a share code back into a scenario, checking that the scenario can run. Errors
/// name what is wrong in words for someone who clicked a link (field `share`, or the field
/// of the scenario at fault).
pub fn decode(code: &str) -> Result<SharedScenario, InputError> {
    let code = code.trim();
    if code.is_empty() {
        return Err(share_error("the link holds no scenario"));
    }
    if code.len() > MAX_CODE_LEN {
        return Err(share_error(format!(
            "the code is {} characters long, more than the {MAX_CODE_LEN} a link may have",
            code.len()
        )));
    }
    let (version, data) = code
        .split_once('.')
        .ok_or_else(|| share_error("not a Proxima share code (expected VERSION.DATA, e.g. 1.eyJ...)"))?;
    let version: u32 = version.parse().map_err(|_| {
        share_error(format!("not a Proxima share code: the version '{}' is not a number", clip(version)))
    })?;
    if version > SHARE_VERSION {
        return Err(share_error(format!(
            "the link was made by a newer Proxima (format version {version}; this one reads version {SHARE_VERSION})"
        )));
    }
    if version != SHARE_VERSION {
        return Err(share_error(format!(
            "unknown format version {version} (this Proxima reads version {SHARE_VERSION})"
        )));
    }
    let bytes = base64url_decode(data)?;
    if bytes.len() < 5 {
        return Err(share_error("the code is too short to hold a scenario: the link was cut off"));
    }
    let (json, sum) = bytes.split_at(bytes.len() - 4);
    let sum = u32::from_be_bytes([sum[0], sum[1], sum[2], sum[3]]);
    if fnv1a32(json) != sum {
        return Err(share_error("the checksum does not match: the link was changed or cut off"));
    }
    let wire: Wire = serde_json::from_slice(json).map_err(|e| {
        // A correct checksum over a document this version cannot read means the code was
        // built by hand or by a broken writer, not damaged in transit.
        share_error(format!("the scenario inside the link is malformed: {e}"))
    })?;
    from_wire(wire)
}

fn from_wire(wire: Wire) -> Result<SharedScenario, InputError> {
    let topology = match (wire.tp, wire.tf, wire.tj) {
        (Some(name), None, None) => {
            if preset(&name).is_none() {
                let names: Vec<&str> = all_presets().map(|p| p.name).collect();
                return Err(InputError::new(
                    "topology",
                    format!("unknown preset '{}' (known: {})", clip(&name), names.join(", ")),
                ));
            }
            TopologyChoice::Preset(name)
        }
        (None, Some(text), None) => TopologyChoice::Parametric(ParametricSpec::parse(&text)?),
        (None, None, Some(spec)) => {
            Topology::from_spec(&spec)?;
            TopologyChoice::Custom(spec)
        }
        _ => return Err(share_error("the scenario inside the link must name exactly one topology")),
    };
    let trace = match (wire.g, wire.u) {
        (Some(_), Some(_)) | (None, None) => {
            return Err(share_error("the scenario inside the link must name exactly one trace"))
        }
        (None, Some(_)) if wire.gt.is_some() => {
            return Err(InputError::new("tenants", "a trace file's tenants come from the file, not the link"))
        }
        (Some((jobs, load, seed)), None) => {
            if jobs == 0 || jobs > MAX_JOBS {
                return Err(InputError::new("jobs", format!("must be from 1 to {MAX_JOBS}, got {jobs}")));
            }
            if !(load.is_finite() && load > 0.0 && load <= MAX_LOAD) {
                return Err(InputError::new("load", format!("must be above 0 and at most {MAX_LOAD}, got {load}")));
            }
            if let Some(n) = wire.gt.filter(|n| !(1..=MAX_TENANTS).contains(n)) {
                return Err(InputError::new("tenants", format!("must be from 1 to {MAX_TENANTS}, got {n}")));
            }
            TraceChoice::Synthetic { jobs, load, seed, tenants: wire.gt }
        }
        (None, Some(name)) => TraceChoice::Uploaded { name },
    };
    if let Some(mix) = &wire.m {
        ModelMix::parse(mix, &Catalog::built_in())?;
    }
    if wire.p.is_empty() {
        return Err(InputError::new("policies", "the link names no policy"));
    }
    if wire.p.len() > MAX_POLICIES {
        return Err(InputError::new(
            "policies",
            format!("{} policies, more than the {MAX_POLICIES} a scenario may run", wire.p.len()),
        ));
    }
    for p in &wire.p {
        resolve_policy(p)?;
    }
    Ok(SharedScenario { topology, trace, mix: wire.m, policies: wire.p, seed: wire.s })
}

fn share_error(message: impl Into<String>) -> InputError {
    InputError::new("share", message)
}

/// At most 40 characters of user text, for error messages.
fn clip(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// FNV-1a, 32 bits: tiny, and plenty to catch accidental damage.
fn fnv1a32(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &b in bytes {
        hash ^= b as u32;
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// Base64url as share codes use it ([`crate::base64url`]).
pub fn base64url_encode(bytes: &[u8]) -> String {
    crate::base64url::encode(bytes)
}

/// The inverse of [`base64url_encode`], with errors that speak of links.
pub fn base64url_decode(text: &str) -> Result<Vec<u8>, InputError> {
    crate::base64url::decode(text).map_err(|e| match e {
        Base64Error::StrayEnd => {
            share_error("the code has a stray character at its end: the link was cut off or changed")
        }
        Base64Error::BadCharacter { position, character } => {
            let shown: String = character.escape_default().collect();
            share_error(format!(
                "character {} of the code ('{shown}') cannot appear in a share code: the link was changed",
                position + 1
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn teaching() -> SharedScenario {
        SharedScenario {
            topology: TopologyChoice::Preset("teaching".into()),
            trace: TraceChoice::Synthetic { jobs: 200, load: 0.8, seed: 1, tenants: None },
            mix: None,
            policies: vec!["fifo".into(), "dally:preempt=off".into()],
            seed: 7,
        }
    }

    #[test]
    fn base64url_matches_rfc4648_vectors() {
        // RFC 4648 §10, without padding.
        let vectors = [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in vectors {
            assert_eq!(base64url_encode(plain.as_bytes()), coded);
            assert_eq!(base64url_decode(coded).unwrap(), plain.as_bytes());
        }
        assert_eq!(base64url_decode("Zm8=").unwrap(), b"fo");
        // The two characters that differ from standard base64.
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url_decode("-_8").unwrap(), [0xfb, 0xff]);
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(base64url_decode(&base64url_encode(&all)).unwrap(), all);
    }

    #[test]
    fn round_trips_every_kind_of_scenario() {
        let mut custom = crate::topology::preset("teaching").unwrap().spec();
        custom.name = "my \"lab\" <cluster>".into();
        let scenarios = [
            teaching(),
            SharedScenario {
                topology: TopologyChoice::Parametric(
                    ParametricSpec::parse("racks=3,servers=4,gpus=8,oversub=2.5").unwrap(),
                ),
                trace: TraceChoice::Uploaded { name: "philly, week 1.csv".into() },
                mix: Some("vgg16:2,resnet50:0.5".into()),
                policies: vec!["dally:autotune=off,timers=120/60".into()],
                seed: u64::MAX,
            },
            SharedScenario {
                topology: TopologyChoice::Custom(custom),
                trace: TraceChoice::Synthetic { jobs: MAX_JOBS, load: 0.1 + 0.2, seed: 0, tenants: Some(15) },
                mix: None,
                policies: vec!["consolidate".into()],
                seed: 0,
            },
        ];
        for s in scenarios {
            let code = encode(&s);
            assert!(code.starts_with("1."), "{code}");
            assert!(code.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)), "{code}");
            assert_eq!(decode(&code), Ok(s));
        }
    }

    #[test]
    fn codes_are_compact() {
        let code = encode(&teaching());
        assert!(code.len() < 120, "{} characters: {code}", code.len());
    }

    #[test]
    fn codes_without_tenants_read_as_before() {
        // A code from before synthetic tenants (no `gt` key) reads back without tenants, and
        // a scenario without tenants writes no `gt`: such links are unchanged.
        let old = forged(r#"{"tp":"teaching","g":[200,0.8,1],"p":["fifo","dally:preempt=off"],"s":7}"#);
        assert_eq!(decode(&old), Ok(teaching()));
        assert_eq!(encode(&teaching()), old);
        let mut with = teaching();
        with.trace = TraceChoice::Synthetic { jobs: 200, load: 0.8, seed: 1, tenants: Some(3) };
        assert_ne!(encode(&with), old);
        assert_eq!(decode(&encode(&with)), Ok(with));
    }

    #[test]
    fn parametric_links_made_before_the_typed_spec_read_the_same() {
        // What the page wrote when it carried the form as text: the canonical form, and a
        // hand-written one with defaults spelled out and an old fabric name. Both read
        // into the typed spec, and the canonical one writes back to the very same code, so
        // published links keep opening and new links read in older pages.
        let canonical =
            forged(r#"{"tf":"racks=2,servers=2,gpus=8,oversub=32,fabric=tcp","g":[800,0.9,1],"p":["dally"],"s":1}"#);
        let spelled = forged(
            r#"{"tf":"gpus=8, racks=2,servers=2,oversub=32,nics=1,fabric=tcp,rails=off","g":[800,0.9,1],"p":["dally"],"s":1}"#,
        );
        let typed = ParametricSpec {
            racks: 2,
            servers_per_rack: 2,
            gpus_per_server: 8,
            oversub: 32.0,
            nic_gbps: crate::topology::Fabric::Tcp.default_nic_gbps(),
            nvlink_gbps: crate::topology::GpuKind::T4.default_link_gbps(),
            nics: 1,
            fabric: crate::topology::Fabric::Tcp,
            gpu: crate::topology::GpuKind::T4,
            rails: false,
        };
        let wanted = SharedScenario {
            topology: TopologyChoice::Parametric(typed),
            trace: TraceChoice::Synthetic { jobs: 800, load: 0.9, seed: 1, tenants: None },
            mix: None,
            policies: vec!["dally".into()],
            seed: 1,
        };
        assert_eq!(decode(&canonical), Ok(wanted.clone()));
        assert_eq!(decode(&spelled), Ok(wanted.clone()));
        assert_eq!(encode(&wanted), canonical);
        let old = crate::topology::resolve_topology_arg("racks=2,servers=2,gpus=8,oversub=32,fabric=tcp").unwrap();
        assert_eq!(wanted.topology.build().unwrap(), old, "the same cluster as the text built");
        let rdma = forged(r#"{"tf":"racks=1,servers=2,gpus=4,fabric=rdma","g":[5,0.8,1],"p":["fifo"],"s":1}"#);
        let decoded = decode(&rdma).unwrap();
        assert_eq!(decoded.topology.label(), "racks=1,servers=2,gpus=4");
    }

    fn message(code: &str) -> String {
        let e = decode(code).unwrap_err();
        format!("{}: {}", e.field, e.message)
    }

    #[test]
    fn tampered_codes_fail_with_clear_messages() {
        let code = encode(&teaching());
        // One character changed in the data.
        let mut chars: Vec<char> = code.chars().collect();
        let i = chars.len() / 2;
        chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
        let changed: String = chars.into_iter().collect();
        assert!(message(&changed).contains("checksum does not match"), "{}", message(&changed));
        // Cut off.
        assert!(message(&code[..code.len() - 3]).contains("link was"), "{}", message(&code[..code.len() - 3]));
        assert!(message(&code[..code.len() - 1]).contains("link was"));
        assert!(message("1.").contains("too short"));
        assert!(message("").contains("no scenario"));
        assert!(message("hello").contains("not a Proxima share code"));
        assert!(message("x.abc").contains("not a number"));
        assert!(message("2.abcd").contains("newer Proxima"));
        assert!(message("0.abcd").contains("unknown format version 0"));
        assert!(message("1.ab$d").contains("character 3"));
        assert!(message(&format!("1.{}", "A".repeat(MAX_CODE_LEN))).contains("more than"));
    }

    /// A code with a correct checksum around any JSON: what a hand-built link looks like.
    fn forged(json: &str) -> String {
        let mut bytes = json.as_bytes().to_vec();
        bytes.extend_from_slice(&fnv1a32(json.as_bytes()).to_be_bytes());
        format!("1.{}", base64url_encode(&bytes))
    }

    #[test]
    fn well_formed_but_wrong_scenarios_name_the_field() {
        let cases = [
            (r#"{"tp":"nope","g":[1,0.8,1],"p":["fifo"],"s":1}"#, "topology: unknown preset 'nope'"),
            (r#"{"tf":"racks=0,servers=1,gpus=1","g":[1,0.8,1],"p":["fifo"],"s":1}"#, "racks: must be a positive"),
            (
                r#"{"tp":"teaching","tf":"racks=1,servers=1,gpus=1","g":[1,0.8,1],"p":["fifo"],"s":1}"#,
                "exactly one topology",
            ),
            (r#"{"tp":"teaching","p":["fifo"],"s":1}"#, "exactly one trace"),
            (r#"{"tp":"teaching","g":[0,0.8,1],"p":["fifo"],"s":1}"#, "jobs: must be from 1"),
            (r#"{"tp":"teaching","g":[5,-1,1],"p":["fifo"],"s":1}"#, "load: must be above 0"),
            (r#"{"tp":"teaching","g":[5,0.8,1],"gt":0,"p":["fifo"],"s":1}"#, "tenants: must be from 1 to 15, got 0"),
            (r#"{"tp":"teaching","g":[5,0.8,1],"gt":16,"p":["fifo"],"s":1}"#, "tenants: must be from 1 to 15, got 16"),
            (r#"{"tp":"teaching","u":"a.csv","gt":2,"p":["fifo"],"s":1}"#, "tenants: a trace file's tenants"),
            (r#"{"tp":"teaching","g":[5,0.8,1],"p":[],"s":1}"#, "policies: the link names no policy"),
            (r#"{"tp":"teaching","g":[5,0.8,1],"p":["lottery"],"s":1}"#, "unknown policy 'lottery'"),
            (r#"{"tp":"teaching","g":[5,0.8,1],"p":["dally:preempt=maybe"],"s":1}"#, "preempt: expected on or off"),
            (r#"{"tp":"teaching","g":[5,0.8,1],"m":"lenet:1","p":["fifo"],"s":1}"#, "unknown model 'lenet'"),
            (r#"{"tp":"teaching","g":[5,0.8,1],"p":["fifo"],"s":1,"x":2}"#, "unknown field `x`"),
            (r#"{"tj":{"servers":[]},"g":[5,0.8,1],"p":["fifo"],"s":1}"#, "servers"),
            (r#"[1,2,3]"#, "malformed"),
        ];
        for (json, wanted) in cases {
            let got = message(&forged(json));
            assert!(got.contains(wanted), "{json}: got '{got}', wanted '{wanted}'");
        }
    }
}
