//! The API's refusals: one error type, answered as
//! `{"error": code, "message": text}` with a fitting status, and the
//! extractors that turn axum's own refusals (plain text that names the
//! server's types) into it.

use std::time::Duration;

use axum::Json;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use spades_protocol::http::ApiErrorBody;
use spades_store::StoreError;

use super::BODY_LIMIT;
use spades_room::unavailable::Unavailable;

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    pub(super) status: StatusCode,
    pub(super) code: &'static str,
    message: String,
    retry_after: Option<Duration>,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    pub(crate) fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid bearer token is needed",
        )
    }

    /// The same error, telling the client how long to wait before trying
    /// again (`Retry-After`).
    pub(crate) fn retry_after(self, wait: Duration) -> ApiError {
        ApiError {
            retry_after: Some(wait),
            ..self
        }
    }

    pub(crate) fn not_found(what: &str) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", format!("no such {what}"))
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        match error {
            StoreError::NameTaken => ApiError::new(
                StatusCode::CONFLICT,
                "name_taken",
                "that name is already registered",
            ),
            error => {
                // Details go to the log, not to the client.
                tracing::error!(%error, "storage error in the HTTP API");
                Unavailable::Store.into()
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(ApiErrorBody {
            error: self.code.to_owned(),
            message: self.message,
        });
        let mut response = (self.status, body).into_response();
        if let Some(wait) = self.retry_after
            && let Ok(value) = HeaderValue::from_str(&wait.as_secs().max(1).to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response
    }
}

pub(crate) type ApiResult<T> = Result<T, ApiError>;

/// A JSON body. Unlike `axum::Json`, whose refusals are plain text that
/// names the server's types, it refuses in the API's shape (see
/// `From<JsonRejection>`).
#[derive(Debug)]
pub(crate) struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<ApiJson<T>, ApiError> {
        let Json(value) = Json::<T>::from_request(request, state).await?;
        Ok(ApiJson(value))
    }
}

/// The parameters in a request's path, refused in the API's shape.
#[derive(Debug)]
pub(crate) struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<ApiPath<T>, ApiError> {
        let Path(value) = Path::<T>::from_request_parts(parts, state).await?;
        Ok(ApiPath(value))
    }
}

/// A request's query string, refused in the API's shape.
#[derive(Debug)]
pub(crate) struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<ApiQuery<T>, ApiError> {
        let Query(value) = Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}

/// The first error of type `E` in `error`'s chain of sources. axum keeps
/// the deserializer's error, which says where the input went wrong, a few
/// wrappers down.
fn find<'a, E: std::error::Error + 'static>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a E> {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(found) = error.downcast_ref::<E>() {
            return Some(found);
        }
        next = error.source();
    }
    None
}

/// A name the client sent, cut short enough to quote in a message.
fn quoted(name: &str) -> String {
    const LONGEST: usize = 40;
    match name.char_indices().nth(LONGEST) {
        Some((end, _)) => format!("`{}...`", &name[..end]),
        None => format!("`{name}`"),
    }
}

/// The messages below are written here rather than taken from serde or
/// axum, whose texts name the server's Rust types ("expected u32",
/// "expected struct Credentials").
impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        match &rejection {
            JsonRejection::MissingJsonContentType(_) => ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "the body must be JSON, sent with Content-Type: application/json",
            ),
            JsonRejection::JsonSyntaxError(_) => ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_json",
                json_syntax_message(&rejection),
            ),
            JsonRejection::JsonDataError(_) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "bad_fields",
                json_fields_message(&rejection),
            ),
            _ if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("a request's body is at most {} KiB", BODY_LIMIT / 1024),
            ),
            // The body could not be read: the client stopped sending it.
            _ => ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "the request's body could not be read",
            ),
        }
    }
}

fn json_syntax_message(rejection: &JsonRejection) -> String {
    let error = find::<serde_path_to_error::Error<serde_json::Error>>(rejection)
        .map(serde_path_to_error::Error::inner)
        .or_else(|| find::<serde_json::Error>(rejection));
    match error {
        Some(error) if error.is_eof() => "the body's JSON ends too soon (or the body is empty)".into(),
        Some(error) => format!(
            "the body is not valid JSON (at line {}, column {})",
            error.line(),
            error.column()
        ),
        None => "the body is not valid JSON".into(),
    }
}

fn json_fields_message(rejection: &JsonRejection) -> String {
    let Some(error) = find::<serde_path_to_error::Error<serde_json::Error>>(rejection) else {
        return "the body lacks a field, or has one of the wrong type or value".into();
    };
    let path = error.path();
    let at_top = path.iter().next().is_none();
    // The path leads to the object that lacks a field, but to the field
    // itself when it is one too many.
    let missing = |name: &str| {
        if at_top {
            quoted(name)
        } else {
            quoted(&format!("{path}.{name}"))
        }
    };
    let here = |name: &str| {
        if at_top {
            quoted(name)
        } else {
            quoted(&path.to_string())
        }
    };
    // serde words these three the same way for every format, and names
    // the field in backquotes.
    let text = error.inner().to_string();
    let named = |prefix: &str| {
        text.strip_prefix(prefix)
            .and_then(|rest| rest.split_once('`'))
            .map(|(name, _)| name)
    };
    if let Some(name) = named("missing field `") {
        format!("the field {} is missing", missing(name))
    } else if let Some(name) = named("unknown field `") {
        format!("{} is not a field this request takes", here(name))
    } else if let Some(name) = named("duplicate field `") {
        format!("the field {} is given twice", here(name))
    } else if at_top {
        "the body must be a JSON object with the fields this request takes".into()
    } else {
        format!(
            "the field {} has a value of the wrong type or out of range",
            quoted(&path.to_string())
        )
    }
}

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> ApiError {
        if rejection.status().is_server_error() {
            // A route whose handler does not fit its path: a bug, not the
            // client's doing.
            tracing::error!(%rejection, "a handler cannot read its route's path");
            return ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the server could not read the path",
            );
        }
        let key = match &rejection {
            PathRejection::FailedToDeserializePathParams(error) => match error.kind() {
                ErrorKind::ParseErrorAtKey { key, .. }
                | ErrorKind::InvalidUtf8InPathParam { key }
                | ErrorKind::DeserializeError { key, .. } => Some(key.as_str()),
                _ => None,
            },
            _ => None,
        };
        let message = match key {
            Some(key) => format!("the {} in the path is malformed", quoted(key)),
            None => "a value in the path is malformed".into(),
        };
        ApiError::new(StatusCode::BAD_REQUEST, "bad_path", message)
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        let parameter = find::<serde_path_to_error::Error<serde::de::value::Error>>(&rejection)
            .map(serde_path_to_error::Error::path)
            .filter(|path| path.iter().next().is_some())
            .map(ToString::to_string);
        let message = match parameter {
            Some(parameter) => format!("the query parameter {} is malformed", quoted(&parameter)),
            None => "the query string is malformed".into(),
        };
        ApiError::new(StatusCode::BAD_REQUEST, "bad_query", message)
    }
}

/// The answer to a path that no route serves.
pub(crate) async fn no_route() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "there is nothing at this path",
    )
}

/// The answer to a method that a path does not take; axum adds `Allow`.
pub(crate) async fn wrong_method() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this path does not take that method",
    )
}

/// A service that cannot answer now is a 503 with the unavailable's own
/// code and sentence.
impl From<Unavailable> for ApiError {
    fn from(unavailable: Unavailable) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            unavailable.api_code(),
            unavailable.message(),
        )
    }
}
