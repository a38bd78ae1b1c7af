//! The open-file limit, which caps how many sockets a process may hold.
//!
//! Every WebSocket connection is an open file, and many systems start
//! programs with a soft limit of 1,024 files although they allow far more.
//! Past the limit the kernel refuses to accept new connections, and the
//! accept loop stalls for every client, health checks included. So the
//! server raises its soft limit to the hard one and admits no more
//! connections than fit below it, and the load test checks that its tables
//! fit before opening them.

/// Files the server keeps open besides its sockets: the store's
/// connections (two files each on SQLite, a socket each on Postgres, nine
/// at most), the runtime's own, the listener and the one client it holds
/// while it makes room for it, and its log.
pub const SERVER_FILES: u64 = 32;

/// Sockets kept beside the WebSocket connections: for HTTP requests, and
/// for turning WebSocket clients past the cap away with a clean `503`.
pub const HTTP_SOCKETS: u64 = 32;

/// Raises the soft limit on open files as far as the hard limit (and the
/// system) allow, and returns the limit now in force; `None` when it cannot
/// be read. A failure to raise it leaves the old limit, which is returned.
pub fn raise_open_files() -> Option<u64> {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => Some(limit),
        Err(error) => {
            tracing::warn!(%error, "cannot raise the open-file limit");
            rlimit::getrlimit(rlimit::Resource::NOFILE)
                .ok()
                .map(|(soft, _hard)| soft)
        }
    }
}

/// What the server can hold under an open-file limit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SocketBudget {
    /// Sockets of any kind.
    pub sockets: usize,
    /// WebSocket connections.
    pub connections: usize,
}

impl SocketBudget {
    pub fn under(limit: u64) -> SocketBudget {
        let count = |files: u64| usize::try_from(files).unwrap_or(usize::MAX);
        let sockets = limit.saturating_sub(SERVER_FILES);
        SocketBudget {
            sockets: count(sockets),
            connections: count(sockets.saturating_sub(HTTP_SOCKETS)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_keeps_files_and_sockets_of_its_own_below_the_limit() {
        let budget = |sockets, connections| SocketBudget { sockets, connections };
        assert_eq!(SocketBudget::under(20_000), budget(19_968, 19_936));
        assert_eq!(SocketBudget::under(1_024), budget(992, 960));
        assert_eq!(SocketBudget::under(96), budget(64, 32));
        assert_eq!(SocketBudget::under(40), budget(8, 0));
        assert_eq!(SocketBudget::under(10), budget(0, 0));
    }

    #[test]
    fn raising_gives_at_least_the_limit_in_force() {
        let (soft, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
        let raised = raise_open_files().expect("Linux has an open-file limit");
        assert!(raised >= soft, "{raised} < {soft}");
        assert!(raised <= hard, "{raised} > {hard}");
    }
}
