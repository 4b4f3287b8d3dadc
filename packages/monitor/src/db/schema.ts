/** Table types of the monitor database (same names and columns on SQLite and PostgreSQL). */
import type { Generated } from 'kysely';

/** Times are whole microseconds since the Unix epoch (exact in a JS number until year 2255). */
export type Micros = number;

export interface SpacesTable {
  id: Generated<number>;
  name: string;
  /** SHA-256 (hex) of the space key; the key itself is shown once and never stored. */
  space_key_hash: string;
  created_at: Micros;
}

export interface ApiKeysTable {
  id: Generated<number>;
  space_id: number;
  /** SHA-256 (hex) of the API key. */
  key_hash: string;
  created_at: Micros;
  revoked_at: Micros | null;
}

export interface RecordsTable {
  id: Generated<number>;
  space_id: number;
  model_id: string;
  prediction_id: string;
  environment: string;
  /** Prediction time when the row has a prediction, else the time the actual arrived. */
  record_time: Micros;
  created_at: Micros;
  model_version: string | null;
  /** Null until the prediction arrives. */
  prediction_time: Micros | null;
  /** 1 when prediction_time is the receipt time (the record carried no timestamp). */
  prediction_time_defaulted: number | null;
  prediction_label_kind: string | null;
  prediction_numeric: number | null;
  prediction_category: string | null;
  prediction_score: number | null;
  /** JSON map of scalar features (double, string, int) as typed values. */
  features: string | null;
  /** JSON map of embedding features. */
  embeddings: string | null;
  prediction_tags: string | null;
  /** Null until the actual arrives; the time the first actual arrived. */
  actual_time: Micros | null;
  actual_label_kind: string | null;
  actual_numeric: number | null;
  actual_category: string | null;
  actual_score: number | null;
  actual_tags: string | null;
}

export interface MonitorDB {
  monitor_spaces: SpacesTable;
  monitor_api_keys: ApiKeysTable;
  monitor_records: RecordsTable;
}
