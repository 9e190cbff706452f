//! Reads a C model and prints it as Cwhile (a debugging aid).
fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let source = std::fs::read_to_string(&path).expect("readable");
    match paces_c::parse(&source) {
        Ok(p) => print!("{}", paces_cwhile::print(&p)),
        Err(d) => eprint!("{}", paces_cwhile::render(&d, &path, &source, false)),
    }
}
