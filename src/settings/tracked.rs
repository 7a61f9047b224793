//! A deserializer over a `&Value` that remembers where an error happened: `retry.maxAttempts`,
//! `tools[1]`. It reads exactly as serde_json's own `&Value` deserializer (the same visits, the
//! same error text) and finds the place as the serde_path_to_error crate does (the innermost
//! value an error passed through; a map key's error is its map's), which it replaces: that crate
//! wraps every visitor of every type it reads on top of serde_json's deserializer, about 45 KB
//! of wasm for the settings' types (bench/results/wasm-size.md); this is one deserializer.

use std::cell::RefCell;
use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, Expected, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, VariantAccess, Visitor,
};
use serde_json::{Error, Map, Value};

/// Reads `value` as a `T`: the value, or serde's error and where it happened, spelt as
/// serde_path_to_error spells a path (`retry.maxAttempts`, `chain[1].kind`, `.` for the top).
pub fn deserialize<T: DeserializeOwned>(value: &Value) -> Result<T, (Error, String)> {
    INNER.set(None);
    let track = Track(RefCell::new(None));
    T::deserialize(Tracked { value, at: &Chain::Root, track: &track }).map_err(|e| {
        // Placed by no reader of this value (it came from a variant read apart): where it said.
        let place = track.0.into_inner().or_else(|| INNER.take()).unwrap_or_else(|| ".".to_string());
        (e, place)
    })
}

/// Runs `read`, a hand-written reader of parts read with [`read_part`]: its value, or its error and
/// the place the part's reader left ([`INNER`]), as [`deserialize`] gives them.
pub fn from_parts<T>(read: impl FnOnce() -> Result<T, Error>) -> Result<T, (Error, String)> {
    INNER.set(None);
    read().map_err(|e| (e, INNER.take().unwrap_or_else(|| ".".to_string())))
}

thread_local! {
    /// Where, inside the variant of an internally tagged enum or a part read by hand (read apart
    /// from the value around it, [`read_seed`], [`read_part`]), the last error happened: taken by
    /// the reader of the enclosing value when it places the error, so the place runs on inside
    /// (`model.chain[1].model`). This holds because no reader in keel goes on after such an error
    /// (no `untagged` or `flatten` around a part read apart, no fallback): one that did would
    /// leave the place here for the next, unrelated error. Each top-level read starts with none.
    static INNER: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Reads a tagged enum's variant (`value`, read apart) with `read`: an error leaves its place for
/// the reader around the enum ([`INNER`]).
fn apart<'de, T>(
    value: &'de Value,
    read: impl FnOnce(Tracked<'_, 'de>) -> Result<T, Error>,
) -> Result<T, Error> {
    apart_at(value, &Chain::Root, read)
}

/// [`apart`], the value being at `at`.
fn apart_at<'de, T>(
    value: &'de Value,
    at: &Chain,
    read: impl FnOnce(Tracked<'_, 'de>) -> Result<T, Error>,
) -> Result<T, Error> {
    let track = Track(RefCell::new(None));
    let read = read(Tracked { value, at, track: &track });
    if read.is_err() {
        leave_place(track);
    }
    read
}

/// Leaves the place of a variant's error for the reader around the enum: one copy, not one in
/// each [`apart`].
#[inline(never)]
fn leave_place(track: Track) {
    let place = track.0.into_inner().or_else(|| INNER.take());
    INNER.set(place.filter(|place| place != "."));
}

/// Reads `value`, a part of what is being read that a hand-written reader took apart (a reply's
/// `id`, a decision's fields), as a `T`: an error leaves its place (under `key`, if the part is
/// one key's value) for the reader around it, as a variant's does.
pub fn read_part<T: DeserializeOwned>(value: &Value, key: Option<&str>) -> Result<T, Error> {
    match key {
        Some(key) => {
            let at = Chain::Key { parent: &Chain::Root, key };
            apart_at(value, &at, |here| T::deserialize(here))
        }
        None => apart(value, |here| T::deserialize(here)),
    }
}

/// Reads `value` with `seed`: a tagged enum's variant ([`super::tagged`]), whose errors are placed
/// where the enum is, and then inside it.
pub(super) fn read_seed<'de, S: DeserializeSeed<'de>>(value: &'de Value, seed: S) -> Result<S::Value, Error> {
    apart(value, |here| seed.deserialize(here))
}

/// Reads `value` with `visitor` as [`read_seed`] does.
pub(super) fn read_any<'de, V: Visitor<'de>>(value: &'de Value, visitor: V) -> Result<V::Value, Error> {
    apart(value, |here| de::Deserializer::deserialize_any(here, visitor))
}

