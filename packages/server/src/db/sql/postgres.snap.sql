-- health.ping
select 1;

-- users.isEmpty
select "id" from "users" limit $1;

-- users.insert
insert into "users" ("email", "username", "role", "auth_method", "password_hash", "password_salt", "password_needs_reset", "oauth2_idp", "oauth2_sub", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning *;

-- users.findActiveById
select * from "users" where "deleted_at" is null and "id" = $1;

-- users.findByEmail
select * from "users" where "email" = $1;

-- users.findByUsername
select * from "users" where "username" = $1;

-- users.findByOauth2Identity
select * from "users" where "oauth2_idp" = $1 and "oauth2_sub" = $2;

-- users.findByLdapUniqueId
select * from "users" where "auth_method" = $1 and "oauth2_idp" = $2 and "oauth2_sub" = $3;

-- users.listActive
select * from "users" where "deleted_at" is null and "id" <= $1 order by "id" desc limit $2;

-- users.lockActiveAdmins
update "users" set "role" = $1 where "role" = $2 and "deleted_at" is null;

-- users.countActiveAdmins
select count(*) as "count" from "users" where "deleted_at" is null and "role" = $1;

-- users.update
update "users" set "username" = $1, "password_needs_reset" = $2, "updated_at" = $3 where "id" = $4 and "deleted_at" is null returning *;

-- users.linkOauth2Identity
update "users" set "oauth2_idp" = $1, "oauth2_sub" = $2, "updated_at" = $3 where "id" = $4 and "deleted_at" is null and "auth_method" = $5 and "oauth2_idp" is null returning *;

-- users.syncLdapUser
update "users" set "email" = $1, "role" = $2, "oauth2_sub" = $3, "updated_at" = $4 where "id" = $5 and "deleted_at" is null and "auth_method" = $6 and "oauth2_idp" = $7 returning *;

-- apiKeys.insert
insert into "api_keys" ("kind", "user_id", "created_by", "name", "description", "key_hash", "created_at", "expires_at") values ($1, $2, $3, $4, $5, $6, $7, $8) returning *;

-- apiKeys.findByHash
select "api_keys".*, "users"."username" as "owner_username", "users"."email" as "owner_email", "users"."role" as "owner_role", "users"."deleted_at" as "owner_deleted_at" from "api_keys" left join "users" on "users"."id" = "api_keys"."user_id" where "api_keys"."key_hash" = $1;

-- apiKeys.findById
select "api_keys".*, "users"."username" as "owner_username", "users"."email" as "owner_email", "users"."role" as "owner_role", "users"."deleted_at" as "owner_deleted_at" from "api_keys" left join "users" on "users"."id" = "api_keys"."user_id" where "api_keys"."id" = $1;

-- apiKeys.listSystem
select * from "api_keys" where "kind" = $1 order by "id" desc;

-- apiKeys.listForUser
select * from "api_keys" where "user_id" = $1 order by "id" desc;

-- apiKeys.listUserKeys
select "api_keys".*, "users"."username" as "owner_username", "users"."email" as "owner_email", "users"."role" as "owner_role", "users"."deleted_at" as "owner_deleted_at" from "api_keys" left join "users" on "users"."id" = "api_keys"."user_id" where "api_keys"."kind" = $1 and "api_keys"."id" <= $2 order by "api_keys"."id" desc limit $3;

-- apiKeys.countAll
select count(*) as "count" from "api_keys";

-- apiKeys.touch
update "api_keys" set "last_used_at" = $1 where "id" = $2;

-- loginSessions.createSession
insert into "sessions" ("id", "user_id", "created_at", "expires_at") values ($1, $2, $3, $4);

-- loginSessions.insertToken
insert into "auth_tokens" ("jti", "session_id", "kind", "created_at", "expires_at") values ($1, $2, $3, $4, $5);

-- loginSessions.findToken
select "auth_tokens"."jti", "auth_tokens"."kind", "auth_tokens"."session_id", "sessions"."user_id", "auth_tokens"."expires_at", "auth_tokens"."used_at", "sessions"."expires_at" as "session_expires_at", "sessions"."revoked_at" from "auth_tokens" inner join "sessions" on "sessions"."id" = "auth_tokens"."session_id" where "auth_tokens"."jti" = $1;

-- loginSessions.markUsed
update "auth_tokens" set "used_at" = $1 where "jti" = $2 and "used_at" is null;

-- loginSessions.revokeSession
update "sessions" set "revoked_at" = $1 where "id" = $2 and "revoked_at" is null;

-- loginSessions.revokeUserSessions
update "sessions" set "revoked_at" = $1 where "user_id" = $2 and "revoked_at" is null;

-- loginFailures.recordAttempt
insert into "login_failures" ("email", "failures", "window_started_at", "locked_until") values ($1, $2, $3, $4) on conflict ("email") do update set "failures" = CASE WHEN (login_failures.window_started_at <= $5 AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= $6)) THEN 1 ELSE login_failures.failures + 1 END, "window_started_at" = CASE WHEN (login_failures.window_started_at <= $7 AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= $8)) THEN $9 ELSE login_failures.window_started_at END, "locked_until" = CASE WHEN (login_failures.window_started_at <= $10 AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= $11)) THEN NULL WHEN CASE WHEN (login_failures.window_started_at <= $12 AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= $13)) THEN 1 ELSE login_failures.failures + 1 END = $14 THEN $15 ELSE login_failures.locked_until END returning "failures", "window_started_at", "locked_until";

-- loginFailures.clear
delete from "login_failures" where "email" = $1;

-- rateLimits.hit
insert into "rate_limits" ("bucket", "hits", "window_started_at") values ($1, $2, $3) on conflict ("bucket") do update set "hits" = CASE WHEN rate_limits.window_started_at <= $4 THEN 1 ELSE rate_limits.hits + 1 END, "window_started_at" = CASE WHEN rate_limits.window_started_at <= $5 THEN $6 ELSE rate_limits.window_started_at END returning "hits", "window_started_at";

-- rateLimits.deleteStartedBefore
delete from "rate_limits" where "window_started_at" < $1;

-- passwordResets.replace
begin;
delete from "password_reset_tokens" where "user_id" = $1;
insert into "password_reset_tokens" ("token_hash", "user_id", "created_at", "expires_at") values ($1, $2, $3, $4);
commit;

-- passwordResets.find
select * from "password_reset_tokens" where "token_hash" = $1;

-- passwordResets.markUsed
update "password_reset_tokens" set "used_at" = $1 where "token_hash" = $2 and "used_at" is null;

-- projects.insert
insert into "projects" ("name", "description", "created_at", "updated_at") values ($1, $2, $3, $4) returning *;

-- projects.findById
select * from "projects" where "id" = $1 and "deleted_at" is null;

-- projects.findByName
select * from "projects" where "name" = $1 and "deleted_at" is null;

-- projects.list
select * from "projects" where "deleted_at" is null and "id" <= $1 and strpos(lower("projects"."name"), $2) > 0 order by "id" desc limit $3;

-- projects.list (without experiment projects)
select * from "projects" where "deleted_at" is null and not (not exists (select "other"."id" from "traces" as "other" where "other"."project_id" = "projects"."id" and not (exists (select "r"."id" from "experiment_runs" as "r" where "r"."trace_id" = "other"."trace_id") or exists (select "e"."id" from "experiment_run_annotations" as "e" where "e"."trace_id" = "other"."trace_id"))) and (exists (select "experiments"."id" from "experiments" where "experiments"."project_name" = "projects"."name") or exists (select "t"."id" from "traces" as "t" where "t"."project_id" = "projects"."id" and (exists (select "r"."id" from "experiment_runs" as "r" where "r"."trace_id" = "t"."trace_id") or exists (select "e"."id" from "experiment_run_annotations" as "e" where "e"."trace_id" = "t"."trace_id"))))) order by "id" desc limit $1;

-- projects.updateDescription
update "projects" set "description" = $1, "updated_at" = $2 where "id" = $3 returning *;

-- traces.list
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = $1 and "traces"."start_time" >= cast($2 as bigint) and "traces"."start_time" < cast($3 as bigint) and ("traces"."start_time" <= cast($4 as bigint) and ("traces"."start_time" < cast($5 as bigint) or "traces"."id" <= $6)) order by "traces"."start_time" desc, "traces"."id" desc limit $7;

-- traces.list (of a user)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where ("traces"."project_id" + 0) = $1 and traces.id in (select u.id from traces u where u.project_id = $2 and u.user_id = $3 union all select m.id from traces m where m.project_id = $4 and m.user_id = $5 and exists (select 1 from spans where spans.trace_rowid = m.id and (("spans"."attributes" -> cast($6 as text)) = cast($7 as jsonb)))) order by "traces"."start_time" desc, "traces"."id" desc limit $8;

-- traces.list (latency)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = $1 order by ("traces"."end_time" - "traces"."start_time") asc, "traces"."id" asc limit $2;

-- traces.list (full-text search and a condition)
select unnest(most_common_elems::text::text[]) as word from pg_stats where schemaname = current_schema() and tablename = 'span_search_vectors' and attname = 'search_vector';
select span_rowid as id from span_search_vectors where project_id = $1 and search_vector @@ cast($2 as tsquery) limit $3;

-- traces.findById
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."id" = $1;

