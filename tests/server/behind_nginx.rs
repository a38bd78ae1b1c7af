//! The server behind a real nginx (Debian's), with TLS, run with the very
//! site configuration the README gives operators (`docs/deploy/nginx.conf`):
//! players register, log in and play over `wss://`, the per-address limits
//! count the real clients (whom the test connects from several loopback
//! addresses, since Linux routes all of 127.0.0.0/8 to the loopback
//! device), and what a client writes in its own forwarding headers changes
//! nothing.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use spades_server::{Config, TrustedProxies};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{self, Message};

use crate::durability::free_port;
use crate::support::*;

const NGINX: &str = "/usr/sbin/nginx";

/// The test's `n`th client, which connects from `127.0.0.n`.
fn client(n: u8) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, n))
}

/// Headers a client writes to pass for someone else. nginx hands on
/// whatever a client sends unless told otherwise, so these reach the
/// server unless the site configuration replaces them.
const FORGED: [(&str, &str); 3] = [
    ("forwarded", "for=198.51.100.1"),
    ("forwarded", "for=198.51.100.2;proto=https"),
    ("x-forwarded-for", "198.51.100.3"),
];

/// An nginx of the test's own, ending TLS in front of a server. It runs
/// as a single process (`master_process off`), so that killing it leaves
/// no worker behind, holding its ports, once the test is over.
struct Nginx {
    child: Child,
    tls_port: u16,
    plain_port: u16,
    /// Whether nginx also listens on `[::1]`, where the machine has IPv6.
    ipv6: bool,
    dir: PathBuf,
    /// The folder the plain-HTTP site serves ACME challenges from.
    webroot: PathBuf,
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
fn make_certificate(dir: &Path) {
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
fn substitute(config: String, from: &str, to: &str) -> String {
    assert!(
        config.contains(from),
        "docs/deploy/nginx.conf no longer holds `{from}`, which the test replaces"
    );
    config.replace(from, to)
}

/// One HTTP request, written by hand so that it can carry any header.
#[derive(Debug)]
struct Call {
    method: &'static str,
    path: String,
    body: String,
    headers: Vec<(String, String)>,
}

impl Call {
    fn get(path: &str) -> Call {
        Call {
            method: "GET",
            path: path.into(),
            body: String::new(),
            headers: Vec::new(),
        }
    }

    fn post(path: &str, body: Value) -> Call {
        Call {
            method: "POST",
            body: body.to_string(),
            ..Call::get(path)
        }
        .header("Content-Type", "application/json")
    }

    fn header(mut self, name: &str, value: &str) -> Call {
        self.headers.push((name.into(), value.into()));
        self
    }

    fn token(self, token: &str) -> Call {
        self.header("Authorization", &format!("Bearer {token}"))
    }

    fn forged(self) -> Call {
        FORGED
            .iter()
            .fold(self, |call, (name, value)| call.header(name, value))
    }
}

/// What nginx answered: the status, the head's lines and the body.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

/// Sends `call` on `stream` and reads the answer to the end, which the
/// `Connection: close` it goes with makes the end of the socket.
async fn exchange(mut stream: impl AsyncRead + AsyncWrite + Unpin, call: Call) -> Answer {
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

type Socket = tokio_tungstenite::WebSocketStream<TlsStream<TcpStream>>;

impl Nginx {
    /// Starts nginx with the README's site configuration, its certificate
    /// made now, its ports free ones, its ACME folder a temporary one, and
    /// `upstream` as the server.
    async fn start(upstream: SocketAddr) -> Nginx {
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

    async fn wait_listening(&mut self) {
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
    async fn tcp(&self, from: IpAddr, port: u16) -> TcpStream {
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
    async fn connect(&self, from: IpAddr) -> TlsStream<TcpStream> {
        let tcp = self.tcp(from, self.tls_port).await;
        let name = ServerName::try_from("localhost").unwrap();
        self.tls
            .connect(name, tcp)
            .await
            .expect("a TLS handshake with nginx")
    }

    /// `call` over HTTPS from `from`.
    async fn send(&self, from: IpAddr, call: Call) -> Answer {
        exchange(self.connect(from).await, call).await
    }

    /// `call` over plain HTTP from `from`.
    async fn send_plain(&self, from: IpAddr, call: Call) -> Answer {
        exchange(self.tcp(from, self.plain_port).await, call).await
    }

    /// A `wss://` WebSocket from `from`, its upgrade request carrying
    /// `headers` besides its own; or the status and body nginx answered
    /// the upgrade with.
    async fn websocket(
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
        assert!(!required(), "CI: the nginx tests cannot run: {reason}");
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

fn credentials(name: &str) -> Value {
    json!({"name": name, "password": "a good password"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_register_log_in_and_play_over_wss_through_nginx() {
    let Some((_server, nginx)) = behind_nginx(Config::default()).await else {
        return;
    };
    let tess = client(2);
    let session = nginx
        .send(tess, Call::post("/api/register", credentials("Tess")))
        .await;
    assert_eq!(session.status, 201, "{session:?}");
    let login = nginx
        .send(tess, Call::post("/api/login", credentials("Tess")))
        .await;
    assert_eq!(login.status, 200, "{login:?}");
    let token = login.json()["token"].as_str().unwrap().to_string();
    let me = nginx.send(tess, Call::get("/api/me").token(&token)).await;
    assert_eq!((me.status, me.json()["name"].as_str()), (200, Some("Tess")));

    // Over wss://: a table with three bots, the game started and a bid made.
    let mut socket = nginx.websocket(tess, &[]).await.expect("an upgrade");
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
        max_sockets_per_address: 3,
        login_failures_per_address: 3,
        // The connections below never say hello; on a busy machine they
        // must not be closed for it before the test is done with them.
        hello_timeout: Duration::from_secs(120),
        ..Config::default()
    };
    let Some((_server, nginx)) = behind_nginx(config).await else {
        return;
    };
    // Three clients hold two connections each: six sockets from nginx,
    // twice the cap on one address's sockets, which a trusted proxy's
    // sockets are not held to.
    let mut held = Vec::new();
    for n in 3..=5 {
        for _ in 0..2 {
            let socket = nginx.websocket(client(n), &[]).await;
            held.push(socket.unwrap_or_else(|refused| panic!("client {n}: {refused:?}")));
        }
    }
    // A third connection of one client is refused, with the reason, also
    // when its upgrade names other addresses in forwarding headers of its
    // own: nginx replaces its `Forwarded` and appends to its
    // `X-Forwarded-For`.
    for headers in [&[][..], &FORGED[..]] {
        let refused = nginx.websocket(client(3), headers).await.err();
        let (status, body) = refused.expect("a third connection of one client is refused");
        assert_eq!(
            (status, body["error"].as_str()),
            (503, Some("too_many_connections"))
        );
    }
    let other = nginx.websocket(client(6), &FORGED).await;
    held.push(other.expect("another client's connection"));
    drop(held);

    // A guesser is stopped at his address's limit, whatever headers he
    // writes; the owner, elsewhere, logs in.
    let owner = nginx
        .send(client(7), Call::post("/api/register", credentials("Owner")))
        .await;
    assert_eq!(owner.status, 201);
    let guess = || {
        Call::post(
            "/api/login",
            json!({"name": "Owner", "password": "a wrong guess"}),
        )
    };
    for _ in 0..3 {
        assert_eq!(nginx.send(client(8), guess().forged()).await.status, 401);
    }
    let stopped = nginx.send(client(8), guess().forged()).await;
    assert_eq!(
        (stopped.status, stopped.json()["error"].as_str()),
        (429, Some("too_many_attempts"))
    );
    let login = nginx
        .send(client(7), Call::post("/api/login", credentials("Owner")))
        .await;
    assert_eq!(login.status, 200, "the owner is not locked out by the guesser");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_nginx_the_server_names_each_client_by_the_address_nginx_saw() {
    let Some((server, nginx)) = behind_nginx(Config::default()).await else {
        return;
    };
    let ada = nginx
        .send(client(9), Call::post("/api/register", credentials("Ada")))
        .await;
    assert_eq!(ada.status, 201);
    let token = ada.json()["token"].as_str().unwrap().to_string();
    server.make_admin("Ada");
    let pat = nginx
        .send(client(10), Call::post("/api/register", credentials("Pat")))
        .await;
    let sanctions = format!(
        "/api/players/{}/sanctions",
        pat.json()["player"]["id"].as_str().unwrap()
    );

    // The audit log names the client each of Ada's warnings came from,
    // not the addresses she wrote herself.
    let mut clients = vec![(client(11), "127.0.0.11")];
    if nginx.ipv6 {
        clients.push((IpAddr::V6(Ipv6Addr::LOCALHOST), "::1"));
    } else {
        eprintln!("no IPv6 on this machine: the test connects over IPv4 only");
    }
    for (from, expected) in clients {
        let warn = json!({"kind": "warn", "reason": "testing"});
        let call = Call::post(&sanctions, warn).token(&token).forged();
        assert_eq!(nginx.send(from, call).await.status, 201);
        let log = nginx.send(from, Call::get("/api/audit").token(&token)).await;
        assert_eq!(log.json()["lines"][0]["client"], expected, "{log:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_site_answers_acme_challenges_and_sends_the_rest_to_https() {
    let Some((_server, nginx)) = behind_nginx(Config::default()).await else {
        return;
    };
    let token = "a-challenge-token";
    let challenge = nginx.webroot.join(".well-known/acme-challenge").join(token);
    std::fs::write(&challenge, "the key authorization").unwrap();
    let path = format!("/.well-known/acme-challenge/{token}");
    let answer = nginx.send_plain(client(12), Call::get(&path)).await;
    assert_eq!(
        (answer.status, answer.body.as_str()),
        (200, "the key authorization")
    );

    let answer = nginx.send_plain(client(12), Call::get("/api/me?x=1")).await;
    assert_eq!(answer.status, 301);
    assert_eq!(answer.header("location"), Some("https://localhost/api/me?x=1"));

    // The health checks are public; the metrics are for the operator, who
    // scrapes the server on its own address.
    let health = nginx.send(client(12), Call::get("/healthz")).await;
    assert_eq!(health.status, 200, "{health:?}");
    let metrics = nginx.send(client(12), Call::get("/metrics")).await;
    assert_eq!(metrics.status, 403, "{metrics:?}");
}
