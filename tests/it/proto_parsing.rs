//! .proto files as protoc reads them: the syntax protoc accepts (empty
//! statements, type names split over lines, editions features, `import
//! option`, visibility keywords), nesting bounded like protoc's, errors at
//! the offending token's line and column, and imports resolved below the
//! import roots (no absolute paths, no `..`, no symlinks leaving a root,
//! regular files only, a size cap, no content of other files in errors).
//!
//! The fixtures in `tests/fixtures/user-schema/syntax/` are accepted by
//! protoc 35.1, and `scripts/proto_crosscheck.py` finds pbdecode's reading of
//! each equal to protoc's descriptors; the snapshots keep that reading.
//!
//! What this suite checks, in full: .proto syntax as protoc reads it (editions, split type names,
//! empty statements; fixtures checked against protoc), protoc's nesting
//! limit, error positions, and import safety (absolute and `..` paths,
//! symlinks out of a root, devices, the size cap, no content of other files
//! in errors).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::print_stderr
)]

use pbdecode::schema::{FieldType, Label, SchemaSet, parse_proto};
use pbdecode::user_schema::{self, load_proto};
use std::path::{Path, PathBuf};

const SYNTAX: &str = "tests/fixtures/user-schema/syntax";

fn dump(set: &SchemaSet) -> String {
    let mut out = Vec::new();
    pbdecode::render::schema_view::write_schema_text(&mut out, set).unwrap();
    String::from_utf8(out).unwrap()
}

fn snap(name: &str, out: &str) {
    crate::common::snapshot_settings().bind(|| {
        insta::assert_snapshot!(format!("proto_parsing__{name}"), out);
    });
}

fn load_fixture(name: &str) -> SchemaSet {
    load_proto(&Path::new(SYNTAX).join(name), &[]).unwrap()
}

fn from_text(text: &str) -> Result<SchemaSet, String> {
    SchemaSet::from_files([("t.proto".to_string(), text.to_string())]).map_err(|e| e.to_string())
}

fn field<'a>(set: &'a SchemaSet, msg: &str, name: &str) -> &'a pbdecode::schema::FieldDef {
    let m = set.message(set.find_message(msg).unwrap());
    m.field_by_name(name).unwrap().1
}

/// A folder of its own under the system's temp folder, emptied first.
fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pbdecode-proto-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn fixtures_read_as_protoc_reads_them() {
    for name in [
        "editions.proto",
        "edition2024.proto",
        "split_names.proto",
        "empty_statements.proto",
        "options_and_keywords.proto",
    ] {
        let set = load_fixture(name);
        // Without the built-in google.protobuf copies some of them import.
        let own: Vec<String> = blocks(&dump(&set))
            .into_iter()
            .filter(|b| !b.lines().next().unwrap_or("").contains(" google.protobuf."))
            .collect();
        snap(name.trim_end_matches(".proto"), &(own.join("\n") + "\n"));
    }
}

#[test]
fn an_empty_statement_after_a_closing_brace() {
    // onnx.proto as shipped in the onnx wheel has `};` (it failed with
    // "line 257: cannot read ';'").
    let set = from_text("syntax = \"proto2\"; message A { optional int32 x = 1; };\n;").unwrap();
    assert!(set.find_message("A").is_some());
    // A byte order mark, as protoc allows.
    let set = from_text("\u{feff}syntax = \"proto3\"; message B {}").unwrap();
    assert!(set.find_message("B").is_some());
}

#[test]
fn type_names_split_over_lines() {
    let set = load_fixture("split_names.proto");
    let t = field(&set, "split.v1.Outer", "target");
    assert!(
        matches!(t.ty, FieldType::Message(m) if set.message(m).full_name == "split.v1.Outer.Target")
    );
    let k = field(&set, "split.v1.Outer", "kind_again");
    assert!(
        matches!(k.ty, FieldType::Enum(e) if set.enum_def(e).full_name == "split.v1.Outer.Target.Kind")
    );
    let o = field(&set, "split.v1.Outer", "others");
    assert!(matches!(o.ty, FieldType::Message(m) if set.message(m).full_name == "split.v1.Other"));
}

