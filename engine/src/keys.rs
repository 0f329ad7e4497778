//! API keys: persisted hashed in SQLite, cached in memory for the hot path.
//!
//! A key is `sy_` followed by 48 hex digits (24 random bytes). Only its
//! SHA-256 is stored. Authentication hashes the presented key, finds the
//! record by hash and confirms it with a constant-time comparison.
//!
//! The `switchyard keys …` commands write the same database from another
//! process; the [`KeyStoreActor`] notices through SQLite's `data_version` and
//! reloads the cache within a second, so changes take effect without a
//! restart.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use actix::prelude::*;
use arc_swap::ArcSwap;
use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::{
    EngineError,
    supervise::{Backoff, guarded},
};

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "switchyard.db";

/// Rate of the documentation key created on first start, requests per second.
pub const DOC_KEY_RATE: f64 = 1.0;

/// A stored key, without its secret.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyRecord {
    /// Row id.
    pub id: i64,
    /// First characters of the key, for operators.
    pub prefix: String,
    /// Account id the key acts for (returned by `/account/accountId`).
    pub account_id: String,
    /// Requests per second.
    pub rate_per_s: f64,
    /// Whether the key is revoked.
    pub revoked: bool,
    /// Creation time, unix seconds.
    pub created_at: u64,
    /// Operator note.
    pub label: Option<String>,
}

/// A newly created key: the secret is only ever shown here.
#[derive(Debug, Clone)]
pub struct NewKey {
    /// The secret key.
    pub key: String,
    /// Its record.
    pub record: KeyRecord,
}

/// Opens (and migrates) the database in `data_dir`.
pub fn open_db(data_dir: &Path) -> Result<Connection, EngineError> {
    std::fs::create_dir_all(data_dir)
        .map_err(|source| EngineError::DataDir { path: data_dir.display().to_string(), source })?;
    let conn = Connection::open(data_dir.join(DB_FILE))?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         CREATE TABLE IF NOT EXISTS api_keys (
             id INTEGER PRIMARY KEY,
             key_hash BLOB NOT NULL UNIQUE,
             prefix TEXT NOT NULL,
             account_id TEXT NOT NULL,
             rate_per_s REAL NOT NULL,
             revoked INTEGER NOT NULL DEFAULT 0,
             created_at INTEGER NOT NULL,
             label TEXT
         );
         CREATE TABLE IF NOT EXISTS volume (
             chain_id INTEGER PRIMARY KEY,
             usd REAL NOT NULL,
             tx_count INTEGER NOT NULL
         );",
    )?;
    Ok(conn)
}

fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

fn random_bytes<const N: usize>() -> Result<[u8; N], EngineError> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).map_err(|_| EngineError::Random)?;
    Ok(b)
}

fn now_unix() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn row_to_record(row: &rusqlite::Row<'_>) -> rusqlite::Result<(Vec<u8>, KeyRecord)> {
    Ok((
        row.get(0)?,
        KeyRecord {
            id: row.get(1)?,
            prefix: row.get(2)?,
            account_id: row.get(3)?,
            rate_per_s: row.get(4)?,
            revoked: row.get::<_, i64>(5)? != 0,
            created_at: u64::try_from(row.get::<_, i64>(6)?).unwrap_or(0),
            label: row.get(7)?,
        },
    ))
}

const SELECT: &str =
    "SELECT key_hash, id, prefix, account_id, rate_per_s, revoked, created_at, label FROM api_keys";

/// Synchronous key store over one SQLite connection.
#[derive(Debug)]
pub struct KeyStore {
    conn: Connection,
}

