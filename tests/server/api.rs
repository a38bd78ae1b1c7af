//! The HTTP API as the tests speak it: requests made with a real HTTP
//! client, answers read into the protocol crate's views, and one helper
//! per endpoint that the tests share. A test that reads a body as a view
//! fails when the wire format changes.

use std::fmt::Display;
use std::net::{IpAddr, SocketAddr};

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use spades_protocol::http::{GameRecord, Me, RecentGames, Session, TournamentView};

/// The password every test account is registered with, unless a test
/// says otherwise.
pub const PASSWORD: &str = "a long enough password";

/// An HTTP answer, read whole.
#[derive(Debug)]
pub struct HttpAnswer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

impl HttpAnswer {
    /// The body as the protocol's view `T`; fails the test if it is not one.
    #[track_caller]
    pub fn json<T: DeserializeOwned>(&self) -> T {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|error| panic!("not the expected body ({error}): {}", self.body))
    }

    /// The body as raw JSON, for a test about what it does not hold.
    #[track_caller]
    pub fn value(&self) -> Value {
        self.json()
    }

    /// The status and the error code of a refusal.
    #[track_caller]
    pub fn error(&self) -> (u16, String) {
        let code = self.value()["error"].as_str().map(str::to_string);
        (
            self.status,
            code.unwrap_or_else(|| panic!("not an error: {}", self.body)),
        )
    }

    /// A header's value, if it is there and readable.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }

    /// Fails the test unless the status is `status`.
    #[track_caller]
    pub fn expect(self, status: u16) -> HttpAnswer {
        assert_eq!(self.status, status, "{}", self.body);
        self
    }

    /// An answer read off a raw socket by a test that writes requests by
    /// hand (to break them on purpose): the whole response as text.
    pub fn from_raw(response: &str) -> HttpAnswer {
        let (head, body) = response.split_once("\r\n\r\n").unwrap_or((response, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|code| code.parse().ok())
            .unwrap_or(0);
        let mut headers = HeaderMap::new();
        for line in lines {
            if let Some((name, value)) = line.split_once(':')
                && let (Ok(name), Ok(value)) = (
                    reqwest::header::HeaderName::from_bytes(name.trim().as_bytes()),
                    reqwest::header::HeaderValue::from_str(value.trim()),
                )
            {
                headers.append(name, value);
            }
        }
        // Raw requests here get short answers sent whole, or chunked.
        let chunked = headers
            .get("transfer-encoding")
            .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"chunked"));
        let body = if chunked { dechunk(body) } else { body.to_string() };
        HttpAnswer {
            status,
            headers,
            body,
        }
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].strip_prefix("\r\n").unwrap_or(&rest[size..]);
    }
    out
}

/// A client of one server's API. Each request goes over a connection of
/// its own, closed once answered, so that no test holds sockets open
/// beyond its requests.
#[derive(Clone, Debug)]
pub struct Api {
    client: reqwest::Client,
    base: String,
}

impl Api {
    pub fn new(address: SocketAddr) -> Api {
        Api::build(address, reqwest::Client::builder())
    }

    /// A client whose requests come from the local address `from`, as if
    /// from another machine.
    pub fn from_address(address: SocketAddr, from: IpAddr) -> Api {
        Api::build(address, reqwest::Client::builder().local_address(from))
    }

    /// A client whose requests say, in `X-Forwarded-For`, that a proxy
    /// forwards them for `client`.
    pub fn forwarded_for(address: SocketAddr, client: &str) -> Api {
        let mut headers = reqwest::header::HeaderMap::new();
        let value = reqwest::header::HeaderValue::from_str(client).expect("a header value");
        headers.insert("x-forwarded-for", value);
        Api::build(address, reqwest::Client::builder().default_headers(headers))
    }

    fn build(address: SocketAddr, builder: reqwest::ClientBuilder) -> Api {
        let client = builder.pool_max_idle_per_host(0).build().expect("an HTTP client");
        Api {
            client,
            base: format!("http://{address}"),
        }
    }

