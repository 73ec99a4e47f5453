//! `nerve-mock-model --scenario FILE [--port N]`: serves a scenario until killed.

use std::path::PathBuf;
use std::process::ExitCode;

use nerve_mock_model::{MockServer, Scenario};

const USAGE: &str = "usage: nerve-mock-model --scenario FILE [--port N]";

fn parse_args(args: &[String]) -> Result<(PathBuf, u16), String> {
    let mut scenario = None;
    let mut port = 0u16;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--scenario" => scenario = iter.next().map(PathBuf::from),
            "--port" => {
                let value = iter.next().ok_or("--port needs a number")?;
                port = value
                    .parse()
                    .map_err(|_| format!("--port: `{value}` is not a port number"))?;
            }
            "--help" | "-h" => return Err(USAGE.to_owned()),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let scenario = scenario.ok_or_else(|| format!("--scenario FILE is required\n{USAGE}"))?;
    Ok((scenario, port))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (path, port) = match parse_args(&args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let scenario = match Scenario::from_file(&path) {
        Ok(scenario) => scenario,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::from(2);
        }
    };
    let server = match MockServer::start_on_port(scenario, port).await {
        Ok(server) => server,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    // Test harnesses read this line to learn the port.
    if nerve_mock_model::announce(&mut std::io::stdout(), &server.url()).is_err() {
        return ExitCode::FAILURE;
    }
    server.wait().await;
    ExitCode::SUCCESS
}