impl KeyStore {
    /// Opens the store in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, EngineError> {
        Ok(Self { conn: open_db(data_dir)? })
    }

    /// Creates a key with its own fresh account id.
    pub fn create(&self, rate_per_s: f64, label: Option<&str>) -> Result<NewKey, EngineError> {
        let secret = random_bytes::<24>()?;
        let key = format!("sy_{}", alloy_primitives::hex::encode(secret));
        let a = random_bytes::<16>()?;
        let hex = alloy_primitives::hex::encode(a);
        // A UUID-shaped account id (version 4, variant 1 bits set).
        let account_id = format!(
            "{}-{}-4{}-{:x}{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[13..16],
            (a[8] & 0x3) | 0x8,
            &hex[17..20],
            &hex[20..32]
        );
        let record = KeyRecord {
            id: 0,
            prefix: key[..10].to_owned(),
            account_id,
            rate_per_s,
            revoked: false,
            created_at: now_unix(),
            label: label.map(str::to_owned),
        };
        self.conn.execute(
            "INSERT INTO api_keys (key_hash, prefix, account_id, rate_per_s, revoked, created_at, label)
             VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6)",
            params![
                hash_key(&key).as_slice(),
                record.prefix,
                record.account_id,
                record.rate_per_s,
                i64::try_from(record.created_at).unwrap_or(i64::MAX),
                record.label
            ],
        )?;
        let id = self.conn.last_insert_rowid();
        Ok(NewKey { key, record: KeyRecord { id, ..record } })
    }

    /// Every key, oldest first.
    pub fn list(&self) -> Result<Vec<KeyRecord>, EngineError> {
        let mut stmt = self.conn.prepare(&format!("{SELECT} ORDER BY id"))?;
        let rows = stmt.query_map([], row_to_record)?;
        Ok(rows.map(|r| r.map(|(_, k)| k)).collect::<Result<_, _>>()?)
    }

    /// Revokes a key by id or prefix; returns whether one was found.
    pub fn revoke(&self, id_or_prefix: &str) -> Result<bool, EngineError> {
        let n = match id_or_prefix.parse::<i64>() {
            Ok(id) => self.conn.execute("UPDATE api_keys SET revoked = 1 WHERE id = ?1", [id])?,
            Err(_) => self.conn.execute(
                "UPDATE api_keys SET revoked = 1 WHERE prefix = ?1 OR key_hash = ?2",
                params![id_or_prefix, hash_key(id_or_prefix).as_slice()],
            )?,
        };
        Ok(n > 0)
    }

    /// Whether no key was ever created.
    pub fn is_empty(&self) -> Result<bool, EngineError> {
        let n: i64 = self.conn.query_row("SELECT COUNT(*) FROM api_keys", [], |r| r.get(0))?;
        Ok(n == 0)
    }

    fn data_version(&self) -> Result<i64, EngineError> {
        Ok(self.conn.query_row("PRAGMA data_version", [], |r| r.get(0))?)
    }

    pub(crate) fn load_cache(&self) -> Result<KeyCache, EngineError> {
        let mut stmt = self.conn.prepare(SELECT)?;
        let mut by_hash = HashMap::new();
        for r in stmt.query_map([], row_to_record)? {
            let (hash, rec) = r?;
            if let Ok(h) = <[u8; 32]>::try_from(hash.as_slice()) {
                by_hash.insert(h, Arc::new(rec));
            }
        }
        Ok(KeyCache { by_hash })
    }

    /// Looks a key up directly in the database (used by tests and tools).
    pub fn find(&self, key: &str) -> Result<Option<KeyRecord>, EngineError> {
        Ok(self
            .conn
            .query_row(
                &format!("{SELECT} WHERE key_hash = ?1"),
                [hash_key(key).as_slice()],
                row_to_record,
            )
            .optional()?
            .map(|(_, k)| k))
    }
}

/// In-memory view of every key, by hash.
#[derive(Debug, Default)]
pub struct KeyCache {
    by_hash: HashMap<[u8; 32], Arc<KeyRecord>>,
}

impl KeyCache {
    /// Authenticates a presented key.
    pub fn authenticate(&self, key: &str) -> Result<Arc<KeyRecord>, EngineError> {
        let h = hash_key(key);
        let (stored, rec) = self.by_hash.get_key_value(&h).ok_or(EngineError::Unauthenticated)?;
        if !bool::from(stored.ct_eq(&h)) {
            return Err(EngineError::Unauthenticated);
        }
        if rec.revoked {
            return Err(EngineError::Revoked);
        }
        Ok(Arc::clone(rec))
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.by_hash.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }
}

/// Owns the key database for the running server and keeps the shared
/// [`KeyCache`] current.
pub(crate) struct KeyStoreActor {
    data_dir: PathBuf,
    store: Option<KeyStore>,
    cache: Arc<ArcSwap<KeyCache>>,
    seen_version: i64,
    backoff: Backoff,
    pause: Duration,
}

impl KeyStoreActor {
    pub(crate) fn new(data_dir: PathBuf, cache: Arc<ArcSwap<KeyCache>>) -> Self {
        Self {
            data_dir,
            store: None,
            cache,
            seen_version: -1,
            backoff: Backoff::default(),
            pause: Duration::ZERO,
        }
    }

    fn store(&mut self) -> Result<&KeyStore, EngineError> {
        if self.store.is_none() {
            self.store = Some(KeyStore::open(&self.data_dir)?);
        }
        self.store.as_ref().ok_or(EngineError::Unavailable("key store"))
    }

