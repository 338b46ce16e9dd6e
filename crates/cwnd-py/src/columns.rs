//! Result records (anything `Serialize + Default`, `cwnd_sim::results`) as numpy
//! columns: one key per serialized field, in field order, one array per key. The
//! Rust structs state the schema once; nothing here names a column.
//!
//! The default record fixes the table's columns and their types (so an empty table
//! has them too): u8, u32, u64 and f64 fields become numpy arrays of that dtype, bool
//! fields numpy bools, strings a list of str. Every record then appends its values
//! to the columns, each checked against its column's type.

use numpy::IntoPyArray;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde::ser::{self, Impossible, Serialize, Serializer};

use crate::rows::{refuse, refuse_compounds, Error};

/// A dict of columns, one per field of `R`, holding every record's value; the
/// columns are allocated for as many records as `records` says it has at least.
pub fn columns<'py, R: Serialize + Default>(
    py: Python<'py>,
    records: impl IntoIterator<Item = R>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut table = Table::default();
    R::default()
        .serialize(Fields {
            table: &mut table,
            next: 0,
            defining: true,
        })
        .map_err(to_py)?;
    let records = records.into_iter();
    table.reserve(records.size_hint().0);
    for record in records {
        record
            .serialize(Fields {
                table: &mut table,
                next: 0,
                defining: false,
            })
            .map_err(to_py)?;
    }
    table.into_dict(py)
}

fn to_py(e: Error) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The columns being filled, with their names.
#[derive(Default)]
struct Table {
    columns: Vec<(&'static str, Column)>,
}

impl Table {
    fn reserve(&mut self, rows: usize) {
        for (_, column) in &mut self.columns {
            match column {
                Column::U8(v) => v.reserve(rows),
                Column::U32(v) => v.reserve(rows),
                Column::U64(v) => v.reserve(rows),
                Column::F64(v) => v.reserve(rows),
                Column::Bool(v) => v.reserve(rows),
                Column::Str(v) => v.reserve(rows),
            }
        }
    }

    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        for (name, column) in self.columns {
            match column {
                Column::U8(v) => d.set_item(name, v.into_pyarray(py))?,
                Column::U32(v) => d.set_item(name, v.into_pyarray(py))?,
                Column::U64(v) => d.set_item(name, v.into_pyarray(py))?,
                Column::F64(v) => d.set_item(name, v.into_pyarray(py))?,
                Column::Bool(v) => d.set_item(name, v.into_pyarray(py))?,
                Column::Str(v) => d.set_item(name, PyList::new(py, v)?)?,
            }
        }
        Ok(d)
    }
}

/// One column's values, typed by the default record's field.
enum Column {
    U8(Vec<u8>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<String>),
}

/// Serializes one record: with `defining`, the default record, whose fields become
/// the columns; otherwise a record whose fields are appended to the columns in
/// order. The record is of the default record's type, so its fields are the same:
/// each value is checked against its column's type, and the count at the end.
struct Fields<'a> {
    table: &'a mut Table,
    next: usize,
    defining: bool,
}

impl ser::SerializeStruct for Fields<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let columns = &mut self.table.columns;
        let done = if self.defining {
            value.serialize(NewColumn).map(|c| columns.push((name, c)))
        } else {
            match columns.get_mut(self.next) {
                Some((_, column)) => value.serialize(Append(column)),
                None => Err(Error("more fields than the table's".into())),
            }
        };
        done.map_err(|e| Error(format!("result column {name}: {e}")))?;
        self.next += 1;
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        if self.next == self.table.columns.len() {
            Ok(())
        } else {
            Err(Error("a record with fewer fields than the table's".into()))
        }
    }
}

impl<'a> Serializer for Fields<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Self;
    refuse_compounds!("record of columns");
    refuse!("record of columns";
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> (); serialize_i16(i16) -> (); serialize_i32(i32) -> ();
        serialize_i64(i64) -> (); serialize_u8(u8) -> (); serialize_u16(u16) -> ();
        serialize_u32(u32) -> (); serialize_u64(u64) -> (); serialize_f32(f32) -> ();
        serialize_f64(f64) -> (); serialize_char(char) -> (); serialize_str(&str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_map(Option<usize>) -> Self::SerializeMap;
    );
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
}

/// The scalar types a column can hold; the others are refused.
macro_rules! column_scalars_only {
    ($ok:ty) => {
        type Ok = $ok;
        type Error = Error;
        type SerializeMap = Impossible<$ok, Error>;
        type SerializeStruct = Impossible<$ok, Error>;
        refuse_compounds!("column value");
        refuse!("column value (u8, u32, u64, f64, bool or str)";
            serialize_i8(i8) -> $ok; serialize_i16(i16) -> $ok; serialize_i32(i32) -> $ok;
            serialize_i64(i64) -> $ok; serialize_u16(u16) -> $ok; serialize_f32(f32) -> $ok;
            serialize_char(char) -> $ok;
            serialize_unit_variant(&'static str, u32, &'static str) -> $ok;
            serialize_map(Option<usize>) -> Self::SerializeMap;
            serialize_struct(&'static str, usize) -> Self::SerializeStruct;
        );
    };
}

/// An empty column of the type of the value serialized.
struct NewColumn;

impl Serializer for NewColumn {
    column_scalars_only!(Column);
    fn serialize_bool(self, _: bool) -> Result<Column, Error> {
        Ok(Column::Bool(Vec::new()))
    }
    fn serialize_u8(self, _: u8) -> Result<Column, Error> {
        Ok(Column::U8(Vec::new()))
    }
    fn serialize_u32(self, _: u32) -> Result<Column, Error> {
        Ok(Column::U32(Vec::new()))
    }
    fn serialize_u64(self, _: u64) -> Result<Column, Error> {
        Ok(Column::U64(Vec::new()))
    }
    fn serialize_f64(self, _: f64) -> Result<Column, Error> {
        Ok(Column::F64(Vec::new()))
    }
    fn serialize_str(self, _: &str) -> Result<Column, Error> {
        Ok(Column::Str(Vec::new()))
    }
}

/// Appends the value serialized to the column, if it is of the column's type.
struct Append<'a>(&'a mut Column);

fn wrong_type() -> Error {
    Error("not of the type the default record gave the column".into())
}

impl Serializer for Append<'_> {
    column_scalars_only!(());
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        let Column::Bool(c) = self.0 else {
            return Err(wrong_type());
        };
        c.push(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        let Column::U8(c) = self.0 else {
            return Err(wrong_type());
        };
        c.push(v);
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        let Column::U32(c) = self.0 else {
            return Err(wrong_type());
        };
        c.push(v);
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        let Column::U64(c) = self.0 else {
            return Err(wrong_type());
        };
        c.push(v);
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        let Column::F64(c) = self.0 else {
            return Err(wrong_type());
        };
        c.push(v);
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        let Column::Str(c) = self.0 else {
            return Err(wrong_type());
        };
        c.push(v.to_string());
        Ok(())
    }
}
