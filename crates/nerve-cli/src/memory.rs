//! `nerve memory`: the facts the agent was asked to remember about a project (its memory folder,
//! read and written by the Memory tool), so the user can see and delete every entry.

use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::Subcommand;
use nerve::tools::memory::{MemoryStore, memory_dir};

/// What to do with the memory.
#[derive(Subcommand)]
pub enum MemoryCommand {
    /// List the entries: name and description, one per line (or JSON with --json).
    List {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// Print a JSON array of {name, description, path}.
        #[arg(long)]
        json: bool,
    },
    /// Print one entry: its description and text.
    Show {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// The entry's name.
        name: String,
    },
    /// Delete an entry.
    Rm {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// The entry's name.
        name: String,
    },
}

/// The memory of the project at `cwd`.
fn store(cwd: &Path) -> Result<MemoryStore> {
    Ok(MemoryStore::new(memory_dir(&nerve::project::data_dir_of(
        &nerve::EngineEnv::process(),
        cwd,
    )?)))
}

/// Runs a `nerve memory` command.
pub fn run(command: MemoryCommand) -> Result<()> {
    match command {
        MemoryCommand::List { cwd, json } => {
            let store = store(&cwd)?;
            let entries = store.list()?;
            if json {
                let list: Vec<serde_json::Value> = entries
                    .iter()
                    .map(|e| {
                        serde_json::json!({
                            "name": e.name,
                            "description": e.description,
                            "path": e.path,
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&list)?);
            } else if entries.is_empty() {
                println!("No memory entries (kept in {}).", store.dir().display());
            } else {
                let width = entries.iter().map(|e| e.name.len()).max().unwrap_or(0);
                for entry in &entries {
                    println!("{:width$}  {}", entry.name, entry.description);
                }
            }
        }
        MemoryCommand::Show { cwd, name } => {
            let entry = store(&cwd)?.get(&name)?;
            println!("{}: {}\n\n{}", entry.name, entry.description, entry.content);
        }
        MemoryCommand::Rm { cwd, name } => {
            let path = store(&cwd)?.remove(&name)?;
            println!("Deleted memory {name} ({}).", path.display());
        }
    }
    Ok(())
}
