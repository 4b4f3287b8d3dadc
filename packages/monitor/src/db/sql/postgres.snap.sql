-- spaces.insertSpace
insert into "monitor_spaces" ("name", "space_key_hash", "created_at") values ($1, $2, $3) returning "id";

-- spaces.insertApiKey
insert into "monitor_api_keys" ("space_id", "key_hash", "created_at") values ($1, $2, $3);

-- spaces.findById
select "id", "name" from "monitor_spaces" where "id" = $1;

-- spaces.listByName
select "id", "name" from "monitor_spaces" where "name" = $1 limit $2;

-- spaces.listWithKeyCounts
select "s"."id", "s"."name", "s"."created_at", count("k"."id") as "keys" from "monitor_spaces" as "s" left join "monitor_api_keys" as "k" on "k"."space_id" = "s"."id" and "k"."revoked_at" is null group by "s"."id", "s"."name", "s"."created_at" order by "s"."id";

-- spaces.findActiveApiKey
select "k"."space_id", "s"."space_key_hash" from "monitor_api_keys" as "k" inner join "monitor_spaces" as "s" on "s"."id" = "k"."space_id" where "k"."key_hash" = $1 and "k"."revoked_at" is null;

-- spaces.setSpaceKeyHash
update "monitor_spaces" set "space_key_hash" = $1 where "id" = $2;

-- spaces.revokeApiKeys
update "monitor_api_keys" set "revoked_at" = $1 where "space_id" = $2 and "revoked_at" is null;

-- recordWrites.upsert (raw, record-writes-postgres.ts)
INSERT INTO monitor_records (space_id, model_id, prediction_id, environment, record_time, created_at, model_version, prediction_time, prediction_time_defaulted, prediction_label_kind, prediction_numeric, prediction_category, prediction_score, features, embeddings, prediction_tags, actual_time, actual_label_kind, actual_numeric, actual_category, actual_score, actual_tags) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::bigint[], $9::integer[], $10::text[], $11::float8[], $12::text[], $13::float8[], $14::text[], $15::text[], $16::text[], $17::bigint[], $18::text[], $19::float8[], $20::text[], $21::float8[], $22::text[]) ON CONFLICT (space_id, model_id, prediction_id) DO UPDATE SET environment = excluded.environment, record_time = CASE WHEN excluded.prediction_time IS NULL OR (excluded.prediction_time_defaulted = 1 AND monitor_records.prediction_time IS NOT NULL) THEN monitor_records.record_time ELSE excluded.prediction_time END, prediction_time = CASE WHEN excluded.prediction_time IS NULL OR (excluded.prediction_time_defaulted = 1 AND monitor_records.prediction_time IS NOT NULL) THEN monitor_records.prediction_time ELSE excluded.prediction_time END, prediction_time_defaulted = CASE WHEN excluded.prediction_time IS NULL OR (excluded.prediction_time_defaulted = 1 AND monitor_records.prediction_time IS NOT NULL) THEN monitor_records.prediction_time_defaulted ELSE excluded.prediction_time_defaulted END, model_version = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.model_version ELSE excluded.model_version END, prediction_label_kind = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.prediction_label_kind ELSE excluded.prediction_label_kind END, prediction_numeric = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.prediction_numeric ELSE excluded.prediction_numeric END, prediction_category = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.prediction_category ELSE excluded.prediction_category END, prediction_score = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.prediction_score ELSE excluded.prediction_score END, features = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.features ELSE excluded.features END, embeddings = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.embeddings ELSE excluded.embeddings END, prediction_tags = CASE WHEN excluded.prediction_time IS NULL THEN monitor_records.prediction_tags ELSE excluded.prediction_tags END, actual_time = COALESCE(monitor_records.actual_time, excluded.actual_time), actual_label_kind = CASE WHEN excluded.actual_time IS NULL THEN monitor_records.actual_label_kind ELSE excluded.actual_label_kind END, actual_numeric = CASE WHEN excluded.actual_time IS NULL THEN monitor_records.actual_numeric ELSE excluded.actual_numeric END, actual_category = CASE WHEN excluded.actual_time IS NULL THEN monitor_records.actual_category ELSE excluded.actual_category END, actual_score = CASE WHEN excluded.actual_time IS NULL THEN monitor_records.actual_score ELSE excluded.actual_score END, actual_tags = CASE WHEN excluded.actual_time IS NULL THEN monitor_records.actual_tags ELSE excluded.actual_tags END;

