//! The HTTP API's OpenAPI document, served at `/api/openapi.json`. It is
//! generated from the handlers' `#[utoipa::path]` attributes and the
//! protocol crate's views, so that it describes the routes and bodies the
//! server has rather than a copy that could fall behind them.

use std::sync::LazyLock;

use axum::http::header;
use axum::response::{IntoResponse, Response};
use spades_protocol::http::ApiErrorBody;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi};

/// The document. Every path the router serves under `/api`, and the
/// operators' endpoints beside them, are listed here; the end-to-end tests
/// check the list against the routes.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Spades server HTTP API",
        description = "Accounts, profiles, the leaderboard, stored games and tournaments. \
            Every error is `{\"error\": CODE, \"message\": TEXT}` (`ApiErrorBody`); the README's \
            \"Errors\" section lists the codes. Any request may also be answered `408 \
            request_timeout` when it is not sent and answered in time, and a method that a path \
            does not take gets `405 method_not_allowed` with `Allow`; a path that the server does \
            not serve gets `404 not_found`. The WebSocket at `/ws` is described in `protocol.md`.",
    ),
    paths(
        super::register,
        super::login,
        super::logout,
        super::claim,
        super::me,
        super::my_games,
        super::player,
        super::player_named,
        super::leaderboard,
        crate::api::games::game,
        crate::api::games::history,
        crate::api::reviews::ask,
        crate::api::reviews::show,
        crate::api::tournaments::list,
        crate::api::tournaments::create,
        crate::api::tournaments::show,
        crate::api::tournaments::register,
        crate::api::tournaments::unregister,
        crate::api::tournaments::add_bots,
        crate::api::tournaments::start,
        crate::api::tournaments::cancel,
        crate::api::tournaments::history,
        crate::api::tournaments::grant,
        crate::api::account::change_password,
        crate::api::account::reset_link,
        crate::api::account::reset,
        crate::api::account::delete,
        crate::api::account::export,
        crate::api::account::blocks,
        crate::api::account::block,
        crate::api::account::unblock,
        crate::api::friends::list,
        crate::api::friends::ask,
        crate::api::friends::part,
        crate::api::friends::avatar,
        crate::api::friends::presence,
        crate::api::moderation::set_role,
        crate::api::moderation::sanction,
        crate::api::moderation::lift,
        crate::api::moderation::in_force,
        crate::api::moderation::record,
        crate::api::moderation::audit,
        crate::api::moderation::end_room,
        crate::api::reports::report,
        crate::api::reports::open,
        crate::api::reports::resolve,
        crate::api::operations::notice,
        crate::api::operations::begin,
        crate::api::operations::end,
        crate::api::operations::show,
        super::presets,
        crate::client_schema,
        crate::server_schema,
        document,
        crate::healthz,
        crate::readyz,
        crate::metrics,
    ),
    components(schemas(ApiErrorBody)),
    modifiers(&BearerToken, &RequestTimeout),
    tags(
        (name = "accounts", description = "Registration, logins and sessions"),
        (name = "players", description = "Profiles, the leaderboard and permissions"),
        (name = "games", description = "Stored games"),
        (name = "tournaments", description = "Tournaments run by the server"),
        (name = "moderation", description = "Roles, sanctions, reports, reset links and the audit log"),
        (name = "schemas", description = "Machine-readable descriptions of the protocol and the API"),
        (name = "operations", description = "Health, metrics, notices and maintenance, for operators"),
    )
)]
pub(crate) struct ApiDoc;

/// The name the operations' `security` requirements use for the bearer
/// token.
const BEARER: &str = "bearer";

/// Declares the session token that requests acting for a player carry.
struct BearerToken;

impl Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let scheme = HttpBuilder::new()
            .scheme(HttpAuthScheme::Bearer)
            .description(Some(
                "A session token: an account's from `/api/register`, `/api/login` or `/api/claim`, \
                 or a guest's from the WebSocket's `hello`.",
            ))
            .build();
        openapi
            .components
            .get_or_insert_with(Default::default)
            .add_security_scheme(BEARER, SecurityScheme::Http(scheme));
    }
}

/// Adds the `408` that the server's time limit gives any request (see
/// `answer_in_time` in `lib.rs`) to every operation, as one shared
/// response rather than a line in each handler's attribute.
struct RequestTimeout;