#[test]
fn editions_features_decide_packing_presence_and_encoding() {
    let set = load_fixture("editions.proto");
    assert!(field(&set, "ed.Packing", "packed_by_default").packed);
    assert!(!field(&set, "ed.Packing", "expanded").packed);
    assert!(!field(&set, "ed.Packing.Inner", "expanded_too").packed);
    assert!(field(&set, "ed.Packing.Inner", "values").packed);
    assert_eq!(
        field(&set, "ed.Presence", "legacy_required").label,
        Label::Required
    );
    assert!(field(&set, "ed.Presence", "delimited").group);
    assert!(field(&set, "ed.Presence", "delimited_list").group);
    assert!(!field(&set, "ed.Presence", "not_delimited_map").group);
    // The file's DELIMITED, written after the messages, still applies.
    assert!(field(&set, "ed.FileLevel", "child").group);
}

#[test]
fn edition_2024_visibility_and_option_imports() {
    let set = load_fixture("edition2024.proto");
    assert!(set.find_message("ed24.Visible.Hidden").is_some());
    assert!(set.find_enum("ed24.Level").is_some());
    let ast = parse_proto(
        b"edition = \"2024\"; import option \"opts.proto\"; import \"x.proto\";",
        true,
    )
    .unwrap();
    assert_eq!(ast.option_imports, ["opts.proto"]);
    assert_eq!(ast.imports, ["x.proto"]);
}

#[test]
fn proto3_optional_and_proto2_labels() {
    let set = from_text(
        "syntax = \"proto3\"; message A { optional int32 a = 1; int32 b = 2; repeated int32 c = 3; repeated int32 d = 4 [packed = false]; }",
    )
    .unwrap();
    assert!(field(&set, "A", "a").proto3_optional);
    assert!(!field(&set, "A", "b").proto3_optional);
    assert!(field(&set, "A", "c").packed);
    assert!(!field(&set, "A", "d").packed);
    let set = from_text(
        "syntax = \"proto2\"; message A { optional int32 a = 1; repeated int32 c = 3; repeated int32 d = 4 [packed = true]; }",
    )
    .unwrap();
    assert!(!field(&set, "A", "a").proto3_optional);
    assert!(!field(&set, "A", "c").packed);
    assert!(field(&set, "A", "d").packed);
}

fn nested(levels: usize) -> String {
    let mut s = String::from("syntax = \"proto2\";\n");
    for i in 0..levels {
        s.push_str(&format!("message M{i} {{\n"));
    }
    s.push_str(&"}".repeat(levels));
    s
}

#[test]
fn nesting_is_bounded_like_protoc() {
    // protoc reads 31 nested levels and refuses the 32nd.
    assert!(from_text(&nested(31)).is_ok());
    let e = from_text(&nested(32)).unwrap_err();
    assert!(e.contains("line 33, column 1"), "{e}");
    assert!(e.contains("nested more than 31 deep"), "{e}");
    // 10,000 levels overflowed the stack; now a clear error at once.
    let e = from_text(&nested(10_000)).unwrap_err();
    assert!(e.contains("nested more than 31 deep"), "{e}");
    // Groups count as messages, as in protoc.
    let mut g = String::from("syntax = \"proto2\"; message A {\n");
    for i in 0..40 {
        g.push_str(&format!("optional group G{i} = 1 {{\n"));
    }
    g.push_str(&"}".repeat(41));
    assert!(
        from_text(&g)
            .unwrap_err()
            .contains("nested more than 31 deep")
    );
}

#[test]
fn errors_point_at_the_offending_token() {
    let text = "syntax = \"proto3\";\nmessage A {\n  message B {\n    int32 x = ;\n  }\n}\n";
    let e = from_text(text).unwrap_err();
    assert!(e.contains("line 4, column 15"), "{e}");
    assert!(e.contains("expected a field number, found `;`"), "{e}");
    let e = from_text("message A {\n  int32 x = 1\n}").unwrap_err();
    assert!(
        e.contains("line 3, column 1: expected `;`, found `}`"),
        "{e}"
    );
    let e = from_text("message A {\n  int32 x = 1;\n").unwrap_err();
    assert!(e.contains("message A (line 1) is not closed"), "{e}");
    let e = from_text("message A { string s = 1 [default = \"abc\n]; }").unwrap_err();
    assert!(
        e.contains("line 1, column 37: this string is not closed"),
        "{e}"
    );
    // Errors found after parsing point at the field too.
    let e = from_text("syntax = \"proto3\";\nmessage A {\n  int32 a = 1;\n  Nope n = 2;\n}")
        .unwrap_err();
    assert!(
        e.contains("t.proto: line 4, column 3: A.n: unknown type Nope"),
        "{e}"
    );
    let e = from_text("syntax = \"proto3\";\nmessage A {\n  int32 a = 1;\n  string b = 1;\n}")
        .unwrap_err();
    assert!(
        e.contains("line 4, column 3: A.b: field number 1 is used twice"),
        "{e}"
    );
    let e = from_text("message A { int32 x = 536870912; }").unwrap_err();
    assert!(
        e.contains("column 23: field number 536870912 is outside"),
        "{e}"
    );
}

