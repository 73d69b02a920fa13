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

    fn first_u64s(mut r: Rng, n: usize) -> Vec<u64> {
        (0..n).map(|_| r.next_u64()).collect()
    }

    /// The generator is the published algorithm: the reference outputs of SplitMix64 from
    /// state 0 and of xoshiro256** from state {1, 2, 3, 4} (the test vectors that
    /// accompany Vigna's reference C code, reproduced independently in Python).
    #[test]
    fn the_algorithms_match_their_reference_outputs() {
        let mut state = 0u64;
        let splitmix: Vec<u64> = (0..3).map(|_| splitmix64(&mut state)).collect();
        assert_eq!(splitmix, [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F]);
        let reference = Rng { s: [1, 2, 3, 4] };
        assert_eq!(first_u64s(reference, 4), [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240]);
    }

    /// Golden values: the first outputs for a few seeds and streams are part of the
    /// determinism contract. If this test fails, every seeded result users published (model
    /// assignments, synthetic traces, tie breaks) changes with the generator: do not update
    /// these numbers unless that is the intent, and say so in CHANGELOG.md.
    #[test]
    fn golden_outputs_for_fixed_seeds_and_streams() {
        assert_eq!(
            first_u64s(Rng::new(0), 4),
            [0x99EC_5F36_CB75_F2B4, 0xBF6E_1F78_4956_452A, 0x1A5F_849D_4933_E6E0, 0x6AA5_94F1_262D_2D2C]
        );
        assert_eq!(
            first_u64s(Rng::new(1), 4),
            [0xB3F2_AF6D_0FC7_10C5, 0x853B_5596_4736_4CEA, 0x92F8_9756_082A_4514, 0x642E_1C7B_C266_A3A7]
        );
        assert_eq!(
            first_u64s(Rng::new(42), 4),
            [0x1578_0B2E_0C2E_C716, 0x6104_D986_6D11_3A7E, 0xAE17_5332_39E4_99A1, 0xECB8_AD47_03B3_60A1]
        );
        // Job 10 of the model-assignment stream ("model" in ASCII) under seed 5.
        assert_eq!(
            first_u64s(Rng::for_item(5, 0x6d_6f64_656c, 10), 3),
            [0x25D3_3E14_C3E5_6418, 0x6663_B06D_5612_CF3D, 0xC215_47C0_1A7F_1AFF]
        );
        let mut r = Rng::new(42);
        assert_eq!([r.next_f64(), r.next_f64()], [0.08386297105988216, 0.3789802506626686]);
        let mut r = Rng::new(42);
        let derived = (r.below(10), r.exponential(100.0), r.weighted_index(&[1.0, 2.0, 3.0]));
        assert_eq!(derived, GOLDEN_DERIVED);
    }

    /// `below(10)`, `exponential(100.0)` and `weighted_index(&[1, 2, 3])`, in that order, from
    /// `Rng::new(42)`.
    const GOLDEN_DERIVED: (u64, f64, usize) = (0, 47.63923950787724, 2);

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
