//! The server behind a real nginx (Debian's), with TLS, run with the very
//! configuration the README gives operators (`docs/deploy/nginx.conf`):
//! players register, log in and play over `wss://`, and the per-address
//! limits count the real clients, whom the test connects from several
//! loopback addresses.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use spades_server::{Config, TrustedProxies};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_tungstenite::tungstenite::Message;

use crate::durability::free_port;
use crate::support::*;

const NGINX: &str = "/usr/sbin/nginx";

/// An nginx of the test's own, ending TLS in front of a server.
struct Nginx {
    child: Child,
    address: SocketAddr,
    dir: PathBuf,
    tls: TlsConnector,
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Why nginx cannot run here, if it cannot.
fn missing() -> Option<String> {
    if !Path::new(NGINX).exists() {
        return Some(format!("{NGINX} is not installed (Debian's `nginx`)"));
    }
    if Command::new("openssl").arg("version").output().is_err() {
        return Some("`openssl` is not installed".into());
    }
    None
}

/// Runs openssl with `args` in `dir`, and fails the test if it fails.
fn openssl(dir: &Path, args: &[&str]) {
    let done = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("openssl runs");
    assert!(done.success(), "openssl {args:?} failed");
}

/// A certificate authority of the test's own (`ca`), and a certificate
/// for `localhost` it signed (`cert`, with its `key`): clients check a
/// server's certificate against an authority, never against itself.
fn make_certificate(dir: &Path, ca: &Path, cert: &Path, key: &Path) {
    let (ca, cert, key) = (
        ca.display().to_string(),
        cert.display().to_string(),
        key.display().to_string(),
    );
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
        ]
        .into_iter()
        .chain(["-keyout", "ca-key.pem", "-out", &ca])
        .collect::<Vec<_>>(),
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
            &key,
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
            &ca,
            "-CAkey",
            "ca-key.pem",
            "-CAcreateserial",
            "-days",
            "1",
            "-extfile",
            "ext.cnf",
            "-out",
            &cert,
        ],
    );
}

impl Nginx {
    /// Starts nginx with the README's site configuration, its certificate
    /// made now, its ports free ones, and `upstream` as the server.
    async fn start(upstream: SocketAddr) -> Nginx {
        let dir = std::env::temp_dir().join(format!("spades-nginx-{}", free_port()));
        std::fs::create_dir_all(&dir).unwrap();
        let (ca, cert, key) = (dir.join("ca.pem"), dir.join("cert.pem"), dir.join("key.pem"));
        make_certificate(&dir, &ca, &cert, &key);
        let (tls_port, plain_port) = (free_port(), free_port());
        let site = std::fs::read_to_string(repository().join("docs/deploy/nginx.conf"))
            .expect("docs/deploy/nginx.conf")
            .replace("listen [::]:80;", "")
            .replace("listen [::]:443 ssl;", "")
            .replace("listen 80;", &format!("listen 127.0.0.1:{plain_port};"))
            .replace("listen 443 ssl;", &format!("listen 127.0.0.1:{tls_port} ssl;"))
            .replace("127.0.0.1:8080", &upstream.to_string())
            .replace(
                "/etc/letsencrypt/live/spades.example.org/fullchain.pem",
                &cert.display().to_string(),
            )
            .replace(
                "/etc/letsencrypt/live/spades.example.org/privkey.pem",
                &key.display().to_string(),
            );
        let d = dir.display();
        let conf = format!(
            "worker_processes 1;\nerror_log {d}/error.log;\nevents {{ worker_connections 256; }}\n\
             http {{\n access_log {d}/access.log;\n client_body_temp_path {d}/body;\n\
             proxy_temp_path {d}/proxy;\n fastcgi_temp_path {d}/fastcgi;\n uwsgi_temp_path {d}/uwsgi;\n\
             scgi_temp_path {d}/scgi;\n{site}\n}}\n"
        );
        std::fs::write(dir.join("nginx.conf"), conf).unwrap();
        let child = Command::new(NGINX)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .args(["-g", &format!("daemon off; pid {d}/nginx.pid;")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        let mut roots = RootCertStore::empty();
        roots.add(CertificateDer::from_pem_file(&ca).unwrap()).unwrap();
        let config = ClientConfig::builder()
            .with_root_certificates(roots)
            .with_no_client_auth();
        let nginx = Nginx {
            child,
            address: SocketAddr::from(([127, 0, 0, 1], tls_port)),
            dir,
            tls: TlsConnector::from(Arc::new(config)),
        };
        nginx.wait_listening().await;
        nginx
    }

    async fn wait_listening(&self) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(self.address).await.is_err() {
            let log = std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default();
            assert!(
                tokio::time::Instant::now() < deadline,
                "nginx did not start:\n{log}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A TLS connection to nginx from the loopback address `127.0.0.{host}`.
    async fn connect(&self, host: u8) -> TlsStream<tokio::net::TcpStream> {
        let socket = TcpSocket::new_v4().unwrap();
        socket
            .bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, host)), 0))
            .unwrap();
        let tcp = socket.connect(self.address).await.unwrap();
        let name = ServerName::try_from("localhost").unwrap();
        self.tls
            .connect(name, tcp)
            .await
            .expect("a TLS handshake with nginx")
    }

