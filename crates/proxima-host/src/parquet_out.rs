//! The runs table as Parquet: one row group, every column OPTIONAL (a compound axis may
//! leave a key empty), strings as UTF-8 byte arrays, integers as INT64, numbers as DOUBLE.
//! No compression codec is compiled in (the parquet crate without its default features):
//! a sweep's table is small, and the crate stays cheap to build.
//!
//! The bytes depend only on the table, so a sweep run locally and one run on Ray write the
//! same file.

use crate::spec::Cell;
use crate::table::{Kind, Table};
use parquet::basic::{LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::sync::Arc;

fn schema(table: &Table) -> Result<Type, String> {
    let fields = table
        .columns
        .iter()
        .map(|c| {
            let (physical, logical) = match c.kind {
                Kind::Str => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
                Kind::Int => (Physical::INT64, None),
                Kind::Float => (Physical::DOUBLE, None),
                Kind::Bool => (Physical::BOOLEAN, None),
            };
            Type::primitive_type_builder(&c.name, physical)
                .with_repetition(Repetition::OPTIONAL)
                .with_logical_type(logical)
                .build()
                .map(Arc::new)
                .map_err(|e| format!("column {}: {e}", c.name))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Type::group_type_builder("runs").with_fields(fields).build().map_err(|e| e.to_string())
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Str(s) => s.clone(),
        Cell::Int(i) => i.to_string(),
        Cell::Float(x) => serde_json::to_string(x).expect("finite"),
        Cell::Bool(b) => b.to_string(),
    }
}

/// The table as the bytes of a Parquet file.
pub fn to_parquet(table: &Table) -> Result<Vec<u8>, String> {
    let err = |e: parquet::errors::ParquetError| format!("parquet: {e}");
    let props = Arc::new(WriterProperties::builder().set_created_by("proxima-host".to_string()).build());
    let mut writer = SerializedFileWriter::new(Vec::new(), Arc::new(schema(table)?), props).map_err(err)?;
    let mut group = writer.next_row_group().map_err(err)?;
    let mut index = 0;
    while let Some(mut column) = group.next_column().map_err(err)? {
        let cells: Vec<Option<&Cell>> = table.rows.iter().map(|r| r[index].as_ref()).collect();
        let levels: Vec<i16> = cells.iter().map(|c| c.is_some() as i16).collect();
        let present = cells.iter().flatten();
        match table.columns[index].kind {
            Kind::Str => {
                let v: Vec<ByteArray> = present.map(|c| ByteArray::from(text(c).into_bytes())).collect();
                column.typed::<ByteArrayType>().write_batch(&v, Some(&levels), None).map_err(err)?;
            }
            Kind::Int => {
                let v: Vec<i64> = present.map(|c| if let Cell::Int(i) = c { *i } else { 0 }).collect();
                column.typed::<Int64Type>().write_batch(&v, Some(&levels), None).map_err(err)?;
            }
            Kind::Float => {
                let v: Vec<f64> = present
                    .map(|c| match c {
                        Cell::Float(x) => *x,
                        Cell::Int(i) => *i as f64,
                        _ => f64::NAN,
                    })
                    .collect();
                column.typed::<DoubleType>().write_batch(&v, Some(&levels), None).map_err(err)?;
            }
            Kind::Bool => {
                let v: Vec<bool> = present.map(|c| matches!(c, Cell::Bool(true))).collect();
                column.typed::<BoolType>().write_batch(&v, Some(&levels), None).map_err(err)?;
            }
        }
        column.close().map_err(err)?;
        index += 1;
    }
    group.close().map_err(err)?;
    writer.into_inner().map_err(err)
}
