-- Each opening of a room raises its epoch, as in the Postgres migration
-- `0006_room_epochs`; a batch of writes made under an older epoch is
-- refused.
ALTER TABLE rooms ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0;
