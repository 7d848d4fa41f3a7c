//! The compile-time checks: each case under `tests/ui/` must fail to compile
//! with exactly the errors in its `.stderr`.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
