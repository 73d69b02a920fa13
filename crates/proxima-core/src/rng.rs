//! The one random number generator of the project.
//!
//! A named algorithm implemented here, so that the same seed gives the same stream on every
//! platform and with every dependency version: xoshiro256** (Blackman and Vigna, 2018),
//! seeded through SplitMix64 as its authors recommend. Random variates that need logarithms
//! or exponentials use `libm`, which is the same Rust code natively and in WebAssembly.

/// A seeded xoshiro256** generator.
#[derive(Clone, Debug)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm), splitmix64(&mut sm)];
        Rng { s }
    }

    /// A generator for one item of a stream (say job number `index`), independent of how many
    /// other items were drawn before: taking the first N jobs of a trace never changes what
    /// the earlier jobs got.
    pub fn for_item(seed: u64, stream: u64, index: u64) -> Rng {
        let mut sm = seed ^ stream.wrapping_mul(0xA24B_AED4_963E_E407);
        let mixed = splitmix64(&mut sm) ^ index.wrapping_mul(0x9FB2_1C65_1E98_DF25);
        Rng::new(mixed)
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), with 53 random bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1]: safe to take the logarithm of.
    pub fn next_f64_open0(&mut self) -> f64 {
        1.0 - self.next_f64()
    }

    /// Uniform integer in [0, n), without modulo bias (Lemire's method).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "Rng::below(0)");
        let mut m = (self.next_u64() as u128) * (n as u128);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = (self.next_u64() as u128) * (n as u128);
            }
        }
        (m >> 64) as u64
    }

    /// Exponentially distributed with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * libm::log(self.next_f64_open0())
    }

    /// Picks an index with probability proportional to its weight. Weights must not all be 0.
    pub fn weighted_index(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.next_f64() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        // Rounding can leave x a hair above the last cumulative weight.
        weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_is_fixed_for_a_seed() {
        // The first outputs for seed 0 are part of the determinism contract: if this changes,
        // every seeded result users published changes with it.
        let mut r = Rng::new(0);
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        let mut again = Rng::new(0);
        let second: Vec<u64> = (0..3).map(|_| again.next_u64()).collect();
        assert_eq!(first, second);
        assert_ne!(first[0], first[1]);
        let mut other = Rng::new(1);
        assert_ne!(other.next_u64(), first[0]);
    }

    #[test]
    fn below_and_weights_stay_in_range() {
        let mut r = Rng::new(7);
        let mut seen = [0u32; 3];
        for _ in 0..3000 {
            let i = r.below(3) as usize;
            seen[i] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800), "{seen:?}");
        let mut hits = [0u32; 3];
        for _ in 0..3000 {
            hits[r.weighted_index(&[0.0, 1.0, 3.0])] += 1;
        }
        assert_eq!(hits[0], 0);
        assert!(hits[2] > 2 * hits[1]);
    }

    #[test]
    fn items_are_independent_of_their_neighbours() {
        let a = Rng::for_item(5, 1, 10).next_u64();
        let b = Rng::for_item(5, 1, 10).next_u64();
        let c = Rng::for_item(5, 1, 11).next_u64();
        let d = Rng::for_item(5, 2, 10).next_u64();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
    }
}