-- records.modelCounts
select "model_id", count(*) as "records", count("prediction_time") as "predictions", count("actual_time") as "actuals", min("record_time") as "first", max("record_time") as "last" from "monitor_records" where "space_id" = $1 group by "model_id" order by "model_id";

-- records.modelVersions
select distinct "model_id", "model_version" from "monitor_records" where "space_id" = $1 and "model_version" is not null;

-- records.page
select "id", "model_id", "prediction_id", "environment", "record_time", "model_version", "prediction_time", "prediction_label_kind", "prediction_numeric", "prediction_category", "prediction_score", "features", "embeddings", "prediction_tags", "actual_time", "actual_label_kind", "actual_numeric", "actual_category", "actual_score", "actual_tags" from "monitor_records" where "space_id" = $1 and "model_id" = $2 and "record_time" >= $3 and "record_time" < $4 and "model_version" = $5 and "actual_time" is not null and ("record_time" < $6 or ("record_time" = $7 and "id" < $8)) order by "record_time" desc, "id" desc limit $9;

-- records.page (whole model, without actual)
select "id", "model_id", "prediction_id", "environment", "record_time", "model_version", "prediction_time", "prediction_label_kind", "prediction_numeric", "prediction_category", "prediction_score", "features", "embeddings", "prediction_tags", "actual_time", "actual_label_kind", "actual_numeric", "actual_category", "actual_score", "actual_tags" from "monitor_records" where "space_id" = $1 and "model_id" = $2 and "actual_time" is null order by "record_time" desc, "id" desc limit $3;

-- records.find
select "model_id", "prediction_id", "environment", "record_time", "model_version", "prediction_time", "prediction_label_kind", "prediction_numeric", "prediction_category", "prediction_score", "features", "embeddings", "prediction_tags", "actual_time", "actual_label_kind", "actual_numeric", "actual_category", "actual_score", "actual_tags" from "monitor_records" where "space_id" = $1 and "model_id" = $2 and "prediction_id" = $3;

-- records.counts
select count(*) as "records", count("prediction_time") as "predictions", count("actual_time") as "actuals", sum(CASE WHEN prediction_time IS NOT NULL AND actual_time IS NOT NULL THEN 1 ELSE 0 END) as "joined" from "monitor_records" where "space_id" = $1 and "model_id" = $2 and "record_time" >= $3 and "record_time" < $4 and "model_version" = $5;

-- records.categoryPairs
select "prediction_category", "actual_category", count(*) as "n" from "monitor_records" where "space_id" = $1 and "model_id" = $2 and "record_time" >= $3 and "record_time" < $4 and "model_version" = $5 and "prediction_label_kind" = $6 and "actual_label_kind" = $7 and "prediction_time" is not null group by "prediction_category", "actual_category";

-- records.numericErrorSums
select count(*) as "n", sum(abs(prediction_numeric - actual_numeric)) as "abs_sum", sum((prediction_numeric - actual_numeric) * (prediction_numeric - actual_numeric)) as "square_sum", sum(CASE WHEN actual_numeric <> 0 THEN abs(prediction_numeric - actual_numeric) / abs(actual_numeric) ELSE 0 END) as "ape_sum", sum(CASE WHEN actual_numeric <> 0 THEN 1 ELSE 0 END) as "ape_n" from "monitor_records" where "space_id" = $1 and "model_id" = $2 and "record_time" >= $3 and "record_time" < $4 and "model_version" = $5 and "prediction_label_kind" = $6 and "actual_label_kind" = $7 and "prediction_time" is not null;

-- records.features
select "features" from "monitor_records" where "space_id" = $1 and "model_id" = $2 and "prediction_time" is not null order by "record_time" desc, "id" desc limit $3;
