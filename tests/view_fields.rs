//! Every field name a text view prints by name (and so leaves out of the raw
//! remainder) exists in that message's schema table: a field renamed in a
//! schema cannot silently drop out of the output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use pbdecode::render::{onnx_view, tf_view};
use pbdecode::schema::SchemaSet;

fn check(view: &str, lists: &[(&str, &[&str])]) -> usize {
    let set = SchemaSet::builtin();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (message, names) in lists {
        let Some(id) = set.find_message(message) else {
            missing.push(format!("{view}: no message {message}"));
            continue;
        };
        let def = set.message(id);
        for name in *names {
            checked += 1;
            if def.field_by_name(name).is_none() {
                missing.push(format!("{view}: {message} has no field {name}"));
            }
        }
    }
    assert!(missing.is_empty(), "unknown names:\n{}", missing.join("\n"));
    checked
}

#[test]
fn onnx_view_names_only_fields_of_its_messages() {
    let n = check("onnx_view", onnx_view::shown_field_lists());
    assert!(n > 50, "only {n} names checked");
}

#[test]
fn tf_view_names_only_fields_of_its_messages() {
    let n = check("tf_view", tf_view::shown_field_lists());
    assert!(n > 50, "only {n} names checked");
}

#[test]
fn a_misspelt_name_is_caught() {
    let set = SchemaSet::builtin();
    let id = set.find_message("onnx.TensorProto").unwrap();
    assert!(set.message(id).field_by_name("raw_data").is_some());
    assert!(set.message(id).field_by_name("raw_dat").is_none());
}
