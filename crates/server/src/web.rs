//! The web client: the files of the repository's `web/` folder, built into
//! the binary and served at `/`, with `/r/CODE` opening a room.
//!
//! The files are plain ES modules with no build step. A release build
//! carries them inside the binary, so that the server needs nothing beside
//! it; a debug build reads them from the folder when it starts, so that a
//! change needs a restart but no rebuild. Each file is compressed once, when the routes are made, and
//! served gzipped to browsers that take it. Every answer carries a strong
//! `ETag` and `Cache-Control: no-cache`: the modules import each other by
//! plain names, so a browser must ask again each time, and an unchanged
//! file costs a `304` with no body.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::RustEmbed;

use crate::api::ApiError;

/// The page's files: the shell, its style, its icon and its modules. The
/// tests, examples and notes in the folder are not part of the page.
#[derive(RustEmbed)]
#[folder = "../../web/"]
#[include = "index.html"]
#[include = "app.css"]
#[include = "favicon.svg"]
#[include = "js/**/*.js"]
struct Files;

/// The policy every page answer carries: scripts, styles, images and
/// connections from this server only, no inline script, no plugins, and
/// no framing by other sites.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; \
     frame-ancestors 'none'; form-action 'self'";

/// One file, ready to serve.
#[derive(Debug)]
struct Asset {
    content_type: HeaderValue,
    plain: Vec<u8>,
    /// The gzipped body, when it is smaller.
    gzipped: Option<Vec<u8>>,
    /// A hash of the content: the `ETag` of the plain body; the gzipped
    /// one's adds `-gz`, since it is another representation.
    tag: String,
}

/// Every file of the page by its path, such as `js/main.js`.
#[derive(Debug, Default)]
pub struct Assets(HashMap<String, Asset>);

impl Assets {
    /// Reads and compresses every file of the page.
    pub fn load() -> Assets {
        let mut assets = HashMap::new();
        for path in Files::iter() {
            let Some(file) = Files::get(&path) else {
                continue;
            };
            let plain = file.data.into_owned();
            let hash = file.metadata.sha256_hash();
            let tag: String = hash[..12].iter().map(|byte| format!("{byte:02x}")).collect();
            let gzipped = gzip(&plain).filter(|gzipped| gzipped.len() < plain.len());
            let asset = Asset {
                content_type: content_type(&path),
                plain,
                gzipped,
                tag,
            };
            assets.insert(path.into_owned(), asset);
        }
        Assets(assets)
    }

    /// The number of files and their plain and gzipped sizes in bytes,
    /// for the log at start.
    pub fn sizes(&self) -> (usize, usize, usize) {
        let plain = self.0.values().map(|asset| asset.plain.len()).sum();
        let gzipped = self
            .0
            .values()
            .map(|asset| asset.gzipped.as_ref().map_or(asset.plain.len(), Vec::len))
            .sum();
        (self.0.len(), plain, gzipped)
    }

    /// Answers a request for `path`, or `404` in the API's error shape.
    fn answer(&self, path: &str, request: &HeaderMap) -> Response {
        let Some(asset) = self.0.get(path) else {
            return ApiError::not_found("file").into_response();
        };
        let gzip = asset.gzipped.is_some() && accepts_gzip(request);
        let tag = if gzip {
            format!("\"{}-gz\"", asset.tag)
        } else {
            format!("\"{}\"", asset.tag)
        };
        let mut response = if matches(request, &tag) {
            StatusCode::NOT_MODIFIED.into_response()
        } else if let (true, Some(gzipped)) = (gzip, &asset.gzipped) {
            let mut response = gzipped.clone().into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            response
        } else {
            asset.plain.clone().into_response()
        };
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, asset.content_type.clone());
        if let Ok(tag) = HeaderValue::from_str(&tag) {
            headers.insert(header::ETAG, tag);
        }
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        headers.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
        response
    }
}

