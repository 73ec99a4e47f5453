//! Processes a test started, watched through `/proc`.

use std::path::Path;
use std::time::{Duration, Instant};

/// Whether process `pid` is gone (or a zombie nobody reaped yet) within `within`.
pub async fn process_gone(pid: u32, within: Duration) -> bool {
    let start = Instant::now();
    loop {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            // The state follows the parenthesised command name: "123 (sleep) Z ...".
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z')) =>
            {
                return true;
            }
            Ok(_) => {}
        }
        if start.elapsed() > within {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The process id a command under test wrote to `path`, once it is there.
///
/// # Panics
///
/// When none is written within `within`: the test cannot go on.
pub async fn read_pid(path: &Path, within: Duration) -> u32 {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse::<u32>()
        {
            return pid;
        }
        assert!(
            start.elapsed() < within,
            "no process id was written to {}",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_running_process_is_not_gone_and_an_ended_one_is() {
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let pid = child.id();
        assert!(!process_gone(pid, Duration::from_millis(100)).await);
        child.kill().unwrap();
        // Not yet reaped: a zombie counts as gone.
        assert!(process_gone(pid, Duration::from_secs(4)).await);
        child.wait().unwrap();
    }

    #[tokio::test]
    async fn a_pid_file_is_read_once_it_holds_a_number() {
        let dir = std::env::temp_dir().join(format!("nerve-test-support-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pid");
        let writer = {
            let path = path.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                std::fs::write(&path, "4242\n").unwrap();
            })
        };
        assert_eq!(read_pid(&path, Duration::from_secs(5)).await, 4242);
        writer.await.unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
