//! Internally tagged enums (`{"kind": "openai", …}`) read without serde's `Content` buffering.
//!
//! serde's derive reads an internally tagged enum by buffering the whole object into its private
//! `Content` tree, then reading the variant from that: one more deserializer, instantiated for
//! every type inside every such enum (tens of KB of wasm, bench/results/wasm-size.md). Here the
//! object is read into a `serde_json::Value` instead, and the variant from that through the
//! settings' reader (the module's one `Value` reader), through an externally tagged twin of the
//! enum (`#[serde(remote = …)]`) handed the variant's name. What is accepted and the errors are
//! serde's: the tag is read where serde reads it (so its errors carry the same path), the
//! variant's errors come from its fields as serde's do, with the path running on into the variant
//! (`model.chain[1].model`), and a unit variant ignores what comes with it. An array (which serde
//! would read as the tag followed by the fields in order) is refused, as the settings' reader
//! refuses one for a struct: no page means that. A tag given twice is refused by a reader that
//! sees both; the settings' reader reads a `Value`, whose object kept the last of equal keys, as
//! JSON texts with repeated keys are read everywhere in keel.

use std::fmt;

use serde::de::value::StrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

/// An internally tagged enum as the page writes it: the tag's key, the variants' tags, and what
/// serde's derive says it expects (`internally tagged enum ModelChoice`).
pub struct Tagged {
    /// The tag's key (`kind`, `type`).
    pub tag: &'static str,
    /// serde's name for the enum in "expected" messages.
    pub expecting: &'static str,
    /// The variants' tags and their aliases (`final_answer` beside `finalAnswer`), in the order
    /// serde lists them in "unknown variant" messages: the twin reads each spelling.
    pub variants: &'static [&'static str],
}

impl Tagged {
    /// Reads the tag and the rest, then the enum through `read` (the externally tagged twin's
    /// `deserialize`, or a caller's own for some variants), given the variant's tag and its
    /// content. The variant is read while the enum's own value is being read, so a reader that
    /// says where an error happened places the variant's errors at the enum, and inside it.
    pub fn read<'de, D, T>(
        &self,
        d: D,
        read: impl FnOnce(Variant<'_>) -> Result<T, serde_json::Error>,
    ) -> Result<T, D::Error>
    where
        D: Deserializer<'de>,
    {
        // As a struct: the reader takes an object only, and has one path to compile for it.
        d.deserialize_struct(self.expecting, &[], Reading { shape: self, read })
    }
}

/// [`Tagged::read`]'s visitor: the tag and the rest, then the variant through `read`.
struct Reading<'t, F> {
    shape: &'t Tagged,
    read: F,
}

impl<'de, T, F> Visitor<'de> for Reading<'_, F>
where
    F: FnOnce(Variant<'_>) -> Result<T, serde_json::Error>,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.shape.expecting)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, _seq: S) -> Result<T, S::Error> {
        Err(de::Error::custom(super::tracked::ARRAY_FOR_OBJECT))
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<T, M::Error> {
        let (index, content) = self.shape.split(map)?;
        let variant = Variant { name: self.shape.variants[index], content: &content };
        (self.read)(variant).map_err(de::Error::custom)
    }
}

impl Tagged {
    /// The tag's index and the other entries of an object.
    fn split<'de, M: MapAccess<'de>>(&self, mut map: M) -> Result<(usize, Value), M::Error> {
        let mut index = None;
        let mut rest = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == self.tag {
                if index.is_some() {
                    return Err(de::Error::duplicate_field(self.tag));
                }
                index = Some(map.next_value_seed(VariantTag(self))?);
            } else {
                let value = map.next_value::<Value>()?;
                rest.insert(key, value);
            }
        }
        match index {
            Some(index) => Ok((index, Value::Object(rest))),
            None => Err(de::Error::missing_field(self.tag)),
        }
    }
}

/// The tag's value, read as serde reads a variant's name: its index in the variants.
struct VariantTag<'a>(&'a Tagged);

impl<'de> DeserializeSeed<'de> for VariantTag<'_> {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for VariantTag<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("variant identifier")
    }

    fn visit_str<E: de::Error>(self, tag: &str) -> Result<usize, E> {
        self.0
            .variants
            .iter()
            .position(|v| *v == tag)
            .ok_or_else(|| de::Error::unknown_variant(tag, self.0.variants))
    }
}

/// One variant, by its tag, with what came with it: read by the externally tagged twin.
pub struct Variant<'v> {
    name: &'static str,
    content: &'v Value,
}

impl<'v> Variant<'v> {
    /// The variant's tag.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What came with the tag: an object of the other keys.
    pub fn content(&self) -> &'v Value {
        self.content
    }
}

impl<'de> Deserializer<'de> for Variant<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_enum(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> EnumAccess<'de> for Variant<'de> {
    type Error = serde_json::Error;
    type Variant = Rest<'de>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Rest<'de>), Self::Error> {
        let name: StrDeserializer<serde_json::Error> = de::IntoDeserializer::into_deserializer(self.name);
        Ok((seed.deserialize(name)?, Rest(self.content)))
    }
}

/// What came with the tag (an object: [`Tagged`] refuses an array), read through the settings'
/// reader; an error's place is the enum's.
pub struct Rest<'v>(&'v Value);

impl<'de> VariantAccess<'de> for Rest<'de> {
    type Error = serde_json::Error;

    /// A unit variant takes whatever came with it.
    fn unit_variant(self) -> Result<(), Self::Error> {
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Self::Error> {
        super::tracked::read_seed(self.0, seed)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        super::tracked::read_any(self.0, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        super::tracked::read_struct(self.0, fields, visitor)
    }
}