/// The routes of the page. Any other path is left to the server's JSON
/// `404`, so that a mistyped API address is not answered with a page.
pub fn routes<S: Clone + Send + Sync + 'static>(assets: Arc<Assets>) -> Router<S> {
    let files = [
        ("/", "index.html"),
        ("/index.html", "index.html"),
        // A room's shareable link: the page reads the code from the path.
        ("/r/{code}", "index.html"),
        ("/app.css", "app.css"),
        ("/favicon.svg", "favicon.svg"),
    ];
    let mut router = Router::new();
    for (route, path) in files {
        router = router.route(
            route,
            get(
                move |State(assets): State<Arc<Assets>>, request: HeaderMap| async move {
                    assets.answer(path, &request)
                },
            ),
        );
    }
    router.route("/js/{*path}", get(module)).with_state(assets)
}

async fn module(State(assets): State<Arc<Assets>>, Path(path): Path<String>, request: HeaderMap) -> Response {
    assets.answer(&format!("js/{path}"), &request)
}

fn content_type(path: &str) -> HeaderValue {
    let value = match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    };
    HeaderValue::from_static(value)
}

fn gzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).ok()?;
    encoder.finish().ok()
}

/// Whether the request's `Accept-Encoding` takes gzip (and does not refuse
/// it with `q=0`).
fn accepts_gzip(request: &HeaderMap) -> bool {
    request
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|param| {
                param
                    .strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
        })
}

/// Whether `If-None-Match` names `tag` (or is `*`).
fn matches(request: &HeaderMap, tag: &str) -> bool {
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|candidate| candidate.trim().trim_start_matches("W/"))
        .any(|candidate| candidate == tag || candidate == "*")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn gzip_is_taken_unless_refused() {
        assert!(accepts_gzip(&headers(&[(
            header::ACCEPT_ENCODING,
            "gzip, deflate, br"
        )])));
        assert!(accepts_gzip(&headers(&[(
            header::ACCEPT_ENCODING,
            "br;q=1.0, gzip;q=0.8"
        )])));
        assert!(accepts_gzip(&headers(&[(header::ACCEPT_ENCODING, "*")])));
        assert!(!accepts_gzip(&headers(&[(header::ACCEPT_ENCODING, "gzip;q=0")])));
        assert!(!accepts_gzip(&headers(&[(header::ACCEPT_ENCODING, "br")])));
        assert!(!accepts_gzip(&HeaderMap::new()));
    }

    #[test]
    fn the_page_is_built_in_with_its_modules() {
        let assets = Assets::load();
        for path in [
            "index.html",
            "app.css",
            "favicon.svg",
            "js/main.js",
            "js/protocol.js",
        ] {
            assert!(assets.0.contains_key(path), "{path} is served");
        }
        assert!(
            assets
                .0
                .keys()
                .all(|path| !path.starts_with("test/") && !path.ends_with(".md")),
            "only the page's own files are served"
        );
    }

    #[test]
    fn an_unchanged_file_is_answered_with_not_modified() {
        let assets = Assets::load();
        let first = assets.answer("js/main.js", &headers(&[(header::ACCEPT_ENCODING, "gzip")]));
        assert_eq!(first.status(), StatusCode::OK);
        assert_eq!(first.headers()[header::CONTENT_ENCODING], "gzip");
        let tag = first.headers()[header::ETAG].to_str().unwrap().to_owned();
        let again = assets.answer(
            "js/main.js",
            &headers(&[(header::ACCEPT_ENCODING, "gzip"), (header::IF_NONE_MATCH, &tag)]),
        );
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        // The plain body is another representation, with a tag of its own.
        let plain = assets.answer("js/main.js", &headers(&[(header::IF_NONE_MATCH, &tag)]));
        assert_eq!(plain.status(), StatusCode::OK);
        assert!(plain.headers().get(header::CONTENT_ENCODING).is_none());
    }
}
