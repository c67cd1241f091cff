//! A record file's table handed to Arrow through the C data interface
//! (<https://arrow.apache.org/docs/format/CDataInterface.html>) and its
//! PyCapsule protocol (`__arrow_c_schema__`, `__arrow_c_array__`): one
//! struct array, a child per feature, whose buffers are the table's own
//! (no copy, no Arrow library linked: pyarrow, polars or any consumer
//! imports them). Each node's private data keeps the table alive until
//! the consumer releases it.
//!
//! The types are tfx-bsl's: `large_list<int64 | float | large_binary>`
//! per feature (`large_list<null>` while no record gave it values), a
//! feature list `large_list<large_list<...>>`.

use pbdecode::{ColumnValues, ExampleTable, TableColumn};
use std::ffi::{CString, c_char, c_void};
use std::ptr;
use std::sync::Arc;

/// `ARROW_FLAG_NULLABLE`.
const NULLABLE: i64 = 2;

#[repr(C)]
pub struct ArrowSchema {
    format: *const c_char,
    name: *const c_char,
    metadata: *const c_char,
    flags: i64,
    n_children: i64,
    children: *mut *mut ArrowSchema,
    dictionary: *mut ArrowSchema,
    release: Option<unsafe extern "C" fn(*mut ArrowSchema)>,
    private_data: *mut c_void,
}

#[repr(C)]
pub struct ArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut ArrowArray,
    dictionary: *mut ArrowArray,
    release: Option<unsafe extern "C" fn(*mut ArrowArray)>,
    private_data: *mut c_void,
}

// SAFETY: the structures only point at their own private data (strings,
// children, buffer lists) and at the table's buffers, which an `Arc` in
// that private data keeps alive and nothing ever writes; the consumer
// takes them over whole (moving them and nulling `release` here).
unsafe impl Send for ArrowSchema {}
unsafe impl Send for ArrowArray {}

impl Drop for ArrowSchema {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: a schema not taken over by a consumer still owns its
            // private data; its own release callback frees it.
            unsafe { release(self) }
        }
    }
}

impl Drop for ArrowArray {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            // SAFETY: as for `ArrowSchema`.
            unsafe { release(self) }
        }
    }
}

struct SchemaPrivate {
    _format: CString,
    _name: CString,
    children: Vec<*mut ArrowSchema>,
}

unsafe extern "C" fn release_schema(schema: *mut ArrowSchema) {
    // SAFETY: called by the consumer (or our Drop) on a schema this module
    // made: its private data is a boxed `SchemaPrivate`, each child a
    // boxed `ArrowSchema`.
    unsafe {
        let Some(s) = schema.as_mut() else { return };
        if !s.private_data.is_null() {
            let private = Box::from_raw(s.private_data.cast::<SchemaPrivate>());
            for &child in &private.children {
                drop(Box::from_raw(child));
            }
        }
        s.private_data = ptr::null_mut();
        s.release = None;
    }
}

fn schema(format: &str, name: &str, flags: i64, children: Vec<ArrowSchema>) -> ArrowSchema {
    let format = CString::new(format).unwrap_or_default();
    // A name with a NUL byte cannot be a C string: its bytes up to the NUL.
    let name = CString::new(name.split('\0').next().unwrap_or_default()).unwrap_or_default();
    let mut children: Vec<*mut ArrowSchema> = children
        .into_iter()
        .map(|c| Box::into_raw(Box::new(c)))
        .collect();
    let private = Box::new(SchemaPrivate {
        _format: format,
        _name: name,
        children: Vec::new(),
    });
    let n_children = children.len() as i64;
    let children_ptr = children.as_mut_ptr();
    let private = Box::into_raw(private);
    // SAFETY: `private` was just made by `Box::into_raw`; the pointers
    // taken into it below stay valid while it lives (a CString's and a
    // Vec's heap buffers do not move when their owner does).
    unsafe {
        (*private).children = children;
        ArrowSchema {
            format: (*private)._format.as_ptr(),
            name: (*private)._name.as_ptr(),
            metadata: ptr::null(),
            flags,
            n_children,
            children: if n_children == 0 {
                ptr::null_mut()
            } else {
                children_ptr
            },
            dictionary: ptr::null_mut(),
            release: Some(release_schema),
            private_data: private.cast(),
        }
    }
}

