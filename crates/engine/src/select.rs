//! Finding the `k`th card of a set, which is how a random player turns a
//! uniformly drawn index into a card.
//!
//! Random play spends much of its time on the chain that leads from a set
//! of legal cards to the card drawn: count the set, draw an index below the
//! count, find the card at that index. Each step waits for the one before,
//! so the time the chain takes, not the number of instructions, sets the
//! pace of a simulated hand. There are two ways to walk it:
//!
//! - **BMI2**, on x86-64 processors that have it and run it in hardware:
//!   `popcnt` counts the set and `pdep` deposits the single bit `1 << k`
//!   onto the `k`th set bit, a few cycles each.
//! - **Portable**, everywhere else: byte-parallel arithmetic and a table,
//!   without branches on the data (see [`portable`]).
//!
//! The processor is asked once, at the first call; both ways give the same
//! answer for every input (tested below).

/// The position of the `k`th set bit of `x` (counting from 0), where `k`
/// is `pick(number of set bits)`, if `x` has that many.
#[inline]
pub(crate) fn select_bit(x: u64, pick: impl FnOnce(u32) -> u32) -> Option<u8> {
    #[cfg(target_arch = "x86_64")]
    if bmi2::known_usable() {
        // SAFETY: `known_usable` has found at run time that this processor
        // has the BMI2 and POPCNT instructions, the features `bmi2::select`
        // is compiled for.
        #[allow(unsafe_code)]
        return unsafe { bmi2::select(x, pick) };
    }
    select_slowly(x, pick)
}

/// [`select_bit`] when BMI2 is not known to be usable: either the processor
/// has not been asked yet, which happens once, or it cannot run it. Kept
/// apart so that the common case is one comparison.
#[inline(never)]
fn select_slowly(x: u64, pick: impl FnOnce(u32) -> u32) -> Option<u8> {
    #[cfg(target_arch = "x86_64")]
    if bmi2::usable() {
        // SAFETY: as in `select_bit`, `usable` has checked the processor.
        #[allow(unsafe_code)]
        return unsafe { bmi2::select(x, pick) };
    }
    portable(x, pick)
}

/// Ones in each byte: 0x0101..01.
const BYTE_ONES: u64 = u64::from_le_bytes([1; 8]);
/// The top bit of each byte: 0x8080..80.
const BYTE_TOPS: u64 = BYTE_ONES << 7;

