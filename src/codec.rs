//! A small binary encoding for what crosses to the page in bulk (the playback log, a run's
//! per-job rows): LEB128 varints, little-endian floats, length-prefixed text, and a reader
//! that refuses anything malformed with a message instead of panicking.

pub fn put_u64(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push((v as u8) | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

pub fn put_f32(b: &mut Vec<u8>, v: f32) {
    b.extend_from_slice(&v.to_le_bytes());
}

pub fn put_f64(b: &mut Vec<u8>, v: f64) {
    b.extend_from_slice(&v.to_le_bytes());
}

pub fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u64(b, s.len() as u64);
    b.extend_from_slice(s.as_bytes());
}

/// An optional number: 0 for none, else the number plus one.
pub fn put_opt_u64(b: &mut Vec<u8>, v: Option<u64>) {
    put_u64(b, v.map_or(0, |v| v.saturating_add(1)));
}

/// An optional float: a flag byte, then the float.
pub fn put_opt_f64(b: &mut Vec<u8>, v: Option<f64>) {
    match v {
        Some(v) => {
            b.push(1);
            put_f64(b, v);
        }
        None => b.push(0),
    }
}

/// Reads what the `put_` functions wrote, in the same order.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }
}

impl Reader<'_> {
    pub fn u8(&mut self) -> Result<u8, String> {
        let v = *self.bytes.get(self.at).ok_or("the data ends early")?;
        self.at += 1;
        Ok(v)
    }

    pub fn u64(&mut self) -> Result<u64, String> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            v |= ((byte & 0x7f) as u64) << shift;
            if byte < 0x80 {
                return Ok(v);
            }
        }
        Err("a number in the data is too long".into())
    }

    pub fn u32(&mut self) -> Result<u32, String> {
        u32::try_from(self.u64()?).map_err(|_| "a number in the data is out of range".to_string())
    }

    /// A count that cannot exceed `max` (so a damaged log cannot ask for a huge allocation).
    pub fn len(&mut self, max: usize) -> Result<usize, String> {
        let n = self.u64()?;
        if n > max as u64 {
            return Err(format!("a count of {n} in the data is too large"));
        }
        Ok(n as usize)
    }

    pub fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let slice = self.bytes.get(self.at..self.at + N).ok_or("the data ends early")?;
        self.at += N;
        Ok(slice.try_into().expect("N bytes"))
    }

    pub fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.take::<4>()?))
    }

    pub fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(self.take::<8>()?))
    }

    pub fn str(&mut self) -> Result<String, String> {
        let n = self.len(self.bytes.len())?;
        let bytes = self.bytes.get(self.at..self.at + n).ok_or("the data ends early")?;
        let s = std::str::from_utf8(bytes).map_err(|_| "text in the data is not UTF-8")?;
        self.at += n;
        Ok(s.to_string())
    }

    pub fn opt_u64(&mut self) -> Result<Option<u64>, String> {
        Ok(self.u64()?.checked_sub(1))
    }

    pub fn opt_f64(&mut self) -> Result<Option<f64>, String> {
        match self.u8()? {
            0 => Ok(None),
            1 => Ok(Some(self.f64()?)),
            f => Err(format!("an optional number has flag {f}")),
        }
    }
}
