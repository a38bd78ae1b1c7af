-- The epochs of the cluster's leases, as in the Postgres migration
-- `0007_lease_epochs`: a write under an older epoch is refused.
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL
);
