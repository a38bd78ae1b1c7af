-- Who may write for a room: each opening of a room (new, resumed after a
-- restart, or taken over by another node of a cluster) raises `epoch`, and
-- every batch of a room's writes names the epoch it was made under. The
-- journal's batches lock the room's row and are refused whole when a newer
-- opening exists, so a node that lost a room (it was paused, or cut off,
-- while another node took the room over) can no longer store anything for
-- it, and so can never confirm anything to a player.
ALTER TABLE rooms ADD COLUMN epoch bigint NOT NULL DEFAULT 0;
