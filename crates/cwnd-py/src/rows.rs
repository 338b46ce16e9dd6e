//! Result records (anything `Serialize`, `cwnd_sim::results`) as Python rows: one
//! dict per record, one key per serialized field, in field order. The Rust structs
//! state the schema once; nothing here names a column.
//!
//! A small serde `Serializer` does it: a record is a struct or, when it flattens
//! nested records, a map; each value is a scalar (integer, float, bool, string).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;
use serde::ser::{self, Impossible, Serialize, Serializer};

/// A list with one dict per record.
pub fn rows<'py, T: Serialize>(
    py: Python<'py>,
    records: impl IntoIterator<Item = T>,
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for record in records {
        list.append(row(py, &record)?)?;
    }
    Ok(list)
}

/// One record as a dict.
pub fn row<'py, T: Serialize>(py: Python<'py>, record: &T) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let fill = Row {
        dict: &dict,
        key: None,
    };
    record
        .serialize(fill)
        .map_err(|e| PyValueError::new_err(e.0))?;
    Ok(dict)
}

/// Why a record cannot be serialized; also used by `columns.rs`.
#[derive(Debug)]
pub struct Error(pub(crate) String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e.to_string())
    }
}

/// The serde shapes a serializer refuses: each answers "not a <what>".
macro_rules! refuse {
    ($what:literal; $($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, Error> {
            Err(Error(concat!("not a ", $what, " (", stringify!($method), ")").into()))
        })*
    };
}

pub(crate) use refuse;

/// The compound shapes (sequences, tuples, variants, options) refused everywhere.
macro_rules! refuse_compounds {
    ($what:literal) => {
        type SerializeSeq = Impossible<Self::Ok, Error>;
        type SerializeTuple = Impossible<Self::Ok, Error>;
        type SerializeTupleStruct = Impossible<Self::Ok, Error>;
        type SerializeTupleVariant = Impossible<Self::Ok, Error>;
        type SerializeStructVariant = Impossible<Self::Ok, Error>;
        refuse!($what;
            serialize_none() -> Self::Ok;
            serialize_unit() -> Self::Ok;
            serialize_unit_struct(&'static str) -> Self::Ok;
            serialize_bytes(&[u8]) -> Self::Ok;
            serialize_seq(Option<usize>) -> Self::SerializeSeq;
            serialize_tuple(usize) -> Self::SerializeTuple;
            serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
            serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
            serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
        );
        fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Self::Ok, Error> {
            Err(Error(concat!("not a ", $what, " (an option)").into()))
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, Error> {
            Err(Error(concat!("not a ", $what, " (an enum)").into()))
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            value: &T,
        ) -> Result<Self::Ok, Error> {
            value.serialize(self)
        }
    };
}

pub(crate) use refuse_compounds;

/// Fills `dict` with the fields of a struct or the entries of a map.
struct Row<'a, 'py> {
    dict: &'a Bound<'py, PyDict>,
    /// The key of the map entry whose value comes next.
    key: Option<String>,
}

impl Row<'_, '_> {
    fn set<T: Serialize + ?Sized>(&self, name: &str, value: &T) -> Result<(), Error> {
        let cell = value
            .serialize(Scalar(self.dict.py()))
            .map_err(|e| Error(format!("result column {name}: {e}")))?;
        Ok(self.dict.set_item(name, cell)?)
    }
}

impl ser::SerializeStruct for Row<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.set(name, value)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl ser::SerializeMap for Row<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(KeyName)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("a value without a key".into()))?;
        self.set(&key, value)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl<'a, 'py> Serializer for Row<'a, 'py> {
    type Ok = ();
    type Error = Error;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    refuse_compounds!("record");
    refuse!("record";
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> (); serialize_i16(i16) -> (); serialize_i32(i32) -> ();
        serialize_i64(i64) -> (); serialize_u8(u8) -> (); serialize_u16(u16) -> ();
        serialize_u32(u32) -> (); serialize_u64(u64) -> (); serialize_f32(f32) -> ();
        serialize_f64(f64) -> (); serialize_char(char) -> (); serialize_str(&str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
    );
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Error> {
        Ok(self)
    }
}

/// A column's value as a Python int, float, bool or str.
struct Scalar<'py>(Python<'py>);

impl<'py> Scalar<'py> {
    fn object<T: for<'a> IntoPyObject<'py>>(self, v: T) -> Result<Py<PyAny>, Error> {
        Ok(v.into_py_any(self.0)?)
    }
}

impl<'py> Serializer for Scalar<'py> {
    type Ok = Py<PyAny>;
    type Error = Error;
    type SerializeMap = Impossible<Self::Ok, Error>;
    type SerializeStruct = Impossible<Self::Ok, Error>;
    refuse_compounds!("scalar");
    refuse!("scalar";
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
    );
    fn serialize_bool(self, v: bool) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_i8(self, v: i8) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_f32(self, v: f32) -> Result<Self::Ok, Error> {
        self.object(v as f64)
    }
    fn serialize_f64(self, v: f64) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_char(self, v: char) -> Result<Self::Ok, Error> {
        self.object(v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<Self::Ok, Error> {
        self.object(v)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, Error> {
        self.object(variant)
    }
}

/// A map key: a column name.
struct KeyName;

impl Serializer for KeyName {
    type Ok = String;
    type Error = Error;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    refuse_compounds!("column name");
    refuse!("column name";
        serialize_bool(bool) -> String;
        serialize_i8(i8) -> String; serialize_i16(i16) -> String; serialize_i32(i32) -> String;
        serialize_i64(i64) -> String; serialize_u8(u8) -> String; serialize_u16(u16) -> String;
        serialize_u32(u32) -> String; serialize_u64(u64) -> String; serialize_f32(f32) -> String;
        serialize_f64(f64) -> String; serialize_char(char) -> String;
        serialize_unit_variant(&'static str, u32, &'static str) -> String;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
    );
    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_string())
    }
}
