-- health.ping
select 1;

-- users.isEmpty
select "id" from "users" limit ?;

-- users.insert
insert into "users" ("email", "username", "role", "auth_method", "password_hash", "password_salt", "password_needs_reset", "oauth2_idp", "oauth2_sub", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *;

-- users.findActiveById
select * from "users" where "deleted_at" is null and "id" = ?;

-- users.findByEmail
select * from "users" where "email" = ?;

-- users.findByUsername
select * from "users" where "username" = ?;

-- users.findByOauth2Identity
select * from "users" where "oauth2_idp" = ? and "oauth2_sub" = ?;

-- users.findByLdapUniqueId
select * from "users" where "auth_method" = ? and "oauth2_idp" = ? and "oauth2_sub" = ?;

-- users.listActive
select * from "users" where "deleted_at" is null and "id" <= ? order by "id" desc limit ?;

-- users.lockActiveAdmins
update "users" set "role" = ? where "role" = ? and "deleted_at" is null;

-- users.countActiveAdmins
select count(*) as "count" from "users" where "deleted_at" is null and "role" = ?;

-- users.update
update "users" set "username" = ?, "password_needs_reset" = ?, "updated_at" = ? where "id" = ? and "deleted_at" is null returning *;

-- users.linkOauth2Identity
update "users" set "oauth2_idp" = ?, "oauth2_sub" = ?, "updated_at" = ? where "id" = ? and "deleted_at" is null and "auth_method" = ? and "oauth2_idp" is null returning *;

-- users.syncLdapUser
update "users" set "email" = ?, "role" = ?, "oauth2_sub" = ?, "updated_at" = ? where "id" = ? and "deleted_at" is null and "auth_method" = ? and "oauth2_idp" = ? returning *;

-- apiKeys.insert
insert into "api_keys" ("kind", "user_id", "created_by", "name", "description", "key_hash", "created_at", "expires_at") values (?, ?, ?, ?, ?, ?, ?, ?) returning *;

-- apiKeys.findByHash
select "api_keys".*, "users"."username" as "owner_username", "users"."email" as "owner_email", "users"."role" as "owner_role", "users"."deleted_at" as "owner_deleted_at" from "api_keys" left join "users" on "users"."id" = "api_keys"."user_id" where "api_keys"."key_hash" = ?;

-- apiKeys.findById
select "api_keys".*, "users"."username" as "owner_username", "users"."email" as "owner_email", "users"."role" as "owner_role", "users"."deleted_at" as "owner_deleted_at" from "api_keys" left join "users" on "users"."id" = "api_keys"."user_id" where "api_keys"."id" = ?;

-- apiKeys.listSystem
select * from "api_keys" where "kind" = ? order by "id" desc;

-- apiKeys.listForUser
select * from "api_keys" where "user_id" = ? order by "id" desc;

-- apiKeys.listUserKeys
select "api_keys".*, "users"."username" as "owner_username", "users"."email" as "owner_email", "users"."role" as "owner_role", "users"."deleted_at" as "owner_deleted_at" from "api_keys" left join "users" on "users"."id" = "api_keys"."user_id" where "api_keys"."kind" = ? and "api_keys"."id" <= ? order by "api_keys"."id" desc limit ?;

-- apiKeys.countAll
select count(*) as "count" from "api_keys";

-- apiKeys.touch
update "api_keys" set "last_used_at" = ? where "id" = ?;

-- loginSessions.createSession
insert into "sessions" ("id", "user_id", "created_at", "expires_at") values (?, ?, ?, ?);

-- loginSessions.insertToken
insert into "auth_tokens" ("jti", "session_id", "kind", "created_at", "expires_at") values (?, ?, ?, ?, ?);

-- loginSessions.findToken
select "auth_tokens"."jti", "auth_tokens"."kind", "auth_tokens"."session_id", "sessions"."user_id", "auth_tokens"."expires_at", "auth_tokens"."used_at", "sessions"."expires_at" as "session_expires_at", "sessions"."revoked_at" from "auth_tokens" inner join "sessions" on "sessions"."id" = "auth_tokens"."session_id" where "auth_tokens"."jti" = ?;

-- loginSessions.markUsed
update "auth_tokens" set "used_at" = ? where "jti" = ? and "used_at" is null;

-- loginSessions.revokeSession
update "sessions" set "revoked_at" = ? where "id" = ? and "revoked_at" is null;

-- loginSessions.revokeUserSessions
update "sessions" set "revoked_at" = ? where "user_id" = ? and "revoked_at" is null;

-- loginFailures.recordAttempt
insert into "login_failures" ("email", "failures", "window_started_at", "locked_until") values (?, ?, ?, ?) on conflict ("email") do update set "failures" = CASE WHEN (login_failures.window_started_at <= ? AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= ?)) THEN 1 ELSE login_failures.failures + 1 END, "window_started_at" = CASE WHEN (login_failures.window_started_at <= ? AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= ?)) THEN ? ELSE login_failures.window_started_at END, "locked_until" = CASE WHEN (login_failures.window_started_at <= ? AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= ?)) THEN NULL WHEN CASE WHEN (login_failures.window_started_at <= ? AND (login_failures.locked_until IS NULL OR login_failures.locked_until <= ?)) THEN 1 ELSE login_failures.failures + 1 END = ? THEN ? ELSE login_failures.locked_until END returning "failures", "window_started_at", "locked_until";

-- loginFailures.clear
delete from "login_failures" where "email" = ?;

-- rateLimits.hit
insert into "rate_limits" ("bucket", "hits", "window_started_at") values (?, ?, ?) on conflict ("bucket") do update set "hits" = CASE WHEN rate_limits.window_started_at <= ? THEN 1 ELSE rate_limits.hits + 1 END, "window_started_at" = CASE WHEN rate_limits.window_started_at <= ? THEN ? ELSE rate_limits.window_started_at END returning "hits", "window_started_at";

-- rateLimits.deleteStartedBefore
delete from "rate_limits" where "window_started_at" < ?;

-- passwordResets.replace
begin;
delete from "password_reset_tokens" where "user_id" = ?;
insert into "password_reset_tokens" ("token_hash", "user_id", "created_at", "expires_at") values (?, ?, ?, ?);
commit;

-- passwordResets.find
select * from "password_reset_tokens" where "token_hash" = ?;

-- passwordResets.markUsed
update "password_reset_tokens" set "used_at" = ? where "token_hash" = ? and "used_at" is null;

-- projects.insert
insert into "projects" ("name", "description", "created_at", "updated_at") values (?, ?, ?, ?) returning *;

-- projects.findById
select * from "projects" where "id" = ? and "deleted_at" is null;

-- projects.findByName
select * from "projects" where "name" = ? and "deleted_at" is null;

-- projects.list
select * from "projects" where "deleted_at" is null and "id" <= ? and instr(lower("projects"."name"), ?) > 0 order by "id" desc limit ?;

-- projects.list (without experiment projects)
select * from "projects" where "deleted_at" is null and not (not exists (select "other"."id" from "traces" as "other" where "other"."project_id" = "projects"."id" and not (exists (select "r"."id" from "experiment_runs" as "r" where "r"."trace_id" = "other"."trace_id") or exists (select "e"."id" from "experiment_run_annotations" as "e" where "e"."trace_id" = "other"."trace_id"))) and (exists (select "experiments"."id" from "experiments" where "experiments"."project_name" = "projects"."name") or exists (select "t"."id" from "traces" as "t" where "t"."project_id" = "projects"."id" and (exists (select "r"."id" from "experiment_runs" as "r" where "r"."trace_id" = "t"."trace_id") or exists (select "e"."id" from "experiment_run_annotations" as "e" where "e"."trace_id" = "t"."trace_id"))))) order by "id" desc limit ?;

-- projects.updateDescription
update "projects" set "description" = ?, "updated_at" = ? where "id" = ? returning *;

-- traces.list
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = ? and "traces"."start_time" >= cast(? as bigint) and "traces"."start_time" < cast(? as bigint) and ("traces"."start_time" <= cast(? as bigint) and ("traces"."start_time" < cast(? as bigint) or "traces"."id" <= ?)) order by "traces"."start_time" desc, "traces"."id" desc limit ?;

-- traces.list (of a user)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where +"traces"."project_id" = ? and traces.id in (select u.id from traces u where u.project_id = ? and u.user_id = ? union all select m.id from traces m where m.project_id = ? and m.user_id = ? and exists (select 1 from spans where spans.trace_rowid = m.id and (json_type("spans"."attributes", ?) = 'text' and json_extract("spans"."attributes", ?) = ?))) order by "traces"."start_time" desc, "traces"."id" desc limit ?;

-- traces.list (latency)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = ? order by ("traces"."end_time" - "traces"."start_time") asc, "traces"."id" asc limit ?;

-- traces.list (full-text search and a condition)
select rowid from search.span_search where span_search match ? order by rowid desc limit ?;

-- traces.findById
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."id" = ?;

-- traces.stats
select "trace_rowid", count(*) as "span_count", sum(case when "status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("llm_token_count_prompt") as "prompt", sum("llm_token_count_completion") as "completion", sum("llm_token_count_total") as "total" from "spans" where "trace_rowid" in (?, ?) group by "trace_rowid";

-- traces.tokenTotalsByTraceId
select "traces"."trace_id", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "traces" inner join "spans" on "spans"."trace_rowid" = "traces"."id" where "traces"."trace_id" in (?, ?) group by "traces"."trace_id";

-- spans.list
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in (?) and "span_id" in (?);
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where +"spans"."project_id" = ? and "spans"."trace_rowid" in (select "t"."id" from "traces" as "t" where "t"."trace_id" in (?) and "t"."project_id" = ?) and "spans"."id" in (?) and "spans"."parent_id" is null and "spans"."name" in (?) and "spans"."span_kind" in (?) and "spans"."status_code" = 'ERROR' and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) and ((json_type("spans"."attributes", ?) = 'text' and json_extract("spans"."attributes", ?) = ?) or (json_type("spans"."attributes", ?) in ('integer', 'real') and json_extract("spans"."attributes", ?) = ?) or json_type("spans"."attributes", ?) = ?) and ("spans"."start_time" <= cast(? as bigint) and ("spans"."start_time" < cast(? as bigint) or "spans"."id" <= ?)) order by "spans"."start_time" desc, "spans"."id" desc limit ?;

-- spans.list (full-text search: a phrase and a prefix, and a condition)
select rowid from search.span_search where span_search match ? order by rowid desc limit ?;

-- spans.list (one kind: on SQLite by start second, db/start-seconds.ts)
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and (+"spans"."start_time" <= cast(? as bigint) and (+"spans"."start_time" < cast(? as bigint) or "spans"."id" <= ?)) and ("spans"."start_time" / 1000000000) <= ? and "spans"."span_kind" = ? order by ("spans"."start_time" / 1000000000) desc, "spans"."start_time" desc, "spans"."id" desc limit ?;

-- spans.list (two names in a time range: a scan per name on SQLite)
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."id" in (select "s"."id" from (select "spans"."id" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and +"spans"."start_time" >= cast(? as bigint) and ("spans"."start_time" / 1000000000) >= ? and +"spans"."start_time" < cast(? as bigint) and ("spans"."start_time" / 1000000000) <= ? and "spans"."name" = ? order by ("spans"."start_time" / 1000000000) asc, "spans"."start_time" asc, "spans"."id" asc limit ?) as "s" union all select "s"."id" from (select "spans"."id" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and +"spans"."start_time" >= cast(? as bigint) and ("spans"."start_time" / 1000000000) >= ? and +"spans"."start_time" < cast(? as bigint) and ("spans"."start_time" / 1000000000) <= ? and "spans"."name" = ? order by ("spans"."start_time" / 1000000000) asc, "spans"."start_time" asc, "spans"."id" asc limit ?) as "s") order by "spans"."start_time" asc, "spans"."id" asc limit ?;