#[test]
fn imports_are_paths_below_the_roots() {
    let dir = temp_dir("imports");
    let main = dir.join("main.proto");
    for (import, why) in [
        ("/etc/passwd", "absolute path"),
        ("../../../../etc/passwd", "`..`"),
        ("a/./b.proto", "not a plain path"),
    ] {
        std::fs::write(&main, format!("syntax = \"proto3\"; import \"{import}\";")).unwrap();
        let e = load_proto(&main, &[]).unwrap_err().to_string();
        assert!(e.contains(why), "{import}: {e}");
        assert!(!e.contains("root:"), "{e}");
    }
}

#[test]
fn imports_are_found_in_the_roots_in_order() {
    let dir = temp_dir("roots");
    std::fs::create_dir_all(dir.join("inc/dep")).unwrap();
    std::fs::create_dir_all(dir.join("main/dep")).unwrap();
    std::fs::write(
        dir.join("inc/dep/d.proto"),
        "syntax = \"proto3\"; package from_include; message D {}",
    )
    .unwrap();
    std::fs::write(
        dir.join("main/dep/d.proto"),
        "syntax = \"proto3\"; package from_main; message D {}",
    )
    .unwrap();
    std::fs::write(
        dir.join("main/m.proto"),
        "syntax = \"proto3\"; import \"dep/d.proto\";",
    )
    .unwrap();
    // -I first, then the main file's folder.
    let set = load_proto(&dir.join("main/m.proto"), &[dir.join("inc")]).unwrap();
    assert!(set.find_message("from_include.D").is_some());
    let set = load_proto(&dir.join("main/m.proto"), &[]).unwrap();
    assert!(set.find_message("from_main.D").is_some());
    // Without -I, protoc's default root, the current folder, comes before
    // the main file's folder: what protoc finds is what pbdecode reads.
    std::fs::create_dir_all(dir.join("dep")).unwrap();
    std::fs::write(
        dir.join("dep/d.proto"),
        "syntax = \"proto3\"; package from_cwd; message D {}",
    )
    .unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(["--schema", "main/m.proto", "--dump-schema"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("message from_cwd.D"), "{text}");
    assert!(!text.contains("from_main"), "{text}");
}

#[test]
fn symlinks_may_not_leave_the_root() {
    let dir = temp_dir("symlink");
    std::fs::create_dir_all(dir.join("root")).unwrap();
    std::fs::create_dir_all(dir.join("outside")).unwrap();
    std::fs::write(
        dir.join("outside/secret.proto"),
        "syntax = \"proto3\"; message Secret {}",
    )
    .unwrap();
    std::os::unix::fs::symlink("../outside/secret.proto", dir.join("root/link.proto")).unwrap();
    std::os::unix::fs::symlink("../outside", dir.join("root/sub")).unwrap();
    for import in ["link.proto", "sub/secret.proto"] {
        std::fs::write(
            dir.join("root/m.proto"),
            format!("syntax = \"proto3\"; import \"{import}\";"),
        )
        .unwrap();
        let e = load_proto(&dir.join("root/m.proto"), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("leads outside"), "{e}");
    }
    // A symlink that stays inside the root is fine.
    std::fs::write(
        dir.join("root/real.proto"),
        "syntax = \"proto3\"; message R {}",
    )
    .unwrap();
    std::os::unix::fs::symlink("real.proto", dir.join("root/alias.proto")).unwrap();
    std::fs::write(
        dir.join("root/m.proto"),
        "syntax = \"proto3\"; import \"alias.proto\";",
    )
    .unwrap();
    assert!(load_proto(&dir.join("root/m.proto"), &[]).is_ok());
}

#[test]
fn imports_must_be_regular_files() {
    let dir = temp_dir("regular");
    std::fs::create_dir_all(dir.join("folder.proto")).unwrap();
    std::fs::write(
        dir.join("m.proto"),
        "syntax = \"proto3\"; import \"folder.proto\";",
    )
    .unwrap();
    let e = load_proto(&dir.join("m.proto"), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("is a folder; an import must be a regular file"),
        "{e}"
    );
    // A device, through a symlink inside the root.
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.proto")).unwrap();
    std::fs::write(
        dir.join("m.proto"),
        "syntax = \"proto3\"; import \"zero.proto\";",
    )
    .unwrap();
    let e = load_proto(&dir.join("m.proto"), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("zero.proto"), "{e}");
}

#[test]
fn devices_and_huge_files_are_refused_before_reading() {
    let e = load_proto(Path::new("/dev/zero"), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a device"), "{e}");
    let e = user_schema::read_user_file(Path::new("/dev/urandom"), 1 << 20)
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a device"), "{e}");
    let dir = temp_dir("big");
    let big = dir.join("big.proto");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(user_schema::MAX_PROTO_BYTES + 1).unwrap();
    let e = load_proto(&big, &[]).unwrap_err().to_string();
    assert!(e.contains("larger than 16 MiB"), "{e}");
}

#[test]
fn errors_never_show_the_content_of_other_files() {
    let dir = temp_dir("echo");
    std::fs::write(dir.join("notes.txt"), "SECRET-TOKEN=hunter2\n").unwrap();
    std::fs::write(
        dir.join("m.proto"),
        "syntax = \"proto3\"; import \"notes.txt\";",
    )
    .unwrap();
    let e = load_proto(&dir.join("m.proto"), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("notes.txt: line 1, column 1"), "{e}");
    assert!(!e.contains("SECRET") && !e.contains("hunter2"), "{e}");
    // The main file too, when it is not a .proto file.
    let e = load_proto(&dir.join("notes.txt"), &[])
        .unwrap_err()
        .to_string();
    assert!(!e.contains("SECRET") && !e.contains("hunter2"), "{e}");
    // A .proto file's own token is quoted.
    std::fs::write(dir.join("bad.proto"), "syntax = \"proto3\"; mesage A {}").unwrap();
    let e = load_proto(&dir.join("bad.proto"), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("found `mesage`"), "{e}");
}

/// The dump as a sorted list of blocks (a message or enum and its lines).
fn blocks(dump: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in dump.lines() {
        match out.last_mut() {
            Some(b) if line.starts_with(' ') => {
                b.push('\n');
                b.push_str(line);
            }
            _ => out.push(line.to_string()),
        }
    }
    out.sort();
    out
}

#[test]
fn descriptor_sets_carry_editions_features() {
    // syntax.desc: protoc's descriptor set of three of the fixtures. Editions
    // features live in options there (a LEGACY_REQUIRED field is
    // LABEL_OPTIONAL, a DELIMITED one TYPE_MESSAGE); both readings agree.
    let desc = std::fs::read(Path::new(SYNTAX).join("syntax.desc")).unwrap();
    let from_desc = user_schema::load_descriptor_set(&desc).unwrap();
    let mut from_proto = String::new();
    for name in [
        "editions.proto",
        "split_names.proto",
        "empty_statements.proto",
    ] {
        from_proto.push_str(&dump(&load_fixture(name)));
    }
    assert_eq!(blocks(&dump(&from_desc)), blocks(&from_proto));
    assert!(field(&from_desc, "ed.Presence", "delimited").group);
    assert_eq!(
        field(&from_desc, "ed.Presence", "legacy_required").label,
        Label::Required
    );
    assert!(!field(&from_desc, "ed.Packing", "expanded").packed);
}

#[test]
fn no_input_makes_the_parser_panic() {
    // Every prefix of every fixture, and each byte replaced by characters
    // that matter to the tokenizer: an error or a file, never a panic.
    let mut texts = Vec::new();
    for name in [
        "editions.proto",
        "edition2024.proto",
        "split_names.proto",
        "empty_statements.proto",
        "options_and_keywords.proto",
    ] {
        texts.push(std::fs::read(Path::new(SYNTAX).join(name)).unwrap());
    }
    for text in &texts {
        for end in 0..=text.len() {
            let _ = parse_proto(&text[..end], true);
        }
        for at in (0..text.len()).step_by(7) {
            for b in [b'{', b'}', b'"', b'/', b'*', b'.', b'-', b'0', 0xff, b'\\'] {
                let mut t = text.clone();
                t[at] = b;
                let _ = parse_proto(&t, true);
                let _ = SchemaSet::from_files([(
                    "m.proto".to_string(),
                    String::from_utf8_lossy(&t).into_owned(),
                )]);
            }
        }
    }
}

fn decode(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_decode"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn dump_schema_on_the_command_line() {
    let proto = format!("{SYNTAX}/editions.proto");
    let o = decode(&["--schema", &proto, "--dump-schema"]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("  1 required int32 legacy_required\n"),
        "{text}"
    );
    let o = decode(&["--schema", &proto, "--dump-schema", "--json"]);
    assert!(o.status.success());
    let json = String::from_utf8(o.stdout).unwrap();
    assert!(json.starts_with("{\"messages\": ["), "{json}");
    assert!(
        json.contains("{\"name\": \"delimited\", \"number\": 3, \"label\": \"optional\", \"type\": \"group\", \"type_name\": \"ed.Presence\", \"packed\": false, \"oneof\": null, \"proto3_optional\": false, \"map\": false}"),
        "{json}"
    );
    let desc = format!("{SYNTAX}/syntax.desc");
    let o = decode(&["--descriptor-set", &desc, "--dump-schema"]);
    assert!(o.status.success());
    assert!(
        String::from_utf8(o.stdout)
            .unwrap()
            .contains("message split.v1.Other\n")
    );
    // It prints the schema and reads no FILE.
    let o = decode(&["--schema", &proto, "--dump-schema", "x.pb"]);
    assert_eq!(o.status.code(), Some(2));
    let o = decode(&["--dump-schema"]);
    assert_eq!(o.status.code(), Some(2));
    // Without it, FILE is still required.
    let o = decode(&["--schema", &proto]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("<FILE>"));
    // A device as a schema: refused at once, exit 2.
    let o = decode(&["--descriptor-set", "/dev/urandom", "--dump-schema"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/dev/urandom: is a device"));
}

/// A LEN field (wire type 2) with a one-byte key and length.
fn len_field(number: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![(number << 3) | 2, u8::try_from(body.len()).unwrap()];
    out.extend_from_slice(body);
    out
}

#[test]
fn descriptor_set_names_are_escaped_in_errors() {
    // A field whose type name holds a terminal escape, resolving to nothing.
    let mut field = len_field(1, b"f");
    field.extend([3 << 3, 1, 4 << 3, 1, 5 << 3, 11]);
    field.extend(len_field(6, b".X\x1b[2J"));
    let mut message = len_field(1, b"M");
    message.extend(len_field(2, &field));
    let mut file = len_field(1, b"a\x1b]0;t\x07.proto");
    file.extend(len_field(4, &message));
    let set = len_field(1, &file);
    let e = user_schema::load_descriptor_set(&set)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown type .X\\u{1b}[2J"), "{e}");
    assert!(!e.chars().any(|c| c.is_control()), "{e:?}");
}

fn varint(mut v: usize, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(u8::try_from(v & 0x7f).unwrap() | 0x80);
        v >>= 7;
    }
    out.push(u8::try_from(v).unwrap());
}

#[test]
fn deeply_nested_descriptor_sets_do_not_overflow() {
    // 10,000 nested DescriptorProto.nested_type: read within the decoder's
    // depth budget, never recursing as deep as the input.
    let mut m = vec![(1 << 3) | 2, 1, b'M'];
    for _ in 0..10_000 {
        let mut outer = vec![(1 << 3) | 2, 1, b'M', (3 << 3) | 2];
        varint(m.len(), &mut outer);
        outer.extend_from_slice(&m);
        m = outer;
    }
    let mut file = vec![(4 << 3) | 2];
    varint(m.len(), &mut file);
    file.extend_from_slice(&m);
    let mut set = vec![(1 << 3) | 2];
    varint(file.len(), &mut set);
    set.extend_from_slice(&file);
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || user_schema::load_descriptor_set(&set).map(|s| s.messages.len()))
        .unwrap();
    // The decoder's depth budget (100) reads 99 levels, far more than the
    // 31 protoc writes; deeper ones are left out.
    let result = handle.join().expect("no stack overflow");
    assert_eq!(result, Ok(99));
}
