/**
 * What a path parameter named: the text as given, and the row id when the route found an opaque
 * id (a GlobalID) of the expected type in it. Routes decode GlobalIDs (api/global-id.ts);
 * services look rows up by `rowId`, else by the natural key in `text` (a name, a hex OTel id).
 */
export interface Identifier {
  text: string;
  rowId: number | null;
}
