//! Transactions and values: opening a transaction with a durability hint, awaiting its end, reading
//! IndexedDB's errors as [`StoreError`]s, and converting records and keys to and from JS.
//!
//! A transaction stays open only while requests are pending: it commits at the first await on
//! anything else. Everything here awaits IndexedDB requests only, and callers must keep it so
//! (never a model call, a tool call or a timer inside a transaction).

use js_sys::Array;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DomException, IdbDatabase, IdbTransaction};

use crate::store::layout::KeyRange;
use crate::store::StoreError;

#[wasm_bindgen]
extern "C" {
    // `db.transaction(stores, mode, {durability})`: web-sys has it only behind
    // `--cfg=web_sys_unstable_apis`, and `idb` not at all.
    #[wasm_bindgen(js_name = IDBDatabase)]
    type DatabaseWithOptions;
    #[wasm_bindgen(catch, method, js_name = transaction)]
    fn transaction_with_options(
        this: &DatabaseWithOptions,
        stores: &Array,
        mode: &str,
        options: &JsValue,
    ) -> Result<IdbTransaction, JsValue>;

    // `tx.commit()`, where the browser has it (web-sys marks it deprecated).
    #[wasm_bindgen(js_name = IDBTransaction)]
    type Committable;
    #[wasm_bindgen(method, getter, js_name = commit)]
    fn commit_method(this: &Committable) -> JsValue;
    #[wasm_bindgen(catch, method, js_name = commit)]
    fn commit_now(this: &Committable) -> Result<(), JsValue>;
}

/// How hard a write transaction pushes its data to disk before it reports completion.
///
/// `Relaxed` completes once the OS has the data: it survives a closed tab, a reload, a killed
/// worker or a browser crash, and is lost only if the OS itself goes down (power loss) within the
/// next few seconds. `Strict` completes only after a flush to disk. Chrome's default is `relaxed`
/// since Chrome 121 (it was `strict` before; Firefox and Safari were already relaxed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Durability {
    /// Flushed before `complete`.
    Strict,
    /// In the OS's hands at `complete`.
    Relaxed,
}

/// An open transaction: `idb`'s handle (its requests and completion future) and the raw one (for
/// the reason of an abort, which `idb` does not keep).
pub(super) struct Tx {
    pub(super) tx: idb::Transaction,
    raw: IdbTransaction,
}

impl Tx {
    /// Opens a transaction on `stores`: read-only, or read-write with `durability`.
    pub(super) fn begin(
        db: &IdbDatabase,
        stores: &[&str],
        write: Option<Durability>,
    ) -> Result<Tx, StoreError> {
        let names: Array = stores.iter().map(|s| JsValue::from_str(s)).collect();
        let raw = match write {
            None => db.transaction_with_str_sequence(&names),
            Some(durability) => {
                let options = js_sys::Object::new();
                let hint = match durability {
                    Durability::Strict => "strict",
                    Durability::Relaxed => "relaxed",
                };
                let _ = js_sys::Reflect::set(
                    &options,
                    &JsValue::from_str("durability"),
                    &JsValue::from_str(hint),
                );
                db.unchecked_ref::<DatabaseWithOptions>().transaction_with_options(
                    &names,
                    "readwrite",
                    &options,
                )
            }
        }
        .map_err(|e| js_error("open a transaction", &e))?;
        Ok(Tx { tx: idb::Transaction::from(raw.clone()), raw })
    }

    /// An object store of the transaction.
    pub(super) fn store(&self, name: &str) -> Result<idb::ObjectStore, StoreError> {
        self.tx.object_store(name).map_err(|e| idb_error("open a store", &e))
    }

    /// Waits until the transaction has committed; an abort is an error with its reason.
    pub(super) async fn done(self) -> Result<(), StoreError> {
        let raw = self.raw;
        match self.tx.await {
            Ok(idb::TransactionResult::Committed) => Ok(()),
            Ok(idb::TransactionResult::Aborted) => Err(match raw.error() {
                Some(e) => dom_error("commit", &e),
                None => StoreError::Failed("the transaction was aborted".into()),
            }),
            Err(e) => Err(idb_error("commit", &e)),
        }
    }

    /// Commits now, with the requests made so far, rather than once their results have reached
    /// this thread, and waits until it has committed. For writes only: nothing can be read back.
    pub(super) async fn commit(self) -> Result<(), StoreError> {
        let committable = self.raw.unchecked_ref::<Committable>();
        if committable.commit_method().is_function() {
            // An error here (the transaction already finished) is the abort `done` reports.
            let _ = committable.commit_now();
        }
        self.done().await
    }
}

