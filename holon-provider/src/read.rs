//! Reading a JSON body with the path of every value at hand, so that a refusal names
//! where the body went wrong.

use holon_core::json_kind;
use serde_json::{Map, Value};

use crate::error::{ResponseError, ResponseErrorKind};

/// A value of the body and its path from the root.
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    pub(crate) value: &'a Value,
    path: &'a Path<'a>,
}

/// A path as a chain of steps, rendered only when an error needs it.
pub(crate) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    pub(crate) fn render(&self) -> String {
        match self {
            Path::Root => "$".to_string(),
            Path::Key(Path::Root, key) => (*key).to_string(),
            Path::Key(parent, key) => format!("{}.{key}", parent.render()),
            Path::Index(parent, index) => match parent {
                Path::Root => format!("$[{index}]"),
                _ => format!("{}[{index}]", parent.render()),
            },
        }
    }
}

impl<'a> At<'a> {
    pub(crate) fn root(value: &'a Value) -> Self {
        Self {
            value,
            path: &Path::Root,
        }
    }

    pub(crate) fn path(&self) -> String {
        self.path.render()
    }

    pub(crate) fn wrong(&self, expected: &str) -> ResponseError {
        ResponseError::new(
            ResponseErrorKind::WrongType,
            self.path(),
            format!("expected {expected}, found {}", json_kind(self.value)),
        )
    }

    pub(crate) fn object(&self) -> Result<&'a Map<String, Value>, ResponseError> {
        self.value
            .as_object()
            .ok_or_else(|| self.wrong("an object"))
    }

    pub(crate) fn array(&self) -> Result<&'a [Value], ResponseError> {
        self.value
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| self.wrong("an array"))
    }

    pub(crate) fn str(&self) -> Result<&'a str, ResponseError> {
        self.value.as_str().ok_or_else(|| self.wrong("a string"))
    }

    /// The field `key` of this object, `None` when absent or `null` (the providers'
    /// SDKs write an unset optional field either way).
    pub(crate) fn optional<R>(
        &self,
        key: &'a str,
        then: impl FnOnce(Option<At<'_>>) -> Result<R, ResponseError>,
    ) -> Result<R, ResponseError> {
        let map = self.object()?;
        match map.get(key) {
            None | Some(Value::Null) => then(None),
            Some(value) => {
                let path = Path::Key(self.path, key);
                then(Some(At { value, path: &path }))
            }
        }
    }

    /// The field `key` of this object, refused when absent or `null`.
    pub(crate) fn field<R>(
        &self,
        key: &'a str,
        then: impl FnOnce(At<'_>) -> Result<R, ResponseError>,
    ) -> Result<R, ResponseError> {
        let path = self.path;
        self.optional(key, |found| match found {
            Some(at) => then(at),
            None => Err(ResponseError::new(
                ResponseErrorKind::MissingField,
                Path::Key(path, key).render(),
                format!("the provider always sends `{key}` here"),
            )),
        })
    }

    /// Calls `each` with every element of this array and its index.
    pub(crate) fn each(
        &self,
        mut each: impl FnMut(usize, At<'_>) -> Result<(), ResponseError>,
    ) -> Result<(), ResponseError> {
        for (index, value) in self.array()?.iter().enumerate() {
            let path = Path::Index(self.path, index);
            each(index, At { value, path: &path })?;
        }
        Ok(())
    }

    /// The element `index` of this array.
    pub(crate) fn index<R>(
        &self,
        index: usize,
        then: impl FnOnce(At<'_>) -> Result<R, ResponseError>,
    ) -> Result<R, ResponseError> {
        let items = self.array()?;
        match items.get(index) {
            Some(value) => {
                let path = Path::Index(self.path, index);
                then(At { value, path: &path })
            }
            None => Err(ResponseError::new(
                ResponseErrorKind::Empty,
                self.path(),
                format!(
                    "expected at least {} element(s), found {}",
                    index + 1,
                    items.len()
                ),
            )),
        }
    }

    /// The string field `key`.
    pub(crate) fn string(&self, key: &'a str) -> Result<String, ResponseError> {
        self.field(key, |at| at.str().map(str::to_string))
    }
}

/// A copy of `value` with the `null`-valued keys of its objects left out: the
/// providers' SDKs dump unset optional fields as `null`, which some request types
/// refuse. Cloned whole, then pruned in place: a clone copies each object's hash table
/// as it is, where rebuilding the objects key by key would hash every key again.
pub(crate) fn without_nulls(value: &Value) -> Value {
    let mut copy = value.clone();
    drop_nulls(&mut copy);
    copy
}

/// Removes the `null`-valued keys of every object in `value`, in place.
pub(crate) fn drop_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, value| !value.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}
