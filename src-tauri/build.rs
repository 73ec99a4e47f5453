//! Tauri's build step. The config (`tauri.conf.json`) sits at the workspace root beside the root
//! `Cargo.toml`; capabilities stay in `src-tauri/capabilities/`.

fn main() {
    let attributes = tauri_build::Attributes::new().capabilities_path_pattern("src-tauri/capabilities/**/*");
    if let Err(e) = tauri_build::try_build(attributes) {
        println!("cargo:warning=tauri build step failed: {e}");
        std::process::exit(1);
    }
}