/// An `idb` error as a [`StoreError`], classified on the `DOMException`'s name.
pub(super) fn idb_error(doing: &str, e: &idb::Error) -> StoreError {
    use idb::Error as E;
    match e {
        E::DomException(d) => dom_error(doing, d),
        E::AddFailed(v)
        | E::ClearFailed(v)
        | E::CountFailed(v)
        | E::DeleteFailed(v)
        | E::GetAllFailed(v)
        | E::GetAllKeysFailed(v)
        | E::GetFailed(v)
        | E::IndexNotFound(v)
        | E::ObjectStoreNotFound(v)
        | E::OpenCursorFailed(v)
        | E::OpenKeyCursorFailed(v)
        | E::TransactionOpenFailed(v)
        | E::UpdateFailed(v)
        | E::CursorContinueFailed(v)
        | E::KeyRangeCreateFailed(v)
        | E::IndexCreateFailed(v)
        | E::ObjectStoreCreateFailed(v)
        | E::IndexedDbOpenFailed(v)
        | E::IndexedDbDeleteFailed(v)
        | E::TransactionAbortError(v)
        | E::TransactionCommitError(v) => js_error(doing, v),
        other => StoreError::Failed(format!("could not {doing}: {other}")),
    }
}

/// A thrown JS value (usually a `DOMException`) as a [`StoreError`].
pub(super) fn js_error(doing: &str, e: &JsValue) -> StoreError {
    match e.dyn_ref::<DomException>() {
        Some(d) => dom_error(doing, d),
        None => StoreError::Failed(format!("could not {doing}: {e:?}")),
    }
}

/// `QuotaExceededError` → full; a closed or outdated connection → unavailable; the rest failed.
pub(super) fn dom_error(doing: &str, e: &DomException) -> StoreError {
    let (name, message) = (e.name(), e.message());
    let text = format!("could not {doing}: {name}: {message}");
    match name.as_str() {
        "QuotaExceededError" => StoreError::QuotaExceeded(text),
        "InvalidStateError" | "VersionError" | "UnknownError" | "SecurityError" | "NotFoundError" => {
            StoreError::Unavailable(text)
        }
        _ => StoreError::Failed(text),
    }
}

/// A record (or a key) as a plain JS value, through JSON: what is stored is exactly the record's
/// serde JSON, which is also what the page reads.
pub(super) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, StoreError> {
    let text =
        serde_json::to_string(value).map_err(|e| StoreError::Failed(format!("could not encode: {e}")))?;
    js_sys::JSON::parse(&text).map_err(|e| js_error("encode", &e))
}

/// A stored value as `T`, or `None` when it is not one (corrupt, foreign, or from a newer layout).
/// Read through a `Value`, as the page's messages are: the records' types then need one
/// deserializer in the module, not a text reader of their own beside it (bench/results/wasm-size.md).
pub(super) fn from_js<T: DeserializeOwned>(value: &JsValue) -> Option<T> {
    crate::settings::read_quietly(&stored_json(value)?)
}

/// A stored value as JSON: once for every record type, not a copy in each `from_js`.
fn stored_json(value: &JsValue) -> Option<Value> {
    let text = js_sys::JSON::stringify(value).ok()?.as_string()?;
    serde_json::from_str(&text).ok()
}

/// Stored values as `T`s, and how many did not read.
pub(super) fn read_all<T: DeserializeOwned>(values: &[JsValue]) -> (Vec<T>, u32) {
    let records: Vec<T> = values.iter().filter_map(from_js).collect();
    let skipped = (values.len() - records.len()) as u32;
    (records, skipped)
}

/// A key range as an IndexedDB query (`None`: every key).
pub(super) fn query(range: &KeyRange) -> Result<Option<idb::Query>, StoreError> {
    let key = |v: &Option<Value>| v.as_ref().map(to_js).transpose();
    let (lower, upper) = (key(&range.lower)?, key(&range.upper)?);
    let range = match (&lower, &upper) {
        (None, None) => return Ok(None),
        (Some(l), Some(u)) => idb::KeyRange::bound(l, u, Some(range.lower_open), Some(range.upper_open)),
        (Some(l), None) => idb::KeyRange::lower_bound(l, Some(range.lower_open)),
        (None, Some(u)) => idb::KeyRange::upper_bound(u, Some(range.upper_open)),
    };
    range.map(|r| Some(idb::Query::KeyRange(r))).map_err(|e| idb_error("build a key range", &e))
}

/// Milliseconds since the epoch.
pub(super) fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
