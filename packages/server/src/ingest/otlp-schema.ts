/**
 * The subset of the OpenTelemetry protocol (OTLP) trace and log messages that Sightline reads,
 * written from the protocol's published field names and numbers (opentelemetry-proto v1).
 * Parsed at start-up by protobufjs, which generates fast decoders from it.
 */
import protobuf from 'protobufjs';

const OTLP_TRACE_PROTO = `
syntax = "proto3";
package opentelemetry.proto;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource {
  repeated KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}

message ResourceSpans {
  Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}
message ScopeSpans {
  InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;

  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
}
message Status {
  reserved 1;
  string message = 2;
  int32 code = 3;
}

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess {
  int64 rejected_spans = 1;
  string error_message = 2;
}

message ResourceLogs {
  Resource resource = 1;
  repeated ScopeLogs scope_logs = 2;
  string schema_url = 3;
}
message ScopeLogs {
  InstrumentationScope scope = 1;
  repeated LogRecord log_records = 2;
  string schema_url = 3;
}
message LogRecord {
  reserved 4;
  fixed64 time_unix_nano = 1;
  fixed64 observed_time_unix_nano = 11;
  int32 severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  string event_name = 12;
}
message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }
message ExportLogsPartialSuccess {
  int64 rejected_log_records = 1;
  string error_message = 2;
}
`;

const root = protobuf.parse(OTLP_TRACE_PROTO, { keepCase: false }).root;

/** protobufjs type of the OTLP/HTTP and gRPC trace export request. */
export const ExportTraceServiceRequest = root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');
/** protobufjs type of the export response (empty on full success). */
export const ExportTraceServiceResponse = root.lookupType('opentelemetry.proto.ExportTraceServiceResponse');

/** protobufjs types of the OTLP/HTTP and gRPC log export request and response. */
export const ExportLogsServiceRequest = root.lookupType('opentelemetry.proto.ExportLogsServiceRequest');
export const ExportLogsServiceResponse = root.lookupType('opentelemetry.proto.ExportLogsServiceResponse');

/** Decoded shapes, as protobufjs produces them (camelCase, 64-bit values as Long). */
export interface PbLong {
  low: number;
  high: number;
  unsigned?: boolean;
}
export interface PbAnyValue {
  value?: 'stringValue' | 'boolValue' | 'intValue' | 'doubleValue' | 'arrayValue' | 'kvlistValue' | 'bytesValue';
  stringValue?: string;
  boolValue?: boolean;
  intValue?: PbLong | number;
  doubleValue?: number;
  arrayValue?: { values: PbAnyValue[] };
  kvlistValue?: { values: PbKeyValue[] };
  bytesValue?: Uint8Array;
}
export interface PbKeyValue {
  key: string;
  value?: PbAnyValue | null;
}
export interface PbEvent {
  timeUnixNano: PbLong | number;
  name: string;
  attributes: PbKeyValue[];
}
export interface PbSpan {
  traceId: Uint8Array;
  spanId: Uint8Array;
  parentSpanId: Uint8Array;
  name: string;
  kind: number;
  startTimeUnixNano: PbLong | number;
  endTimeUnixNano: PbLong | number;
  attributes: PbKeyValue[];
  events: PbEvent[];
  status?: { message: string; code: number } | null;
}
export interface PbResourceSpans {
  resource?: { attributes: PbKeyValue[] } | null;
  scopeSpans: { spans: PbSpan[] }[];
}
export interface PbExportRequest {
  resourceSpans: PbResourceSpans[];
}
export interface PbLogRecord {
  timeUnixNano: PbLong | number;
  observedTimeUnixNano: PbLong | number;
  severityNumber: number;
  severityText: string;
  body?: PbAnyValue | null;
  attributes: PbKeyValue[];
  traceId: Uint8Array;
  spanId: Uint8Array;
  eventName: string;
}
export interface PbExportLogsRequest {
  resourceLogs: { resource?: { attributes: PbKeyValue[] } | null; scopeLogs: { logRecords: PbLogRecord[] }[] }[];
}
