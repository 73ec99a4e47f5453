//! `nerve outputs`: the project's persisted tool outputs (the same engine functions the app's
//! browser uses): list, show a part, search, delete, disk usage.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use nerve::outputs::{self, OutputFilter};

/// What to do with the outputs.
#[derive(Subcommand)]
pub enum OutputsCommand {
    /// List the outputs (newest first) as JSON: tool, call, its summary, session, size, whether the
    /// file is still there.
    List {
        #[command(flatten)]
        scope: Scope,
    },
    /// Print part of one output (by its call id or path): the first lines (default 100), the last
    /// lines, a line range, or a byte range.
    Show {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// The output's call id (`toolu_...`) or its path.
        output: String,
        /// The last N lines.
        #[arg(long, conflicts_with_all = ["lines", "offset"])]
        tail: Option<usize>,
        /// Lines FIRST:LAST (1-based, inclusive).
        #[arg(long, conflicts_with = "offset")]
        lines: Option<String>,
        /// Bytes from this offset (with --len).
        #[arg(long)]
        offset: Option<u64>,
        /// How many bytes from --offset.
        #[arg(long, default_value_t = 65_536)]
        len: usize,
        /// The first N lines (the default).
        #[arg(long, default_value_t = 100)]
        head: usize,
    },
    /// Search the outputs' contents; prints `CALL:LINE:TEXT` per matching line.
    Search {
        #[command(flatten)]
        scope: Scope,
        /// The text to find (a regular expression with --regex; smart case).
        pattern: String,
        /// Treat the pattern as a regular expression.
        #[arg(long)]
        regex: bool,
        /// Stop after this many matching lines.
        #[arg(long, default_value_t = 1000)]
        max: usize,
        /// Print hits as JSON lines.
        #[arg(long)]
        json: bool,
    },
    /// Delete outputs by call id or path, or all of a session's; prints what it freed.
    Rm {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// The outputs (call ids or paths).
        outputs: Vec<String>,
        /// Every output of this session.
        #[arg(long)]
        session: Option<String>,
    },
    /// The disk space the project's outputs take.
    Du {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
    },
}

/// Which project and which of its outputs.
#[derive(Args)]
pub struct Scope {
    /// The project folder.
    #[arg(long, default_value = ".")]
    cwd: PathBuf,
    /// Only this session's outputs.
    #[arg(long)]
    session: Option<String>,
    /// Only this tool's outputs.
    #[arg(long)]
    tool: Option<String>,
}

impl Scope {
    fn filter(&self) -> OutputFilter {
        OutputFilter {
            session_id: self.session.clone(),
            tool: self.tool.clone(),
        }
    }
}

fn data_dir(cwd: &Path) -> Result<PathBuf> {
    Ok(nerve::project::data_dir_of(&nerve::EngineEnv::process(), cwd)?)
}

/// Human sizes for messages ("1.5 MB").
fn size(bytes: u64) -> String {
    const MB: f64 = 1024.0 * 1024.0;
    if bytes as f64 >= MB {
        format!("{:.1} MB", bytes as f64 / MB)
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

/// Runs `nerve outputs ...`.
pub fn run(command: OutputsCommand) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match command {
        OutputsCommand::List { scope } => {
            let list = outputs::list_outputs(&data_dir(&scope.cwd)?, &scope.filter())?;
            writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        }
        OutputsCommand::Show {
            cwd,
            output,
            tail,
            lines,
            offset,
            len,
            head,
        } => {
            let data = data_dir(&cwd)?;
            let entry = outputs::find_output(&data, &output)?;
            if let Some(offset) = offset {
                let bytes = outputs::read_bytes(&data, &entry.path, offset, len)?;
                out.write_all(&bytes)?;
            } else if let Some(n) = tail {
                for line in outputs::tail_lines(&entry.path, n)? {
                    writeln!(out, "{line}")?;
                }
            } else {
                let (first, count) = match lines {
                    Some(range) => {
                        let (a, b) = range
                            .split_once(':')
                            .and_then(|(a, b)| {
                                Some((a.trim().parse::<u64>().ok()?, b.trim().parse::<u64>().ok()?))
                            })
                            .filter(|(a, b)| *a >= 1 && b >= a)
                            .with_context(|| format!("--lines takes FIRST:LAST (1-based), not {range}"))?;
                        (a, usize::try_from(b - a + 1).unwrap_or(usize::MAX))
                    }
                    None => (1, head),
                };
                for line in outputs::read_lines(&entry.path, first, count)? {
                    writeln!(out, "{:>6}\t{}", line.number, line.text)?;
                }
            }
        }
        OutputsCommand::Search {
            scope,
            pattern,
            regex,
            max,
            json,
        } => {
            let mut failed: Option<std::io::Error> = None;
            let mut shown = 0usize;
            outputs::search_outputs(&data_dir(&scope.cwd)?, &scope.filter(), &pattern, regex, |hit| {
                shown += 1;
                let written = if json {
                    serde_json::to_string(&hit)
                        .map_err(std::io::Error::other)
                        .and_then(|text| writeln!(out, "{text}"))
                } else {
                    writeln!(out, "{}:{}:{}", hit.tool_use_id, hit.line.number, hit.line.text)
                };
                if let Err(e) = written {
                    failed = Some(e);
                    return false;
                }
                shown < max
            })?;
            if let Some(e) = failed {
                // A closed pipe (`| head`) ends the search quietly.
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    return Err(e.into());
                }
            }
            if shown >= max {
                eprintln!("(stopped after {max} matching lines; --max raises it)");
            }
        }
        OutputsCommand::Rm {
            cwd,
            outputs: keys,
            session,
        } => {
            if keys.is_empty() && session.is_none() {
                bail!("name the outputs to delete (call ids or paths), or --session ID");
            }
            let deleted = outputs::delete_outputs(&data_dir(&cwd)?, &keys, session.as_deref())?;
            writeln!(
                out,
                "deleted {} outputs, freed {}",
                deleted.outputs,
                size(deleted.bytes)
            )?;
        }
        OutputsCommand::Du { cwd } => {
            let bytes = outputs::disk_usage(&data_dir(&cwd)?)?;
            writeln!(out, "{}", size(bytes))?;
        }
    }
    Ok(())
}
