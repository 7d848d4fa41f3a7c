//! Compare-and-set of one row: the write the backfill makes while other
//! writers run, so that it never overwrites a newer value or brings a
//! deleted row back.

/// A write of one key applied only if the key holds, at that moment, what
/// the caller expects: Cloud Bigtable's `CheckAndMutateRow`, DynamoDB's
/// condition expression, a transaction on the embedded stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cas {
    /// The row key.
    pub key: Vec<u8>,
    /// The value the key must hold for the write to apply; `None`: the key
    /// must be absent.
    pub expect: Option<Vec<u8>>,
    /// The value to store; `None`: delete the key.
    pub set: Option<Vec<u8>>,
}

impl Cas {
    /// Sets `key` to `value` if it is absent.
    pub fn put_if_absent(key: Vec<u8>, value: Vec<u8>) -> Self {
        Cas {
            key,
            expect: None,
            set: Some(value),
        }
    }

    /// Deletes `key` if it holds `value`.
    pub fn delete_if(key: Vec<u8>, value: Vec<u8>) -> Self {
        Cas {
            key,
            expect: Some(value),
            set: None,
        }
    }

    /// Whether the check holds for `current` (the value the key holds).
    pub fn holds(&self, current: Option<&[u8]>) -> bool {
        self.expect.as_deref() == current
    }
}