struct ArrayPrivate {
    buffers: Vec<*const c_void>,
    children: Vec<*mut ArrowArray>,
    _table: Arc<ExampleTable>,
}

unsafe extern "C" fn release_array(array: *mut ArrowArray) {
    // SAFETY: as `release_schema`, for arrays.
    unsafe {
        let Some(a) = array.as_mut() else { return };
        if !a.private_data.is_null() {
            let private = Box::from_raw(a.private_data.cast::<ArrayPrivate>());
            for &child in &private.children {
                drop(Box::from_raw(child));
            }
        }
        a.private_data = ptr::null_mut();
        a.release = None;
    }
}

fn array(
    table: &Arc<ExampleTable>,
    length: u64,
    null_count: u64,
    buffers: Vec<*const c_void>,
    children: Vec<ArrowArray>,
) -> ArrowArray {
    let children: Vec<*mut ArrowArray> = children
        .into_iter()
        .map(|c| Box::into_raw(Box::new(c)))
        .collect();
    let mut private = Box::new(ArrayPrivate {
        buffers,
        children,
        _table: Arc::clone(table),
    });
    let n_buffers = private.buffers.len() as i64;
    let n_children = private.children.len() as i64;
    let buffers = private.buffers.as_mut_ptr();
    let children = private.children.as_mut_ptr();
    ArrowArray {
        length: length as i64,
        null_count: null_count as i64,
        offset: 0,
        n_buffers,
        n_children,
        buffers,
        children: if n_children == 0 {
            ptr::null_mut()
        } else {
            children
        },
        dictionary: ptr::null_mut(),
        release: Some(release_array),
        private_data: Box::into_raw(private).cast(),
    }
}

fn ptr_of<T>(v: &[T]) -> *const c_void {
    v.as_ptr().cast()
}

/// The Arrow format string of a column's values.
fn values_format(v: &ColumnValues) -> &'static str {
    match v {
        ColumnValues::Int64(_) => "l",
        ColumnValues::Float(_) => "f",
        ColumnValues::Bytes { .. } => "Z",
        _ => "n",
    }
}

fn values_array(table: &Arc<ExampleTable>, v: &ColumnValues) -> ArrowArray {
    match v {
        ColumnValues::Int64(x) => array(
            table,
            x.len() as u64,
            0,
            vec![ptr::null(), ptr_of(x)],
            vec![],
        ),
        ColumnValues::Float(x) => array(
            table,
            x.len() as u64,
            0,
            vec![ptr::null(), ptr_of(x)],
            vec![],
        ),
        ColumnValues::Bytes { offsets, data } => array(
            table,
            v.len(),
            0,
            vec![ptr::null(), ptr_of(offsets), ptr_of(data)],
            vec![],
        ),
        // The null type has no buffers.
        _ => array(table, 0, 0, vec![], vec![]),
    }
}

fn column_schema(c: &TableColumn) -> ArrowSchema {
    let values = schema(values_format(&c.values), "item", NULLABLE, vec![]);
    let inner = if c.list {
        schema("+L", "item", NULLABLE, vec![values])
    } else {
        values
    };
    schema("+L", &c.name, NULLABLE, vec![inner])
}

fn column_array(table: &Arc<ExampleTable>, c: &TableColumn) -> ArrowArray {
    let values = values_array(table, &c.values);
    let inner = if c.list {
        let steps = c.steps.len().saturating_sub(1) as u64;
        array(
            table,
            steps,
            0,
            vec![ptr::null(), ptr_of(&c.steps)],
            vec![values],
        )
    } else {
        values
    };
    let validity = if c.validity.nulls == 0 {
        ptr::null()
    } else {
        ptr_of(&c.validity.bits)
    };
    array(
        table,
        table.rows,
        c.validity.nulls,
        vec![validity, ptr_of(&c.offsets)],
        vec![inner],
    )
}

/// The table's schema: a struct of one field per column.
pub fn table_schema(table: &ExampleTable) -> ArrowSchema {
    schema(
        "+s",
        "",
        0,
        table.columns.iter().map(column_schema).collect(),
    )
}

/// The table as one struct array (a record batch).
pub fn table_array(table: &Arc<ExampleTable>) -> ArrowArray {
    let children = table
        .columns
        .iter()
        .map(|c| column_array(table, c))
        .collect();
    array(table, table.rows, 0, vec![ptr::null()], children)
}