-- spans.query (every condition form, orphans as roots)
select "spans"."id", cast("spans"."start_time" as text) as "start_time" from "spans" where "spans"."project_id" = ? and spans.start_time >= cast(? as bigint) and spans.start_time < cast(? as bigint) order by "spans"."start_time" desc, "spans"."id" desc limit ? offset ?;
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and spans.start_time >= cast(? as bigint) and spans.start_time < cast(? as bigint) and ("spans"."parent_id" is null or not exists (select 1 as "one" from "spans" as "p" where "p"."trace_rowid" = "spans"."trace_rowid" and "p"."span_id" = "spans"."parent_id")) and ((("spans"."span_kind" = ?) and (((spans.end_time - spans.start_time) / 1000000.0) > ?) and (instr("spans"."status_message", ?) > 0) and ("traces"."trace_id" in (?)) and (not ("spans"."parent_id" is null))) or ((json_type("spans"."attributes", ?) = 'text' and json_extract("spans"."attributes", ?) = ?) and (json_type("spans"."attributes", ?) is not null and not (json_type("spans"."attributes", ?) = 'text' and json_extract("spans"."attributes", ?) = ?)) and (json_type("spans"."attributes", ?) in ('integer', 'real') and json_extract("spans"."attributes", ?) >= ?) and (json_type("spans"."attributes", ?) = 'text' and json_extract("spans"."attributes", ?) < ?) and ((json_type("spans"."attributes", ?) = ?) or (json_type("spans"."attributes", ?) in ('integer', 'real') and json_extract("spans"."attributes", ?) = ?)) and (json_type("spans"."attributes", ?) = 'text' and (instr(json_extract("spans"."attributes", ?), ?) > 0)) and (json_type("spans"."attributes", ?) is null or json_type("spans"."attributes", ?) = 'null') and exists (select 1 from span_annotations a where a.span_rowid = spans.id and a.name = ? and a.label = ? and a.score > ? and a.score is not null) and exists (select 1 from span_annotations a where a.span_rowid = spans.id and a.name = ? and a.label not in (?)))) order by "spans"."start_time" desc, "spans"."id" desc limit ?;

-- spans.query (root spans without a parent id)
select "spans"."id", cast("spans"."start_time" as text) as "start_time" from "spans" where "spans"."project_id" = ? order by "spans"."start_time" desc, "spans"."id" desc limit ? offset ?;
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and "spans"."parent_id" is null order by "spans"."start_time" desc, "spans"."id" desc limit ?;

-- spans.findById
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."id" = ?;

-- spans.findByIds
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."id" in (?, ?);

-- spans.findBySpanId
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in (?) and "span_id" in (?);
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."id" = ?;

-- spans.listOfTrace
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."trace_rowid" = ? order by "spans"."start_time" asc, "spans"."id" asc limit ?;

-- savedViews.upsert
insert into "saved_views" ("project_id", "user_id", "name", "page", "query", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?) on conflict ("project_id", "name") do update set "page" = ?, "query" = ?, "user_id" = ?, "updated_at" = ? returning "id", "project_id", "name", "page", "query", "created_at";

-- savedViews.list
select "id", "project_id", "name", "page", "query", "created_at" from "saved_views" where "project_id" = ? and "id" <= ? order by "id" desc limit ?;

-- savedViews.delete
delete from "saved_views" where "id" = ? and "project_id" = ?;

-- spans.recentAttributeKeys
select distinct j.key as key from (select "attributes" from "spans" where "project_id" = ? order by "start_time" desc limit ?) as "s", json_each(s.attributes) as j order by j.key limit ?;

-- spans.summariesOfTraces
select "id", "trace_rowid", "span_id", "parent_id", "name", "span_kind", "status_code", cast("start_time" as text) as "start_time", cast("end_time" as text) as "end_time" from "spans" where "trace_rowid" in (?, ?) and "parent_id" is null order by "spans"."trace_rowid", "spans"."start_time", "spans"."id";

-- spans.rowidsBySpanId
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in (?) and "span_id" in (?);

-- spans.anyInProject
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in (?) and "span_id" in (?);
select "id" from "spans" where +"spans"."project_id" = ? and "id" in (?) limit ?;

-- spans.anyInTrace
select "id" from "spans" where "trace_rowid" = ? limit ?;

-- traces.findByTraceId
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."trace_id" = ?;

-- traces.list (sessions)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = ? and "traces"."project_session_rowid" in (?, ?) order by "traces"."start_time" desc, "traces"."id" desc limit ?;

-- sessions.list
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."project_id" = ? and "project_sessions"."id" >= ? order by "project_sessions"."id" asc limit ?;

-- sessions.list (desc)
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."project_id" = ? order by "project_sessions"."id" desc limit ?;

-- sessions.list (by start)
select cast("project_sessions"."start_time" as text) as "time" from "project_sessions" where "id" = ? and "project_id" = ?;

-- sessions.list (of a user)
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."project_id" = ? and project_sessions.id in (select t.project_session_rowid from traces t where t.id in (select u.id from traces u where u.project_id = ? and u.user_id = ? union all select m.id from traces m where m.project_id = ? and m.user_id = ? and exists (select 1 from spans where spans.trace_rowid = m.id and (json_type("spans"."attributes", ?) = 'text' and json_extract("spans"."attributes", ?) = ?)))) order by "project_sessions"."id" desc limit ?;

-- sessions.list (by last activity)
select cast("project_sessions"."end_time" as text) as "time" from "project_sessions" where "id" = ? and "project_id" = ?;

-- sessions.findById
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."id" = ?;

-- sessions.anyInProject
select "id" from "project_sessions" where +"project_sessions"."project_id" = ? and "session_id" in (?) limit ?;

-- traces.rowidsByTraceId
select "id", "trace_id" from "traces" where "trace_id" in (?);

-- traces.anyInProject
select "id" from "traces" where +"traces"."project_id" = ? and "trace_id" in (?) limit ?;

-- annotations.upsert (span)
insert into "span_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "span_rowid", "trace_rowid") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (select spans.trace_rowid from spans where spans.id = ?)) on conflict ("name", "span_rowid", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning "id";

-- annotations.upsert (trace)
insert into "trace_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "trace_rowid") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("name", "trace_rowid", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning "id";

-- annotations.upsert (session)
insert into "session_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "project_session_rowid") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("name", "project_session_rowid", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning "id";

-- annotations.upsert (document)
insert into "document_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "span_rowid", "document_position", "trace_rowid") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (select spans.trace_rowid from spans where spans.id = ?)) on conflict ("name", "span_rowid", "document_position", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning "id";

-- annotations.list (trace)
select "a".*, "t"."trace_id" as "target" from "trace_annotations" as "a" inner join "traces" as "t" on "t"."id" = "a"."trace_rowid" where +"t"."project_id" = ? and "t"."trace_id" in (?) and "a"."identifier" in (?) and "a"."name" in (?) and "a"."name" not in (?) and "a"."id" <= ? order by "a"."id" desc limit ?;

-- annotations.list (session)
select "a".*, "t"."session_id" as "target" from "session_annotations" as "a" inner join "project_sessions" as "t" on "t"."id" = "a"."project_session_rowid" where +"t"."project_id" = ? and "t"."session_id" in (?) and "a"."identifier" in (?) and "a"."name" in (?) and "a"."name" not in (?) and "a"."id" <= ? order by "a"."id" desc limit ?;

-- annotations.listDocuments
select "a".*, "spans"."span_id" as "target" from "document_annotations" as "a" inner join "spans" on "spans"."id" = "a"."span_rowid" where "a"."span_rowid" = ? order by "a"."document_position", "a"."id";

-- annotations.labelCounts
select count(*) as n from (select 1 from "span_annotations" limit ?);
select count(*) as n from (select 1 from "trace_annotations" limit ?);
select "a"."name", "a"."label", count(*) as "count", sum("a"."score") as "score_sum", count("a"."score") as "score_count" from "span_annotations" as "a" cross join "spans" where "spans"."id" = "a"."span_rowid" and "spans"."project_id" = ? and "a"."name" <> ? and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) group by "a"."name", "a"."label" order by "a"."name", "a"."label";
select "a"."name", "a"."label", count(*) as "count", sum("a"."score") as "score_sum", count("a"."score") as "score_count" from "trace_annotations" as "a" cross join "traces" where "traces"."id" = "a"."trace_rowid" and "traces"."project_id" = ? and "a"."name" <> ? and "traces"."start_time" >= cast(? as bigint) and "traces"."start_time" < cast(? as bigint) group by "a"."name", "a"."label" order by "a"."name", "a"."label";

-- traces.list (annotation filters)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = ? and (exists (select 1 from trace_annotations fta where fta.trace_rowid = "traces"."id" and "fta"."name" = ? and "fta"."label" = ?) or exists (select 1 from spans fs join span_annotations fsa on fsa.span_rowid = fs.id where fs.trace_rowid = "traces"."id" and "fsa"."name" = ? and "fsa"."label" = ?)) and (exists (select 1 from trace_annotations fta where fta.trace_rowid = "traces"."id" and "fta"."name" = ? and "fta"."score" >= ?) or exists (select 1 from spans fs join span_annotations fsa on fsa.span_rowid = fs.id where fs.trace_rowid = "traces"."id" and "fsa"."name" = ? and "fsa"."score" >= ?)) order by "traces"."start_time" desc, "traces"."id" desc limit ?;

-- spans.list (annotation filters)
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and exists (select 1 from span_annotations fa where fa.span_rowid = "spans"."id" and "fa"."name" = ?) and exists (select 1 from span_annotations fa where fa.span_rowid = "spans"."id" and "fa"."name" = ? and "fa"."label" = ?) and exists (select 1 from span_annotations fa where fa.span_rowid = "spans"."id" and "fa"."name" = ? and "fa"."score" < ?) order by "spans"."start_time" desc, "spans"."id" desc limit ?;

-- annotationConfigs.insert
insert into "annotation_configs" ("name", "type", "config", "created_at", "updated_at") values (?, ?, ?, ?, ?) returning *;

-- annotationConfigs.findById
select "c".* from "annotation_configs" as "c" where "c"."id" = ?;

-- annotationConfigs.findByName
select "c".* from "annotation_configs" as "c" where "c"."name" = ?;

-- annotationConfigs.findByNames
select "c".* from "annotation_configs" as "c" where "c"."name" in (?, ?);

-- annotationConfigs.existingIds
select "id" from "annotation_configs" where "id" in (?, ?);

-- annotationConfigs.update
update "annotation_configs" set "name" = ?, "type" = ?, "config" = ?, "updated_at" = ? where "id" = ? returning *;

-- annotationConfigs.assign
insert into "project_annotation_configs" ("project_id", "annotation_config_id") values (?, ?) on conflict ("project_id", "annotation_config_id") do nothing;

-- annotationConfigs.assignedIds
select "annotation_config_id" from "project_annotation_configs" where "project_id" = ?;

-- annotationConfigs.list
select "c".* from "annotation_configs" as "c" where "c"."id" <= ? order by "c"."id" desc limit ?;

-- annotationConfigs.list (project)
select "c".* from "annotation_configs" as "c" inner join "project_annotation_configs" as "p" on "p"."annotation_config_id" = "c"."id" where "p"."project_id" = ? order by "c"."id" desc limit ?;

-- annotationConfigs.unassign
delete from "project_annotation_configs" where "project_id" = ? and "annotation_config_id" in (?);

-- annotationConfigs.delete
delete from "annotation_configs" where "id" = ? returning *;

-- sessions.findBySessionId
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."session_id" = ? order by "project_sessions"."id" limit ?;

-- sessions.findBySessionId (project)
select "project_sessions"."id", "project_sessions"."project_id", "project_sessions"."session_id", cast("project_sessions"."start_time" as text) as "start_time", cast("project_sessions"."end_time" as text) as "end_time" from "project_sessions" where "project_sessions"."session_id" = ? and "project_sessions"."project_id" = ? order by "project_sessions"."id" limit ?;

-- sessions.traces
select "traces"."id", "traces"."project_session_rowid", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_session_rowid" in (?, ?) order by "traces"."project_session_rowid", "traces"."start_time", "traces"."id";

-- sessions.tokens
select "traces"."project_session_rowid", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "errors" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "traces"."project_session_rowid" in (?, ?) group by "traces"."project_session_rowid";