/// For each byte value and each `k` below 8, the position of its `k`th set
/// bit (8 when it has fewer than `k + 1`).
const SELECT_IN_BYTE: [[u8; 8]; 256] = {
    let mut table = [[8u8; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut seen = 0;
        let mut bit = 0;
        while bit < 8 {
            if byte & (1 << bit) != 0 {
                table[byte][seen] = bit as u8;
                seen += 1;
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// [`select_bit`] with byte-parallel arithmetic:
///
/// 1. count the ones of every byte at once, then multiply by `0x0101..01`
///    so that byte `i` holds the ones of bytes `0..=i`;
/// 2. the target byte is the number of these running counts that are at
///    most `k`, found by one subtraction that compares all bytes with `k`
///    and a multiply that adds up the comparison bits;
/// 3. inside that byte, a table gives the position of the remaining rank.
#[inline]
fn portable(x: u64, pick: impl FnOnce(u32) -> u32) -> Option<u8> {
    let mut counts = x - ((x >> 1) & 0x5555_5555_5555_5555);
    counts = (counts & 0x3333_3333_3333_3333) + ((counts >> 2) & 0x3333_3333_3333_3333);
    counts = (counts + (counts >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    let running = counts.wrapping_mul(BYTE_ONES);
    // The top byte of the running counts is the number of set bits.
    let total = running >> 56;
    let k = u64::from(pick(total as u32));
    if k >= total {
        return None;
    }
    // Each byte's top bit is set when its running count is at most k: the
    // running counts are at most 64 and k below 64, so no byte borrows.
    let at_most_k = ((k * BYTE_ONES) | BYTE_TOPS).wrapping_sub(running) & BYTE_TOPS;
    let byte = ((at_most_k >> 7).wrapping_mul(BYTE_ONES) >> 56) as u32;
    let shift = 8 * byte;
    let before = ((running << 8) >> shift) & 0xFF;
    let rank = (k - before) as usize;
    let bits = ((x >> shift) & 0xFF) as usize;
    Some(shift as u8 + SELECT_IN_BYTE[bits][rank & 7])
}

#[cfg(target_arch = "x86_64")]
mod bmi2 {
    use std::arch::x86_64::{__cpuid, _pdep_u64};
    use std::sync::atomic::{AtomicU8, Ordering};

    const UNKNOWN: u8 = 0;
    const NO: u8 = 1;
    const YES: u8 = 2;

    /// Whether [`select`] may run here, once the processor has been asked.
    static USABLE: AtomicU8 = AtomicU8::new(UNKNOWN);

    /// Whether the processor has been asked and found to have BMI2 and
    /// POPCNT and to run `pdep` fast: one load and one comparison.
    #[inline]
    pub(super) fn known_usable() -> bool {
        USABLE.load(Ordering::Relaxed) == YES
    }

    /// Whether this processor has BMI2 and POPCNT and runs `pdep` fast,
    /// asking it the first time.
    pub(super) fn usable() -> bool {
        match USABLE.load(Ordering::Relaxed) {
            YES => true,
            NO => false,
            _ => detect(),
        }
    }

    #[cold]
    fn detect() -> bool {
        let usable = std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("popcnt")
            && !slow_pdep();
        USABLE.store(if usable { YES } else { NO }, Ordering::Relaxed);
        usable
    }

    /// AMD's processors of family 17h (Zen to Zen 2) and Hygon's built on
    /// them (family 18h) have BMI2 but run `pdep` in microcode, taking tens
    /// of cycles for each set bit of the mask, far slower than the
    /// portable way. Family 19h (Zen 3) and later run it in hardware, as
    /// every Intel processor with BMI2 does.
    fn slow_pdep() -> bool {
        let vendor = __cpuid(0);
        let vendor = [vendor.ebx, vendor.edx, vendor.ecx];
        let amd_like = vendor == words(b"AuthenticAMD") || vendor == words(b"HygonGenuine");
        let signature = __cpuid(1).eax;
        let base_family = (signature >> 8) & 0xF;
        let family = if base_family == 0xF {
            base_family + ((signature >> 20) & 0xFF)
        } else {
            base_family
        };
        amd_like && family < 0x19
    }

    /// A twelve-letter vendor name as `cpuid` returns it in three registers.
    fn words(name: &[u8; 12]) -> [u32; 3] {
        std::array::from_fn(|i| {
            u32::from_le_bytes([name[4 * i], name[4 * i + 1], name[4 * i + 2], name[4 * i + 3]])
        })
    }

    /// [`super::select_bit`] with `popcnt` and `pdep`.
    ///
    /// # Safety
    ///
    /// The processor must have BMI2 and POPCNT ([`usable`] says so).
    #[target_feature(enable = "bmi2,popcnt")]
    pub(super) fn select(x: u64, pick: impl FnOnce(u32) -> u32) -> Option<u8> {
        let total = x.count_ones();
        let k = pick(total);
        if k >= total {
            return None;
        }
        Some(_pdep_u64(1 << k, x).trailing_zeros() as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sets with every count of bits, from a fixed pseudo-random sequence.
    fn sets() -> impl Iterator<Item = u64> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        (0..2000)
            .map(move |_| {
                x = x.rotate_left(7).wrapping_mul(0xBF58_476D_1CE4_E5B9) ^ (x >> 3);
                x
            })
            .chain([0, 1, 1 << 63, u64::MAX, 0x1FFF_1FFF_1FFF_1FFF])
    }

    fn check(select: impl Fn(u64, u32) -> Option<u8>) {
        for x in sets() {
            let positions: Vec<u8> = (0..64).filter(|bit| x & (1 << bit) != 0).collect();
            for (k, &position) in positions.iter().enumerate() {
                assert_eq!(select(x, k as u32), Some(position), "x={x:#x} k={k}");
            }
            assert_eq!(select(x, positions.len() as u32), None, "x={x:#x}");
        }
    }

    #[test]
    fn the_portable_way_agrees_with_counting() {
        check(|x, k| portable(x, |_| k));
        assert_eq!(portable(0b1011, |total| total - 1), Some(3));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_bmi2_way_agrees_with_counting_and_is_chosen_only_where_it_exists() {
        if !(std::arch::is_x86_feature_detected!("bmi2") && std::arch::is_x86_feature_detected!("popcnt")) {
            assert!(!bmi2::usable(), "BMI2 chosen on a processor without it");
            return;
        }
        // SAFETY: the processor has both features, checked just above.
        #[allow(unsafe_code)]
        check(|x, k| unsafe { bmi2::select(x, |_| k) });
    }

    #[test]
    fn the_chosen_way_agrees_with_counting() {
        check(|x, k| select_bit(x, |_| k));
    }
}