    fn refresh(&mut self, force: bool) -> Result<(), EngineError> {
        let seen = self.seen_version;
        let store = self.store()?;
        let v = store.data_version()?;
        // data_version changes only on commits by *other* connections, so a
        // write through this actor forces the reload.
        if force || v != seen {
            let cache = store.load_cache()?;
            self.seen_version = v;
            self.cache.store(Arc::new(cache));
        }
        Ok(())
    }
}

impl Actor for KeyStoreActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Self::Context) {
        Backoff::hold(self.pause, self, ctx);
        if let Err(e) = self.refresh(true) {
            tracing::error!(error = %crate::error_chain(&e), "key store failed to load");
        }
        ctx.run_interval(Duration::from_millis(500), |act, _| {
            if let Err(e) = act.refresh(false) {
                // Drop the connection; the next tick reopens it.
                act.store = None;
                tracing::warn!(error = %crate::error_chain(&e), "key store refresh failed");
            }
        });
    }
}

impl Supervised for KeyStoreActor {
    fn restarting(&mut self, _: &mut Self::Context) {
        self.store = None;
        self.seen_version = -1;
        self.pause = self.backoff.restarted();
    }
}

#[cfg(feature = "fault-injection")]
impl Handler<crate::supervise::Crash> for KeyStoreActor {
    type Result = Result<(), EngineError>;

    fn handle(&mut self, _: crate::supervise::Crash, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "key store", || panic!("injected fault"))
    }
}

/// Creates a key.
#[derive(Message)]
#[rtype(result = "Result<NewKey, EngineError>")]
pub(crate) struct CreateKey {
    pub(crate) rate_per_s: f64,
    pub(crate) label: Option<String>,
}

impl Handler<CreateKey> for KeyStoreActor {
    type Result = Result<NewKey, EngineError>;

    fn handle(&mut self, msg: CreateKey, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "key store", || {
            let k = self.store()?.create(msg.rate_per_s, msg.label.as_deref())?;
            self.refresh(true)?;
            Ok(k)
        })
    }
}

/// Creates the documentation key if the store is empty.
#[derive(Message)]
#[rtype(result = "Result<Option<NewKey>, EngineError>")]
pub(crate) struct EnsureDocKey;

impl Handler<EnsureDocKey> for KeyStoreActor {
    type Result = Result<Option<NewKey>, EngineError>;

    fn handle(&mut self, _: EnsureDocKey, ctx: &mut Self::Context) -> Self::Result {
        guarded(ctx, "key store", || {
            let store = self.store()?;
            if !store.is_empty()? {
                return Ok(None);
            }
            let k =
                store.create(DOC_KEY_RATE, Some("documentation key (created on first start)"))?;
            self.refresh(true)?;
            Ok(Some(k))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("switchyard-keys-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn keys_are_stored_hashed_and_authenticate() -> Result<(), EngineError> {
        let dir = temp_dir("hashed");
        let store = KeyStore::open(&dir)?;
        assert!(store.is_empty()?);
        let k = store.create(5.0, Some("bot"))?;
        assert!(k.key.starts_with("sy_") && k.key.len() == 51);
        // The secret is nowhere in the database file.
        drop(store);
        let bytes = std::fs::read(dir.join(DB_FILE)).unwrap_or_default();
        let wal = std::fs::read(dir.join(format!("{DB_FILE}-wal"))).unwrap_or_default();
        let needle = k.key.as_bytes();
        for b in [&bytes, &wal] {
            assert!(!b.windows(needle.len()).any(|w| w == needle));
        }
        let store = KeyStore::open(&dir)?;
        let cache = store.load_cache()?;
        let rec = cache.authenticate(&k.key)?;
        assert_eq!(rec.account_id, k.record.account_id);
        assert_eq!(rec.rate_per_s, 5.0);
        assert!(matches!(cache.authenticate("sy_nope"), Err(EngineError::Unauthenticated)));
        assert!(store.revoke(&k.record.prefix)?);
        assert!(matches!(store.load_cache()?.authenticate(&k.key), Err(EngineError::Revoked)));
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }

    #[test]
    fn account_ids_are_uuid_shaped_and_distinct() -> Result<(), EngineError> {
        let dir = temp_dir("uuid");
        let store = KeyStore::open(&dir)?;
        let a = store.create(1.0, None)?.record.account_id;
        let b = store.create(1.0, None)?.record.account_id;
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(a.as_bytes()[14], b'4');
        let _ = std::fs::remove_dir_all(&dir);
        Ok(())
    }
}
