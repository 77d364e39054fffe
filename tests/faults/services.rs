//! Private services for the fault drills: a `redis-server` and a PostgreSQL cluster (`initdb` and
//! `pg_ctl` from Debian's packages) per test, on free ports, in a temporary directory, so that
//! they can be killed, stopped and cut without touching the machine's servers (5432, 6379).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a service may take to come up.
const UP_WITHIN: Duration = Duration::from_secs(60);

/// A free TCP port on loopback.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("its address").port()
}

fn temp_dir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("cgfaults-{what}-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A private `redis-server`, killed when dropped.
#[derive(Debug)]
pub struct Redis {
    /// Its port.
    pub port: u16,
    child: Child,
    dir: PathBuf,
}

impl Redis {
    /// Starts one on a free port (no persistence) and waits until it answers.
    pub fn start() -> Redis {
        let port = free_port();
        let dir = temp_dir("redis");
        let child = Self::spawn(port, &dir);
        let redis = Redis { port, child, dir };
        redis.until_up();
        redis
    }

    fn spawn(port: u16, dir: &Path) -> Child {
        Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string(), "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts (Debian package redis-server)")
    }

    fn until_up(&self) {
        let deadline = Instant::now() + UP_WITHIN;
        while self.cli(&["PING"]).trim() != "PONG" {
            assert!(Instant::now() < deadline, "the private Redis answers");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills it (`SIGKILL`: everything it held is gone, as after a crash without persistence).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Starts it again on its port, empty, and waits until it answers.
    pub fn restart(&mut self) {
        self.child = Self::spawn(self.port, &self.dir);
        self.until_up();
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Runs `redis-cli` against it; returns its output.
    pub fn cli(&self, args: &[&str]) -> String {
        let out = Command::new("redis-cli")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli runs");
        String::from_utf8_lossy(&out.stdout).to_string()
    }

    /// How many pub/sub connections are open.
    pub fn pubsub_clients(&self) -> usize {
        self.cli(&["CLIENT", "LIST", "TYPE", "pubsub"]).lines().filter(|l| !l.trim().is_empty()).count()
    }

    /// How many client connections are open (of every kind, `redis-cli`'s own included).
    pub fn clients(&self) -> usize {
        self.cli(&["CLIENT", "LIST"]).lines().filter(|l| !l.trim().is_empty()).count()
    }

    /// Waits until at most `n` pub/sub connections are open (the others were let go).
    pub async fn until_pubsub_clients_at_most(&self, n: usize) {
        let deadline = Instant::now() + crate::client::WAIT;
        while self.pubsub_clients() > n {
            assert!(Instant::now() < deadline, "at most {n} subscriptions (now {})", self.pubsub_clients());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Waits until `n` pub/sub connections are open (the subscribers came back).
    pub async fn until_pubsub_clients(&self, n: usize) {
        let deadline = Instant::now() + crate::client::WAIT;
        while self.pubsub_clients() < n {
            assert!(Instant::now() < deadline, "{n} subscriptions again (now {})", self.pubsub_clients());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn pg_bin() -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (Debian package postgresql)")
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("initdb").exists())
        .collect();
    dirs.sort_by_key(|p| {
        p.parent().and_then(Path::file_name).and_then(|n| n.to_str()).and_then(|n| n.parse::<u32>().ok()).unwrap_or(0)
    });
    dirs.pop().expect("initdb in /usr/lib/postgresql/*/bin")
}

/// A private PostgreSQL cluster (trust auth, user `postgres`), stopped and removed when dropped.
#[derive(Debug)]
pub struct Postgres {
    /// Its port.
    pub port: u16,
    bin: PathBuf,
    dir: PathBuf,
    root: bool,
}

impl Postgres {
    /// Creates and starts a cluster on a free port.
    pub fn start() -> Postgres {
        let root = is_root();
        let dir = temp_dir("pg");
        if root {
            // initdb refuses to run as root: the cluster belongs to the postgres system user.
            let ok = Command::new("chown").arg("postgres").arg(&dir).status().is_ok_and(|s| s.success());
            assert!(ok, "the cluster's directory given to the postgres user");
        }
        let pg = Postgres { port: free_port(), bin: pg_bin(), dir, root };
        let ok = pg
            .command("initdb")
            .arg("-D")
            .arg(pg.data())
            .args(["-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "initdb of the private cluster");
        pg.up();
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn command(&self, tool: &str) -> Command {
        let program = self.bin.join(tool);
        if self.root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    /// Starts the server and waits until it accepts connections.
    pub fn up(&self) {
        let opts = format!("-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off", self.port, self.dir.display());
        let ok = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.join("log"))
            .args(["-w", "-t", "60", "-o", &opts, "start"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "the private PostgreSQL starts (see {})", self.dir.join("log").display());
    }

    /// Stops the server (`pg_ctl stop -m fast`: connections are cut at once) and waits until
    /// it is down.
    pub fn down(&self) {
        let ok = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-w", "-m", "fast", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "the private PostgreSQL stops");
    }

    /// `postgres://postgres@127.0.0.1:PORT/postgres`.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
