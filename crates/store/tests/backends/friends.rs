//! Friends and what a player shows of himself, on both backends.

use spades_store::{FriendAsk, FriendState, Store};

use crate::support::registered;

pub(crate) async fn friends_ask_accept_and_part(store: &Store) {
    let (ann, bob, cy) = (
        registered(store, "Ann").await,
        registered(store, "Bob").await,
        registered(store, "Cy").await,
    );
    assert_eq!(store.ask_friend(ann, bob).await.unwrap(), FriendAsk::Requested);
    assert_eq!(
        store.ask_friend(ann, bob).await.unwrap(),
        FriendAsk::Unchanged,
        "asking twice is asking once"
    );
    assert!(
        !store.are_friends(ann, bob).await.unwrap(),
        "not before Bob accepts"
    );
    let states = |list: Vec<spades_store::Friend>| {
        list.into_iter()
            .map(|friend| (friend.name, friend.state))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        states(store.friends_of(ann).await.unwrap()),
        [("Bob".to_string(), FriendState::Asked)]
    );
    assert_eq!(
        states(store.friends_of(bob).await.unwrap()),
        [("Ann".to_string(), FriendState::AskedMe)]
    );

    // Bob asking back is accepting.
    assert_eq!(store.ask_friend(bob, ann).await.unwrap(), FriendAsk::Accepted);
    assert!(store.are_friends(ann, bob).await.unwrap());
    assert!(store.are_friends(bob, ann).await.unwrap());
    assert_eq!(store.ask_friend(ann, bob).await.unwrap(), FriendAsk::Unchanged);
    store.ask_friend(cy, ann).await.unwrap();
    assert_eq!(
        states(store.friends_of(ann).await.unwrap()),
        [
            ("Bob".to_string(), FriendState::Friends),
            ("Cy".to_string(), FriendState::AskedMe)
        ]
    );

    // Pictures and hidden tables show in the list.
    store.set_avatar(bob, Some("owl")).await.unwrap();
    store.set_hide_table(bob, true).await.unwrap();
    let bob_seen = store.friends_of(ann).await.unwrap().remove(0);
    assert_eq!(
        (bob_seen.avatar.as_deref(), bob_seen.hide_table),
        (Some("owl"), true)
    );
    assert!(store.hides_table(bob).await.unwrap());
    assert_eq!(
        store.account(bob).await.unwrap().unwrap().avatar.as_deref(),
        Some("owl")
    );

    // Either may end it; a declined request is gone too.
    assert!(store.remove_friend(bob, ann).await.unwrap());
    assert!(!store.are_friends(ann, bob).await.unwrap());
    assert!(!store.remove_friend(ann, bob).await.unwrap());
    assert!(store.remove_friend(ann, cy).await.unwrap());
    assert!(store.friends_of(ann).await.unwrap().is_empty());
}