impl Modify for RequestTimeout {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        const NAME: &str = "RequestTimeout";
        let response = ResponseBuilder::new()
            .description(
                "`request_timeout`: the request, its body included, was not sent and answered \
                 within two keepalive intervals",
            )
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("ApiErrorBody")))
                    .build(),
            )
            .build();
        openapi
            .components
            .get_or_insert_with(Default::default)
            .responses
            .insert(NAME.into(), RefOr::T(response));
        for item in openapi.paths.paths.values_mut() {
            let operations = [
                &mut item.get,
                &mut item.put,
                &mut item.post,
                &mut item.delete,
                &mut item.patch,
            ];
            for operation in operations.into_iter().flatten() {
                operation.responses.responses.insert(
                    "408".into(),
                    RefOr::Ref(Ref::new(format!("#/components/responses/{NAME}"))),
                );
            }
        }
    }
}

/// `GET /api/openapi.json`: the document, made once.
#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "schemas",
    responses((status = 200, description = "This document (OpenAPI 3.1)", body = Object)),
)]
pub(crate) async fn document() -> Response {
    static TEXT: LazyLock<String> = LazyLock::new(|| {
        ApiDoc::openapi()
            .to_pretty_json()
            .expect("an OpenAPI document always serializes")
    });
    ([(header::CONTENT_TYPE, "application/json")], TEXT.as_str()).into_response()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Every operation of the document, with its method and path.
    fn operations(openapi: &utoipa::openapi::OpenApi) -> Vec<(String, &utoipa::openapi::path::Operation)> {
        let mut all = Vec::new();
        for (path, item) in &openapi.paths.paths {
            let methods = [
                ("GET", &item.get),
                ("PUT", &item.put),
                ("POST", &item.post),
                ("DELETE", &item.delete),
                ("PATCH", &item.patch),
                ("HEAD", &item.head),
                ("OPTIONS", &item.options),
                ("TRACE", &item.trace),
            ];
            for (method, operation) in methods {
                if let Some(operation) = operation {
                    all.push((format!("{method} {path}"), operation));
                }
            }
        }
        all
    }

    #[test]
    fn every_operation_has_a_success_and_a_unique_id() {
        let openapi = ApiDoc::openapi();
        let operations = operations(&openapi);
        assert!(operations.len() >= 26, "{} operations", operations.len());
        let mut ids = HashSet::new();
        for (name, operation) in operations {
            let succeeds = operation
                .responses
                .responses
                .keys()
                .any(|status| status.starts_with('2'));
            assert!(succeeds, "{name} has no 2xx response");
            let id = operation.operation_id.clone().unwrap_or_default();
            assert!(
                ids.insert(id.clone()),
                "{name}: operation id {id:?} is taken twice"
            );
        }
    }

    #[test]
    fn operations_that_act_for_a_player_ask_for_the_token() {
        let openapi = ApiDoc::openapi();
        for (name, operation) in operations(&openapi) {
            // A login's 401 is for a wrong password, not a missing token.
            let refuses_strangers =
                operation.responses.responses.contains_key("401") && name != "POST /api/login";
            let asks = operation
                .security
                .as_ref()
                .is_some_and(|security| !security.is_empty());
            assert_eq!(
                refuses_strangers, asks,
                "{name}: a 401 answer and the bearer requirement go together"
            );
        }
    }

    #[test]
    fn the_document_is_json_with_its_components() {
        let value: serde_json::Value =
            serde_json::from_str(&ApiDoc::openapi().to_json().expect("the document serializes"))
                .expect("it is JSON");
        assert_eq!(value["openapi"], "3.1.0");
        let schemas = &value["components"]["schemas"];
        for name in [
            "ApiErrorBody",
            "Session",
            "TournamentView",
            "RuleSet",
            "PlayerInfo",
        ] {
            assert!(schemas[name].is_object(), "{name} is not among the schemas");
        }
        assert_eq!(value["components"]["securitySchemes"][BEARER]["scheme"], "bearer");
        let mut references = Vec::new();
        collect_references(&value, &mut references);
        for reference in references {
            let target = reference
                .strip_prefix('#')
                .and_then(|pointer| value.pointer(pointer));
            assert!(target.is_some(), "{reference} leads nowhere");
        }
    }

    fn collect_references(value: &serde_json::Value, into: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(reference)) = map.get("$ref") {
                    into.push(reference.clone());
                }
                map.values().for_each(|value| collect_references(value, into));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|value| collect_references(value, into)),
            _ => {}
        }
    }
}
