//! The formats the product speaks to the outside world. The engine knows
//! nothing of JSON; these types borrow or copy its values and give them
//! their wire shape.

pub mod event;
pub mod history;
pub mod http;
pub mod read;
pub mod schema;
pub mod ws;