/// Reads `value` as a struct with `visitor` as [`read_seed`] does: from an object only, so no
/// reading by position is compiled for it.
pub(super) fn read_struct<'de, V: Visitor<'de>>(
    value: &'de Value,
    fields: &'static [&'static str],
    visitor: V,
) -> Result<V::Value, Error> {
    apart(value, |here| de::Deserializer::deserialize_struct(here, "", fields, visitor))
}

/// What a struct given an array is told: serde's derives would read it by position, which no page
/// means.
pub(super) const ARRAY_FOR_OBJECT: &str = "got an array; expected an object (with named keys)";

/// Where a value is: its parent and the key or index that leads to it.
enum Chain<'a> {
    Root,
    Seq { parent: &'a Chain<'a>, index: usize },
    Key { parent: &'a Chain<'a>, key: &'a str },
}

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Chain::Root => Ok(()),
            Chain::Seq { parent, index } => write!(f, "{parent}[{index}]"),
            Chain::Key { parent: parent @ Chain::Root, key } => write!(f, "{parent}{key}"),
            Chain::Key { parent, key } => write!(f, "{parent}.{key}"),
        }
    }
}

/// The place of the first error, once one happened.
struct Track(RefCell<Option<String>>);

impl Track {
    /// `error`, noting `at` as its place if no deeper place was noted: `at`, and where inside a
    /// tagged enum's variant read apart it happened, if it did ([`INNER`]).
    fn trigger(&self, at: &Chain, error: Error) -> Error {
        let inner = INNER.take();
        let mut place = self.0.borrow_mut();
        if place.is_none() {
            *place = Some(match (at, inner) {
                (Chain::Root, None) => ".".to_string(),
                (Chain::Root, Some(inner)) => inner,
                (at, None) => at.to_string(),
                (at, Some(inner)) if inner.starts_with('[') => format!("{at}{inner}"),
                (at, Some(inner)) => format!("{at}.{inner}"),
            });
        }
        error
    }
}

/// One value being read, and where it is.
#[derive(Clone, Copy)]
struct Tracked<'a, 'de> {
    value: &'de Value,
    at: &'a Chain<'a>,
    track: &'a Track,
}

/// What serde_json says a value is, in errors.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (None, None, f) => Unexpected::Float(f.unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

impl<'a, 'de> Tracked<'a, 'de> {
    fn invalid_type(&self, expected: &dyn Expected) -> Error {
        de::Error::invalid_type(unexpected(self.value), expected)
    }

    /// A result of reading this value, its error placed here unless placed deeper.
    fn placed<T>(&self, result: Result<T, Error>) -> Result<T, Error> {
        result.map_err(|e| self.track.trigger(self.at, e))
    }

    fn seq<V: Visitor<'de>>(self, items: &'de [Value], visitor: V) -> Result<V::Value, Error> {
        let mut access = Items { items: items.iter(), index: 0, at: self.at, track: self.track };
        let read = visitor.visit_seq(&mut access)?;
        match access.items.len() {
            0 => Ok(read),
            _ => Err(de::Error::invalid_length(items.len(), &"fewer elements in array")),
        }
    }

    fn map<V: Visitor<'de>>(self, fields: &'de Map<String, Value>, visitor: V) -> Result<V::Value, Error> {
        let mut access = Fields { fields: fields.iter(), next: None, at: self.at, track: self.track };
        let read = visitor.visit_map(&mut access)?;
        match access.fields.len() {
            0 => Ok(read),
            _ => Err(de::Error::invalid_length(fields.len(), &"fewer elements in map")),
        }
    }

    fn any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => de::Deserializer::deserialize_any(n, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => self.seq(items, visitor),
            Value::Object(fields) => self.map(fields, visitor),
        }
    }

    fn number<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Number(n) => de::Deserializer::deserialize_any(n, visitor),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::String(s) => visitor.visit_borrowed_str(s),
            _ => Err(self.invalid_type(&visitor)),
        }
    }

    fn enumeration<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(fields) => {
                let mut entries = fields.iter();
                match (entries.next(), entries.next()) {
                    (Some((variant, value)), None) => {
                        visitor.visit_enum(Variant { variant, value: Some(value), of: self })
                    }
                    _ => Err(de::Error::invalid_value(Unexpected::Map, &"map with a single key")),
                }
            }
            Value::String(variant) => visitor.visit_enum(Variant { variant, value: None, of: self }),
            other => Err(de::Error::invalid_type(unexpected(other), &"string or map")),
        }
    }
}

