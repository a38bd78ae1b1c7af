//! The formats the product speaks to the outside world. The engine knows
//! nothing of JSON; these types borrow or copy its values and give them
//! their wire shape.

pub mod friends;
pub mod history;
pub mod http;
pub mod moderation;
mod player;
pub mod read;
pub mod review;
mod rfc3339;
pub mod schema;
pub mod ws;

/// The room events, a part of the WebSocket protocol that the rooms make
/// and the clients read, named at the top for both.
pub use player::AVATARS;
pub use ws::event;
