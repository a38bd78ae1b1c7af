//! The harness of the tests behind nginx: an nginx of the test's own with
//! the README's site configuration and a certificate made for the run,
//! and HTTPS and `wss://` clients that connect from chosen loopback
//! addresses.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::durability::free_port;
use crate::support::*;

pub(super) const NGINX: &str = "/usr/sbin/nginx";

/// The test's `n`th client, which connects from `127.0.0.n`.
pub(super) fn client(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, n))
}

/// Headers a client writes to pass for someone else. nginx hands on
/// whatever a client sends unless told otherwise, so these reach the
/// server unless the site configuration replaces them.
pub(super) const FORGED: [(&str, &str); 3] = [
    ("forwarded", "for=198.51.100.1"),
    ("forwarded", "for=198.51.100.2;proto=https"),
    ("x-forwarded-for", "198.51.100.3"),
];

/// An nginx of the test's own, ending TLS in front of a server. It runs
/// as a single process (`master_process off`), so that killing it leaves
/// no worker behind, holding its ports, once the test is over.
pub(super) struct Nginx {
    pub(super) child: Child,
    pub(super) tls_port: u16,
    pub(super) plain_port: u16,
    /// Whether nginx also listens on `[::1]`, where the machine has IPv6.
    pub(super) ipv6: bool,
    pub(super) dir: PathBuf,
    /// The folder the plain-HTTP site serves ACME challenges from.
    pub(super) webroot: PathBuf,
    pub(super) tls: TlsConnector,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Why nginx cannot run here, if it cannot.
pub(super) fn missing() -> Option<String> {
    if !Path::new(NGINX).exists() {
        return Some(format!("{NGINX} is not installed (Debian's `nginx`)"));
    }
    if Command::new("openssl").arg("version").output().is_err() {
        return Some("`openssl` is not installed".into());
    }
    None
}

/// Runs openssl with `args` in `dir`, and fails the test if it fails.
pub(super) fn openssl(dir: &Path, args: &[&str]) {
    let done = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl runs");
    assert!(
        done.status.success(),
        "openssl {args:?} failed:\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// Makes, in `dir`, a certificate authority of the test's own (`ca.pem`)
/// and a certificate for `localhost` it signed (`cert.pem`, with its key
/// `key.pem`): clients check a server's certificate against an authority,
/// never against itself.
pub(super) fn make_certificate(dir: &Path) {
    openssl(
        dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=Test CA",
            "-keyout",
            "ca-key.pem",
            "-out",
            "ca.pem",
        ],
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-keyout",
            "key.pem",
            "-out",
            "cert.csr",
        ],
    );
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "cert.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca-key.pem",
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            "ext.cnf",
            "-out",
            "cert.pem",
        ],
    );
}

/// Replaces `from` with `to` in the documented configuration, which must
/// hold `from`: were it gone, the test would run something other than
/// what operators are told to install, and nobody would know.
pub(super) fn substitute(config: String, from: &str, to: &str) -> String {
    assert!(
        config.contains(from),
        "docs/deploy/nginx.conf no longer holds `{from}`, which the test replaces"
    );
    config.replace(from, to)
}

/// One HTTP request, written by hand so that it can carry any header.
#[derive(Debug)]
pub(super) struct Call {
    pub(super) method: &'static str,
    pub(super) path: String,
    pub(super) body: String,
    pub(super) headers: Vec<(String, String)>,
}

impl Call {
    pub(super) fn get(path: &str) -> Call {
        Call {
            method: "GET",
            path: path.into(),
            body: String::new(),
            headers: Vec::new(),
        }
    }

    pub(super) fn post(path: &str, body: Value) -> Call {
        Call {
            method: "POST",
            body: body.to_string(),
            ..Call::get(path)
        }
        .header("Content-Type", "application/json")
    }

    pub(super) fn header(mut self, name: &str, value: &str) -> Call {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub(super) fn token(self, token: &str) -> Call {
        self.header("Authorization", &format!("Bearer {token}"))
    }

    pub(super) fn forged(self) -> Call {
        FORGED
            .iter()
            .fold(self, |call, (name, value)| call.header(name, value))
    }
}

/// What nginx answered: the status, the head's lines and the body.
#[derive(Debug)]
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) head: String,
    pub(super) body: String,
}