    /// One request, with an optional JSON body and bearer token.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> HttpAnswer {
        let mut request = self.client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = response.text().await.expect("the answer's body");
        HttpAnswer {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> HttpAnswer {
        self.send(Method::GET, path, None, token).await
    }

    pub async fn post(&self, path: &str, body: Option<Value>, token: Option<&str>) -> HttpAnswer {
        self.send(Method::POST, path, body, token).await
    }

    /// `POST /api/register`.
    pub async fn register(&self, name: &str, password: &str) -> HttpAnswer {
        let body = json!({"name": name, "password": password});
        self.post("/api/register", Some(body), None).await
    }

    /// `POST /api/login`.
    pub async fn login(&self, name: &str, password: &str) -> HttpAnswer {
        let body = json!({"name": name, "password": password});
        self.post("/api/login", Some(body), None).await
    }

    /// `POST /api/claim` with a guest's token.
    pub async fn claim(&self, token: &str, password: &str) -> HttpAnswer {
        let body = json!({ "password": password });
        self.post("/api/claim", Some(body), Some(token)).await
    }

    /// `POST /api/logout`.
    pub async fn logout(&self, token: &str) -> HttpAnswer {
        self.post("/api/logout", None, Some(token)).await
    }

    /// `GET /api/me`, as an answer, for a test that may be refused.
    pub async fn try_me(&self, token: &str) -> HttpAnswer {
        self.get("/api/me", Some(token)).await
    }

    /// `GET /api/me`.
    pub async fn me(&self, token: &str) -> Me {
        self.try_me(token).await.expect(StatusCode::OK.as_u16()).json()
    }

    /// `GET /api/me/games`: the caller's recent games.
    pub async fn recent_games(&self, token: &str) -> RecentGames {
        self.get("/api/me/games", Some(token)).await.expect(200).json()
    }

    /// `GET /api/games/{id}`.
    pub async fn game(&self, id: impl Display) -> GameRecord {
        self.get(&format!("/api/games/{id}"), None)
            .await
            .expect(200)
            .json()
    }

    /// `GET /api/games/{id}/history`, as an answer: it is JSON lines, or a
    /// refusal while the game is on.
    pub async fn history(&self, id: impl Display) -> HttpAnswer {
        self.get(&format!("/api/games/{id}/history"), None).await
    }

    /// A new account named `name`, with the usual password.
    pub async fn account(&self, name: &str) -> Session {
        self.register(name, PASSWORD).await.expect(201).json()
    }

    /// `POST /api/tournaments` as `organizer`.
    pub async fn create_tournament(&self, organizer: &str, settings: Value) -> HttpAnswer {
        self.post("/api/tournaments", Some(settings), Some(organizer))
            .await
    }

    /// `GET /api/tournaments/{id}`.
    pub async fn tournament(&self, id: &str) -> TournamentView {
        let path = format!("/api/tournaments/{id}");
        self.get(&path, None).await.expect(200).json()
    }

    /// `POST /api/tournaments/{id}/register` as the holder of `token`.
    pub async fn enter(&self, token: &str, id: &str) -> HttpAnswer {
        let path = format!("/api/tournaments/{id}/register");
        self.post(&path, None, Some(token)).await
    }

    /// `POST /api/tournaments/{id}/bots` as the holder of `token`.
    pub async fn add_bots(&self, token: &str, id: &str, count: u32) -> HttpAnswer {
        let path = format!("/api/tournaments/{id}/bots");
        self.post(&path, Some(json!({ "count": count })), Some(token))
            .await
    }
}

/// One request to the server at `address`, for a test that only needs one.
pub async fn http(
    address: SocketAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
    token: Option<&str>,
) -> HttpAnswer {
    let method = Method::from_bytes(method.as_bytes()).expect("a method");
    Api::new(address).send(method, path, body, token).await
}