    /// One HTTPS request from `127.0.0.{host}`: its status and JSON body.
    async fn request(
        &self,
        host: u8,
        method: &str,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> (u16, Value) {
        let mut stream = self.connect(host).await;
        let body = body.map(|body| body.to_string()).unwrap_or_default();
        let auth = token
            .map(|token| format!("Authorization: Bearer {token}\r\n"))
            .unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n{auth}\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer)).await;
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        let json = answer
            .split_once("\r\n\r\n")
            .and_then(|(_, body)| serde_json::from_str(body).ok())
            .unwrap_or(Value::Null);
        (status, json)
    }

    /// A `wss://` WebSocket from `127.0.0.{host}`, or the status nginx
    /// answered the upgrade with.
    async fn websocket(&self, host: u8) -> Result<Socket, u16> {
        let stream = self.connect(host).await;
        let url = format!("wss://localhost:{}/ws", self.address.port());
        match tokio_tungstenite::client_async(url.as_str(), stream).await {
            Ok((socket, _)) => Ok(socket),
            Err(tokio_tungstenite::tungstenite::Error::Http(answer)) => Err(answer.status().as_u16()),
            Err(error) => panic!("the upgrade through nginx failed: {error}"),
        }
    }
}

type Socket = tokio_tungstenite::WebSocketStream<TlsStream<tokio::net::TcpStream>>;

async fn send(socket: &mut Socket, message: Value) {
    socket.send(Message::text(message.to_string())).await.unwrap();
}

/// The next message whose `type` is `kind`.
async fn next_of(socket: &mut Socket, kind: &str) -> Value {
    let wait = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match socket.next().await {
                Some(Ok(Message::Text(text))) => {
                    let message: Value = serde_json::from_str(text.as_str()).unwrap();
                    if message["type"] == kind {
                        return message;
                    }
                    assert_ne!(message["type"], "error", "refused: {message}");
                }
                Some(Ok(_)) => {}
                other => panic!("the socket ended before a {kind}: {other:?}"),
            }
        }
    });
    wait.await.unwrap_or_else(|_| panic!("no {kind} came"))
}