impl Answer {
    pub(super) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

/// Sends `call` on `stream` and reads the answer to the end, which the
/// `Connection: close` it goes with makes the end of the socket.
pub(super) async fn exchange(mut stream: impl AsyncRead + AsyncWrite + Unpin, call: Call) -> Answer {
    let mut head = format!(
        "{} {} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n",
        call.method,
        call.path,
        call.body.len()
    );
    for (name, value) in &call.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(call.body.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("nginx answers within 10 seconds")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    Answer {
        status,
        head: head.to_string(),
        body: body.to_string(),
    }
}

pub(super) type Socket = tokio_tungstenite::WebSocketStream<TlsStream<TcpStream>>;

impl Nginx {
    /// Starts nginx with the README's site configuration, its certificate
    /// made now, its ports free ones, its ACME folder a temporary one, and
    /// `upstream` as the server.
    pub(super) async fn start(upstream: SocketAddr) -> Nginx {
        let dir = std::env::temp_dir().join(format!("spades-nginx-{}-{}", std::process::id(), free_port()));
        let webroot = dir.join("acme");
        std::fs::create_dir_all(webroot.join(".well-known/acme-challenge")).unwrap();
        make_certificate(&dir);
        let (tls_port, plain_port) = (free_port(), free_port());
        let ipv6 = std::net::TcpListener::bind((Ipv6Addr::LOCALHOST, 0)).is_ok();
        let listen_ipv6 = if ipv6 {
            format!("listen [::1]:{tls_port} ssl;")
        } else {
            String::new()
        };
        let path = |name: &str| dir.join(name).display().to_string();
        let mut site = std::fs::read_to_string(repository().join("docs/deploy/nginx.conf"))
            .expect("docs/deploy/nginx.conf");
        for (from, to) in [
            ("listen [::]:80;", String::new()),
            ("listen [::]:443 ssl;", listen_ipv6),
            ("listen 80;", format!("listen 127.0.0.1:{plain_port};")),
            ("listen 443 ssl;", format!("listen 127.0.0.1:{tls_port} ssl;")),
            ("127.0.0.1:8080", upstream.to_string()),
            (
                "/etc/letsencrypt/live/spades.example.org/fullchain.pem",
                path("cert.pem"),
            ),
            (
                "/etc/letsencrypt/live/spades.example.org/privkey.pem",
                path("key.pem"),
            ),
            ("/var/www/html", webroot.display().to_string()),
        ] {
            site = substitute(site, from, &to);
        }
        // What Debian's /etc/nginx/nginx.conf gives a site, with every path
        // in the test's folder so that nginx runs without root's; and the
        // address nginx connects to the server from, which is the one the
        // server trusts (the system would pick it anyway for 127.0.0.1).
        let d = dir.display();
        let conf = format!(
            "events {{ worker_connections 256; }}\n\
             http {{\n access_log {d}/access.log;\n client_body_temp_path {d}/body;\n\
             proxy_temp_path {d}/proxy;\n fastcgi_temp_path {d}/fastcgi;\n uwsgi_temp_path {d}/uwsgi;\n\
             scgi_temp_path {d}/scgi;\n proxy_bind 127.0.0.1;\n{site}\n}}\n"
        );
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let child = Command::new(NGINX)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .arg("-e")
            .arg(dir.join("error.log"))
            .args([
                "-g",
                &format!("daemon off; master_process off; pid {d}/nginx.pid;"),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from_pem_file(dir.join("ca.pem")).unwrap())
            .unwrap();
        let config = ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let mut nginx = Nginx {
            child,
            tls_port,
            plain_port,
            ipv6,
            dir,
            webroot,
            tls: TlsConnector::from(Arc::new(config)),
        };
        nginx.wait_listening().await;
        nginx
    }

    pub(super) async fn wait_listening(&mut self) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, self.tls_port));
        while TcpStream::connect(address).await.is_err() {
            let log = std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default();
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("nginx exited ({status}):\n{log}");
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "nginx did not start:\n{log}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A TCP connection to nginx's `port` from `from`, on nginx's address
    /// of the same family.
    pub(super) async fn tcp(&self, from: IpAddr, port: u16) -> TcpStream {
        let (socket, to) = match from {
            IpAddr::V4(_) => (TcpSocket::new_v4(), IpAddr::V4(Ipv4Addr::LOCALHOST)),
            IpAddr::V6(_) => (TcpSocket::new_v6(), IpAddr::V6(Ipv6Addr::LOCALHOST)),
        };
        let socket = socket.unwrap();
        socket.bind(SocketAddr::new(from, 0)).unwrap();
        socket.connect(SocketAddr::new(to, port)).await.unwrap()
    }

    /// A TLS connection to nginx from `from`, checked against the test's
    /// certificate authority.
    pub(super) async fn connect(&self, from: IpAddr) -> TlsStream<TcpStream> {
        let tcp = self.tcp(from, self.tls_port).await;
        let name = ServerName::try_from("localhost").unwrap();
        self.tls
            .connect(name, tcp)
            .await
            .expect("a TLS handshake with nginx")
    }

    /// `call` over HTTPS from `from`.
    pub(super) async fn send(&self, from: IpAddr, call: Call) -> Answer {
        exchange(self.connect(from).await, call).await
    }

    /// `call` over plain HTTP from `from`.
    pub(super) async fn send_plain(&self, from: IpAddr, call: Call) -> Answer {
        exchange(self.tcp(from, self.plain_port).await, call).await
    }

    /// A `wss://` WebSocket from `from`, its upgrade request carrying
    /// `headers` besides its own; or the status and body nginx answered
    /// the upgrade with.
    pub(super) async fn websocket(
        &self,
        from: IpAddr,
        headers: &[(&'static str, &str)],
    ) -> Result<Socket, (u16, Value)> {
        let stream = self.connect(from).await;
        let url = format!("wss://localhost:{}/ws", self.tls_port);
        let mut request = url.into_client_request().unwrap();
        for (name, value) in headers {
            request
                .headers_mut()
                .append(*name, HeaderValue::from_str(value).unwrap());
        }
        match tokio_tungstenite::client_async(request, stream).await {
            Ok((socket, _)) => Ok(socket),
            Err(tungstenite::Error::Http(answer)) => {
                let body = answer
                    .body()
                    .as_deref()
                    .and_then(|body| serde_json::from_slice(body).ok())
                    .unwrap_or(Value::Null);
                Err((answer.status().as_u16(), body))
            }
            Err(error) => panic!("the upgrade through nginx failed: {error}"),
        }
    }
}