impl<'de> de::Deserializer<'de> for Tracked<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.any(visitor))
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let read = match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        };
        self.placed(read)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.placed(self.enumeration(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.placed(visitor.visit_newtype_struct(self))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let read = match self.value {
            Value::Bool(b) => visitor.visit_bool(*b),
            _ => Err(self.invalid_type(&visitor)),
        };
        self.placed(read)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.str(visitor))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.str(visitor))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.str(visitor))
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let read = match self.value {
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => self.seq(items, visitor),
            _ => Err(self.invalid_type(&visitor)),
        };
        self.placed(read)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let read = match self.value {
            Value::Null => visitor.visit_unit(),
            _ => Err(self.invalid_type(&visitor)),
        };
        self.placed(read)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let read = match self.value {
            Value::Array(items) => self.seq(items, visitor),
            _ => Err(self.invalid_type(&visitor)),
        };
        self.placed(read)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let read = match self.value {
            Value::Object(fields) => self.map(fields, visitor),
            _ => Err(self.invalid_type(&visitor)),
        };
        self.placed(read)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // Not an array read by position, as serde would: an object has named keys.
        let read = match self.value {
            Value::Object(fields) => self.map(fields, visitor),
            Value::Array(_) => Err(de::Error::custom(ARRAY_FOR_OBJECT)),
            _ => Err(self.invalid_type(&visitor)),
        };
        self.placed(read)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.str(visitor))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(visitor.visit_unit())
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.placed(self.number(visitor))
    }
}

/// An array's elements, each read where it is (`[2]`).
struct Items<'a, 'de> {
    items: std::slice::Iter<'de, Value>,
    index: usize,
    at: &'a Chain<'a>,
    track: &'a Track,
}

impl<'de> SeqAccess<'de> for Items<'_, 'de> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, Error> {
        let Some(value) = self.items.next() else { return Ok(None) };
        let at = Chain::Seq { parent: self.at, index: self.index };
        self.index += 1;
        seed.deserialize(Tracked { value, at: &at, track: self.track }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An object's entries, each value read under its key; a key's error is the object's.
struct Fields<'a, 'de> {
    fields: serde_json::map::Iter<'de>,
    next: Option<(&'de String, &'de Value)>,
    at: &'a Chain<'a>,
    track: &'a Track,
}

impl<'de> MapAccess<'de> for Fields<'_, 'de> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<Option<S::Value>, Error> {
        let Some((key, value)) = self.fields.next() else { return Ok(None) };
        self.next = Some((key, value));
        let key: BorrowedStrDeserializer<Error> = BorrowedStrDeserializer::new(key);
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let Some((key, value)) = self.next.take() else {
            return Err(de::Error::custom("value is missing"));
        };
        let at = Chain::Key { parent: self.at, key };
        seed.deserialize(Tracked { value, at: &at, track: self.track })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.fields.len())
    }
}

/// An enum's variant (`"name"` or `{"name": content}`); its content is read under its name.
struct Variant<'a, 'de> {
    variant: &'de str,
    value: Option<&'de Value>,
    of: Tracked<'a, 'de>,
}

impl<'a, 'de> EnumAccess<'de> for Variant<'a, 'de> {
    type Error = Error;
    type Variant = Variant<'a, 'de>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let name: StrDeserializer<Error> = self.variant.into_deserializer();
        Ok((seed.deserialize(name)?, self))
    }
}

impl<'de> Variant<'_, 'de> {
    /// Reads the content with `read`, placed under the variant's name.
    fn content<T>(
        &self,
        read: impl FnOnce(Tracked<'_, 'de>, &'de Value) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let at = Chain::Key { parent: self.of.at, key: self.variant };
        let here = Tracked { value: self.value.unwrap_or(&Value::Null), at: &at, track: self.of.track };
        let read = match self.value {
            Some(value) => read(here, value),
            None => read(here, &Value::Null),
        };
        here.placed(read)
    }
}

impl<'de> VariantAccess<'de> for Variant<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            Some(_) => self.content(|here, _| de::Deserialize::deserialize(here)),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        match self.value {
            Some(_) => self.content(|here, _| seed.deserialize(here)),
            None => Err(self.of.track.trigger(
                &Chain::Key { parent: self.of.at, key: self.variant },
                de::Error::invalid_type(Unexpected::UnitVariant, &"newtype variant"),
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.content(|here, value| match value {
            Value::Array(items) if items.is_empty() => visitor.visit_unit(),
            Value::Array(items) => here.seq(items, visitor),
            _ if self.value.is_none() => {
                Err(de::Error::invalid_type(Unexpected::UnitVariant, &"tuple variant"))
            }
            other => Err(de::Error::invalid_type(unexpected(other), &"tuple variant")),
        })
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.content(|here, value| match value {
            Value::Object(fields) => here.map(fields, visitor),
            _ if self.value.is_none() => {
                Err(de::Error::invalid_type(Unexpected::UnitVariant, &"struct variant"))
            }
            other => Err(de::Error::invalid_type(unexpected(other), &"struct variant")),
        })
    }
}