/// A server behind nginx, or `None` (outside CI) where nginx is missing.
async fn behind_nginx(config: Config) -> Option<(TestServer, Nginx)> {
    if let Some(reason) = missing() {
        assert!(!required(), "the nginx tests cannot run: {reason}");
        eprintln!("skipped: {reason}");
        return None;
    }
    let config = Config {
        trusted_proxies: TrustedProxies::parse("127.0.0.1").unwrap(),
        ..config
    };
    let server = TestServer::start(config).await;
    let nginx = Nginx::start(server.address()).await;
    Some((server, nginx))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_register_log_in_and_play_over_wss_through_nginx() {
    let Some((_server, nginx)) = behind_nginx(Config::default()).await else {
        return;
    };
    let credentials = json!({"name": "Tess", "password": "a good password"});
    let (status, session) = nginx
        .request(2, "POST", "/api/register", Some(credentials.clone()), None)
        .await;
    assert_eq!(status, 201, "{session}");
    let (status, _) = nginx
        .request(2, "POST", "/api/login", Some(credentials), None)
        .await;
    assert_eq!(status, 200);
    let token = session["token"].as_str().unwrap();
    let (status, me) = nginx.request(2, "GET", "/api/me", None, Some(token)).await;
    assert_eq!((status, me["name"].as_str()), (200, Some("Tess")));

    // Over wss://: a table with three bots, the game started and a bid made.
    let mut socket = nginx.websocket(2).await.expect("an upgrade");
    send(
        &mut socket,
        json!({"type": "hello", "id": 1, "version": 1, "token": token}),
    )
    .await;
    assert_eq!(next_of(&mut socket, "welcome").await["player"]["name"], "Tess");
    send(&mut socket, json!({"type": "create_room", "id": 2})).await;
    next_of(&mut socket, "snapshot").await;
    send(&mut socket, json!({"type": "sit", "id": 3, "seat": 0})).await;
    next_of(&mut socket, "ack").await;
    for (id, seat) in [(4, 1), (5, 2), (6, 3)] {
        send(&mut socket, json!({"type": "add_bot", "id": id, "seat": seat})).await;
        next_of(&mut socket, "ack").await;
    }
    send(&mut socket, json!({"type": "start_game", "id": 7})).await;
    let dealt = next_of(&mut socket, "hand_started").await;
    assert_eq!(dealt["cards"].as_array().map(Vec::len), Some(13), "{dealt}");
    // The bots bid before her if they sit first; then it is her turn.
    let turn = loop {
        let turn = next_of(&mut socket, "turn").await;
        if turn["seats"]
            .as_array()
            .is_some_and(|seats| seats.iter().any(|seat| seat == 0))
        {
            break turn;
        }
    };
    assert_eq!(turn["expected"], "bid", "{turn}");
    let bid = turn["bids"]
        .as_array()
        .and_then(|bids| bids.last())
        .cloned()
        .unwrap_or(json!(3));
    send(&mut socket, json!({"type": "bid", "id": 8, "bid": bid})).await;
    // Other acks (the start's) may still be on their way first.
    while next_of(&mut socket, "ack").await["id"] != 8 {}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_nginx_the_per_address_limits_count_the_real_clients() {
    let config = Config {
        max_connections_per_address: 2,
        login_failures_per_address: 3,
        ..Config::default()
    };
    let Some((_server, nginx)) = behind_nginx(config).await else {
        return;
    };
    // Two connections of one client, then a third refused; another client
    // behind the same nginx still gets in.
    let first = nginx.websocket(3).await.expect("the first connection");
    let second = nginx.websocket(3).await.expect("the second connection");
    assert_eq!(
        nginx.websocket(3).await.err(),
        Some(503),
        "the third of one client"
    );
    let other = nginx.websocket(4).await.expect("another client's connection");
    drop((first, second, other));

    // A guesser is stopped at his address's limit; the owner, elsewhere,
    // logs in.
    let owner = json!({"name": "Owner", "password": "the owner's password"});
    let (status, _) = nginx
        .request(5, "POST", "/api/register", Some(owner.clone()), None)
        .await;
    assert_eq!(status, 201);
    let wrong = json!({"name": "Owner", "password": "a wrong guess"});
    for _ in 0..3 {
        let (status, _) = nginx
            .request(6, "POST", "/api/login", Some(wrong.clone()), None)
            .await;
        assert_eq!(status, 401);
    }
    let (status, body) = nginx.request(6, "POST", "/api/login", Some(wrong), None).await;
    assert_eq!((status, body["error"].as_str()), (429, Some("too_many_attempts")));
    let (status, _) = nginx.request(7, "POST", "/api/login", Some(owner), None).await;
    assert_eq!(status, 200, "the owner is not locked out by the guesser");
}