-- sessions.rootIo
select "spans"."trace_rowid", json_extract("spans"."attributes", ?) as "input", json_extract("spans"."attributes", ?) as "output", "spans"."attributes", "spans"."long_attributes" from "spans" where "spans"."trace_rowid" in (?, ?) and "spans"."parent_id" is null order by "spans"."trace_rowid", "spans"."start_time", "spans"."id";

-- annotations.list (span)
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in (?) and "span_id" in (?);
select "a".*, "t"."span_id" as "target" from "span_annotations" as "a" inner join "spans" as "t" on "t"."id" = "a"."span_rowid" where +"t"."project_id" = ? and "a"."span_rowid" in (?) and "a"."identifier" in (?) and "a"."name" in (?) and "a"."name" not in (?) and "a"."id" <= ? order by "a"."id" desc limit ?;

-- projectMetrics.byKind
select "spans"."span_kind" as "grp", count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "spans" where "spans"."project_id" = ? and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) group by 1;

-- projectMetrics.byModel
select json_extract("spans"."attributes", ?) as "grp", count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "spans" where "spans"."project_id" = ? and "spans"."span_kind" = ? group by 1;

-- projectMetrics.byModel (a time range: on SQLite by start second)
select json_extract("spans"."attributes", ?) as "grp", count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "spans" where "spans"."project_id" = ? and +"spans"."start_time" >= cast(? as bigint) and ("spans"."start_time" / 1000000000) >= ? and +"spans"."start_time" < cast(? as bigint) and ("spans"."start_time" / 1000000000) <= ? and "spans"."span_kind" = ? group by 1;

-- projectMetrics.byBucket
select (("spans"."start_time" - cast(? as bigint)) / cast(? as bigint)) as "grp", count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_prompt") as "prompt", sum("spans"."llm_token_count_completion") as "completion", sum("spans"."llm_token_count_total") as "total" from "spans" where "spans"."project_id" = ? group by 1;

-- projectMetrics.traceCounts
select (("traces"."start_time" - cast(? as bigint)) / cast(? as bigint)) as "grp", count(*) as "n" from "traces" where "traces"."project_id" = ? group by 1;

-- projectMetrics.rootLatency
select "r"."grp", "r"."d", "r"."rn", "r"."n" from (select 0 as "grp", ("spans"."end_time" - "spans"."start_time") as "d", row_number() over (partition by 0 order by ("spans"."end_time" - "spans"."start_time")) as "rn", count(*) over (partition by 0) as "n" from "spans" where "spans"."project_id" = ? and "spans"."parent_id" is null) as "r" where ((r.rn = cast(? * (r.n - 1) as integer) + 1 or r.rn = cast(? * (r.n - 1) as integer) + 2) or (r.rn = cast(? * (r.n - 1) as integer) + 1 or r.rn = cast(? * (r.n - 1) as integer) + 2));

-- prompts.ensurePrompt
insert into "prompts" ("name", "description", "metadata", "created_at", "updated_at") values (?, ?, ?, ?, ?) on conflict ("name") do nothing;
select * from "prompts" where "name" = ?;

-- prompts.findPromptById
select * from "prompts" where "id" = ?;

-- prompts.findPromptByName
select * from "prompts" where "name" = ?;

-- prompts.listPrompts
select * from "prompts" where "id" <= ? order by "id" desc limit ?;

