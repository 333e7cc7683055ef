-- app.match_candidates' query was planned for each call's values (a custom plan) on each of a
-- connection's first five calls before PostgreSQL settled on a generic plan; on the Edge Runtime
-- connections are short-lived, so most calls paid it. Its values (the request's origin, radius and
-- move-in date, the limit) never change the plan's shape: a nearest-first walk of the homes' index
-- within the box, filtered. One generic plan from the first call is as fast once warm and takes the
-- first calls of a new connection from about 8 ms to about 3 ms at 2,000 homes (npm run surge prints
-- both), with the same homes, order and distances (tests/claims/matching-equivalence.test.ts).
alter function app.match_candidates(uuid, integer) set plan_cache_mode = force_generic_plan;
