-- Who may write under a lease of the cluster: each node that takes a lease
-- (the one naming the node that runs the tournaments) raises its epoch
-- here before it acts, and its writes under the lease are refused once the
-- epoch has moved on, so that a node that lost the lease while it was
-- paused or cut off can store nothing on the strength of it.
CREATE TABLE leases (
    name text PRIMARY KEY,
    epoch bigint NOT NULL
);
