use super::*;

fn body(lines: usize) -> String {
    (0..lines).map(|k| format!("    let x{k} = {k};\n")).collect()
}

#[test]
fn a_function_is_measured_from_its_fn_line_to_its_closing_brace_and_its_test_module_skipped() {
    // `pub fn five(` on line 2 to `}` on line 14: 13 lines, its nested test module
    // included (it is inside the function); the `#[test]` in it is not measured.
    let text = format!(
        "/// Doc.\npub fn five(\n    a: u32,\n) -> u32 {{\n{}    #[cfg(test)]\n    mod inner {{\n        #[test]\n        fn t() {{}}\n    }}\n    a\n}}\n",
        body(3)
    );
    let measured = measure(&text).unwrap();
    assert_eq!(measured.functions, vec![Function { name: "five".into(), line: 2, lines: 13 }]);
    // 14 lines, of which the 5 of the inner test module (lines 8 to 12) are not
    // production code.
    assert_eq!(measured.production_lines, 9);
}

#[test]
fn code_after_a_test_module_in_the_middle_of_a_file_is_still_read() {
    let text = format!(
        "fn before() {{}}\n\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn long_test() {{\n{}    }}\n}}\n\nimpl Thing {{\n    fn after(&self) {{\n{}    }}\n}}\n\ntrait T {{\n    fn declared(&self);\n    fn provided(&self) {{}}\n}}\n",
        body(150),
        body(3)
    );
    let measured = measure(&text).unwrap();
    let names: Vec<(&str, usize)> = measured.functions.iter().map(|f| (f.name.as_str(), f.lines)).collect();
    assert_eq!(names, [("before", 1), ("Thing::after", 5), ("T::provided", 1)]);
    // The test module spans lines 3 to 158; the other 1 + 1 + 1 + 6 + 5 lines are counted.
    assert_eq!(measured.production_lines, text.lines().count() - 156);
}

#[test]
fn test_attributes_are_told_apart_from_other_cfgs() {
    let text = "#[cfg(not(test))]\nfn a() {}\n#[cfg(all(test, feature = \"x\"))]\nfn b() {}\n#[tokio::test]\nfn c() {}\n#[wasm_bindgen_test]\nfn d() {}\n";
    let names: Vec<String> = measure(text).unwrap().functions.into_iter().map(|f| f.name).collect();
    assert_eq!(names, ["a"]);
}

#[test]
fn a_file_that_does_not_parse_says_where() {
    let error = measure("fn a() {\n    let = ;\n}\n").unwrap_err();
    assert!(error.starts_with("2: "), "{error}");
}