-- traces.stats
select "trace_rowid", count(*) as "span_count", sum(case when "status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("llm_token_count_prompt") as "prompt", sum("llm_token_count_completion") as "completion", sum("llm_token_count_total") as "total" from "spans" where "trace_rowid" in ($1, $2) group by "trace_rowid";

-- traces.tokenTotalsByTraceId
select "traces"."trace_id", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "traces" inner join "spans" on "spans"."trace_rowid" = "traces"."id" where "traces"."trace_id" in ($1, $2) group by "traces"."trace_id";

-- spans.list
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in ($1) and "span_id" in ($2);
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where ("spans"."project_id" + 0) = $1 and "spans"."trace_rowid" in (select "t"."id" from "traces" as "t" where "t"."trace_id" in ($2) and "t"."project_id" = $3) and "spans"."id" in ($4) and "spans"."parent_id" is null and "spans"."name" in ($5) and "spans"."span_kind" in ($6) and "spans"."status_code" = 'ERROR' and "spans"."start_time" >= cast($7 as bigint) and "spans"."start_time" < cast($8 as bigint) and (("spans"."attributes" -> cast($9 as text)) = cast($10 as jsonb) or ("spans"."attributes" -> cast($11 as text)) = cast($12 as jsonb) or ("spans"."attributes" -> cast($13 as text)) = cast($14 as jsonb)) and ("spans"."start_time" <= cast($15 as bigint) and ("spans"."start_time" < cast($16 as bigint) or "spans"."id" <= $17)) order by "spans"."start_time" desc, "spans"."id" desc limit $18;

-- spans.list (full-text search: a phrase and a prefix, and a condition)
select span_rowid as id from span_search_vectors where project_id = $1 and search_vector @@ cast($2 as tsquery) limit $3;

-- spans.list (one kind: on SQLite by start second, db/start-seconds.ts)
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = $1 and "spans"."span_kind" in ($2) and ("spans"."start_time" <= cast($3 as bigint) and ("spans"."start_time" < cast($4 as bigint) or "spans"."id" <= $5)) order by "spans"."start_time" desc, "spans"."id" desc limit $6;

-- spans.list (two names in a time range: a scan per name on SQLite)
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = $1 and "spans"."name" in ($2, $3) and "spans"."start_time" >= cast($4 as bigint) and "spans"."start_time" < cast($5 as bigint) order by "spans"."start_time" asc, "spans"."id" asc limit $6;

-- spans.query (every condition form, orphans as roots)
begin;
select set_config('statement_timeout', $1, true);
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = $1 and spans.start_time >= cast($2 as bigint) and spans.start_time < cast($3 as bigint) and ("spans"."parent_id" is null or not exists (select 1 as "one" from "spans" as "p" where "p"."trace_rowid" = "spans"."trace_rowid" and "p"."span_id" = "spans"."parent_id")) and ((("spans"."span_kind" = $4) and (((spans.end_time - spans.start_time) / 1000000.0) > $5) and (strpos("spans"."status_message", $6) > 0) and ("traces"."trace_id" in ($7)) and (not ("spans"."parent_id" is null))) or ((("spans"."attributes" -> cast($8 as text)) = cast($9 as jsonb)) and (jsonb_typeof("spans"."attributes" -> cast($10 as text)) is not null and not (("spans"."attributes" -> cast($11 as text)) = cast($12 as jsonb))) and (jsonb_typeof("spans"."attributes" -> cast($13 as text)) = 'number' and (case when jsonb_typeof("spans"."attributes" -> cast($14 as text)) = 'number' then cast("spans"."attributes" ->> cast($15 as text) as double precision) end) >= $16) and (jsonb_typeof("spans"."attributes" -> cast($17 as text)) = 'string' and ("spans"."attributes" ->> cast($18 as text)) < $19) and ((("spans"."attributes" -> cast($20 as text)) = cast($21 as jsonb)) or (("spans"."attributes" -> cast($22 as text)) = cast($23 as jsonb))) and (jsonb_typeof("spans"."attributes" -> cast($24 as text)) = 'string' and (strpos(("spans"."attributes" ->> cast($25 as text)), $26) > 0)) and (jsonb_typeof("spans"."attributes" -> cast($27 as text)) is null or jsonb_typeof("spans"."attributes" -> cast($28 as text)) = 'null') and exists (select 1 from span_annotations a where a.span_rowid = spans.id and a.name = $29 and a.label = $30 and a.score > $31 and a.score is not null) and exists (select 1 from span_annotations a where a.span_rowid = spans.id and a.name = $32 and a.label not in ($33)))) order by "spans"."start_time" desc, "spans"."id" desc limit $34;
commit;

-- spans.query (root spans without a parent id)
begin;
select set_config('statement_timeout', $1, true);
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = $1 and "spans"."parent_id" is null order by "spans"."start_time" desc, "spans"."id" desc limit $2;
commit;

-- spans.findById
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."id" = $1;

-- spans.findByIds
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."id" in ($1, $2);

-- spans.findBySpanId
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in ($1) and "span_id" in ($2);
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."id" = $1;

-- spans.listOfTrace
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."trace_rowid" = $1 order by "spans"."start_time" asc, "spans"."id" asc limit $2;

-- savedViews.upsert
insert into "saved_views" ("project_id", "user_id", "name", "page", "query", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("project_id", "name") do update set "page" = $8, "query" = $9, "user_id" = $10, "updated_at" = $11 returning "id", "project_id", "name", "page", "query", "created_at";

-- savedViews.list
select "id", "project_id", "name", "page", "query", "created_at" from "saved_views" where "project_id" = $1 and "id" <= $2 order by "id" desc limit $3;

-- savedViews.delete
delete from "saved_views" where "id" = $1 and "project_id" = $2;

-- spans.recentAttributeKeys
select distinct k as key from (select "attributes" from "spans" where "project_id" = $1 order by "start_time" desc limit $2) as "s", jsonb_object_keys(s.attributes) as k order by k limit $3;

-- spans.summariesOfTraces
select "id", "trace_rowid", "span_id", "parent_id", "name", "span_kind", "status_code", cast("start_time" as text) as "start_time", cast("end_time" as text) as "end_time" from "spans" where "trace_rowid" in ($1, $2) and "parent_id" is null order by "spans"."trace_rowid", "spans"."start_time", "spans"."id";

-- spans.rowidsBySpanId
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in ($1) and "span_id" in ($2);

-- spans.anyInProject
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in ($1) and "span_id" in ($2);
select "id" from "spans" where ("spans"."project_id" + 0) = $1 and "id" in ($2) limit $3;

-- spans.anyInTrace
select "id" from "spans" where "trace_rowid" = $1 limit $2;

-- traces.findByTraceId
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."id" = (select "trace_rowid" from "trace_ids" where "trace_id" = $1) and "traces"."trace_id" = $2;

-- traces.list (sessions)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = $1 and "traces"."project_session_rowid" in ($2, $3) order by "traces"."start_time" desc, "traces"."id" desc limit $4;

-- sessions.list
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."project_id" = $1 and "project_sessions"."id" >= $2 order by "project_sessions"."id" asc limit $3;

-- sessions.list (desc)
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."project_id" = $1 order by "project_sessions"."id" desc limit $2;

-- sessions.list (by start)
select cast("project_sessions"."start_time" as text) as "time" from "project_sessions" where "id" = $1 and "project_id" = $2;

-- sessions.list (of a user)
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."project_id" = $1 and project_sessions.id in (select t.project_session_rowid from traces t where t.id in (select u.id from traces u where u.project_id = $2 and u.user_id = $3 union all select m.id from traces m where m.project_id = $4 and m.user_id = $5 and exists (select 1 from spans where spans.trace_rowid = m.id and (("spans"."attributes" -> cast($6 as text)) = cast($7 as jsonb))))) order by "project_sessions"."id" desc limit $8;

-- sessions.list (by last activity)
select cast("project_sessions"."end_time" as text) as "time" from "project_sessions" where "id" = $1 and "project_id" = $2;

-- sessions.findById
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."id" = $1;

-- sessions.anyInProject
select "id" from "project_sessions" where ("project_sessions"."project_id" + 0) = $1 and "session_id" in ($2) limit $3;

-- traces.rowidsByTraceId
select "id", "trace_id" from "traces" where "trace_id" in ($1);

-- traces.anyInProject
select "id" from "traces" where ("traces"."project_id" + 0) = $1 and "trace_id" in ($2) limit $3;

-- annotations.upsert (span)
insert into "span_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "span_rowid", "trace_rowid") values ($1, $2, $3, cast($4 as jsonb), $5, $6, $7, $8, $9, $10, $11, $12, (select spans.trace_rowid from spans where spans.id = $13)) on conflict ("name", "span_rowid", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning "id";

-- annotations.upsert (trace)
insert into "trace_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "trace_rowid") values ($1, $2, $3, cast($4 as jsonb), $5, $6, $7, $8, $9, $10, $11, $12) on conflict ("name", "trace_rowid", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning "id";

-- annotations.upsert (session)
insert into "session_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "project_session_rowid") values ($1, $2, $3, cast($4 as jsonb), $5, $6, $7, $8, $9, $10, $11, $12) on conflict ("name", "project_session_rowid", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning "id";

-- annotations.upsert (document)
insert into "document_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "span_rowid", "document_position", "trace_rowid") values ($1, $2, $3, cast($4 as jsonb), $5, $6, $7, $8, $9, $10, $11, $12, $13, (select spans.trace_rowid from spans where spans.id = $14)) on conflict ("name", "span_rowid", "document_position", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning "id";

-- annotations.list (trace)
select "a".*, "t"."trace_id" as "target" from "trace_annotations" as "a" inner join "traces" as "t" on "t"."id" = "a"."trace_rowid" where ("t"."project_id" + 0) = $1 and "t"."trace_id" in ($2) and "a"."identifier" in ($3) and "a"."name" in ($4) and "a"."name" not in ($5) and "a"."id" <= $6 order by "a"."id" desc limit $7;

-- annotations.list (session)
select "a".*, "t"."session_id" as "target" from "session_annotations" as "a" inner join "project_sessions" as "t" on "t"."id" = "a"."project_session_rowid" where ("t"."project_id" + 0) = $1 and "t"."session_id" in ($2) and "a"."identifier" in ($3) and "a"."name" in ($4) and "a"."name" not in ($5) and "a"."id" <= $6 order by "a"."id" desc limit $7;

-- annotations.listDocuments
select "a".*, "spans"."span_id" as "target" from "document_annotations" as "a" inner join "spans" on "spans"."id" = "a"."span_rowid" where "a"."span_rowid" = $1 order by "a"."document_position", "a"."id";

-- annotations.labelCounts
select "a"."name", "a"."label", count(*) as "count", sum("a"."score") as "score_sum", count("a"."score") as "score_count" from "span_annotations" as "a" inner join "spans" on "spans"."id" = "a"."span_rowid" where "spans"."project_id" = $1 and "a"."name" <> $2 and "spans"."start_time" >= cast($3 as bigint) and "spans"."start_time" < cast($4 as bigint) group by "a"."name", "a"."label" order by "a"."name", "a"."label";
select "a"."name", "a"."label", count(*) as "count", sum("a"."score") as "score_sum", count("a"."score") as "score_count" from "trace_annotations" as "a" inner join "traces" on "traces"."id" = "a"."trace_rowid" where "traces"."project_id" = $1 and "a"."name" <> $2 and "traces"."start_time" >= cast($3 as bigint) and "traces"."start_time" < cast($4 as bigint) group by "a"."name", "a"."label" order by "a"."name", "a"."label";

-- traces.list (annotation filters)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = $1 and (exists (select 1 from trace_annotations fta where fta.trace_rowid = "traces"."id" and "fta"."name" = $2 and "fta"."label" = $3) or exists (select 1 from spans fs join span_annotations fsa on fsa.span_rowid = fs.id where fs.trace_rowid = "traces"."id" and "fsa"."name" = $4 and "fsa"."label" = $5)) and (exists (select 1 from trace_annotations fta where fta.trace_rowid = "traces"."id" and "fta"."name" = $6 and "fta"."score" >= $7) or exists (select 1 from spans fs join span_annotations fsa on fsa.span_rowid = fs.id where fs.trace_rowid = "traces"."id" and "fsa"."name" = $8 and "fsa"."score" >= $9)) order by "traces"."start_time" desc, "traces"."id" desc limit $10;

-- spans.list (annotation filters)
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = $1 and exists (select 1 from span_annotations fa where fa.span_rowid = "spans"."id" and "fa"."name" = $2) and exists (select 1 from span_annotations fa where fa.span_rowid = "spans"."id" and "fa"."name" = $3 and "fa"."label" = $4) and exists (select 1 from span_annotations fa where fa.span_rowid = "spans"."id" and "fa"."name" = $5 and "fa"."score" < $6) order by "spans"."start_time" desc, "spans"."id" desc limit $7;

-- annotationConfigs.insert
insert into "annotation_configs" ("name", "type", "config", "created_at", "updated_at") values ($1, $2, cast($3 as jsonb), $4, $5) returning *;

-- annotationConfigs.findById
select "c".* from "annotation_configs" as "c" where "c"."id" = $1;

-- annotationConfigs.findByName
select "c".* from "annotation_configs" as "c" where "c"."name" = $1;

-- annotationConfigs.findByNames
select "c".* from "annotation_configs" as "c" where "c"."name" in ($1, $2);

-- annotationConfigs.existingIds
select "id" from "annotation_configs" where "id" in ($1, $2);

-- annotationConfigs.update
update "annotation_configs" set "name" = $1, "type" = $2, "config" = cast($3 as jsonb), "updated_at" = $4 where "id" = $5 returning *;

-- annotationConfigs.assign
insert into "project_annotation_configs" ("project_id", "annotation_config_id") values ($1, $2) on conflict ("project_id", "annotation_config_id") do nothing;

-- annotationConfigs.assignedIds
select "annotation_config_id" from "project_annotation_configs" where "project_id" = $1;

-- annotationConfigs.list
select "c".* from "annotation_configs" as "c" where "c"."id" <= $1 order by "c"."id" desc limit $2;

-- annotationConfigs.list (project)
select "c".* from "annotation_configs" as "c" inner join "project_annotation_configs" as "p" on "p"."annotation_config_id" = "c"."id" where "p"."project_id" = $1 order by "c"."id" desc limit $2;

-- annotationConfigs.unassign
delete from "project_annotation_configs" where "project_id" = $1 and "annotation_config_id" in ($2);

-- annotationConfigs.delete
delete from "annotation_configs" where "id" = $1 returning *;

-- sessions.findBySessionId
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."session_id" = $1 order by "project_sessions"."id" limit $2;

-- sessions.findBySessionId (project)
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."session_id" = $1 and "project_sessions"."project_id" = $2 order by "project_sessions"."id" limit $3;

-- sessions.traces
select "traces"."id", "traces"."project_session_rowid", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_session_rowid" in ($1, $2) order by "traces"."project_session_rowid", "traces"."start_time", "traces"."id";

-- sessions.tokens
select "traces"."project_session_rowid", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "errors" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "traces"."project_session_rowid" in ($1, $2) group by "traces"."project_session_rowid";

-- sessions.rootIo
select "spans"."trace_rowid", ("spans"."attributes" ->> cast($1 as text)) as "input", ("spans"."attributes" ->> cast($2 as text)) as "output", "spans"."attributes", "spans"."long_attributes" from "spans" where "spans"."trace_rowid" in ($3, $4) and "spans"."parent_id" is null order by "spans"."trace_rowid", "spans"."start_time", "spans"."id";

-- annotations.list (span)
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in ($1) and "span_id" in ($2);
select "a".*, "t"."span_id" as "target" from "span_annotations" as "a" inner join "spans" as "t" on "t"."id" = "a"."span_rowid" where ("t"."project_id" + 0) = $1 and "a"."span_rowid" in ($2) and "a"."identifier" in ($3) and "a"."name" in ($4) and "a"."name" not in ($5) and "a"."id" <= $6 order by "a"."id" desc limit $7;

-- projectMetrics.byKind
select "spans"."span_kind" as "grp", count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "spans" where "spans"."project_id" = $1 and "spans"."start_time" >= cast($2 as bigint) and "spans"."start_time" < cast($3 as bigint) group by 1;

-- projectMetrics.byModel
select ("spans"."attributes" ->> cast($1 as text)) as "grp", count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "spans" where "spans"."project_id" = $2 and "spans"."span_kind" = $3 group by 1;

-- projectMetrics.byModel (a time range: on SQLite by start second)
select ("spans"."attributes" ->> cast($1 as text)) as "grp", count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "spans" where "spans"."project_id" = $2 and "spans"."start_time" >= cast($3 as bigint) and "spans"."start_time" < cast($4 as bigint) and "spans"."span_kind" = $5 group by 1;

-- projectMetrics.byBucket
select (("spans"."start_time" - cast($1 as bigint)) / cast($2 as bigint)) as "grp", count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "spans" where "spans"."project_id" = $3 group by 1;

-- projectMetrics.traceCounts
select (("traces"."start_time" - cast($1 as bigint)) / cast($2 as bigint)) as "grp", count(*) as "n" from "traces" where "traces"."project_id" = $3 group by 1;

-- projectMetrics.rootLatency
select 0 as "grp", percentile_cont($1) within group (order by cast(("spans"."end_time" - "spans"."start_time") as double precision)) as "p50", percentile_cont($2) within group (order by cast(("spans"."end_time" - "spans"."start_time") as double precision)) as "p99" from "spans" where "spans"."project_id" = $3 and "spans"."parent_id" is null group by 1;

-- prompts.ensurePrompt
insert into "prompts" ("name", "description", "metadata", "created_at", "updated_at") values ($1, $2, $3, $4, $5) on conflict ("name") do nothing;
select * from "prompts" where "name" = $1;

-- prompts.findPromptById
select * from "prompts" where "id" = $1;

-- prompts.findPromptByName
select * from "prompts" where "name" = $1;

-- prompts.listPrompts
select * from "prompts" where "id" <= $1 order by "id" desc limit $2;

-- prompts.insertVersion
insert into "prompt_versions" ("prompt_id", "description", "template_type", "template_format", "template", "invocation_parameters", "model_provider", "model_name", "tools", "response_format", "user_id", "created_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning *;

-- prompts.listVersions
select * from "prompt_versions" where "prompt_id" = $1 and "id" <= $2 order by "id" desc limit $3;

-- prompts.findVersion
select * from "prompt_versions" where "id" = $1;

-- prompts.latestVersion
select * from "prompt_versions" where "prompt_id" = $1 order by "id" desc limit $2;

-- prompts.setTag
insert into "prompt_version_tags" ("prompt_id", "name", "description", "version_id", "user_id", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("prompt_id", "name") do update set "version_id" = "excluded"."version_id", "description" = "excluded"."description", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning *;

-- prompts.versionByTag
select "v".* from "prompt_version_tags" as "t" inner join "prompt_versions" as "v" on "v"."id" = "t"."version_id" where "t"."prompt_id" = $1 and "t"."name" = $2;

-- prompts.listTags
select * from "prompt_version_tags" where "version_id" = $1 and "id" <= $2 order by "id" desc limit $3;

-- prompts.deleteTag
delete from "prompt_version_tags" where "prompt_id" = $1 and "name" = $2;

-- prompts.updatePrompt
update "prompts" set "updated_at" = $1, "description" = $2, "metadata" = $3 where "id" = $4 returning *;

-- prompts.deletePrompt
delete from "prompts" where "id" = $1;

-- datasets.insertDataset
insert into "datasets" ("name", "description", "metadata", "created_at", "updated_at") values ($1, $2, $3, $4, $5) returning *;

-- datasets.findByNameForUpload
select * from "datasets" where "name" = $1 and "deleted_at" is null for no key update;

-- datasets.insertVersion
insert into "dataset_versions" ("dataset_id", "description", "metadata", "created_at", "completed_at", "last_write_at") values ($1, $2, $3, $4, $5, $6) returning *;

-- datasets.pendingVersion
select "id", "dataset_id", "last_write_at" from "dataset_versions" where "dataset_id" = $1 and "completed_at" is null;

-- datasets.keepVersionAlive
update "dataset_versions" set "last_write_at" = $1 where "id" = $2 and "completed_at" is null and "last_write_at" >= $3;

-- datasets.completeVersion
update "dataset_versions" set "completed_at" = $1, "last_write_at" = $2, "example_count" = $3 where "id" = $4 and "completed_at" is null and "last_write_at" >= $5;

-- datasets.findById
select * from "datasets" where "id" = $1 and ("datasets"."deleted_at" is null and exists (select "v"."id" from "dataset_versions" as "v" where "v"."dataset_id" = "datasets"."id" and "v"."completed_at" is not null));

-- datasets.findByName
select * from "datasets" where "name" = $1 and ("datasets"."deleted_at" is null and exists (select "v"."id" from "dataset_versions" as "v" where "v"."dataset_id" = "datasets"."id" and "v"."completed_at" is not null));

-- datasets.list
select * from "datasets" where ("datasets"."deleted_at" is null and exists (select "v"."id" from "dataset_versions" as "v" where "v"."dataset_id" = "datasets"."id" and "v"."completed_at" is not null)) and "id" <= $1 and "name" = $2 order by "id" desc limit $3;

-- datasets.findVersion
select * from "dataset_versions" where "dataset_id" = $1 and "id" = $2 and "completed_at" is not null;

-- datasets.latestVersion
select * from "dataset_versions" where "dataset_id" = $1 and "completed_at" is not null order by "id" desc limit $2;

-- datasets.listVersions
select * from "dataset_versions" where "dataset_id" = $1 and "completed_at" is not null and "id" <= $2 order by "id" desc limit $3;

-- datasets.maxExampleId
select max("id") as "id" from "dataset_examples" where "dataset_id" = $1;

-- datasets.insertExamples
insert into "dataset_examples" ("dataset_id", "external_id", "source_span_id", "created_at") values ($1, $2, $3, $4) returning "id";

-- datasets.insertRevisions
insert into "dataset_example_revisions" ("example_id", "version_id", "kind", "input", "output", "metadata", "created_at") values ($1, $2, $3, $4, $5, $6, $7);

-- datasets.examplesWithExternalIds
select "id", "external_id" from "dataset_examples" where "dataset_id" = $1 and "external_id" in ($2, $3);

-- datasets.exampleTextsAt
select "e"."id", "e"."external_id", "e"."source_span_id", "r"."input", "r"."output", "r"."metadata", "r"."created_at" from "dataset_examples" as "e" inner join lateral (select "newest".* from "dataset_example_revisions" as "newest" where "newest"."example_id" = "e"."id" and "newest"."version_id" <= $1 order by "newest"."version_id" desc limit $2) as "r" on true where "e"."dataset_id" = $3 and "r"."kind" != $4 and "e"."id" > $5 order by "e"."id" limit $6;

-- datasets.exampleIdsAt
select "e"."id" from "dataset_examples" as "e" inner join lateral (select "newest".* from "dataset_example_revisions" as "newest" where "newest"."example_id" = "e"."id" and "newest"."version_id" <= $1 order by "newest"."version_id" desc limit $2) as "r" on true where "e"."dataset_id" = $3 and "r"."kind" != $4 and "e"."id" > $5 order by "e"."id" limit $6;

-- datasets.examplesAt (ids)
select "e"."id", "e"."external_id", "e"."source_span_id", "r"."input", "r"."output", "r"."metadata", "r"."created_at" from "dataset_examples" as "e" inner join lateral (select "newest".* from "dataset_example_revisions" as "newest" where "newest"."example_id" = "e"."id" and "newest"."version_id" <= $1 order by "newest"."version_id" desc limit $2) as "r" on true where "e"."dataset_id" = $3 and "r"."kind" != $4 and "e"."id" in ($5, $6) order by "e"."id";

-- datasets.exampleCounts
select "v"."dataset_id", "v"."example_count" from "dataset_versions" as "v" where "v"."dataset_id" in ($1) and "v"."id" = (select max("latest"."id") as "id" from "dataset_versions" as "latest" where "latest"."dataset_id" = "v"."dataset_id" and "latest"."completed_at" is not null);

-- datasets.insertVersion (a second one)
insert into "dataset_versions" ("dataset_id", "description", "metadata", "created_at", "completed_at", "last_write_at") values ($1, $2, $3, $4, $5, $6) returning *;

-- datasets.insertDeleteRevisions
insert into "dataset_example_revisions" ("example_id", "version_id", "kind", "input", "output", "metadata", "created_at") select "r"."example_id", $1 as "version_id", $2 as "kind", "r"."input", "r"."output", "r"."metadata", $3 as "created_at" from "dataset_example_revisions" as "r" where "r"."example_id" in ($4) and "r"."version_id" = (select max("newest"."version_id") as "version_id" from "dataset_example_revisions" as "newest" where "newest"."example_id" = "r"."example_id" and "newest"."version_id" <= $5);

-- datasets.abandonedVersions
select "id", "dataset_id", "last_write_at" from "dataset_versions" where "completed_at" is null and ("last_write_at" is null or "last_write_at" < $1) order by "id" limit $2;

-- datasets.giveUpVersion
update "dataset_versions" set "last_write_at" = $1 where "id" = $2 and "completed_at" is null and ("last_write_at" is null or "last_write_at" < $3);

-- datasets.giveUpVersion (own)
update "dataset_versions" set "last_write_at" = $1 where "id" = $2 and "completed_at" is null;

-- datasets.deleteExamplesCreatedBy
delete from "dataset_examples" where "id" in (select "example_id" from "dataset_example_revisions" where "version_id" = $1 and "kind" = $2 limit $3);

-- datasets.deleteRevisionsOf
delete from "dataset_example_revisions" where "id" in (select "v"."id" from "dataset_example_revisions" as "v" where "v"."version_id" = $1 limit $2);

-- datasets.deletePendingVersion
delete from "dataset_versions" where "id" = $1 and "completed_at" is null;

-- datasets.deleteDatasetWithoutVersions
delete from "datasets" where "id" = $1 and not exists (select "dataset_versions"."id" from "dataset_versions" where "dataset_versions"."dataset_id" = "datasets"."id");

-- datasets.touch
update "datasets" set "updated_at" = $1 where "id" = $2;

-- datasetLabels.insert
insert into "dataset_labels" ("name", "description", "color", "user_id", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6) returning "id", "name", "description", "color";

-- datasetLabels.findById
select "id", "name", "description", "color" from "dataset_labels" where "id" = $1;

-- datasetLabels.list
select "id", "name", "description", "color" from "dataset_labels" where "id" <= $1 order by "id" desc limit $2;

-- datasetLabels.update
update "dataset_labels" set "name" = $1, "color" = $2, "description" = $3, "updated_at" = $4 where "id" = $5 returning "id", "name", "description", "color";

-- datasetLabels.existingIds
select "id" from "dataset_labels" where "id" in ($1, $2);

-- datasetLabels.apply
insert into "datasets_dataset_labels" ("dataset_id", "dataset_label_id") values ($1, $2) on conflict ("dataset_id", "dataset_label_id") do nothing;

-- datasetLabels.listForDataset
select "l"."id", "l"."name", "l"."description", "l"."color" from "datasets_dataset_labels" as "m" inner join "dataset_labels" as "l" on "l"."id" = "m"."dataset_label_id" where "m"."dataset_id" = $1 and "l"."id" <= $2 order by "l"."id" desc limit $3;

-- datasetLabels.keepOnly
delete from "datasets_dataset_labels" where "dataset_id" = $1 and "dataset_label_id" not in ($2);

-- datasetLabels.keepOnly (none)
delete from "datasets_dataset_labels" where "dataset_id" = $1;

-- datasetLabels.remove
delete from "datasets_dataset_labels" where "dataset_id" = $1 and "dataset_label_id" in ($2);

-- datasetLabels.delete
delete from "dataset_labels" where "id" = $1;

-- datasetSplits.insert
insert into "dataset_splits" ("name", "description", "color", "metadata", "user_id", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7) returning *;

-- datasetSplits.findById
select * from "dataset_splits" where "id" = $1;

-- datasetSplits.findByIdsOrNames
select * from "dataset_splits" where ("id" in ($1) or "name" in ($2)) order by "id";

-- datasetSplits.update
update "dataset_splits" set "name" = $1, "description" = $2, "color" = $3, "metadata" = $4, "updated_at" = $5 where "id" = $6 returning *;

-- datasetSplits.examplesOfDataset
select "id" from "dataset_examples" where "dataset_id" = $1 and "id" in ($2, $3);

-- datasetSplits.addExamples
insert into "dataset_splits_dataset_examples" ("dataset_split_id", "dataset_example_id") values ($1, $2) on conflict ("dataset_split_id", "dataset_example_id") do nothing;

-- datasetSplits.exampleCount
select count(*) as "n" from "dataset_splits_dataset_examples" as "m" inner join "dataset_examples" as "e" on "e"."id" = "m"."dataset_example_id" where "m"."dataset_split_id" = $1 and "e"."dataset_id" = $2;

-- datasets.exampleTextsAt (splits)
select "e"."id", "e"."external_id", "e"."source_span_id", "r"."input", "r"."output", "r"."metadata", "r"."created_at" from "dataset_examples" as "e" inner join lateral (select "newest".* from "dataset_example_revisions" as "newest" where "newest"."example_id" = "e"."id" and "newest"."version_id" <= $1 order by "newest"."version_id" desc limit $2) as "r" on true where "e"."dataset_id" = $3 and "e"."id" in (select "s"."dataset_example_id" from "dataset_splits_dataset_examples" as "s" where "s"."dataset_split_id" in ($4)) and "r"."kind" != $5 and "e"."id" > $6 order by "e"."id" limit $7;

-- datasets.exampleIdsAt (splits)
select "e"."id" from "dataset_examples" as "e" inner join lateral (select "newest".* from "dataset_example_revisions" as "newest" where "newest"."example_id" = "e"."id" and "newest"."version_id" <= $1 order by "newest"."version_id" desc limit $2) as "r" on true where "e"."dataset_id" = $3 and "e"."id" in (select "s"."dataset_example_id" from "dataset_splits_dataset_examples" as "s" where "s"."dataset_split_id" in ($4)) and "r"."kind" != $5 and "e"."id" > $6 order by "e"."id" limit $7;

-- datasetSplits.removeExamples
delete from "dataset_splits_dataset_examples" where "dataset_split_id" = $1 and "dataset_example_id" in ($2);

-- datasetSplits.delete
delete from "dataset_splits" where "id" = $1;

-- experiments.insert
insert into "experiments" ("dataset_id", "dataset_version_id", "name", "description", "metadata", "repetitions", "project_name", "user_id", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *;

-- experiments.insertExamples
insert into experiment_examples (experiment_id, example_id) select $1, unnest($2::bigint[]);

-- experiments.findById
select * from "experiments" where "id" = $1 and ("experiments"."deleted_at" is null and exists (select "datasets"."id" from "datasets" where "datasets"."id" = "experiments"."dataset_id" and "datasets"."deleted_at" is null));

-- experiments.update
update "experiments" set "name" = $1, "description" = $2, "metadata" = $3, "updated_at" = $4 where "id" = $5 and ("experiments"."deleted_at" is null and exists (select "datasets"."id" from "datasets" where "datasets"."id" = "experiments"."dataset_id" and "datasets"."deleted_at" is null)) returning *;

-- experimentTags.upsert
insert into "experiment_tags" ("experiment_id", "dataset_id", "user_id", "name", "description", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7) on conflict ("dataset_id", "name") do update set "experiment_id" = $8, "user_id" = $9, "description" = $10, "updated_at" = $11 returning "id", "name", "description";

-- experimentTags.listForExperiment
select "id", "name", "description" from "experiment_tags" where "experiment_id" = $1 and "name" >= $2 order by "name" limit $3;

-- experimentTags.findInDataset
select "id", "name", "description", "experiment_id" from "experiment_tags" where "dataset_id" = $1 and "id" = $2;

-- experimentTags.removeFromExperiment
delete from "experiment_tags" where "dataset_id" = $1 and "name" = $2 and "experiment_id" = $3;

-- jobState.write
insert into "job_state" ("name", "value") values ($1, $2) on conflict ("name") do update set "value" = $3;

-- jobState.read
select "value" from "job_state" where "name" = $1;

-- evaluators.insert
insert into "evaluators" ("name", "description", "kind", "user_id", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6) on conflict ("name") do nothing returning "id";
insert into "evaluator_versions" ("evaluator_id", "version", "definition", "user_id", "created_at") values ($1, $2, $3, $4, $5);

-- evaluators.findById
select * from "evaluators" where "id" in ($1);
select "v"."id", "v"."evaluator_id", "v"."version", "v"."definition", "v"."created_at" from "evaluator_versions" as "v" where "v"."evaluator_id" in ($1) and "v"."version" = (select max("w"."version") as "latest" from "evaluator_versions" as "w" where "w"."evaluator_id" = "v"."evaluator_id");

-- evaluators.findIdByName
select "id" from "evaluators" where "name" = $1;

-- evaluators.list
select "id" from "evaluators" where "name" >= $1 order by "name" limit $2;
select * from "evaluators" where "id" in ($1);
select "v"."id", "v"."evaluator_id", "v"."version", "v"."definition", "v"."created_at" from "evaluator_versions" as "v" where "v"."evaluator_id" in ($1) and "v"."version" = (select max("w"."version") as "latest" from "evaluator_versions" as "w" where "w"."evaluator_id" = "v"."evaluator_id");

-- evaluators.nameOf
select "name" from "evaluators" where "id" = $1;

-- evaluators.update
select "id" from "evaluators" where "name" = $1 and "id" != $2;
update "evaluators" set "name" = $1, "description" = $2, "updated_at" = $3 where "id" = $4;

-- evaluators.addVersion
insert into "evaluator_versions" ("evaluator_id", "version", "definition", "user_id", "created_at") values ($1, $2, $3, $4, $5) on conflict ("evaluator_id", "version") do nothing returning "id";
update "evaluators" set "kind" = $1, "updated_at" = $2 where "id" = $3;

-- evaluators.versions
select "id", "evaluator_id", "version", "definition", "created_at" from "evaluator_versions" where "evaluator_id" = $1 and "version" <= $2 order by "version" desc limit $3;

-- evaluators.versionNumber
select "version" from "evaluator_versions" where "id" = $1 and "evaluator_id" = $2;

-- evaluators.attach
insert into "dataset_evaluators" ("dataset_id", "evaluator_id", "user_id", "created_at") values ($1, $2, $3, $4) on conflict ("dataset_id", "evaluator_id") do nothing;

-- evaluators.attachedTo
select "dataset_id", "evaluator_id" from "dataset_evaluators" where "dataset_id" in ($1) order by "dataset_id", "evaluator_id";
select * from "evaluators" where "id" in ($1);
select "v"."id", "v"."evaluator_id", "v"."version", "v"."definition", "v"."created_at" from "evaluator_versions" as "v" where "v"."evaluator_id" in ($1) and "v"."version" = (select max("w"."version") as "latest" from "evaluator_versions" as "w" where "w"."evaluator_id" = "v"."evaluator_id");

-- evaluators.runsAfter
select "r"."id", "r"."experiment_id", "e"."dataset_id", "e"."dataset_version_id", "r"."example_id", "r"."output", "r"."start_time", "r"."end_time", "r"."error", "r"."created_at" from "experiment_runs" as "r" inner join "experiments" as "e" on "e"."id" = "r"."experiment_id" where "r"."id" > $1 and "e"."deleted_at" is null order by "r"."id" limit $2;

-- evaluators.findByIds
select * from "evaluators" where "id" in ($1);
select "v"."id", "v"."evaluator_id", "v"."version", "v"."definition", "v"."created_at" from "evaluator_versions" as "v" where "v"."evaluator_id" in ($1) and "v"."version" = (select max("w"."version") as "latest" from "evaluator_versions" as "w" where "w"."evaluator_id" = "v"."evaluator_id");

-- onlineEval.insert
insert into "online_eval_rules" ("project_id", "name", "target", "filter", "sampling_rate", "session_idle_minutes", "rate_limit_per_minute", "daily_cost_limit_usd", "enabled", "queue_id", "queue_score_below", "cursor", "backfill_cursor", "backfill_until", "user_id", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) on conflict ("project_id", "name") do nothing returning "id";
insert into "online_eval_rule_evaluators" ("rule_id", "evaluator_id") values ($1, $2);

-- onlineEval.update
select "project_id" from "online_eval_rules" where "id" = $1;
select "id" from "online_eval_rules" where "project_id" = $1 and "name" = $2 and "id" <> $3;
update "online_eval_rules" set "name" = $1, "sampling_rate" = $2, "updated_at" = $3 where "id" = $4;
delete from "online_eval_rule_evaluators" where "rule_id" = $1;
insert into "online_eval_rule_evaluators" ("rule_id", "evaluator_id") values ($1, $2);

-- onlineEval.startBackfill
update "online_eval_rules" set "backfill_cursor" = $1, "backfill_until" = $2, "updated_at" = $3 where "id" = $4;

-- onlineEval.rewindSessionCursor
update "online_eval_rules" set "cursor" = $1, "updated_at" = $2 where "id" = $3;

-- onlineEval.findById
select * from "online_eval_rules" where "id" = $1;
select "rule_id", "evaluator_id" from "online_eval_rule_evaluators" where "rule_id" in ($1) order by "evaluator_id";

-- onlineEval.list
select * from "online_eval_rules" where "project_id" = $1 and "id" >= $2 order by "id" limit $3;
select "rule_id", "evaluator_id" from "online_eval_rule_evaluators" where "rule_id" in ($1) order by "evaluator_id";

-- onlineEval.enabled
select "r".* from "online_eval_rules" as "r" inner join "projects" as "p" on "p"."id" = "r"."project_id" where "r"."enabled" = $1 and "p"."deleted_at" is null order by "r"."id";
select "rule_id", "evaluator_id" from "online_eval_rule_evaluators" where "rule_id" in ($1) order by "evaluator_id";

-- onlineEval.maxSpanId
select max("id") as "id" from "spans";

-- onlineEval.scanSpans
select "spans"."id", "spans"."trace_rowid", "spans"."span_id", "traces"."trace_id", cast("spans"."start_time" as text) as "start_time", case when 1 = 1 then 1 else 0 end as "m0", case when (spans.parent_id is null) then 1 else 0 end as "m1" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where +spans.project_id = $1 and "spans"."id" > $2 and "spans"."id" <= $3 and (1 = 1 or (spans.parent_id is null)) order by "spans"."id" limit $4;

-- onlineEval.scanSpansByTime
select "spans"."id", "spans"."trace_rowid", "spans"."span_id", "traces"."trace_id", cast("spans"."start_time" as text) as "start_time" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = $1 and (spans.start_time > cast($2 as bigint) or (spans.start_time = cast($3 as bigint) and spans.id > $4)) and spans.start_time < cast($5 as bigint) and "spans"."parent_id" is null order by "spans"."start_time", "spans"."id" limit $6;

-- onlineEval.scanIdleSessions
select "s"."id", "s"."session_id", cast("s"."end_time" as text) as "end_time" from "project_sessions" as "s" where "s"."project_id" = $1 and (s.end_time > cast($2 as bigint) or (s.end_time = cast($3 as bigint) and s.id > $4)) and s.end_time <= cast($5 as bigint) and not exists (select "i"."id" from "online_eval_items" as "i" where "i"."rule_id" = $6 and "i"."target_kind" = $7 and "i"."target_rowid" = "s"."id") order by "s"."end_time", "s"."id" limit $8;

-- onlineEval.enqueueStatements
begin;
insert into "online_eval_items" ("rule_id", "evaluator_id", "target_kind", "target_rowid", "target_key", "span_rowid", "status", "attempts", "next_attempt_at", "created_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict ("rule_id", "target_kind", "target_rowid", "evaluator_id") do nothing;
update "online_eval_rules" set "cursor" = $1 where "id" = $2 and "cursor" = $3;
commit;

-- onlineEval.due
select * from "online_eval_items" where "rule_id" = $1 and "status" = $2 and "next_attempt_at" <= $3 order by "id" limit $4;

-- onlineEval.outcomeStatements
begin;
insert into "span_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "span_rowid", "trace_rowid") values ($1, $2, $3, cast($4 as jsonb), $5, $6, $7, $8, $9, $10, $11, $12, (select spans.trace_rowid from spans where spans.id = $13)) on conflict ("name", "span_rowid", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at";
insert into "online_eval_items" ("rule_id", "evaluator_id", "target_kind", "target_rowid", "target_key", "span_rowid", "status", "attempts", "next_attempt_at", "error", "evaluator_version", "cost_usd", "created_at", "finished_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) on conflict ("rule_id", "target_kind", "target_rowid", "evaluator_id") do update set "status" = "excluded"."status", "attempts" = "excluded"."attempts", "next_attempt_at" = "excluded"."next_attempt_at", "error" = "excluded"."error", "evaluator_version" = "excluded"."evaluator_version", "cost_usd" = "excluded"."cost_usd", "finished_at" = "excluded"."finished_at" where "online_eval_items"."status" = $15;
commit;

-- onlineEval.finishedSince
select count(*) as "count", sum("cost_usd") as "cost" from "online_eval_items" where "rule_id" = $1 and "finished_at" >= $2;

-- onlineEval.counts
select "status", count(*) as "count" from "online_eval_items" where "rule_id" = $1 group by "status";

-- onlineEval.totalCost
select sum("cost_usd") as "cost" from "online_eval_items" where "rule_id" = $1 and "status" = $2;

-- onlineEval.oldestPending
select "created_at" from "online_eval_items" where "rule_id" = $1 and "status" = $2 order by "id" limit $3;

-- onlineEval.recentLags
select "created_at", "finished_at" from "online_eval_items" where "rule_id" = $1 and "status" = $2 order by "id" desc limit $3;

-- onlineEval.items
select * from "online_eval_items" where "rule_id" = $1 and "status" = $2 and "id" <= $3 order by "id" desc limit $4;

-- onlineEval.retryFailed
select "id" from "online_eval_items" where "rule_id" = $1 and "status" = $2 limit $3;

-- onlineEval.delete
delete from "online_eval_rules" where "id" = $1;

-- scheduledExports.insert
insert into "scheduled_exports" ("project_id", "name", "target", "filter", "format", "interval_minutes", "enabled", "cursor", "next_run_at", "user_id", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict ("project_id", "name") do nothing returning "id";

-- scheduledExports.update
select "other"."id" from "scheduled_exports" as "e" inner join "scheduled_exports" as "other" on "other"."project_id" = "e"."project_id" where "e"."id" = $1 and "other"."name" = $2 and "other"."id" <> $3;
update "scheduled_exports" set "name" = $1, "enabled" = $2, "next_run_at" = $3, "updated_at" = $4 where "id" = $5;

-- scheduledExports.findById
select "e"."id", "e"."project_id", "e"."name", "e"."target", "e"."filter", "e"."format", "e"."interval_minutes", "e"."enabled", "e"."cursor", "e"."next_run_at", "e"."created_at", "e"."updated_at", "p"."name" as "project_name" from "scheduled_exports" as "e" inner join "projects" as "p" on "p"."id" = "e"."project_id" where "e"."id" = $1;

-- scheduledExports.list
select "e"."id", "e"."project_id", "e"."name", "e"."target", "e"."filter", "e"."format", "e"."interval_minutes", "e"."enabled", "e"."cursor", "e"."next_run_at", "e"."created_at", "e"."updated_at", "p"."name" as "project_name" from "scheduled_exports" as "e" inner join "projects" as "p" on "p"."id" = "e"."project_id" where "e"."project_id" = $1 and "e"."id" >= $2 order by "e"."id" limit $3;

-- scheduledExports.due
select "e"."id", "e"."project_id", "e"."name", "e"."target", "e"."filter", "e"."format", "e"."interval_minutes", "e"."enabled", "e"."cursor", "e"."next_run_at", "e"."created_at", "e"."updated_at", "p"."name" as "project_name" from "scheduled_exports" as "e" inner join "projects" as "p" on "p"."id" = "e"."project_id" where "e"."enabled" = $1 and "e"."next_run_at" <= $2 and "p"."deleted_at" is null order by "e"."next_run_at", "e"."id" limit $3;

-- scheduledExports.maxSpanId
select max("id") as "id" from "spans";

-- scheduledExports.arrivedSpans (spans of a condition)
select "spans"."id", "spans"."trace_rowid" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where ("spans"."project_id" + 0) = $1 and "spans"."id" > $2 and "spans"."id" <= $3 and ("spans"."span_kind" = $4) order by "spans"."id" limit $5;

-- scheduledExports.arrivedSpans (roots of traces with a span of a condition)
select "r"."id", "r"."trace_rowid" from "spans" as "r" where ("r"."project_id" + 0) = $1 and "r"."id" > $2 and "r"."id" <= $3 and "r"."parent_id" is null and exists (select 1 as "one" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."trace_rowid" = "r"."trace_rowid" and ("traces"."trace_id" = $4)) order by "r"."id" limit $5;

-- scheduledExports.finishRunStatements
begin;
insert into "scheduled_export_runs" ("export_id", "started_at", "finished_at", "row_count", "file", "byte_count", "error", "cursor_from", "cursor_to") values ($1, $2, $3, $4, $5, $6, $7, $8, $9);
update "scheduled_exports" set "cursor" = $1, "next_run_at" = $2 where "id" = $3 and "cursor" = $4;
delete from "scheduled_export_runs" where "export_id" = $1 and "id" < (select "r"."id" from "scheduled_export_runs" as "r" where "r"."export_id" = $2 order by "r"."id" desc limit $3 offset $4);
commit;

-- scheduledExports.runs
select * from "scheduled_export_runs" where "export_id" = $1 and "id" <= $2 order by "id" desc limit $3;

-- scheduledExports.delete
delete from "scheduled_exports" where "id" = $1;

-- spans.list (an export: a condition within a window)
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = $1 and (jsonb_typeof("spans"."attributes" -> cast($2 as text)) = 'string' and (strpos(("spans"."attributes" ->> cast($3 as text)), $4) > 0)) and ("spans"."start_time" <= cast($5 as bigint) and ("spans"."start_time" < cast($6 as bigint) or "spans"."id" <= $7)) and ("spans"."start_time" >= cast($8 as bigint) and ("spans"."start_time" > cast($9 as bigint) or "spans"."id" >= $10)) order by "spans"."start_time" asc, "spans"."id" asc limit $11;

-- spans.windowEnd
select "spans"."id", cast("spans"."start_time" as text) as "start_time" from "spans" where "spans"."project_id" = $1 and spans.start_time >= cast($2 as bigint) and spans.start_time < cast($3 as bigint) and ("spans"."start_time" >= cast($4 as bigint) and ("spans"."start_time" > cast($5 as bigint) or "spans"."id" >= $6)) order by "spans"."start_time" asc, "spans"."id" asc limit $7 offset $8;

-- traces.list (an export: traces with a span of a condition, within a window)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = $1 and exists (select 1 as "one" from "spans" where "spans"."trace_rowid" = "traces"."id" and ("spans"."name" = $2)) and ("traces"."start_time" <= cast($3 as bigint) and ("traces"."start_time" < cast($4 as bigint) or "traces"."id" <= $5)) and ("traces"."start_time" >= cast($6 as bigint) and ("traces"."start_time" > cast($7 as bigint) or "traces"."id" >= $8)) order by "traces"."start_time" asc, "traces"."id" asc limit $9;

-- traces.windowEnd
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = $1 order by "traces"."start_time" asc, "traces"."id" asc limit $2 offset $3;

-- traces.findByIds
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."id" in ($1, $2);

-- traces.exportDetails
select "traces"."id", "project_sessions"."session_id", "traces"."user_id" from "traces" left join "project_sessions" on "project_sessions"."id" = "traces"."project_session_rowid" where "traces"."id" in ($1, $2);

-- alerts.insert
insert into "alert_rules" ("project_id", "name", "metric", "annotation_name", "annotation_label", "filter", "comparator", "threshold", "window_seconds", "channels", "enabled", "muted_until", "state", "last_value", "last_checked_at", "last_delivery_at", "last_delivery_error", "user_id", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) on conflict ("project_id", "name") do nothing returning "id";

-- alerts.update
select "id" from "alert_rules" where "project_id" = $1 and "name" = $2 and "id" <> $3;
update "alert_rules" set "name" = $1, "threshold" = $2, "muted_until" = $3, "updated_at" = $4 where "id" = $5;

-- alerts.findById
select * from "alert_rules" where "id" = $1;

-- alerts.list
select * from "alert_rules" where "project_id" = $1 and "id" >= $2 order by "id" limit $3;

-- alerts.enabled
select "r".*, "p"."name" as "project_name" from "alert_rules" as "r" inner join "projects" as "p" on "p"."id" = "r"."project_id" where "r"."enabled" = $1 and "p"."deleted_at" is null and "r"."id" > $2 order by "r"."id" limit $3;

-- alerts.checkStatements
begin;
update "alert_rules" set "last_value" = $1, "last_checked_at" = $2, "state" = $3 where "id" = $4 and "state" = $5;
insert into "alert_events" ("rule_id", "fired_at", "fired_value", "resolved_at", "resolved_value", "muted") values ($1, $2, $3, $4, $5, $6);
update "alert_rules" set "last_value" = $1, "last_checked_at" = $2, "state" = $3 where "id" = $4 and "state" = $5;
update "alert_events" set "resolved_at" = $1, "resolved_value" = $2 where "rule_id" = $3 and "resolved_at" is null;
commit;

-- alerts.deliveryStatements
begin;
update "alert_rules" set "last_delivery_at" = $1, "last_delivery_error" = $2 where "id" = $3;
commit;

-- alerts.history
select * from "alert_events" where "rule_id" = $1 and "id" <= $2 order by "id" desc limit $3;

-- alerts.delete
delete from "alert_rules" where "id" = $1;

-- windowMetrics.spanTotals
select count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_total") as "tokens" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = $1 and "spans"."start_time" >= cast($2 as bigint) and "spans"."start_time" < cast($3 as bigint) and ("spans"."name" = $4);

-- windowMetrics.latencyPercentile
select percentile_cont($1) within group (order by cast(("spans"."end_time" - "spans"."start_time") as double precision)) as "value" from "spans" where "spans"."project_id" = $2 and "spans"."start_time" >= cast($3 as bigint) and "spans"."start_time" < cast($4 as bigint);

-- windowMetrics.cost
select sum("span_costs"."total_cost") as "total" from "span_costs" where "span_costs"."project_id" = $1 and "span_costs"."start_time" >= cast($2 as bigint) and "span_costs"."start_time" < cast($3 as bigint);
select sum("span_costs"."total_cost") as "total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" inner join "span_costs" on "span_costs"."span_rowid" = "spans"."id" where "spans"."project_id" = $1 and "spans"."start_time" >= cast($2 as bigint) and "spans"."start_time" < cast($3 as bigint) and ("spans"."name" = $4);

-- windowMetrics.annotationTotals
select count(*) as "n", avg("span_annotations"."score") as "score_mean", sum(case when "span_annotations"."label" = $1 then 1 else 0 end) as "label_count" from "spans" inner join "span_annotations" on "span_annotations"."span_rowid" = "spans"."id" where "spans"."project_id" = $2 and "spans"."start_time" >= cast($3 as bigint) and "spans"."start_time" < cast($4 as bigint) and "span_annotations"."name" = $5;

-- rollups.fromRollups
select (("minute") / 60) * 60 as t, nullif("value", '') as g, sum(span_count) as span_count, sum(error_count) as error_count, sum(token_count_total) as tokens, sum("h00") as "h00", sum("h01") as "h01", sum("h02") as "h02", sum("h03") as "h03", sum("h04") as "h04", sum("h05") as "h05", sum("h06") as "h06", sum("h07") as "h07", sum("h08") as "h08", sum("h09") as "h09", sum("h10") as "h10", sum("h11") as "h11", sum("h12") as "h12", sum("h13") as "h13", sum("h14") as "h14", sum("h15") as "h15", sum("h16") as "h16", sum("h17") as "h17", sum("h18") as "h18", sum("h19") as "h19", sum("h20") as "h20", sum("h21") as "h21", sum("h22") as "h22", sum("h23") as "h23", sum("h24") as "h24", sum("h25") as "h25", sum("h26") as "h26", sum("h27") as "h27", sum("h28") as "h28", sum("h29") as "h29", sum("h30") as "h30", sum("h31") as "h31", sum("h32") as "h32", sum("h33") as "h33", sum("h34") as "h34", sum("h35") as "h35", sum("h36") as "h36", sum("h37") as "h37", sum("h38") as "h38", sum("h39") as "h39", sum("h40") as "h40", sum("h41") as "h41", sum("h42") as "h42", sum("h43") as "h43", sum("h44") as "h44", sum("h45") as "h45", sum("h46") as "h46", sum("h47") as "h47", sum("h48") as "h48", sum("h49") as "h49", sum("h50") as "h50", sum("h51") as "h51", sum("h52") as "h52", sum("h53") as "h53", sum("h54") as "h54", sum("h55") as "h55", sum("h56") as "h56", sum("h57") as "h57", sum("h58") as "h58", sum("h59") as "h59", sum("h60") as "h60", sum("h61") as "h61", sum("h62") as "h62", sum("h63") as "h63" from span_rollups where project_id in ($1, $2) and dimension = $3 and minute >= $4 and minute < $5 group by 1, 2;

-- rollups.fromRollups (no group)
select 0 as t, null as g, sum(span_count) as span_count, sum(error_count) as error_count, sum(token_count_total) as tokens from span_rollups where project_id in ($1, $2) and dimension = $3 and minute >= $4 and minute < $5 group by 1, 2;

-- rollups.fromSpans
select ((("spans"."start_time" / cast($1 as bigint))) / 60) * 60 as t, ("spans"."attributes" ->> cast($2 as text)) as g, width_bucket(("spans"."end_time" - "spans"."start_time"), '{100000,141422,200000,282843,400000,565686,800000,1131371,1600000,2262742,3200000,4525484,6400000,9050967,12800000,18101934,25600000,36203868,51200000,72407735,102400000,144815469,204800000,289630938,409600000,579261876,819200000,1158523751,1638400000,2317047501,3276800000,4634095002,6553600000,9268190003,13107200000,18536380005,26214400000,37072760010,52428800000,74145520019,104857600000,148291040038,209715200000,296582080076,419430400000,593164160152,838860800000,1186328320304,1677721600000,2372656640607,3355443200000,4745313281213,6710886400000,9490626562426,13421772800000,18981253124851,26843545600000,37962506249701,53687091200000,75925012499402,107374182400000,151850024998803,214748364800000}'::bigint[]) as b, count(*) as span_count, sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as error_count, sum("spans"."llm_token_count_total") as tokens from spans inner join traces on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" in ($3, $4) and "spans"."start_time" >= cast($5 as bigint) and "spans"."start_time" < cast($6 as bigint) and ("spans"."name" = $7) group by 1, 2, 3;

-- rollups.fromSpans (session)
select 0 as t, (select "project_sessions"."session_id" from project_sessions where "project_sessions"."id" = "traces"."project_session_rowid") as g, 0 as b, count(*) as span_count, sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as error_count, sum("spans"."llm_token_count_total") as tokens from spans inner join traces on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" in ($1, $2) and "spans"."start_time" >= cast($3 as bigint) and "spans"."start_time" < cast($4 as bigint) group by 1, 2, 3;

-- rollups.costsFromRollups
select (("minute") / 60) * 60 as t, nullif("value", '') as g, sum(total_cost) as cost from span_rollups where project_id in ($1, $2) and dimension = $3 and minute >= $4 and minute < $5 group by 1, 2;

-- rollups.spanCount
select sum(span_count) as n from span_rollups where project_id = $1 and dimension = '' and minute >= $2 and minute < $3;

-- rollups.totals
select dimension, value, sum(span_count) as span_count, sum(error_count) as error_count, sum(token_count_prompt) as prompt, sum(token_count_completion) as completion, sum(token_count_total) as total, sum(prompt_cost) as prompt_cost, sum(completion_cost) as completion_cost, sum(total_cost) as total_cost from span_rollups where project_id = $1 and minute < $2 and dimension in ('', 'span_kind', 'model') group by dimension, value;
select sum("h00") as "h00", sum("h01") as "h01", sum("h02") as "h02", sum("h03") as "h03", sum("h04") as "h04", sum("h05") as "h05", sum("h06") as "h06", sum("h07") as "h07", sum("h08") as "h08", sum("h09") as "h09", sum("h10") as "h10", sum("h11") as "h11", sum("h12") as "h12", sum("h13") as "h13", sum("h14") as "h14", sum("h15") as "h15", sum("h16") as "h16", sum("h17") as "h17", sum("h18") as "h18", sum("h19") as "h19", sum("h20") as "h20", sum("h21") as "h21", sum("h22") as "h22", sum("h23") as "h23", sum("h24") as "h24", sum("h25") as "h25", sum("h26") as "h26", sum("h27") as "h27", sum("h28") as "h28", sum("h29") as "h29", sum("h30") as "h30", sum("h31") as "h31", sum("h32") as "h32", sum("h33") as "h33", sum("h34") as "h34", sum("h35") as "h35", sum("h36") as "h36", sum("h37") as "h37", sum("h38") as "h38", sum("h39") as "h39", sum("h40") as "h40", sum("h41") as "h41", sum("h42") as "h42", sum("h43") as "h43", sum("h44") as "h44", sum("h45") as "h45", sum("h46") as "h46", sum("h47") as "h47", sum("h48") as "h48", sum("h49") as "h49", sum("h50") as "h50", sum("h51") as "h51", sum("h52") as "h52", sum("h53") as "h53", sum("h54") as "h54", sum("h55") as "h55", sum("h56") as "h56", sum("h57") as "h57", sum("h58") as "h58", sum("h59") as "h59", sum("h60") as "h60", sum("h61") as "h61", sum("h62") as "h62", sum("h63") as "h63" from span_rollups where project_id = $1 and minute < $2 and dimension = 'root';

-- rollups.costs
select ((("span_costs"."start_time" / cast($1 as bigint))) / 60) * 60 as t, ("spans"."attributes" ->> cast($2 as text)) as g, sum("span_costs"."total_cost") as cost from span_costs inner join spans on "spans"."id" = "span_costs"."span_rowid" inner join traces on "traces"."id" = "spans"."trace_rowid" where "span_costs"."project_id" in ($3, $4) and "span_costs"."start_time" >= cast($5 as bigint) and "span_costs"."start_time" < cast($6 as bigint) and ("spans"."name" = $7) group by 1, 2;

-- rollups.costs (user)
select 0 as t, "traces"."user_id" as g, sum("span_costs"."total_cost") as cost from span_costs inner join spans on "spans"."id" = "span_costs"."span_rowid" inner join traces on "traces"."id" = "spans"."trace_rowid" where "span_costs"."project_id" in ($1, $2) and "span_costs"."start_time" >= cast($3 as bigint) and "span_costs"."start_time" < cast($4 as bigint) and ("spans"."name" = $5) group by 1, 2;

-- rollups.annotations
select ((("spans"."start_time" / cast($1 as bigint))) / 60) * 60 as t, "span_annotations"."label" as g, count(*) as n, sum("span_annotations"."score") as score_sum, count("span_annotations"."score") as score_count, sum(case when "span_annotations"."label" = $2 then 1 else 0 end) as label_count from spans inner join traces on "traces"."id" = "spans"."trace_rowid" inner join span_annotations on "span_annotations"."span_rowid" = "spans"."id" where "spans"."project_id" in ($3, $4) and "spans"."start_time" >= cast($5 as bigint) and "spans"."start_time" < cast($6 as bigint) and "span_annotations"."name" = $7 group by 1, 2;

-- dashboards.insert
insert into "dashboards" ("project_id", "user_id", "name", "widgets", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6) returning "id", "project_id", "name", "widgets", "created_at", "updated_at";

-- dashboards.findById
select "id", "project_id", "name", "widgets", "created_at", "updated_at" from "dashboards" where "id" = $1;

-- dashboards.findByName
select "id", "project_id", "name", "widgets", "created_at", "updated_at" from "dashboards" where "project_id" = $1 and "name" = $2 order by "id";

-- dashboards.list
select "id", "project_id", "name", "widgets", "created_at", "updated_at" from "dashboards" where "project_id" = $1 and "id" <= $2 order by "id" desc limit $3;

-- dashboards.list (global)
select "id", "project_id", "name", "widgets", "created_at", "updated_at" from "dashboards" where "project_id" is null order by "id" desc limit $1;

-- dashboards.update
update "dashboards" set "name" = $1, "widgets" = $2, "updated_at" = $3 where "id" = $4 returning "id", "project_id", "name", "widgets", "created_at", "updated_at";

-- dashboards.delete
delete from "dashboards" where "id" = $1;

-- evaluators.detach
delete from "dataset_evaluators" where "dataset_id" = $1 and "evaluator_id" = $2;

-- evaluators.delete
delete from "evaluators" where "id" = $1;

-- annotationQueues.insert
insert into "annotation_queues" ("name", "description", "instructions", "created_by", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6) on conflict ("name") do nothing returning "id";

-- annotationQueues.findById
select * from "annotation_queues" where "id" = $1;

-- annotationQueues.findByName
select * from "annotation_queues" where "name" = $1;

-- annotationQueues.list
select * from "annotation_queues" where "name" >= $1 order by "name" limit $2;

-- annotationQueues.update
select "id" from "annotation_queues" where "name" = $1 and "id" != $2;
update "annotation_queues" set "name" = $1, "description" = $2, "instructions" = $3, "updated_at" = $4 where "id" = $5;

-- annotationQueues.setConfigs
delete from "annotation_queue_configs" where "queue_id" = $1;
insert into "annotation_queue_configs" ("queue_id", "annotation_config_id", "position") values ($1, $2, $3);

-- annotationQueues.configIds
select "annotation_config_id" from "annotation_queue_configs" where "queue_id" = $1 order by "position";

-- annotationQueues.setReviewers
delete from "annotation_queue_reviewers" where "queue_id" = $1;
insert into "annotation_queue_reviewers" ("queue_id", "user_id") values ($1, $2);

-- annotationQueues.reviewers
select "u"."id", "u"."username" from "annotation_queue_reviewers" as "r" inner join "users" as "u" on "u"."id" = "r"."user_id" where "r"."queue_id" = $1 and "u"."deleted_at" is null order by "u"."username";

-- annotationQueues.activeUserIds
select "id" from "users" where "id" in ($1, $2) and "deleted_at" is null;

-- annotationQueues.usernames
select "id", "username" from "users" where "id" in ($1);

-- annotationQueues.targetsByRowid (span)
select "id", "trace_rowid", "project_id" from "spans" where "id" in ($1);

-- annotationQueues.targetsByRowid (trace)
select "id", "project_id" from "traces" where "id" in ($1);

-- annotationQueues.targetsByRowid (session)
select "id", "project_id" from "project_sessions" where "id" in ($1);

-- annotationQueues.spansInProject
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in ($1) and "span_id" in ($2);
select "id", "trace_rowid", "span_id" from "spans" where "id" in ($1) and "project_id" = $2 order by "id";

-- annotationQueues.tracesById
select "id", "trace_id", "project_id" from "traces" where "trace_id" in ($1) and "project_id" = $2;

-- annotationQueues.sessionsInProject
select "id", "session_id" from "project_sessions" where "project_id" = $1 and "session_id" in ($2);

-- annotationQueues.experimentExists
select "id" from "experiments" where "id" = $1 and "deleted_at" is null;

-- annotationQueues.experimentRunTraces
select "id", "trace_id" from "experiment_runs" where "experiment_id" = $1 and "id" > $2 order by "id" limit $3;

-- annotationQueues.insertItems
insert into "annotation_queue_items" ("queue_id", "kind", "target_rowid", "trace_rowid", "project_id", "source", "created_at") values ($1, $2, $3, $4, $5, $6, $7), ($8, $9, $10, $11, $12, $13, $14) on conflict ("queue_id", "kind", "target_rowid") do nothing returning "id";

-- annotationQueues.counts
select "queue_id", "status", count(*) as "n" from "annotation_queue_items" where "queue_id" in ($1) group by "queue_id", "status";

-- annotationQueues.lockedCount
select count(*) as "n" from "annotation_queue_items" where "queue_id" = $1 and "status" = $2 and "locked_until" > $3;

-- annotationQueues.listItems
select * from "annotation_queue_items" where "queue_id" = $1 and "status" = $2 and "id" >= $3 order by "id" limit $4;

-- annotationQueues.findItem
select * from "annotation_queue_items" where "id" = $1 and "queue_id" = $2;

-- annotationQueues.claim
update "annotation_queue_items" set "locked_by" = $1, "locked_until" = $2 where "id" = (select "id" from "annotation_queue_items" where "queue_id" = $3 and "status" = $4 and ("locked_until" is null or "locked_until" <= $5) order by "id" limit $6 for update skip locked) and "status" = $7 and ("locked_until" is null or "locked_until" <= $8) returning *;

-- annotationQueues.claim (after an item)
update "annotation_queue_items" set "locked_by" = $1, "locked_until" = $2 where "id" = (select "id" from "annotation_queue_items" where "queue_id" = $3 and "status" = $4 and ("locked_until" is null or "locked_until" <= $5) and "id" > $6 order by "id" limit $7 for update skip locked) and "status" = $8 and ("locked_until" is null or "locked_until" <= $9) returning *;

-- annotationQueues.heldItem
select * from "annotation_queue_items" where "queue_id" = $1 and "locked_by" = $2 and "status" = $3 and "locked_until" > $4 order by "id" limit $5;

-- annotationQueues.heldItem (auth off)
select * from "annotation_queue_items" where "queue_id" = $1 and "locked_by" is null and "status" = $2 and "locked_until" > $3 order by "id" limit $4;

-- annotationQueues.lock
update "annotation_queue_items" set "locked_by" = $1, "locked_until" = $2 where "id" = $3 and "status" = $4;

-- annotationQueues.release
update "annotation_queue_items" set "locked_by" = $1, "locked_until" = $2 where "id" = $3;

-- annotationQueues.complete
update "annotation_queue_items" set "status" = $1, "completed_by" = $2, "completed_at" = $3, "note" = $4, "locked_by" = $5, "locked_until" = $6 where "id" = $7 returning *;

-- annotationQueues.completedBy
select * from "annotation_queue_items" where completed_by = $1 and "queue_id" = $2 and "status" != $3 and ("completed_at", "id") <= ($4, $5) order by "completed_at" desc, "id" desc limit $6;

-- annotationQueues.targetKeys
select "s"."id", "s"."span_id", "s"."name", "t"."trace_id" from "spans" as "s" inner join "traces" as "t" on "t"."id" = "s"."trace_rowid" where "s"."id" in ($1) and "s"."trace_rowid" in ($2);
select "id", "trace_id" from "traces" where "id" in ($1);
select "id", "session_id" from "project_sessions" where "id" in ($1);

-- annotationQueues.annotationsOf
select "span_rowid" as "target", "name", "label", "score", "explanation", "user_id", "updated_at" from "span_annotations" where "span_rowid" in ($1) and "identifier" = $2 order by "name";

-- annotationQueues.deleteNote
delete from "trace_annotations" where "name" = $1 and "trace_rowid" = $2 and "identifier" = $3;

-- annotationQueues.deleteItems
delete from "annotation_queue_items" where "queue_id" = $1 and "id" in ($2, $3);

-- annotationQueues.delete
delete from "annotation_queues" where "id" = $1;

-- experiments.listForDataset
select * from "experiments" where "dataset_id" = $1 and "deleted_at" is null and "id" <= $2 order by "id" desc limit $3;

-- experiments.counts
select "x"."id", "v"."example_count" from "experiments" as "x" inner join "dataset_versions" as "v" on "v"."id" = "x"."dataset_version_id" where "x"."id" in ($1);
select "experiment_id", count(CASE WHEN error IS NULL THEN 1 END) as "ok", count(CASE WHEN error IS NOT NULL THEN 1 END) as "failed" from "experiment_runs" where "experiment_id" in ($1) group by "experiment_id";

-- experiments.hasExample
select "example_id" from "experiment_examples" where "experiment_id" = $1 and "example_id" = $2;

-- experiments.upsertRun
insert into "experiment_runs" ("experiment_id", "example_id", "repetition_number", "output", "start_time", "end_time", "trace_id", "error", "created_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict ("experiment_id", "example_id", "repetition_number") do update set "output" = $10, "start_time" = $11, "end_time" = $12, "trace_id" = $13, "error" = $14, "created_at" = $15 returning "id";

-- experiments.findRun
select * from "experiment_runs" where "experiment_id" = $1 and "example_id" = $2 and "repetition_number" = $3;

-- experiments.findRunById
select "experiment_runs".* from "experiment_runs" inner join "experiments" on "experiments"."id" = "experiment_runs"."experiment_id" where "experiment_runs"."id" = $1 and ("experiments"."deleted_at" is null and exists (select "datasets"."id" from "datasets" where "datasets"."id" = "experiments"."dataset_id" and "datasets"."deleted_at" is null));

-- experiments.listRuns
select * from "experiment_runs" where "experiment_id" = $1 and "id" >= $2 order by "id" limit $3;

-- experiments.upsertEvaluation
insert into "experiment_run_annotations" ("run_id", "name", "created_at", "annotator_kind", "label", "score", "explanation", "metadata", "trace_id", "error", "start_time", "end_time", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) on conflict ("run_id", "name") do update set "annotator_kind" = $14, "label" = $15, "score" = $16, "explanation" = $17, "metadata" = $18, "trace_id" = $19, "error" = $20, "start_time" = $21, "end_time" = $22, "updated_at" = $23 returning "id";

-- experiments.evaluationsOf
select * from "experiment_run_annotations" where "run_id" in ($1) order by "id";

-- experiments.summaries
select "r"."experiment_id", "a"."name", avg("a"."score") as "mean_score", count(*) as "n", count("a"."error") as "errors" from "experiment_run_annotations" as "a" inner join "experiment_runs" as "r" on "r"."id" = "a"."run_id" where "r"."experiment_id" in ($1, $2) group by "r"."experiment_id", "a"."name" order by "a"."name";
select "experiment_id", avg((extract(epoch from (cast("end_time" as timestamptz) - cast("start_time" as timestamptz))) * 1000)) as "latency" from "experiment_runs" where "experiment_id" in ($1, $2) and "error" is null group by "experiment_id";

-- experiments.exampleIds
select "example_id" from "experiment_examples" where "experiment_id" = $1 and "example_id" >= $2 order by "example_id" limit $3;

-- experiments.comparedExampleIds (regressed)
select "e"."example_id" from "experiment_examples" as "e" where "e"."experiment_id" = $1 and exists (select 1 from (select cast($2 as bigint) as id union all select cast($3 as bigint) as id) o where (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = $4 and a.score is not null and r.experiment_id = o.id) < (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = $5 and a.score is not null and r.experiment_id = $6)) and "e"."example_id" >= $7 order by "e"."example_id" limit $8;

-- experiments.comparedExampleIds (failed)
select "e"."example_id" from "experiment_examples" as "e" where "e"."experiment_id" = $1 and (exists (select 1 from experiment_runs r where r.example_id = e.example_id and r.experiment_id in ($2, $3) and r.error is not null) or exists (select 1 from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and r.experiment_id in ($4, $5) and a.error is not null)) order by "e"."example_id" limit $6;

-- experiments.exampleIdsByDelta (regressed)
select "d"."example_id" from (select "e"."example_id", (select min((select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = $1 and a.score is not null and r.experiment_id = o.id) - (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = $2 and a.score is not null and r.experiment_id = $3)) from (select cast($4 as bigint) as id union all select cast($5 as bigint) as id) o) as "delta" from "experiment_examples" as "e" where "e"."experiment_id" = $6 and exists (select 1 from (select cast($7 as bigint) as id union all select cast($8 as bigint) as id) o where (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = $9 and a.score is not null and r.experiment_id = o.id) < (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = $10 and a.score is not null and r.experiment_id = $11))) as "d" order by (d.delta is null), "d"."delta", "d"."example_id" limit $12 offset $13;

-- experiments.runsOn
select * from "experiment_runs" where "experiment_id" in ($1, $2) and "example_id" in ($3, $4) order by "example_id", "repetition_number";

-- experiments.examplesWithSuccessfulRuns
select "example_id" from "experiment_examples" where "experiment_id" = $1 and "example_id" >= $2 order by "example_id" limit $3;
select "example_id", "repetition_number" from "experiment_runs" where "experiment_id" = $1 and "example_id" in ($2) and "error" is null;

-- experiments.runsMissingEvaluations
select * from "experiment_runs" where "experiment_id" = $1 and "error" is null and "id" >= $2 order by "id" limit $3;
select "run_id", "name" from "experiment_run_annotations" where "run_id" in ($1) and "name" in ($2, $3) and "error" is null;
select * from "experiment_runs" where "experiment_id" = $1 and "error" is null and "id" >= $2 order by "id" limit $3;

-- experiments.markDeleted
update "experiments" set "deleted_at" = $1 where "id" = $2 and "deleted_at" is null;

-- experiments.deletedExperiments
select "id" from "experiments" where "deleted_at" is not null order by "id" limit $1;

-- experiments.purgeRuns
select "id" from "experiment_runs" where "experiment_id" = $1 order by "id" limit $2;
delete from "experiment_run_annotations" where "run_id" in ($1);
delete from "experiment_runs" where "id" in ($1);

-- experiments.purgeExampleSet
select "example_id" from "experiment_examples" where "experiment_id" = $1 order by "example_id" limit $2;
delete from "experiment_examples" where "experiment_id" = $1 and "example_id" in ($2);

-- experiments.purgeExperiment
delete from "experiments" where "id" = $1 and "deleted_at" is not null;

-- datasets.markDeleted
update "datasets" set "deleted_at" = $1, "name" = cast($2 as text) || cast("id" as text) where "id" = $3 and "deleted_at" is null;

-- datasets.deletedDatasets
select "id" from "datasets" where "deleted_at" is not null order by "id" limit $1;

-- datasets.purgeExamples
select "id" from "dataset_examples" where "dataset_id" = $1 order by "id" limit $2;
delete from "experiment_examples" where "example_id" in ($1);
delete from "experiment_runs" where "example_id" in ($1);
delete from "dataset_splits_dataset_examples" where "dataset_example_id" in ($1);
delete from "dataset_example_revisions" where "example_id" in ($1);
delete from "dataset_examples" where "id" in ($1);

-- datasets.purgeDataset
delete from "datasets" where "id" = $1 and "deleted_at" is not null;

-- costs.syncBuiltIns
insert into "generative_models" ("name", "provider", "name_pattern", "input_per_million", "output_per_million", "cache_read_per_million", "cache_write_per_million", "is_built_in", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict ("is_built_in", "name") do update set "name" = $11, "provider" = $12, "name_pattern" = $13, "input_per_million" = $14, "output_per_million" = $15, "cache_read_per_million" = $16, "cache_write_per_million" = $17, "updated_at" = $18;
delete from "generative_models" where "is_built_in" = $1 and "name" not in ($2);

-- costs.listModels
select * from "generative_models" order by "is_built_in", "name", "id";

-- costs.findModel
select * from "generative_models" where "id" = $1;

-- costs.insertModel
insert into "generative_models" ("name", "provider", "name_pattern", "input_per_million", "output_per_million", "cache_read_per_million", "cache_write_per_million", "is_built_in", "created_at", "updated_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *;

-- costs.updateModel
update "generative_models" set "name" = $1, "provider" = $2, "name_pattern" = $3, "input_per_million" = $4, "output_per_million" = $5, "cache_read_per_million" = $6, "cache_write_per_million" = $7, "updated_at" = $8 where "id" = $9 and "is_built_in" = $10 returning *;

-- costs.writeJobState
insert into "job_state" ("name", "value") values ($1, $2) on conflict ("name") do update set "value" = $3;

-- costs.readJobState
select "value" from "job_state" where "name" = $1;

-- costs.maxSpanId
select max("id") as "id" from "spans";

-- costs.spansWithTokens
select "id", "trace_rowid", "project_id", cast("spans"."start_time" as text) as "start_time", "attributes", "llm_token_count_prompt", "llm_token_count_completion", "span_kind", "name", "status_code" from "spans" where "id" > $1 and "id" <= $2 and ("llm_token_count_prompt" is not null or "llm_token_count_completion" is not null) order by "id";

-- costs.storeSpanCosts
begin;
insert into "span_costs" ("span_rowid", "trace_rowid", "project_id", "model_id", "start_time", "prompt_cost", "completion_cost", "total_cost") values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict ("span_rowid") do nothing returning "span_rowid";
INSERT INTO span_rollups ("project_id", "dimension", "minute", "value", "span_count", "error_count", "latency_sum", "token_count_prompt", "token_count_completion", "token_count_total", "h00", "h01", "h02", "h03", "h04", "h05", "h06", "h07", "h08", "h09", "h10", "h11", "h12", "h13", "h14", "h15", "h16", "h17", "h18", "h19", "h20", "h21", "h22", "h23", "h24", "h25", "h26", "h27", "h28", "h29", "h30", "h31", "h32", "h33", "h34", "h35", "h36", "h37", "h38", "h39", "h40", "h41", "h42", "h43", "h44", "h45", "h46", "h47", "h48", "h49", "h50", "h51", "h52", "h53", "h54", "h55", "h56", "h57", "h58", "h59", "h60", "h61", "h62", "h63", "prompt_cost", "completion_cost", "total_cost") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39, $40, $41, $42, $43, $44, $45, $46, $47, $48, $49, $50, $51, $52, $53, $54, $55, $56, $57, $58, $59, $60, $61, $62, $63, $64, $65, $66, $67, $68, $69, $70, $71, $72, $73, $74, $75, $76, $77), ($78, $79, $80, $81, $82, $83, $84, $85, $86, $87, $88, $89, $90, $91, $92, $93, $94, $95, $96, $97, $98, $99, $100, $101, $102, $103, $104, $105, $106, $107, $108, $109, $110, $111, $112, $113, $114, $115, $116, $117, $118, $119, $120, $121, $122, $123, $124, $125, $126, $127, $128, $129, $130, $131, $132, $133, $134, $135, $136, $137, $138, $139, $140, $141, $142, $143, $144, $145, $146, $147, $148, $149, $150, $151, $152, $153, $154), ($155, $156, $157, $158, $159, $160, $161, $162, $163, $164, $165, $166, $167, $168, $169, $170, $171, $172, $173, $174, $175, $176, $177, $178, $179, $180, $181, $182, $183, $184, $185, $186, $187, $188, $189, $190, $191, $192, $193, $194, $195, $196, $197, $198, $199, $200, $201, $202, $203, $204, $205, $206, $207, $208, $209, $210, $211, $212, $213, $214, $215, $216, $217, $218, $219, $220, $221, $222, $223, $224, $225, $226, $227, $228, $229, $230, $231), ($232, $233, $234, $235, $236, $237, $238, $239, $240, $241, $242, $243, $244, $245, $246, $247, $248, $249, $250, $251, $252, $253, $254, $255, $256, $257, $258, $259, $260, $261, $262, $263, $264, $265, $266, $267, $268, $269, $270, $271, $272, $273, $274, $275, $276, $277, $278, $279, $280, $281, $282, $283, $284, $285, $286, $287, $288, $289, $290, $291, $292, $293, $294, $295, $296, $297, $298, $299, $300, $301, $302, $303, $304, $305, $306, $307, $308), ($309, $310, $311, $312, $313, $314, $315, $316, $317, $318, $319, $320, $321, $322, $323, $324, $325, $326, $327, $328, $329, $330, $331, $332, $333, $334, $335, $336, $337, $338, $339, $340, $341, $342, $343, $344, $345, $346, $347, $348, $349, $350, $351, $352, $353, $354, $355, $356, $357, $358, $359, $360, $361, $362, $363, $364, $365, $366, $367, $368, $369, $370, $371, $372, $373, $374, $375, $376, $377, $378, $379, $380, $381, $382, $383, $384, $385) ON CONFLICT (project_id, dimension, minute, value) DO UPDATE SET prompt_cost = span_rollups.prompt_cost + excluded.prompt_cost, completion_cost = span_rollups.completion_cost + excluded.completion_cost, total_cost = span_rollups.total_cost + excluded.total_cost;
insert into "job_state" ("name", "value") values ($1, $2) on conflict ("name") do update set "value" = $3;
commit;

-- costs.traceTotals
select "trace_rowid", sum("prompt_cost") as "prompt", sum("completion_cost") as "completion", sum("total_cost") as "total" from "span_costs" where "trace_rowid" in ($1) group by "trace_rowid";

-- costs.spanCosts
select "span_rowid", "prompt_cost" as "prompt", "completion_cost" as "completion", "total_cost" as "total" from "span_costs" where "span_rowid" in ($1);

-- costs.spanCostsOfTrace
select "span_rowid", "prompt_cost" as "prompt", "completion_cost" as "completion", "total_cost" as "total" from "span_costs" where "trace_rowid" = $1 limit $2;

-- costs.sessionTotals
select "traces"."project_session_rowid", sum("prompt_cost") as "prompt", sum("completion_cost") as "completion", sum("total_cost") as "total" from "span_costs" inner join "traces" on "traces"."id" = "span_costs"."trace_rowid" where "traces"."project_session_rowid" in ($1) group by "traces"."project_session_rowid";

-- costs.projectTotals
select sum("prompt_cost") as "prompt", sum("completion_cost") as "completion", sum("total_cost") as "total" from "span_costs" where "project_id" = $1 and "start_time" >= cast($2 as bigint) and "start_time" < cast($3 as bigint);

-- costs.deleteModel
delete from "generative_models" where "id" = $1 and "is_built_in" = $2;

-- secrets.upsert
insert into "secrets" ("key", "ciphertext", "nonce", "updated_at") values ($1, $2, $3, $4) on conflict ("key") do update set "ciphertext" = $5, "nonce" = $6, "updated_at" = $7;

-- secrets.find
select * from "secrets" where "key" = $1;

-- secrets.listKeys
select "key", "updated_at" from "secrets" order by "key";

-- secrets.delete
delete from "secrets" where "key" = $1;

-- retention.upsertPolicy
insert into "retention_policies" ("project_id", "max_days", "max_traces", "created_at", "updated_at") values ($1, $2, $3, $4, $5) on conflict ("project_id") do update set "max_days" = $6, "max_traces" = $7, "updated_at" = $8 returning *;

-- retention.findPolicy
select * from "retention_policies" where "project_id" = $1;

-- retention.listActivePolicies
select * from "retention_policies" where ("max_days" is not null or "max_traces" is not null) order by "project_id";

-- retention.nthNewestTrace
select "id", cast("start_time" as text) as "start_time" from "traces" where "project_id" = $1 order by "start_time" desc, "id" desc limit $2 offset $3;

-- retention.oldestTracesBefore
select "id" from "traces" where "project_id" = $1 and ("start_time" < cast($2 as bigint) or ("start_time" = cast($3 as bigint) and "id" < $4)) order by "start_time", "id" limit $5;

-- retention.deleteTraces
delete from "traces" where "id" in ($1, $2) returning "project_session_rowid";
delete from "spans" where "trace_rowid" in ($1, $2);
delete from "span_costs" where "trace_rowid" in ($1, $2);
delete from "span_search_vectors" where "trace_rowid" in ($1, $2);

-- retention.deleteSessionsWithoutTraces
select "id" from "project_sessions" where "id" in ($1, $2) order by "id" for update;
delete from "project_sessions" where "id" in ($1, $2) and not exists (select "traces"."id" from "traces" where "traces"."project_session_rowid" = "project_sessions"."id");

-- retention.recordRun
update "retention_policies" set "last_run_at" = $1, "last_deleted_traces" = $2, "last_deleted_spans" = $3, "total_deleted_traces" = "total_deleted_traces" + $4, "total_deleted_spans" = "total_deleted_spans" + $5 where "project_id" = $6;

-- retention.deleteRollupsBefore
delete from "span_rollups" where "project_id" = $1 and "minute" < $2;

-- retention.writeLastRun
insert into "job_state" ("name", "value") values ($1, $2) on conflict ("name") do update set "value" = $3;

-- retention.readLastRun
select "value" from "job_state" where "name" = $1;

-- spans.list (a long-value filter, finished on the merged attributes)
select "id", cast("start_time" as text) as "start_time", cast("end_time" as text) as "end_time" from "traces" where "project_id" = $1 and "user_id" in ($2, $3) limit $4;

-- longAttributes.progress
select "value" from "job_state" where "name" = $1;
select "value" from "job_state" where "name" = $1;

-- longAttributes.unconverted
select "id", "attributes" from "spans" where "id" > $1 and "id" <= $2 and "long_attributes" is null order by "id" limit $3;

-- longAttributes.store
UPDATE spans SET attributes = cast(u.a as jsonb), long_attributes = u.la FROM unnest($1::bigint[], $2::text[], $3::bytea[]) AS u(id, a, la) WHERE spans.id = u.id AND spans.long_attributes IS NULL;
update "job_state" set "value" = $1 where "name" = $2;

-- spanLogEvents.insert
insert into "span_log_events" ("trace_id", "span_id", "name", "time", "attributes", "received_at") values ($1, $2, $3, $4, $5, $6);

-- spanLogEvents.attachable
select "e"."id", "e"."name", "e"."time", "e"."attributes", "s"."id" as "span_rowid", "s"."start_time" as "span_start_time", "s"."span_kind", "s"."attributes" as "span_attributes", "s"."long_attributes" as "span_long_attributes", "s"."events" as "span_events" from "span_log_events" as "e" inner join "trace_ids" as "t" on "t"."trace_id" = "e"."trace_id" inner join "spans" as "s" on "s"."trace_rowid" = "t"."trace_rowid" and "s"."span_id" = "e"."span_id" order by "e"."id" limit $1;

-- spanLogEvents.attach
update "spans" set "attributes" = $1, "long_attributes" = $2, "events" = $3, "span_kind" = $4 where "id" = $5 and "start_time" = $6;
delete from "span_log_events" where "id" in ($1);
delete from "span_log_events" where "id" in (select "id" from "span_log_events" where "received_at" < $1 order by "id" limit $2);

-- jobLeases.withLease
SELECT pg_try_advisory_lock(hashtext($1)) AS locked;
SELECT pg_advisory_unlock(hashtext($1));

-- datasets.refreshExampleStatistics
analyze dataset_examples, dataset_example_revisions;

-- searchVectors.queued
SELECT sum(span_count) AS n FROM span_search_pending;

-- searchVectors.indexQueued
begin;
SELECT id, trace_rowids, span_rowids FROM span_search_pending WHERE id IN ( SELECT id FROM ( SELECT id, sum(span_count) OVER (ORDER BY id) - span_count AS before FROM span_search_pending ORDER BY id LIMIT $1 ) AS w WHERE before < $2) ORDER BY id FOR UPDATE SKIP LOCKED;
commit;

-- searchVectors.lastAnalyzed
SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relid = 'span_search_vectors'::regclass;

-- searchVectors.analyze
ANALYZE span_search_vectors;

-- apiKeys.delete
delete from "api_keys" where "id" = $1;

-- apiKeys.deleteForUser
delete from "api_keys" where "user_id" = $1;

-- users.markDeleted
update "users" set "deleted_at" = $1, "updated_at" = $2, "password_hash" = $3, "password_salt" = $4 where "id" = $5 and "deleted_at" is null;

-- annotations.deleteMatching (span, every filter)
delete from "span_annotations" where "id" in (select "a"."id" from "span_annotations" as "a" inner join "spans" as "t" on "t"."id" = "a"."span_rowid" where "t"."project_id" = $1 and "a"."name" = $2 and "a"."identifier" = $3 and "a"."annotator_kind" = $4 and "a"."created_at" >= $5 and "a"."created_at" < $6 and "a"."user_id" = $7 order by "a"."id" limit $8);

-- annotations.deleteMatching (trace)
delete from "trace_annotations" where "id" in (select "a"."id" from "trace_annotations" as "a" inner join "traces" as "t" on "t"."id" = "a"."trace_rowid" where "t"."project_id" = $1 and "a"."name" = $2 order by "a"."id" limit $3);

-- annotations.deleteMatching (session)
delete from "session_annotations" where "id" in (select "a"."id" from "session_annotations" as "a" inner join "project_sessions" as "t" on "t"."id" = "a"."project_session_rowid" where "t"."project_id" = $1 order by "a"."id" limit $2);

-- traces.placesByIds
select "id", "project_id", "project_session_rowid", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "id" in ($1, $2);

-- traces.moveToProject
update "traces" set "project_id" = $1 where "id" in ($2, $3);
update "spans" set "project_id" = $1 where "trace_rowid" in ($2, $3);
update "span_costs" set "project_id" = $1 where "trace_rowid" in ($2, $3);

-- sessions.upsertWindow
insert into "project_sessions" ("project_id", "session_id", "start_time", "end_time") values ($1, $2, $3, $4) on conflict ("project_id", "session_id") do update set "start_time" = least(project_sessions.start_time, excluded.start_time), "end_time" = greatest(project_sessions.end_time, excluded.end_time) returning "id";

-- sessions.linkTraces
update "traces" set "project_session_rowid" = $1 where "id" in ($2, $3);

-- sessions.deleteEmpty
delete from "project_sessions" where "id" in ($1, $2) and not exists (select "traces"."id" from "traces" where "traces"."project_session_rowid" = "project_sessions"."id");

-- spans.deleteById
begin;
delete from "spans" where "id" = $1 returning "trace_rowid";
commit;

-- traces.deleteById
begin;
delete from "traces" where "id" = $1;
delete from "spans" where "trace_rowid" = $1;
delete from "span_costs" where "trace_rowid" = $1;
delete from "span_search_vectors" where "trace_rowid" = $1;
commit;

-- sessions.deleteByIds
begin;
delete from "spans" where "trace_rowid" in (select "traces"."id" from "traces" where "traces"."project_session_rowid" in ($1, $2));
delete from "span_costs" where "trace_rowid" in (select "traces"."id" from "traces" where "traces"."project_session_rowid" in ($1, $2));
delete from "span_search_vectors" where "trace_rowid" in (select "traces"."id" from "traces" where "traces"."project_session_rowid" in ($1, $2));
delete from "project_sessions" where "id" in ($1, $2);
commit;

-- projects.markDeleted
update "projects" set "deleted_at" = $1, "name" = $2, "updated_at" = $3 where "id" = $4 and "deleted_at" is null;

-- retention.deletedProjects
select "id" from "projects" where "deleted_at" is not null order by "deleted_at", "id";

-- retention.purgeProject
delete from "projects" where "id" = $1 and "deleted_at" is not null and not exists (select "traces"."id" from "traces" where "traces"."project_id" = $2);
