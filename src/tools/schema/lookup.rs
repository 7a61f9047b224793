//! What the yes/no walk derives from a node's keywords once they are all read, and the key
//! comparisons it runs most: looking a key up among `properties`, a string in an `enum`.

use super::node::{head, NodeId, Rules, TypeSet};

impl Rules {
    /// Sets the derived fields ([`Rules::head`] and those after it), once every keyword (and
    /// `$ref`) is read.
    pub fn summarise(&mut self) {
        self.type_bits = self.types.unwrap_or(TypeSet::ALL);
        self.property_signs = self.properties.iter().map(|(name, _)| signature(name)).collect();
        self.keyed =
            !self.properties.is_empty() || !self.pattern_properties.is_empty() || self.additional.is_some();
        self.required_flags = vec![false; self.properties.len()];
        self.required_declared = 0;
        self.required_elsewhere = Vec::new();
        for name in &self.required {
            match self.property_index(name) {
                Some(index) if !self.required_flags[index] => {
                    self.required_flags[index] = true;
                    self.required_declared += 1;
                }
                Some(_) => {}
                None if self.required_elsewhere.contains(name) => {}
                None => self.required_elsewhere.push(name.clone()),
            }
        }
        self.required_bits = (self.properties.len() <= 64).then(|| {
            self.required_flags
                .iter()
                .enumerate()
                .filter(|(_, &required)| required)
                .fold(0, |bits, (i, _)| bits | 1 << i)
        });
        self.dependent_bits = self
            .dependent_required
            .iter()
            .map(|(present, names)| {
                let needed = names.iter().try_fold(0, |bits, name| Some(bits | self.property_bit(name)?));
                Some((self.property_bit(present)?, needed?))
            })
            .collect();
        self.object_extras = self.property_names.is_some()
            || self.min_properties.is_some()
            || self.max_properties.is_some()
            || !self.dependent_required.is_empty()
            || !self.dependent_schemas.is_empty();
        let applicators = self.reference.is_some()
            || !self.all_of.is_empty()
            || !self.any_of.is_empty()
            || !self.one_of.is_empty()
            || self.not.is_some()
            || self.condition.is_some();
        let values = self.constant.is_some() || self.one_of_values.is_some();
        let number = self.multiple_of.is_some() || self.lower.is_some() || self.upper.is_some();
        let string = self.min_length.is_some()
            || self.max_length.is_some()
            || self.pattern.is_some()
            || self.format.is_some();
        let array = self.min_items.is_some()
            || self.max_items.is_some()
            || self.contains.is_some()
            || self.unique_items
            || !self.prefix_items.is_empty()
            || self.items.is_some();
        let object = self.keyed
            || self.required_declared > 0
            || !self.required_elsewhere.is_empty()
            || self.object_extras;
        let bits = [
            (applicators, head::APPLICATORS),
            (values, head::VALUES),
            (number, head::NUMBER),
            (string, head::STRING),
            (array, head::ARRAY),
            (object, head::OBJECT),
        ];
        self.head = bits.iter().filter(|(present, _)| *present).fold(0, |all, (_, bit)| all | bit);
    }

    /// The bit of property `name` in [`Rules::dependent_bits`] and the like: `1 << i` when it is
    /// the `i`th declared name, `None` when it is not declared or the node declares more than 64.
    pub fn property_bit(&self, name: &str) -> Option<u64> {
        if self.properties.len() > 64 {
            return None;
        }
        self.property_index(name).map(|index| 1u64 << index)
    }

    /// The schema of property `name`, if `properties` declares it.
    pub fn property(&self, name: &str) -> Option<NodeId> {
        self.property_index(name).map(|index| self.properties[index].1)
    }

    /// Where `properties` declares `name`, if it does: the signatures are scanned (a run of
    /// numbers), and only a name whose signature matches is compared. Inlined where keys are
    /// looked up, once per key sent.
    #[inline]
    pub fn property_index(&self, name: &str) -> Option<usize> {
        let sign = signature(name);
        let mut from = 0;
        while let Some(skipped) = self.property_signs.get(from..)?.iter().position(|&s| s == sign) {
            let index = from + skipped;
            if same_key(&self.properties.get(index)?.0, name) {
                return Some(index);
            }
            from = index + 1;
        }
        None
    }
}

/// A string's length (its low 16 bits), first and last byte, in one number: two names with
/// different signatures differ.
pub(super) fn signature(name: &str) -> u32 {
    let bytes = name.as_bytes();
    let (first, last) = (bytes.first().copied().unwrap_or(0), bytes.last().copied().unwrap_or(0));
    (bytes.len() as u32) << 16 | u32::from(first) << 8 | u32::from(last)
}

/// Whether two keys are equal. Keys and enum strings are short, and lookups compare a key with
/// several names in turn: a library `memcmp` call costs more than the whole comparison of two
/// short strings, so strings of up to 16 bytes are compared as two overlapping words (or three
/// bytes), lengths and first bytes first. Always inlined: most comparisons end at the lengths.
#[inline(always)]
pub(super) fn same_key(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        _ if a[0] != b[0] => false,
        1..=3 => a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=8 => word4(a, 0) == word4(b, 0) && word4(a, n - 4) == word4(b, n - 4),
        9..=16 => word8(a, 0) == word8(b, 0) && word8(a, n - 8) == word8(b, n - 8),
        _ => a == b,
    }
}

/// The four bytes of `bytes` from `at`, as one number to compare.
#[inline(always)]
fn word4(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default())
}

/// The eight bytes of `bytes` from `at`, as one number to compare.
#[inline(always)]
fn word8(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::{same_key, signature};

    #[test]
    fn keys_of_every_length_compare_byte_for_byte() {
        let words = ["", "a", "ab", "abc", "abcd", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "é", "ab€"];
        for word in words.iter().copied().chain(["abcdefghijklmnopq".repeat(3).as_str()]) {
            assert!(same_key(word, word), "{word:?}");
            let bytes = word.as_bytes();
            // Every string of the same length that differs in exactly one byte, at each place.
            for at in 0..bytes.len() {
                let mut other = bytes.to_vec();
                other[at] ^= 0x01;
                let Ok(other) = String::from_utf8(other) else { continue };
                assert!(!same_key(word, &other), "{word:?} vs {other:?}");
                assert!(!same_key(&other, word), "{other:?} vs {word:?}");
            }
            assert!(!same_key(word, &format!("{word}x")));
        }
    }

    #[test]
    fn signatures_tell_apart_lengths_and_ends() {
        assert_ne!(signature("query"), signature("limit"));
        assert_ne!(signature("from"), signature("sort"));
        assert_ne!(signature("to"), signature("tox"));
        assert_eq!(signature("from"), signature("foam"));
    }
}
