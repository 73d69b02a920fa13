//! How messages cross: as JavaScript values made by serde-wasm-bindgen, with the memory of
//! their byte buffers transferred, not copied; and what a file's content is on its way.

use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// Bytes shared on either side and sent as a `Uint8Array`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Bytes(pub Rc<[u8]>);

impl Bytes {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Self {
        Bytes(v.into())
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bytes({} bytes)", self.0.len())
    }
}

impl Serialize for Bytes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Bytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E>(self, v: &[u8]) -> Result<Bytes, E> {
                Ok(Bytes(v.into()))
            }
            fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Bytes, E> {
                Ok(v.into())
            }
        }
        d.deserialize_byte_buf(Visitor)
    }
}

/// A file's content on its way to a worker.
///
/// A file the user picked or dropped stays a `Blob`: posting one copies nothing (the
/// browser shares the file), and only the worker reads it, so a 16 MiB trace never
/// passes through the page's thread. Bytes already in memory (the tour's trace, tests)
/// go as they are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FileData {
    Blob {
        #[serde(with = "serde_wasm_bindgen::preserve")]
        blob: web_sys::Blob,
        /// Its size, read when it was chosen.
        size: u64,
    },
    Bytes(Bytes),
}

impl FileData {
    /// A file the user chose.
    pub fn of_blob(blob: web_sys::Blob) -> FileData {
        FileData::Blob { size: blob.size() as u64, blob }
    }

    /// The size in bytes.
    pub fn size(&self) -> u64 {
        match self {
            FileData::Blob { size, .. } => *size,
            FileData::Bytes(bytes) => bytes.len() as u64,
        }
    }

    /// The content. A `Blob` is read synchronously, which only a worker may do.
    pub fn read(&self) -> Result<std::borrow::Cow<'_, [u8]>, String> {
        match self {
            FileData::Bytes(bytes) => Ok(std::borrow::Cow::Borrowed(bytes)),
            FileData::Blob { blob, .. } => {
                let reader = web_sys::FileReaderSync::new().map_err(|e| format!("cannot read the file: {e:?}"))?;
                let buffer = reader.read_as_array_buffer(blob).map_err(|e| format!("cannot read the file: {e:?}"))?;
                Ok(std::borrow::Cow::Owned(js_sys::Uint8Array::new(&buffer).to_vec()))
            }
        }
    }
}

/// A message as a JavaScript value, and the buffers to transfer with it (every
/// `Uint8Array` in it).
pub fn encode<T: Serialize>(message: &T) -> (wasm_bindgen::JsValue, js_sys::Array) {
    // 64-bit integers (seeds, counts, times) as BigInt, so that none is rounded.
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_large_number_types_as_bigints(true);
    let value = message.serialize(&serializer).expect("messages serialise");
    let transfer = js_sys::Array::new();
    collect_buffers(&value, &transfer);
    (value, transfer)
}

/// A message from its JavaScript value.
pub fn decode<T: serde::de::DeserializeOwned>(value: wasm_bindgen::JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
}

/// Pushes the buffer of every `Uint8Array` inside `value` (objects, arrays and maps, as
/// serde-wasm-bindgen makes them).
fn collect_buffers(value: &wasm_bindgen::JsValue, out: &js_sys::Array) {
    use wasm_bindgen::JsCast;
    if let Some(bytes) = value.dyn_ref::<js_sys::Uint8Array>() {
        out.push(&bytes.buffer());
    } else if let Some(array) = value.dyn_ref::<js_sys::Array>() {
        array.for_each(&mut |v, _, _| collect_buffers(&v, out));
    } else if let Some(map) = value.dyn_ref::<js_sys::Map>() {
        map.for_each(&mut |v, _| collect_buffers(&v, out));
    } else if value.is_object() && !value.is_instance_of::<web_sys::Blob>() {
        for v in js_sys::Object::values(value.unchecked_ref()).iter() {
            collect_buffers(&v, out);
        }
    }
}