-- prompts.insertVersion
insert into "prompt_versions" ("prompt_id", "description", "template_type", "template_format", "template", "invocation_parameters", "model_provider", "model_name", "tools", "response_format", "user_id", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *;

-- prompts.listVersions
select * from "prompt_versions" where "prompt_id" = ? and "id" <= ? order by "id" desc limit ?;

-- prompts.findVersion
select * from "prompt_versions" where "id" = ?;

-- prompts.latestVersion
select * from "prompt_versions" where "prompt_id" = ? order by "id" desc limit ?;

-- prompts.setTag
insert into "prompt_version_tags" ("prompt_id", "name", "description", "version_id", "user_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?) on conflict ("prompt_id", "name") do update set "version_id" = "excluded"."version_id", "description" = "excluded"."description", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at" returning *;

-- prompts.versionByTag
select "v".* from "prompt_version_tags" as "t" inner join "prompt_versions" as "v" on "v"."id" = "t"."version_id" where "t"."prompt_id" = ? and "t"."name" = ?;

-- prompts.listTags
select * from "prompt_version_tags" where "version_id" = ? and "id" <= ? order by "id" desc limit ?;

-- prompts.deleteTag
delete from "prompt_version_tags" where "prompt_id" = ? and "name" = ?;

-- prompts.updatePrompt
update "prompts" set "updated_at" = ?, "description" = ?, "metadata" = ? where "id" = ? returning *;

-- prompts.deletePrompt
delete from "prompts" where "id" = ?;

-- datasets.insertDataset
insert into "datasets" ("name", "description", "metadata", "created_at", "updated_at") values (?, ?, ?, ?, ?) returning *;

-- datasets.findByNameForUpload
select * from "datasets" where "name" = ? and "deleted_at" is null;

-- datasets.insertVersion
insert into "dataset_versions" ("dataset_id", "description", "metadata", "created_at", "completed_at", "last_write_at") values (?, ?, ?, ?, ?, ?) returning *;

-- datasets.pendingVersion
select "id", "dataset_id", "last_write_at" from "dataset_versions" where "dataset_id" = ? and "completed_at" is null;

-- datasets.keepVersionAlive
update "dataset_versions" set "last_write_at" = ? where "id" = ? and "completed_at" is null and "last_write_at" >= ?;

-- datasets.completeVersion
update "dataset_versions" set "completed_at" = ?, "last_write_at" = ?, "example_count" = ? where "id" = ? and "completed_at" is null and "last_write_at" >= ?;

-- datasets.findById
select * from "datasets" where "id" = ? and ("datasets"."deleted_at" is null and exists (select "v"."id" from "dataset_versions" as "v" where "v"."dataset_id" = "datasets"."id" and "v"."completed_at" is not null));

-- datasets.findByName
select * from "datasets" where "name" = ? and ("datasets"."deleted_at" is null and exists (select "v"."id" from "dataset_versions" as "v" where "v"."dataset_id" = "datasets"."id" and "v"."completed_at" is not null));

-- datasets.list
select * from "datasets" where ("datasets"."deleted_at" is null and exists (select "v"."id" from "dataset_versions" as "v" where "v"."dataset_id" = "datasets"."id" and "v"."completed_at" is not null)) and "id" <= ? and "name" = ? order by "id" desc limit ?;

-- datasets.findVersion
select * from "dataset_versions" where "dataset_id" = ? and "id" = ? and "completed_at" is not null;

-- datasets.latestVersion
select * from "dataset_versions" where "dataset_id" = ? and "completed_at" is not null order by "id" desc limit ?;

-- datasets.listVersions
select * from "dataset_versions" where "dataset_id" = ? and "completed_at" is not null and "id" <= ? order by "id" desc limit ?;

-- datasets.maxExampleId
select max("id") as "id" from "dataset_examples" where "dataset_id" = ?;

-- datasets.insertExamples
insert into "dataset_examples" ("dataset_id", "external_id", "source_span_id", "created_at") values (?, ?, ?, ?) returning "id";

-- datasets.insertRevisions
insert into "dataset_example_revisions" ("example_id", "version_id", "kind", "input", "output", "metadata", "created_at") values (?, ?, ?, ?, ?, ?, ?);

-- datasets.examplesWithExternalIds
select "id", "external_id" from "dataset_examples" where "dataset_id" = ? and "external_id" in (?, ?);

-- datasets.exampleTextsAt
select "e"."id", "e"."external_id", "e"."source_span_id", "r"."input", "r"."output", "r"."metadata", "r"."created_at" from "dataset_example_revisions" as "r" inner join "dataset_examples" as "e" on "e"."id" = "r"."example_id" where "e"."dataset_id" = ? and "r"."version_id" = (select max("newest"."version_id") as "version_id" from "dataset_example_revisions" as "newest" where "newest"."example_id" = "r"."example_id" and "newest"."version_id" <= ?) and "r"."kind" != ? and "e"."id" > ? order by "e"."id" limit ?;

-- datasets.exampleIdsAt
select "e"."id" from "dataset_example_revisions" as "r" inner join "dataset_examples" as "e" on "e"."id" = "r"."example_id" where "e"."dataset_id" = ? and "r"."version_id" = (select max("newest"."version_id") as "version_id" from "dataset_example_revisions" as "newest" where "newest"."example_id" = "r"."example_id" and "newest"."version_id" <= ?) and "r"."kind" != ? and "e"."id" > ? order by "e"."id" limit ?;

-- datasets.examplesAt (ids)
select "e"."id", "e"."external_id", "e"."source_span_id", "r"."input", "r"."output", "r"."metadata", "r"."created_at" from "dataset_example_revisions" as "r" inner join "dataset_examples" as "e" on "e"."id" = "r"."example_id" where "e"."dataset_id" = ? and "r"."version_id" = (select max("newest"."version_id") as "version_id" from "dataset_example_revisions" as "newest" where "newest"."example_id" = "r"."example_id" and "newest"."version_id" <= ?) and "r"."kind" != ? and "e"."id" in (?, ?) order by "e"."id";

-- datasets.exampleCounts
select "v"."dataset_id", "v"."example_count" from "dataset_versions" as "v" where "v"."dataset_id" in (?) and "v"."id" = (select max("latest"."id") as "id" from "dataset_versions" as "latest" where "latest"."dataset_id" = "v"."dataset_id" and "latest"."completed_at" is not null);

-- datasets.insertVersion (a second one)
insert into "dataset_versions" ("dataset_id", "description", "metadata", "created_at", "completed_at", "last_write_at") values (?, ?, ?, ?, ?, ?) returning *;

-- datasets.insertDeleteRevisions
insert into "dataset_example_revisions" ("example_id", "version_id", "kind", "input", "output", "metadata", "created_at") select "r"."example_id", ? as "version_id", ? as "kind", "r"."input", "r"."output", "r"."metadata", ? as "created_at" from "dataset_example_revisions" as "r" where "r"."example_id" in (?) and "r"."version_id" = (select max("newest"."version_id") as "version_id" from "dataset_example_revisions" as "newest" where "newest"."example_id" = "r"."example_id" and "newest"."version_id" <= ?);

-- datasets.abandonedVersions
select "id", "dataset_id", "last_write_at" from "dataset_versions" where "completed_at" is null and ("last_write_at" is null or "last_write_at" < ?) order by "id" limit ?;

-- datasets.giveUpVersion
update "dataset_versions" set "last_write_at" = ? where "id" = ? and "completed_at" is null and ("last_write_at" is null or "last_write_at" < ?);

-- datasets.giveUpVersion (own)
update "dataset_versions" set "last_write_at" = ? where "id" = ? and "completed_at" is null;

-- datasets.deleteExamplesCreatedBy
delete from "dataset_examples" where "id" in (select "example_id" from "dataset_example_revisions" where "version_id" = ? and "kind" = ? limit ?);

-- datasets.deleteRevisionsOf
delete from "dataset_example_revisions" where "id" in (select "v"."id" from "dataset_example_revisions" as "v" where "v"."version_id" = ? limit ?);

-- datasets.deletePendingVersion
delete from "dataset_versions" where "id" = ? and "completed_at" is null;

-- datasets.deleteDatasetWithoutVersions
delete from "datasets" where "id" = ? and not exists (select "dataset_versions"."id" from "dataset_versions" where "dataset_versions"."dataset_id" = "datasets"."id");

-- datasets.touch
update "datasets" set "updated_at" = ? where "id" = ?;

-- datasetLabels.insert
insert into "dataset_labels" ("name", "description", "color", "user_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?) returning "id", "name", "description", "color";

-- datasetLabels.findById
select "id", "name", "description", "color" from "dataset_labels" where "id" = ?;

-- datasetLabels.list
select "id", "name", "description", "color" from "dataset_labels" where "id" <= ? order by "id" desc limit ?;

-- datasetLabels.update
update "dataset_labels" set "name" = ?, "color" = ?, "description" = ?, "updated_at" = ? where "id" = ? returning "id", "name", "description", "color";

-- datasetLabels.existingIds
select "id" from "dataset_labels" where "id" in (?, ?);

-- datasetLabels.apply
insert into "datasets_dataset_labels" ("dataset_id", "dataset_label_id") values (?, ?) on conflict ("dataset_id", "dataset_label_id") do nothing;

-- datasetLabels.listForDataset
select "l"."id", "l"."name", "l"."description", "l"."color" from "datasets_dataset_labels" as "m" inner join "dataset_labels" as "l" on "l"."id" = "m"."dataset_label_id" where "m"."dataset_id" = ? and "l"."id" <= ? order by "l"."id" desc limit ?;

-- datasetLabels.keepOnly
delete from "datasets_dataset_labels" where "dataset_id" = ? and "dataset_label_id" not in (?);

-- datasetLabels.keepOnly (none)
delete from "datasets_dataset_labels" where "dataset_id" = ?;

-- datasetLabels.remove
delete from "datasets_dataset_labels" where "dataset_id" = ? and "dataset_label_id" in (?);

-- datasetLabels.delete
delete from "dataset_labels" where "id" = ?;

-- datasetSplits.insert
insert into "dataset_splits" ("name", "description", "color", "metadata", "user_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?) returning *;

-- datasetSplits.findById
select * from "dataset_splits" where "id" = ?;

-- datasetSplits.findByIdsOrNames
select * from "dataset_splits" where ("id" in (?) or "name" in (?)) order by "id";

-- datasetSplits.update
update "dataset_splits" set "name" = ?, "description" = ?, "color" = ?, "metadata" = ?, "updated_at" = ? where "id" = ? returning *;

-- datasetSplits.examplesOfDataset
select "id" from "dataset_examples" where "dataset_id" = ? and "id" in (?, ?);

-- datasetSplits.addExamples
insert into "dataset_splits_dataset_examples" ("dataset_split_id", "dataset_example_id") values (?, ?) on conflict ("dataset_split_id", "dataset_example_id") do nothing;

-- datasetSplits.exampleCount
select count(*) as "n" from "dataset_splits_dataset_examples" as "m" inner join "dataset_examples" as "e" on "e"."id" = "m"."dataset_example_id" where "m"."dataset_split_id" = ? and "e"."dataset_id" = ?;

-- datasets.exampleTextsAt (splits)
select "e"."id", "e"."external_id", "e"."source_span_id", "r"."input", "r"."output", "r"."metadata", "r"."created_at" from "dataset_example_revisions" as "r" inner join "dataset_examples" as "e" on "e"."id" = "r"."example_id" where "e"."dataset_id" = ? and "r"."version_id" = (select max("newest"."version_id") as "version_id" from "dataset_example_revisions" as "newest" where "newest"."example_id" = "r"."example_id" and "newest"."version_id" <= ?) and "e"."id" in (select "s"."dataset_example_id" from "dataset_splits_dataset_examples" as "s" where "s"."dataset_split_id" in (?)) and "r"."kind" != ? and "e"."id" > ? order by "e"."id" limit ?;

-- datasets.exampleIdsAt (splits)
select "e"."id" from "dataset_example_revisions" as "r" inner join "dataset_examples" as "e" on "e"."id" = "r"."example_id" where "e"."dataset_id" = ? and "r"."version_id" = (select max("newest"."version_id") as "version_id" from "dataset_example_revisions" as "newest" where "newest"."example_id" = "r"."example_id" and "newest"."version_id" <= ?) and "e"."id" in (select "s"."dataset_example_id" from "dataset_splits_dataset_examples" as "s" where "s"."dataset_split_id" in (?)) and "r"."kind" != ? and "e"."id" > ? order by "e"."id" limit ?;

-- datasetSplits.removeExamples
delete from "dataset_splits_dataset_examples" where "dataset_split_id" = ? and "dataset_example_id" in (?);

-- datasetSplits.delete
delete from "dataset_splits" where "id" = ?;

-- experiments.insert
insert into "experiments" ("dataset_id", "dataset_version_id", "name", "description", "metadata", "repetitions", "project_name", "user_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *;

-- experiments.insertExamples
insert into "experiment_examples" ("experiment_id", "example_id") values (?, ?);

-- experiments.findById
select * from "experiments" where "id" = ? and ("experiments"."deleted_at" is null and exists (select "datasets"."id" from "datasets" where "datasets"."id" = "experiments"."dataset_id" and "datasets"."deleted_at" is null));

-- experiments.update
update "experiments" set "name" = ?, "description" = ?, "metadata" = ?, "updated_at" = ? where "id" = ? and ("experiments"."deleted_at" is null and exists (select "datasets"."id" from "datasets" where "datasets"."id" = "experiments"."dataset_id" and "datasets"."deleted_at" is null)) returning *;

-- experimentTags.upsert
insert into "experiment_tags" ("experiment_id", "dataset_id", "user_id", "name", "description", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?) on conflict ("dataset_id", "name") do update set "experiment_id" = ?, "user_id" = ?, "description" = ?, "updated_at" = ? returning "id", "name", "description";

-- experimentTags.listForExperiment
select "id", "name", "description" from "experiment_tags" where "experiment_id" = ? and "name" >= ? order by "name" limit ?;

-- experimentTags.findInDataset
select "id", "name", "description", "experiment_id" from "experiment_tags" where "dataset_id" = ? and "id" = ?;

-- experimentTags.removeFromExperiment
delete from "experiment_tags" where "dataset_id" = ? and "name" = ? and "experiment_id" = ?;

-- jobState.write
insert into "job_state" ("name", "value") values (?, ?) on conflict ("name") do update set "value" = ?;

-- jobState.read
select "value" from "job_state" where "name" = ?;

-- evaluators.insert
insert into "evaluators" ("name", "description", "kind", "user_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?) on conflict ("name") do nothing returning "id";
insert into "evaluator_versions" ("evaluator_id", "version", "definition", "user_id", "created_at") values (?, ?, ?, ?, ?);

-- evaluators.findById
select * from "evaluators" where "id" in (?);
select "v"."id", "v"."evaluator_id", "v"."version", "v"."definition", "v"."created_at" from "evaluator_versions" as "v" where "v"."evaluator_id" in (?) and "v"."version" = (select max("w"."version") as "latest" from "evaluator_versions" as "w" where "w"."evaluator_id" = "v"."evaluator_id");

-- evaluators.findIdByName
select "id" from "evaluators" where "name" = ?;

-- evaluators.list
select "id" from "evaluators" where "name" >= ? order by "name" limit ?;
select * from "evaluators" where "id" in (?);
select "v"."id", "v"."evaluator_id", "v"."version", "v"."definition", "v"."created_at" from "evaluator_versions" as "v" where "v"."evaluator_id" in (?) and "v"."version" = (select max("w"."version") as "latest" from "evaluator_versions" as "w" where "w"."evaluator_id" = "v"."evaluator_id");

-- evaluators.nameOf
select "name" from "evaluators" where "id" = ?;

-- evaluators.update
select "id" from "evaluators" where "name" = ? and "id" != ?;
update "evaluators" set "name" = ?, "description" = ?, "updated_at" = ? where "id" = ?;

-- evaluators.addVersion
insert into "evaluator_versions" ("evaluator_id", "version", "definition", "user_id", "created_at") values (?, ?, ?, ?, ?) on conflict ("evaluator_id", "version") do nothing returning "id";
update "evaluators" set "kind" = ?, "updated_at" = ? where "id" = ?;

-- evaluators.versions
select "id", "evaluator_id", "version", "definition", "created_at" from "evaluator_versions" where "evaluator_id" = ? and "version" <= ? order by "version" desc limit ?;

-- evaluators.versionNumber
select "version" from "evaluator_versions" where "id" = ? and "evaluator_id" = ?;

-- evaluators.attach
insert into "dataset_evaluators" ("dataset_id", "evaluator_id", "user_id", "created_at") values (?, ?, ?, ?) on conflict ("dataset_id", "evaluator_id") do nothing;

-- evaluators.attachedTo
select "dataset_id", "evaluator_id" from "dataset_evaluators" where "dataset_id" in (?) order by "dataset_id", "evaluator_id";
select * from "evaluators" where "id" in (?);
select "v"."id", "v"."evaluator_id", "v"."version", "v"."definition", "v"."created_at" from "evaluator_versions" as "v" where "v"."evaluator_id" in (?) and "v"."version" = (select max("w"."version") as "latest" from "evaluator_versions" as "w" where "w"."evaluator_id" = "v"."evaluator_id");

-- evaluators.runsAfter
select "r"."id", "r"."experiment_id", "e"."dataset_id", "e"."dataset_version_id", "r"."example_id", "r"."output", "r"."start_time", "r"."end_time", "r"."error", "r"."created_at" from "experiment_runs" as "r" inner join "experiments" as "e" on "e"."id" = "r"."experiment_id" where "r"."id" > ? and "e"."deleted_at" is null order by "r"."id" limit ?;

-- evaluators.findByIds
select * from "evaluators" where "id" in (?);
select "v"."id", "v"."evaluator_id", "v"."version", "v"."definition", "v"."created_at" from "evaluator_versions" as "v" where "v"."evaluator_id" in (?) and "v"."version" = (select max("w"."version") as "latest" from "evaluator_versions" as "w" where "w"."evaluator_id" = "v"."evaluator_id");

-- onlineEval.insert
insert into "online_eval_rules" ("project_id", "name", "target", "filter", "sampling_rate", "session_idle_minutes", "rate_limit_per_minute", "daily_cost_limit_usd", "enabled", "queue_id", "queue_score_below", "cursor", "backfill_cursor", "backfill_until", "user_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("project_id", "name") do nothing returning "id";
insert into "online_eval_rule_evaluators" ("rule_id", "evaluator_id") values (?, ?);

-- onlineEval.update
select "project_id" from "online_eval_rules" where "id" = ?;
select "id" from "online_eval_rules" where "project_id" = ? and "name" = ? and "id" <> ?;
update "online_eval_rules" set "name" = ?, "sampling_rate" = ?, "updated_at" = ? where "id" = ?;
delete from "online_eval_rule_evaluators" where "rule_id" = ?;
insert into "online_eval_rule_evaluators" ("rule_id", "evaluator_id") values (?, ?);

-- onlineEval.startBackfill
update "online_eval_rules" set "backfill_cursor" = ?, "backfill_until" = ?, "updated_at" = ? where "id" = ?;

-- onlineEval.rewindSessionCursor
update "online_eval_rules" set "cursor" = ?, "updated_at" = ? where "id" = ?;

-- onlineEval.findById
select * from "online_eval_rules" where "id" = ?;
select "rule_id", "evaluator_id" from "online_eval_rule_evaluators" where "rule_id" in (?) order by "evaluator_id";

-- onlineEval.list
select * from "online_eval_rules" where "project_id" = ? and "id" >= ? order by "id" limit ?;
select "rule_id", "evaluator_id" from "online_eval_rule_evaluators" where "rule_id" in (?) order by "evaluator_id";

-- onlineEval.enabled
select "r".* from "online_eval_rules" as "r" inner join "projects" as "p" on "p"."id" = "r"."project_id" where "r"."enabled" = ? and "p"."deleted_at" is null order by "r"."id";
select "rule_id", "evaluator_id" from "online_eval_rule_evaluators" where "rule_id" in (?) order by "evaluator_id";

-- onlineEval.maxSpanId
select max("id") as "id" from "spans";

-- onlineEval.scanSpans
select "spans"."id", "spans"."trace_rowid", "spans"."span_id", "traces"."trace_id", cast("spans"."start_time" as text) as "start_time", case when 1 = 1 then 1 else 0 end as "m0", case when (spans.parent_id is null) then 1 else 0 end as "m1" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where +spans.project_id = ? and "spans"."id" > ? and "spans"."id" <= ? and (1 = 1 or (spans.parent_id is null)) order by "spans"."id" limit ?;

-- onlineEval.scanSpansByTime
select "spans"."id", "spans"."trace_rowid", "spans"."span_id", "traces"."trace_id", cast("spans"."start_time" as text) as "start_time" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and (spans.start_time > cast(? as bigint) or (spans.start_time = cast(? as bigint) and spans.id > ?)) and spans.start_time < cast(? as bigint) and "spans"."parent_id" is null order by "spans"."start_time", "spans"."id" limit ?;

-- onlineEval.scanIdleSessions
select "s"."id", "s"."session_id", cast("s"."end_time" as text) as "end_time" from "project_sessions" as "s" where "s"."project_id" = ? and (s.end_time > cast(? as bigint) or (s.end_time = cast(? as bigint) and s.id > ?)) and s.end_time <= cast(? as bigint) and not exists (select "i"."id" from "online_eval_items" as "i" where "i"."rule_id" = ? and "i"."target_kind" = ? and "i"."target_rowid" = "s"."id") order by "s"."end_time", "s"."id" limit ?;

-- onlineEval.enqueueStatements
begin;
insert into "online_eval_items" ("rule_id", "evaluator_id", "target_kind", "target_rowid", "target_key", "span_rowid", "status", "attempts", "next_attempt_at", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("rule_id", "target_kind", "target_rowid", "evaluator_id") do nothing;
update "online_eval_rules" set "cursor" = ? where "id" = ? and "cursor" = ?;
commit;

-- onlineEval.due
select * from "online_eval_items" where "rule_id" = ? and "status" = ? and "next_attempt_at" <= ? order by "id" limit ?;

-- onlineEval.outcomeStatements
begin;
insert into "span_annotations" ("label", "score", "explanation", "metadata", "annotator_kind", "source", "user_id", "updated_at", "name", "identifier", "created_at", "span_rowid", "trace_rowid") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (select spans.trace_rowid from spans where spans.id = ?)) on conflict ("name", "span_rowid", "identifier") do update set "label" = "excluded"."label", "score" = "excluded"."score", "explanation" = "excluded"."explanation", "metadata" = "excluded"."metadata", "annotator_kind" = "excluded"."annotator_kind", "source" = "excluded"."source", "user_id" = "excluded"."user_id", "updated_at" = "excluded"."updated_at";
insert into "online_eval_items" ("rule_id", "evaluator_id", "target_kind", "target_rowid", "target_key", "span_rowid", "status", "attempts", "next_attempt_at", "error", "evaluator_version", "cost_usd", "created_at", "finished_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("rule_id", "target_kind", "target_rowid", "evaluator_id") do update set "status" = "excluded"."status", "attempts" = "excluded"."attempts", "next_attempt_at" = "excluded"."next_attempt_at", "error" = "excluded"."error", "evaluator_version" = "excluded"."evaluator_version", "cost_usd" = "excluded"."cost_usd", "finished_at" = "excluded"."finished_at" where "online_eval_items"."status" = ?;
commit;

-- onlineEval.finishedSince
select count(*) as "count", sum("cost_usd") as "cost" from "online_eval_items" where "rule_id" = ? and "finished_at" >= ?;

-- onlineEval.counts
select "status", count(*) as "count" from "online_eval_items" where "rule_id" = ? group by "status";

-- onlineEval.totalCost
select sum("cost_usd") as "cost" from "online_eval_items" where "rule_id" = ? and "status" = ?;

-- onlineEval.oldestPending
select "created_at" from "online_eval_items" where "rule_id" = ? and "status" = ? order by "id" limit ?;

-- onlineEval.recentLags
select "created_at", "finished_at" from "online_eval_items" where "rule_id" = ? and "status" = ? order by "id" desc limit ?;

-- onlineEval.items
select * from "online_eval_items" where "rule_id" = ? and "status" = ? and "id" <= ? order by "id" desc limit ?;

-- onlineEval.retryFailed
select "id" from "online_eval_items" where "rule_id" = ? and "status" = ? limit ?;

-- onlineEval.delete
delete from "online_eval_rules" where "id" = ?;

-- scheduledExports.insert
insert into "scheduled_exports" ("project_id", "name", "target", "filter", "format", "interval_minutes", "enabled", "cursor", "next_run_at", "user_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("project_id", "name") do nothing returning "id";

-- scheduledExports.update
select "other"."id" from "scheduled_exports" as "e" inner join "scheduled_exports" as "other" on "other"."project_id" = "e"."project_id" where "e"."id" = ? and "other"."name" = ? and "other"."id" <> ?;
update "scheduled_exports" set "name" = ?, "enabled" = ?, "next_run_at" = ?, "updated_at" = ? where "id" = ?;

-- scheduledExports.findById
select "e"."id", "e"."project_id", "e"."name", "e"."target", "e"."filter", "e"."format", "e"."interval_minutes", "e"."enabled", "e"."cursor", "e"."next_run_at", "e"."created_at", "e"."updated_at", "p"."name" as "project_name" from "scheduled_exports" as "e" inner join "projects" as "p" on "p"."id" = "e"."project_id" where "e"."id" = ?;

-- scheduledExports.list
select "e"."id", "e"."project_id", "e"."name", "e"."target", "e"."filter", "e"."format", "e"."interval_minutes", "e"."enabled", "e"."cursor", "e"."next_run_at", "e"."created_at", "e"."updated_at", "p"."name" as "project_name" from "scheduled_exports" as "e" inner join "projects" as "p" on "p"."id" = "e"."project_id" where "e"."project_id" = ? and "e"."id" >= ? order by "e"."id" limit ?;

-- scheduledExports.due
select "e"."id", "e"."project_id", "e"."name", "e"."target", "e"."filter", "e"."format", "e"."interval_minutes", "e"."enabled", "e"."cursor", "e"."next_run_at", "e"."created_at", "e"."updated_at", "p"."name" as "project_name" from "scheduled_exports" as "e" inner join "projects" as "p" on "p"."id" = "e"."project_id" where "e"."enabled" = ? and "e"."next_run_at" <= ? and "p"."deleted_at" is null order by "e"."next_run_at", "e"."id" limit ?;

-- scheduledExports.maxSpanId
select max("id") as "id" from "spans";

-- scheduledExports.arrivedSpans (spans of a condition)
select "spans"."id", "spans"."trace_rowid" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where +"spans"."project_id" = ? and "spans"."id" > ? and "spans"."id" <= ? and ("spans"."span_kind" = ?) order by "spans"."id" limit ?;

-- scheduledExports.arrivedSpans (roots of traces with a span of a condition)
select "r"."id", "r"."trace_rowid" from "spans" as "r" where +"r"."project_id" = ? and "r"."id" > ? and "r"."id" <= ? and "r"."parent_id" is null and exists (select 1 as "one" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."trace_rowid" = "r"."trace_rowid" and ("traces"."trace_id" = ?)) order by "r"."id" limit ?;

-- scheduledExports.finishRunStatements
begin;
insert into "scheduled_export_runs" ("export_id", "started_at", "finished_at", "row_count", "file", "byte_count", "error", "cursor_from", "cursor_to") values (?, ?, ?, ?, ?, ?, ?, ?, ?);
update "scheduled_exports" set "cursor" = ?, "next_run_at" = ? where "id" = ? and "cursor" = ?;
delete from "scheduled_export_runs" where "export_id" = ? and "id" < (select "r"."id" from "scheduled_export_runs" as "r" where "r"."export_id" = ? order by "r"."id" desc limit ? offset ?);
commit;

-- scheduledExports.runs
select * from "scheduled_export_runs" where "export_id" = ? and "id" <= ? order by "id" desc limit ?;

-- scheduledExports.delete
delete from "scheduled_exports" where "id" = ?;

-- spans.list (an export: a condition within a window)
select "spans"."id", "spans"."trace_rowid", "spans"."project_id", "traces"."trace_id", "spans"."span_id", "spans"."parent_id", "spans"."name", "spans"."span_kind", cast("spans"."start_time" as text) as "start_time", cast("spans"."end_time" as text) as "end_time", "spans"."status_code", "spans"."status_message", "spans"."attributes", "spans"."long_attributes", "spans"."events", "spans"."llm_token_count_prompt", "spans"."llm_token_count_completion", "spans"."llm_token_count_total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and (json_type("spans"."attributes", ?) = 'text' and (instr(json_extract("spans"."attributes", ?), ?) > 0)) and ("spans"."start_time" <= cast(? as bigint) and ("spans"."start_time" < cast(? as bigint) or "spans"."id" <= ?)) and ("spans"."start_time" >= cast(? as bigint) and ("spans"."start_time" > cast(? as bigint) or "spans"."id" >= ?)) order by "spans"."start_time" asc, "spans"."id" asc limit ?;

-- spans.windowEnd
select "spans"."id", cast("spans"."start_time" as text) as "start_time" from "spans" where "spans"."project_id" = ? and spans.start_time >= cast(? as bigint) and spans.start_time < cast(? as bigint) and ("spans"."start_time" >= cast(? as bigint) and ("spans"."start_time" > cast(? as bigint) or "spans"."id" >= ?)) order by "spans"."start_time" asc, "spans"."id" asc limit ? offset ?;

-- traces.list (an export: traces with a span of a condition, within a window)
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = ? and exists (select 1 as "one" from "spans" where "spans"."trace_rowid" = "traces"."id" and ("spans"."name" = ?)) and ("traces"."start_time" <= cast(? as bigint) and ("traces"."start_time" < cast(? as bigint) or "traces"."id" <= ?)) and ("traces"."start_time" >= cast(? as bigint) and ("traces"."start_time" > cast(? as bigint) or "traces"."id" >= ?)) order by "traces"."start_time" asc, "traces"."id" asc limit ?;

-- traces.windowEnd
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."project_id" = ? order by "traces"."start_time" asc, "traces"."id" asc limit ? offset ?;

-- traces.findByIds
select "traces"."id", "traces"."project_id", "traces"."trace_id", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "traces"."id" in (?, ?);

-- traces.exportDetails
select "traces"."id", "project_sessions"."session_id", "traces"."user_id" from "traces" left join "project_sessions" on "project_sessions"."id" = "traces"."project_session_rowid" where "traces"."id" in (?, ?);

-- alerts.insert
insert into "alert_rules" ("project_id", "name", "metric", "annotation_name", "annotation_label", "filter", "comparator", "threshold", "window_seconds", "channels", "enabled", "muted_until", "state", "last_value", "last_checked_at", "last_delivery_at", "last_delivery_error", "user_id", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("project_id", "name") do nothing returning "id";

-- alerts.update
select "id" from "alert_rules" where "project_id" = ? and "name" = ? and "id" <> ?;
update "alert_rules" set "name" = ?, "threshold" = ?, "muted_until" = ?, "updated_at" = ? where "id" = ?;

-- alerts.findById
select * from "alert_rules" where "id" = ?;

-- alerts.list
select * from "alert_rules" where "project_id" = ? and "id" >= ? order by "id" limit ?;

-- alerts.enabled
select "r".*, "p"."name" as "project_name" from "alert_rules" as "r" inner join "projects" as "p" on "p"."id" = "r"."project_id" where "r"."enabled" = ? and "p"."deleted_at" is null and "r"."id" > ? order by "r"."id" limit ?;

-- alerts.checkStatements
begin;
update "alert_rules" set "last_value" = ?, "last_checked_at" = ?, "state" = ? where "id" = ? and "state" = ?;
insert into "alert_events" ("rule_id", "fired_at", "fired_value", "resolved_at", "resolved_value", "muted") values (?, ?, ?, ?, ?, ?);
update "alert_rules" set "last_value" = ?, "last_checked_at" = ?, "state" = ? where "id" = ? and "state" = ?;
update "alert_events" set "resolved_at" = ?, "resolved_value" = ? where "rule_id" = ? and "resolved_at" is null;
commit;

-- alerts.deliveryStatements
begin;
update "alert_rules" set "last_delivery_at" = ?, "last_delivery_error" = ? where "id" = ?;
commit;

-- alerts.history
select * from "alert_events" where "rule_id" = ? and "id" <= ? order by "id" desc limit ?;

-- alerts.delete
delete from "alert_rules" where "id" = ?;

-- windowMetrics.spanTotals
select count(*) as "span_count", sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as "error_count", sum("spans"."llm_token_count_total") as "tokens" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" = ? and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) and ("spans"."name" = ?);

-- windowMetrics.latencyPercentile
with "w" as (select ("spans"."end_time" - "spans"."start_time") as "d" from "spans" where "spans"."project_id" = ? and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint)) select w.d as "d", (select count(*) from w) as "n" from "w" order by w.d limit ? offset (select max(0, cast(? * (count(*) - 1) as integer)) from w);

-- windowMetrics.cost
select sum("span_costs"."total_cost") as "total" from "span_costs" where "span_costs"."project_id" = ? and "span_costs"."start_time" >= cast(? as bigint) and "span_costs"."start_time" < cast(? as bigint);
select sum("span_costs"."total_cost") as "total" from "spans" inner join "traces" on "traces"."id" = "spans"."trace_rowid" inner join "span_costs" on "span_costs"."span_rowid" = "spans"."id" where "spans"."project_id" = ? and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) and ("spans"."name" = ?);

-- windowMetrics.annotationTotals
select count(*) as "n", avg("span_annotations"."score") as "score_mean", sum(case when "span_annotations"."label" = ? then 1 else 0 end) as "label_count" from "spans" inner join "span_annotations" on "span_annotations"."span_rowid" = "spans"."id" where "spans"."project_id" = ? and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) and "span_annotations"."name" = ?;

-- rollups.fromRollups
select (("minute") / 60) * 60 as t, nullif("value", '') as g, sum(span_count) as span_count, sum(error_count) as error_count, sum(token_count_total) as tokens, sum("h00") as "h00", sum("h01") as "h01", sum("h02") as "h02", sum("h03") as "h03", sum("h04") as "h04", sum("h05") as "h05", sum("h06") as "h06", sum("h07") as "h07", sum("h08") as "h08", sum("h09") as "h09", sum("h10") as "h10", sum("h11") as "h11", sum("h12") as "h12", sum("h13") as "h13", sum("h14") as "h14", sum("h15") as "h15", sum("h16") as "h16", sum("h17") as "h17", sum("h18") as "h18", sum("h19") as "h19", sum("h20") as "h20", sum("h21") as "h21", sum("h22") as "h22", sum("h23") as "h23", sum("h24") as "h24", sum("h25") as "h25", sum("h26") as "h26", sum("h27") as "h27", sum("h28") as "h28", sum("h29") as "h29", sum("h30") as "h30", sum("h31") as "h31", sum("h32") as "h32", sum("h33") as "h33", sum("h34") as "h34", sum("h35") as "h35", sum("h36") as "h36", sum("h37") as "h37", sum("h38") as "h38", sum("h39") as "h39", sum("h40") as "h40", sum("h41") as "h41", sum("h42") as "h42", sum("h43") as "h43", sum("h44") as "h44", sum("h45") as "h45", sum("h46") as "h46", sum("h47") as "h47", sum("h48") as "h48", sum("h49") as "h49", sum("h50") as "h50", sum("h51") as "h51", sum("h52") as "h52", sum("h53") as "h53", sum("h54") as "h54", sum("h55") as "h55", sum("h56") as "h56", sum("h57") as "h57", sum("h58") as "h58", sum("h59") as "h59", sum("h60") as "h60", sum("h61") as "h61", sum("h62") as "h62", sum("h63") as "h63" from span_rollups where project_id in (?, ?) and dimension = ? and minute >= ? and minute < ? group by 1, 2;

-- rollups.fromRollups (no group)
select 0 as t, null as g, sum(span_count) as span_count, sum(error_count) as error_count, sum(token_count_total) as tokens from span_rollups where project_id in (?, ?) and dimension = ? and minute >= ? and minute < ? group by 1, 2;

-- rollups.fromSpans
select ((("spans"."start_time" / cast(? as bigint))) / 60) * 60 as t, json_extract("spans"."attributes", ?) as g, (case when ("spans"."end_time" - "spans"."start_time") < 100000 then 0 else min(63, 1 + cast(floor(2 * log2(("spans"."end_time" - "spans"."start_time") / 100000.0)) as integer)) end) as b, count(*) as span_count, sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as error_count, sum("spans"."llm_token_count_total") as tokens from spans inner join traces on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" in (?, ?) and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) and ("spans"."name" = ?) group by 1, 2, 3;

-- rollups.fromSpans (session)
select 0 as t, (select "project_sessions"."session_id" from project_sessions where "project_sessions"."id" = "traces"."project_session_rowid") as g, 0 as b, count(*) as span_count, sum(case when "spans"."status_code" = 'ERROR' then 1 else 0 end) as error_count, sum("spans"."llm_token_count_total") as tokens from spans inner join traces on "traces"."id" = "spans"."trace_rowid" where "spans"."project_id" in (?, ?) and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) group by 1, 2, 3;

-- rollups.costsFromRollups
select (("minute") / 60) * 60 as t, nullif("value", '') as g, sum(total_cost) as cost from span_rollups where project_id in (?, ?) and dimension = ? and minute >= ? and minute < ? group by 1, 2;

-- rollups.spanCount
select sum(span_count) as n from span_rollups where project_id = ? and dimension = '' and minute >= ? and minute < ?;

-- rollups.totals
select dimension, value, sum(span_count) as span_count, sum(error_count) as error_count, sum(token_count_prompt) as prompt, sum(token_count_completion) as completion, sum(token_count_total) as total, sum(prompt_cost) as prompt_cost, sum(completion_cost) as completion_cost, sum(total_cost) as total_cost from span_rollups where project_id = ? and minute < ? and dimension in ('', 'span_kind', 'model') group by dimension, value;
select sum("h00") as "h00", sum("h01") as "h01", sum("h02") as "h02", sum("h03") as "h03", sum("h04") as "h04", sum("h05") as "h05", sum("h06") as "h06", sum("h07") as "h07", sum("h08") as "h08", sum("h09") as "h09", sum("h10") as "h10", sum("h11") as "h11", sum("h12") as "h12", sum("h13") as "h13", sum("h14") as "h14", sum("h15") as "h15", sum("h16") as "h16", sum("h17") as "h17", sum("h18") as "h18", sum("h19") as "h19", sum("h20") as "h20", sum("h21") as "h21", sum("h22") as "h22", sum("h23") as "h23", sum("h24") as "h24", sum("h25") as "h25", sum("h26") as "h26", sum("h27") as "h27", sum("h28") as "h28", sum("h29") as "h29", sum("h30") as "h30", sum("h31") as "h31", sum("h32") as "h32", sum("h33") as "h33", sum("h34") as "h34", sum("h35") as "h35", sum("h36") as "h36", sum("h37") as "h37", sum("h38") as "h38", sum("h39") as "h39", sum("h40") as "h40", sum("h41") as "h41", sum("h42") as "h42", sum("h43") as "h43", sum("h44") as "h44", sum("h45") as "h45", sum("h46") as "h46", sum("h47") as "h47", sum("h48") as "h48", sum("h49") as "h49", sum("h50") as "h50", sum("h51") as "h51", sum("h52") as "h52", sum("h53") as "h53", sum("h54") as "h54", sum("h55") as "h55", sum("h56") as "h56", sum("h57") as "h57", sum("h58") as "h58", sum("h59") as "h59", sum("h60") as "h60", sum("h61") as "h61", sum("h62") as "h62", sum("h63") as "h63" from span_rollups where project_id = ? and minute < ? and dimension = 'root';

-- rollups.costs
select ((("span_costs"."start_time" / cast(? as bigint))) / 60) * 60 as t, json_extract("spans"."attributes", ?) as g, sum("span_costs"."total_cost") as cost from span_costs inner join spans on "spans"."id" = "span_costs"."span_rowid" inner join traces on "traces"."id" = "spans"."trace_rowid" where "span_costs"."project_id" in (?, ?) and "span_costs"."start_time" >= cast(? as bigint) and "span_costs"."start_time" < cast(? as bigint) and ("spans"."name" = ?) group by 1, 2;

-- rollups.costs (user)
select 0 as t, "traces"."user_id" as g, sum("span_costs"."total_cost") as cost from span_costs inner join spans on "spans"."id" = "span_costs"."span_rowid" inner join traces on "traces"."id" = "spans"."trace_rowid" where "span_costs"."project_id" in (?, ?) and "span_costs"."start_time" >= cast(? as bigint) and "span_costs"."start_time" < cast(? as bigint) and ("spans"."name" = ?) group by 1, 2;

-- rollups.annotations
select ((("spans"."start_time" / cast(? as bigint))) / 60) * 60 as t, "span_annotations"."label" as g, count(*) as n, sum("span_annotations"."score") as score_sum, count("span_annotations"."score") as score_count, sum(case when "span_annotations"."label" = ? then 1 else 0 end) as label_count from spans inner join traces on "traces"."id" = "spans"."trace_rowid" inner join span_annotations on "span_annotations"."span_rowid" = "spans"."id" where "spans"."project_id" in (?, ?) and "spans"."start_time" >= cast(? as bigint) and "spans"."start_time" < cast(? as bigint) and "span_annotations"."name" = ? group by 1, 2;

-- dashboards.insert
insert into "dashboards" ("project_id", "user_id", "name", "widgets", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?) returning "id", "project_id", "name", "widgets", "created_at", "updated_at";

-- dashboards.findById
select "id", "project_id", "name", "widgets", "created_at", "updated_at" from "dashboards" where "id" = ?;

-- dashboards.findByName
select "id", "project_id", "name", "widgets", "created_at", "updated_at" from "dashboards" where "project_id" = ? and "name" = ? order by "id";

-- dashboards.list
select "id", "project_id", "name", "widgets", "created_at", "updated_at" from "dashboards" where "project_id" = ? and "id" <= ? order by "id" desc limit ?;

-- dashboards.list (global)
select "id", "project_id", "name", "widgets", "created_at", "updated_at" from "dashboards" where "project_id" is null order by "id" desc limit ?;

-- dashboards.update
update "dashboards" set "name" = ?, "widgets" = ?, "updated_at" = ? where "id" = ? returning "id", "project_id", "name", "widgets", "created_at", "updated_at";

-- dashboards.delete
delete from "dashboards" where "id" = ?;

-- evaluators.detach
delete from "dataset_evaluators" where "dataset_id" = ? and "evaluator_id" = ?;

-- evaluators.delete
delete from "evaluators" where "id" = ?;

-- annotationQueues.insert
insert into "annotation_queues" ("name", "description", "instructions", "created_by", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?) on conflict ("name") do nothing returning "id";

-- annotationQueues.findById
select * from "annotation_queues" where "id" = ?;

-- annotationQueues.findByName
select * from "annotation_queues" where "name" = ?;

-- annotationQueues.list
select * from "annotation_queues" where "name" >= ? order by "name" limit ?;

-- annotationQueues.update
select "id" from "annotation_queues" where "name" = ? and "id" != ?;
update "annotation_queues" set "name" = ?, "description" = ?, "instructions" = ?, "updated_at" = ? where "id" = ?;

-- annotationQueues.setConfigs
delete from "annotation_queue_configs" where "queue_id" = ?;
insert into "annotation_queue_configs" ("queue_id", "annotation_config_id", "position") values (?, ?, ?);

-- annotationQueues.configIds
select "annotation_config_id" from "annotation_queue_configs" where "queue_id" = ? order by "position";

-- annotationQueues.setReviewers
delete from "annotation_queue_reviewers" where "queue_id" = ?;
insert into "annotation_queue_reviewers" ("queue_id", "user_id") values (?, ?);

-- annotationQueues.reviewers
select "u"."id", "u"."username" from "annotation_queue_reviewers" as "r" inner join "users" as "u" on "u"."id" = "r"."user_id" where "r"."queue_id" = ? and "u"."deleted_at" is null order by "u"."username";

-- annotationQueues.activeUserIds
select "id" from "users" where "id" in (?, ?) and "deleted_at" is null;

-- annotationQueues.usernames
select "id", "username" from "users" where "id" in (?);

-- annotationQueues.targetsByRowid (span)
select "id", "trace_rowid", "project_id" from "spans" where "id" in (?);

-- annotationQueues.targetsByRowid (trace)
select "id", "project_id" from "traces" where "id" in (?);

-- annotationQueues.targetsByRowid (session)
select "id", "project_id" from "project_sessions" where "id" in (?);

-- annotationQueues.spansInProject
select (select min("id") as "id" from "spans") as "low", (select max("id") as "id" from "spans") as "high";
select "id", "span_id" from "spans" where ("id" >> 14) in (?) and "span_id" in (?);
select "id", "trace_rowid", "span_id" from "spans" where "id" in (?) and "project_id" = ? order by "id";

-- annotationQueues.tracesById
select "id", "trace_id", "project_id" from "traces" where "trace_id" in (?) and "project_id" = ?;

-- annotationQueues.sessionsInProject
select "id", "session_id" from "project_sessions" where "project_id" = ? and "session_id" in (?);

-- annotationQueues.experimentExists
select "id" from "experiments" where "id" = ? and "deleted_at" is null;

-- annotationQueues.experimentRunTraces
select "id", "trace_id" from "experiment_runs" where "experiment_id" = ? and "id" > ? order by "id" limit ?;

-- annotationQueues.insertItems
insert into "annotation_queue_items" ("queue_id", "kind", "target_rowid", "trace_rowid", "project_id", "source", "created_at") values (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?) on conflict ("queue_id", "kind", "target_rowid") do nothing returning "id";

-- annotationQueues.counts
select "queue_id", "status", count(*) as "n" from "annotation_queue_items" where "queue_id" in (?) group by "queue_id", "status";

-- annotationQueues.lockedCount
select count(*) as "n" from "annotation_queue_items" where "queue_id" = ? and "status" = ? and "locked_until" > ?;

-- annotationQueues.listItems
select * from "annotation_queue_items" where "queue_id" = ? and "status" = ? and "id" >= ? order by "id" limit ?;

-- annotationQueues.findItem
select * from "annotation_queue_items" where "id" = ? and "queue_id" = ?;

-- annotationQueues.claim
update "annotation_queue_items" set "locked_by" = ?, "locked_until" = ? where "id" = (select "id" from "annotation_queue_items" where "queue_id" = ? and "status" = ? and ("locked_until" is null or "locked_until" <= ?) order by "id" limit ?) and "status" = ? and ("locked_until" is null or "locked_until" <= ?) returning *;

-- annotationQueues.claim (after an item)
update "annotation_queue_items" set "locked_by" = ?, "locked_until" = ? where "id" = (select "id" from "annotation_queue_items" where "queue_id" = ? and "status" = ? and ("locked_until" is null or "locked_until" <= ?) and "id" > ? order by "id" limit ?) and "status" = ? and ("locked_until" is null or "locked_until" <= ?) returning *;

-- annotationQueues.heldItem
select * from "annotation_queue_items" where "queue_id" = ? and "locked_by" = ? and "status" = ? and "locked_until" > ? order by "id" limit ?;

-- annotationQueues.heldItem (auth off)
select * from "annotation_queue_items" where "queue_id" = ? and "locked_by" is null and "status" = ? and "locked_until" > ? order by "id" limit ?;

-- annotationQueues.lock
update "annotation_queue_items" set "locked_by" = ?, "locked_until" = ? where "id" = ? and "status" = ?;

-- annotationQueues.release
update "annotation_queue_items" set "locked_by" = ?, "locked_until" = ? where "id" = ?;

-- annotationQueues.complete
update "annotation_queue_items" set "status" = ?, "completed_by" = ?, "completed_at" = ?, "note" = ?, "locked_by" = ?, "locked_until" = ? where "id" = ? returning *;

-- annotationQueues.completedBy
select * from "annotation_queue_items" where completed_by = ? and "queue_id" = ? and "status" != ? and ("completed_at", "id") <= (?, ?) order by "completed_at" desc, "id" desc limit ?;

-- annotationQueues.targetKeys
select "s"."id", "s"."span_id", "s"."name", "t"."trace_id" from "spans" as "s" inner join "traces" as "t" on "t"."id" = "s"."trace_rowid" where "s"."id" in (?) and "s"."trace_rowid" in (?);
select "id", "trace_id" from "traces" where "id" in (?);
select "id", "session_id" from "project_sessions" where "id" in (?);

-- annotationQueues.annotationsOf
select "span_rowid" as "target", "name", "label", "score", "explanation", "user_id", "updated_at" from "span_annotations" where "span_rowid" in (?) and "identifier" = ? order by "name";

-- annotationQueues.deleteNote
delete from "trace_annotations" where "name" = ? and "trace_rowid" = ? and "identifier" = ?;

-- annotationQueues.deleteItems
delete from "annotation_queue_items" where "queue_id" = ? and "id" in (?, ?);

-- annotationQueues.delete
delete from "annotation_queues" where "id" = ?;

-- experiments.listForDataset
select * from "experiments" where "dataset_id" = ? and "deleted_at" is null and "id" <= ? order by "id" desc limit ?;

-- experiments.counts
select "x"."id", "v"."example_count" from "experiments" as "x" inner join "dataset_versions" as "v" on "v"."id" = "x"."dataset_version_id" where "x"."id" in (?);
select "experiment_id", count(CASE WHEN error IS NULL THEN 1 END) as "ok", count(CASE WHEN error IS NOT NULL THEN 1 END) as "failed" from "experiment_runs" where "experiment_id" in (?) group by "experiment_id";

-- experiments.hasExample
select "example_id" from "experiment_examples" where "experiment_id" = ? and "example_id" = ?;

-- experiments.upsertRun
insert into "experiment_runs" ("experiment_id", "example_id", "repetition_number", "output", "start_time", "end_time", "trace_id", "error", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("experiment_id", "example_id", "repetition_number") do update set "output" = ?, "start_time" = ?, "end_time" = ?, "trace_id" = ?, "error" = ?, "created_at" = ? returning "id";

-- experiments.findRun
select * from "experiment_runs" where "experiment_id" = ? and "example_id" = ? and "repetition_number" = ?;

-- experiments.findRunById
select "experiment_runs".* from "experiment_runs" inner join "experiments" on "experiments"."id" = "experiment_runs"."experiment_id" where "experiment_runs"."id" = ? and ("experiments"."deleted_at" is null and exists (select "datasets"."id" from "datasets" where "datasets"."id" = "experiments"."dataset_id" and "datasets"."deleted_at" is null));

-- experiments.listRuns
select * from "experiment_runs" where "experiment_id" = ? and "id" >= ? order by "id" limit ?;

-- experiments.upsertEvaluation
insert into "experiment_run_annotations" ("run_id", "name", "created_at", "annotator_kind", "label", "score", "explanation", "metadata", "trace_id", "error", "start_time", "end_time", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("run_id", "name") do update set "annotator_kind" = ?, "label" = ?, "score" = ?, "explanation" = ?, "metadata" = ?, "trace_id" = ?, "error" = ?, "start_time" = ?, "end_time" = ?, "updated_at" = ? returning "id";

-- experiments.evaluationsOf
select * from "experiment_run_annotations" where "run_id" in (?) order by "id";

-- experiments.summaries
select "r"."experiment_id", "a"."name", avg("a"."score") as "mean_score", count(*) as "n", count("a"."error") as "errors" from "experiment_run_annotations" as "a" inner join "experiment_runs" as "r" on "r"."id" = "a"."run_id" where "r"."experiment_id" in (?, ?) group by "r"."experiment_id", "a"."name" order by "a"."name";
select "experiment_id", avg(((unixepoch("end_time", 'subsec') - unixepoch("start_time", 'subsec')) * 1000.0)) as "latency" from "experiment_runs" where "experiment_id" in (?, ?) and "error" is null group by "experiment_id";

-- experiments.exampleIds
select "example_id" from "experiment_examples" where "experiment_id" = ? and "example_id" >= ? order by "example_id" limit ?;

-- experiments.comparedExampleIds (regressed)
select "e"."example_id" from "experiment_examples" as "e" where "e"."experiment_id" = ? and exists (select 1 from (select cast(? as bigint) as id union all select cast(? as bigint) as id) o where (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = ? and a.score is not null and r.experiment_id = o.id) < (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = ? and a.score is not null and r.experiment_id = ?)) and "e"."example_id" >= ? order by "e"."example_id" limit ?;

-- experiments.comparedExampleIds (failed)
select "e"."example_id" from "experiment_examples" as "e" where "e"."experiment_id" = ? and (exists (select 1 from experiment_runs r where r.example_id = e.example_id and r.experiment_id in (?, ?) and r.error is not null) or exists (select 1 from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and r.experiment_id in (?, ?) and a.error is not null)) order by "e"."example_id" limit ?;

-- experiments.exampleIdsByDelta (regressed)
select "d"."example_id" from (select "e"."example_id", (select min((select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = ? and a.score is not null and r.experiment_id = o.id) - (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = ? and a.score is not null and r.experiment_id = ?)) from (select cast(? as bigint) as id union all select cast(? as bigint) as id) o) as "delta" from "experiment_examples" as "e" where "e"."experiment_id" = ? and exists (select 1 from (select cast(? as bigint) as id union all select cast(? as bigint) as id) o where (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = ? and a.score is not null and r.experiment_id = o.id) < (select avg(a.score) from experiment_runs r join experiment_run_annotations a on a.run_id = r.id where r.example_id = e.example_id and a.name = ? and a.score is not null and r.experiment_id = ?))) as "d" order by (d.delta is null), "d"."delta", "d"."example_id" limit ? offset ?;

-- experiments.runsOn
select * from "experiment_runs" where "experiment_id" in (?, ?) and "example_id" in (?, ?) order by "example_id", "repetition_number";

-- experiments.examplesWithSuccessfulRuns
select "example_id" from "experiment_examples" where "experiment_id" = ? and "example_id" >= ? order by "example_id" limit ?;
select "example_id", "repetition_number" from "experiment_runs" where "experiment_id" = ? and "example_id" in (?) and "error" is null;

-- experiments.runsMissingEvaluations
select * from "experiment_runs" where "experiment_id" = ? and "error" is null and "id" >= ? order by "id" limit ?;
select "run_id", "name" from "experiment_run_annotations" where "run_id" in (?) and "name" in (?, ?) and "error" is null;
select * from "experiment_runs" where "experiment_id" = ? and "error" is null and "id" >= ? order by "id" limit ?;

-- experiments.markDeleted
update "experiments" set "deleted_at" = ? where "id" = ? and "deleted_at" is null;

-- experiments.deletedExperiments
select "id" from "experiments" where "deleted_at" is not null order by "id" limit ?;

-- experiments.purgeRuns
select "id" from "experiment_runs" where "experiment_id" = ? order by "id" limit ?;
delete from "experiment_run_annotations" where "run_id" in (?);
delete from "experiment_runs" where "id" in (?);

-- experiments.purgeExampleSet
select "example_id" from "experiment_examples" where "experiment_id" = ? order by "example_id" limit ?;
delete from "experiment_examples" where "experiment_id" = ? and "example_id" in (?);

-- experiments.purgeExperiment
delete from "experiments" where "id" = ? and "deleted_at" is not null;

-- datasets.markDeleted
update "datasets" set "deleted_at" = ?, "name" = cast(? as text) || cast("id" as text) where "id" = ? and "deleted_at" is null;

-- datasets.deletedDatasets
select "id" from "datasets" where "deleted_at" is not null order by "id" limit ?;

-- datasets.purgeExamples
select "id" from "dataset_examples" where "dataset_id" = ? order by "id" limit ?;
delete from "experiment_examples" where "example_id" in (?);
delete from "experiment_runs" where "example_id" in (?);
delete from "dataset_splits_dataset_examples" where "dataset_example_id" in (?);
delete from "dataset_example_revisions" where "example_id" in (?);
delete from "dataset_examples" where "id" in (?);

-- datasets.purgeDataset
delete from "datasets" where "id" = ? and "deleted_at" is not null;

-- costs.syncBuiltIns
insert into "generative_models" ("name", "provider", "name_pattern", "input_per_million", "output_per_million", "cache_read_per_million", "cache_write_per_million", "is_built_in", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict ("is_built_in", "name") do update set "name" = ?, "provider" = ?, "name_pattern" = ?, "input_per_million" = ?, "output_per_million" = ?, "cache_read_per_million" = ?, "cache_write_per_million" = ?, "updated_at" = ?;
delete from "generative_models" where "is_built_in" = ? and "name" not in (?);

-- costs.listModels
select * from "generative_models" order by "is_built_in", "name", "id";

-- costs.findModel
select * from "generative_models" where "id" = ?;

-- costs.insertModel
insert into "generative_models" ("name", "provider", "name_pattern", "input_per_million", "output_per_million", "cache_read_per_million", "cache_write_per_million", "is_built_in", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *;

-- costs.updateModel
update "generative_models" set "name" = ?, "provider" = ?, "name_pattern" = ?, "input_per_million" = ?, "output_per_million" = ?, "cache_read_per_million" = ?, "cache_write_per_million" = ?, "updated_at" = ? where "id" = ? and "is_built_in" = ? returning *;

-- costs.writeJobState
insert into "job_state" ("name", "value") values (?, ?) on conflict ("name") do update set "value" = ?;

-- costs.readJobState
select "value" from "job_state" where "name" = ?;

-- costs.maxSpanId
select max("id") as "id" from "spans";

-- costs.spansWithTokens
select "id", "trace_rowid", "project_id", cast("spans"."start_time" as text) as "start_time", "attributes", "llm_token_count_prompt", "llm_token_count_completion", "span_kind", "name", "status_code" from "spans" where "id" > ? and "id" <= ? and ("llm_token_count_prompt" is not null or "llm_token_count_completion" is not null) order by "id";

-- costs.storeSpanCosts
begin;
insert into "span_costs" ("span_rowid", "trace_rowid", "project_id", "model_id", "start_time", "prompt_cost", "completion_cost", "total_cost") values (?, ?, ?, ?, ?, ?, ?, ?) on conflict ("span_rowid") do nothing returning "span_rowid";
INSERT INTO span_rollups ("project_id", "dimension", "minute", "value", "span_count", "error_count", "latency_sum", "token_count_prompt", "token_count_completion", "token_count_total", "h00", "h01", "h02", "h03", "h04", "h05", "h06", "h07", "h08", "h09", "h10", "h11", "h12", "h13", "h14", "h15", "h16", "h17", "h18", "h19", "h20", "h21", "h22", "h23", "h24", "h25", "h26", "h27", "h28", "h29", "h30", "h31", "h32", "h33", "h34", "h35", "h36", "h37", "h38", "h39", "h40", "h41", "h42", "h43", "h44", "h45", "h46", "h47", "h48", "h49", "h50", "h51", "h52", "h53", "h54", "h55", "h56", "h57", "h58", "h59", "h60", "h61", "h62", "h63", "prompt_cost", "completion_cost", "total_cost") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, dimension, minute, value) DO UPDATE SET prompt_cost = span_rollups.prompt_cost + excluded.prompt_cost, completion_cost = span_rollups.completion_cost + excluded.completion_cost, total_cost = span_rollups.total_cost + excluded.total_cost;
insert into "job_state" ("name", "value") values (?, ?) on conflict ("name") do update set "value" = ?;
commit;

-- costs.traceTotals
select "trace_rowid", sum("prompt_cost") as "prompt", sum("completion_cost") as "completion", sum("total_cost") as "total" from "span_costs" where "trace_rowid" in (?) group by "trace_rowid";

-- costs.spanCosts
select "span_rowid", "prompt_cost" as "prompt", "completion_cost" as "completion", "total_cost" as "total" from "span_costs" where "span_rowid" in (?);

-- costs.spanCostsOfTrace
select "span_rowid", "prompt_cost" as "prompt", "completion_cost" as "completion", "total_cost" as "total" from "span_costs" where "trace_rowid" = ? limit ?;

-- costs.sessionTotals
select "traces"."project_session_rowid", sum("prompt_cost") as "prompt", sum("completion_cost") as "completion", sum("total_cost") as "total" from "span_costs" inner join "traces" on "traces"."id" = "span_costs"."trace_rowid" where "traces"."project_session_rowid" in (?) group by "traces"."project_session_rowid";

-- costs.projectTotals
select sum("prompt_cost") as "prompt", sum("completion_cost") as "completion", sum("total_cost") as "total" from "span_costs" where "project_id" = ? and "start_time" >= cast(? as bigint) and "start_time" < cast(? as bigint);

-- costs.deleteModel
delete from "generative_models" where "id" = ? and "is_built_in" = ?;

-- secrets.upsert
insert into "secrets" ("key", "ciphertext", "nonce", "updated_at") values (?, ?, ?, ?) on conflict ("key") do update set "ciphertext" = ?, "nonce" = ?, "updated_at" = ?;

-- secrets.find
select * from "secrets" where "key" = ?;

-- secrets.listKeys
select "key", "updated_at" from "secrets" order by "key";

-- secrets.delete
delete from "secrets" where "key" = ?;

-- retention.upsertPolicy
insert into "retention_policies" ("project_id", "max_days", "max_traces", "created_at", "updated_at") values (?, ?, ?, ?, ?) on conflict ("project_id") do update set "max_days" = ?, "max_traces" = ?, "updated_at" = ? returning *;

-- retention.findPolicy
select * from "retention_policies" where "project_id" = ?;

-- retention.listActivePolicies
select * from "retention_policies" where ("max_days" is not null or "max_traces" is not null) order by "project_id";

-- retention.nthNewestTrace
select "id", cast("start_time" as text) as "start_time" from "traces" where "project_id" = ? order by "start_time" desc, "id" desc limit ? offset ?;

-- retention.oldestTracesBefore
select "id" from "traces" where "project_id" = ? and ("start_time" < cast(? as bigint) or ("start_time" = cast(? as bigint) and "id" < ?)) order by "start_time", "id" limit ?;

-- retention.deleteTraces
delete from "spans" where "trace_rowid" in (?, ?);
delete from "traces" where "id" in (?, ?) returning "project_session_rowid";
delete from "span_costs" where "trace_rowid" in (?, ?);

-- retention.deleteSessionsWithoutTraces
delete from "project_sessions" where "id" in (?, ?) and not exists (select "traces"."id" from "traces" where "traces"."project_session_rowid" = "project_sessions"."id");

-- retention.recordRun
update "retention_policies" set "last_run_at" = ?, "last_deleted_traces" = ?, "last_deleted_spans" = ?, "total_deleted_traces" = "total_deleted_traces" + ?, "total_deleted_spans" = "total_deleted_spans" + ? where "project_id" = ?;

-- retention.deleteRollupsBefore
delete from "span_rollups" where "project_id" = ? and "minute" < ?;

-- retention.writeLastRun
insert into "job_state" ("name", "value") values (?, ?) on conflict ("name") do update set "value" = ?;

-- retention.readLastRun
select "value" from "job_state" where "name" = ?;

-- spans.list (a long-value filter, finished on the merged attributes)
select "id", cast("start_time" as text) as "start_time", cast("end_time" as text) as "end_time" from "traces" where "project_id" = ? and "user_id" in (?, ?) limit ?;

-- longAttributes.progress
select "value" from "job_state" where "name" = ?;
select "value" from "job_state" where "name" = ?;

-- longAttributes.unconverted
select "id", "attributes" from "spans" where "id" > ? and "id" <= ? and "long_attributes" is null order by "id" limit ?;

-- longAttributes.store
update "spans" set "attributes" = ?, "long_attributes" = ? where "id" = ? and "long_attributes" is null;
update "job_state" set "value" = ? where "name" = ?;

-- spanLogEvents.insert
insert into "span_log_events" ("trace_id", "span_id", "name", "time", "attributes", "received_at") values (?, ?, ?, ?, ?, ?);

-- spanLogEvents.attachable
select "e"."id", "e"."name", "e"."time", "e"."attributes", "s"."id" as "span_rowid", "s"."start_time" as "span_start_time", "s"."span_kind", "s"."attributes" as "span_attributes", "s"."long_attributes" as "span_long_attributes", "s"."events" as "span_events" from "span_log_events" as "e" inner join "traces" as "t" on "t"."trace_id" = "e"."trace_id" inner join "spans" as "s" on "s"."trace_rowid" = "t"."id" and "s"."span_id" = "e"."span_id" order by "e"."id" limit ?;

-- spanLogEvents.attach
update "spans" set "attributes" = ?, "long_attributes" = ?, "events" = ?, "span_kind" = ? where "id" = ? and "start_time" = ?;
delete from "span_log_events" where "id" in (?);
delete from "span_log_events" where "id" in (select "id" from "span_log_events" where "received_at" < ? order by "id" limit ?);

-- retention.incrementalVacuumEnabled
PRAGMA auto_vacuum;

-- retention.freePages
PRAGMA freelist_count;

-- retention.incrementalVacuum
PRAGMA incremental_vacuum(10);

-- apiKeys.delete
delete from "api_keys" where "id" = ?;

-- apiKeys.deleteForUser
delete from "api_keys" where "user_id" = ?;

-- users.markDeleted
update "users" set "deleted_at" = ?, "updated_at" = ?, "password_hash" = ?, "password_salt" = ? where "id" = ? and "deleted_at" is null;

-- annotations.deleteMatching (span, every filter)
delete from "span_annotations" where "id" in (select "a"."id" from "span_annotations" as "a" inner join "spans" as "t" on "t"."id" = "a"."span_rowid" where "t"."project_id" = ? and "a"."name" = ? and "a"."identifier" = ? and "a"."annotator_kind" = ? and "a"."created_at" >= ? and "a"."created_at" < ? and "a"."user_id" = ? order by "a"."id" limit ?);

-- annotations.deleteMatching (trace)
delete from "trace_annotations" where "id" in (select "a"."id" from "trace_annotations" as "a" inner join "traces" as "t" on "t"."id" = "a"."trace_rowid" where "t"."project_id" = ? and "a"."name" = ? order by "a"."id" limit ?);

-- annotations.deleteMatching (session)
delete from "session_annotations" where "id" in (select "a"."id" from "session_annotations" as "a" inner join "project_sessions" as "t" on "t"."id" = "a"."project_session_rowid" where "t"."project_id" = ? order by "a"."id" limit ?);

-- traces.placesByIds
select "id", "project_id", "project_session_rowid", cast("traces"."start_time" as text) as "start_time", cast("traces"."end_time" as text) as "end_time" from "traces" where "id" in (?, ?);

-- traces.moveToProject
update "traces" set "project_id" = ? where "id" in (?, ?);
update "spans" set "project_id" = ? where "trace_rowid" in (?, ?);
update "span_costs" set "project_id" = ? where "trace_rowid" in (?, ?);

-- sessions.upsertWindow
insert into "project_sessions" ("project_id", "session_id", "start_time", "end_time") values (?, ?, ?, ?) on conflict ("project_id", "session_id") do update set "start_time" = min(project_sessions.start_time, excluded.start_time), "end_time" = max(project_sessions.end_time, excluded.end_time) returning "id";

-- sessions.linkTraces
update "traces" set "project_session_rowid" = ? where "id" in (?, ?);

-- sessions.deleteEmpty
delete from "project_sessions" where "id" in (?, ?) and not exists (select "traces"."id" from "traces" where "traces"."project_session_rowid" = "project_sessions"."id");

-- spans.deleteById
begin;
delete from "spans" where "id" = ? returning "trace_rowid";
commit;

-- traces.deleteById
begin;
delete from "traces" where "id" = ?;
delete from "spans" where "trace_rowid" = ?;
delete from "span_costs" where "trace_rowid" = ?;
commit;

-- sessions.deleteByIds
begin;
delete from "spans" where "trace_rowid" in (select "traces"."id" from "traces" where "traces"."project_session_rowid" in (?, ?));
delete from "span_costs" where "trace_rowid" in (select "traces"."id" from "traces" where "traces"."project_session_rowid" in (?, ?));
delete from "project_sessions" where "id" in (?, ?);
commit;

-- projects.markDeleted
update "projects" set "deleted_at" = ?, "name" = ?, "updated_at" = ? where "id" = ? and "deleted_at" is null;

-- retention.deletedProjects
select "id" from "projects" where "deleted_at" is not null order by "deleted_at", "id";

-- retention.purgeProject
delete from "projects" where "id" = ? and "deleted_at" is not null and not exists (select "traces"."id" from "traces" where "traces"."project_id" = ?);
