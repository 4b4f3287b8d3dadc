/**
 * A Parquet footer kept as bytes while the row groups are written (docs/export.md, "Memory").
 *
 * hyparquet-writer's ParquetWriter keeps each row group's metadata as objects until `finish()`,
 * then builds a second copy of all of it to serialize: about 15 KB of heap a group, 22 MB at 10
 * million spans and twice that at the end, against 1.3 KB a group serialized. Here each group's
 * metadata is serialized by the library's own `writeMetadata` as soon as the group is written,
 * and the footer is put together from those bytes at the end.
 *
 * In Thrift's compact protocol (which Parquet's footer uses) a struct in a list is encoded on its
 * own, so the footer is the FileMetaData without row groups with the list of row groups spliced
 * in: the bytes before the list (version, schema, row count), the list's header, each group's
 * bytes, and the bytes after it (key-value metadata, creator, column orders).
 */
import { ByteWriter, type Writer } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';

type FileMetaData = Parameters<typeof writeMetadata>[1];
type SchemaElement = FileMetaData['schema'][number];
export type RowGroup = FileMetaData['row_groups'][number];

/** The compact protocol's element type of a struct, in a list header's low four bits. */
const STRUCT_ELEMENTS = 12;

export class ParquetFooter {
  private readonly groups: Uint8Array[] = [];
  /** Where the first group starts in a FileMetaData of one group; set by the first group. */
  private listStart = 0;
  /** Bytes of a FileMetaData (before its length) that follow the list of row groups; set by the first group. */
  private suffixLength = -1;

  constructor(
    private readonly schema: SchemaElement[],
    private readonly createdBy: string,
    private readonly keyValueMetadata: FileMetaData['key_value_metadata'],
  ) {}

  /** Serializes a written row group's metadata, which the caller may then drop. */
  add(group: RowGroup): void {
    const withGroup = this.metadata(0n, [group]);
    if (this.suffixLength < 0) {
      // The two encodings agree up to the list's header, which holds the list's length.
      const without = this.metadata(0n, []);
      let listHeader = 0;
      while (without[listHeader] === withGroup[listHeader]) listHeader++;
      this.suffixLength = without.length - listHeader - 1;
      this.listStart = listHeader + 1;
    }
    this.groups.push(withGroup.slice(this.listStart, withGroup.length - this.suffixLength));
  }

  /** Writes the FileMetaData of `numRows` rows in the groups added, then its length, as writeMetadata does. */
  write(writer: Writer, numRows: bigint): void {
    if (this.groups.length === 0) {
      writeMetadata(writer, this.fileMetaData(numRows, []));
      return;
    }
    const empty = this.metadata(numRows, []);
    const listHeader = empty.length - this.suffixLength - 1;
    const start = writer.offset;
    writer.appendBytes(empty.subarray(0, listHeader));
    if (this.groups.length < 15) writer.appendUint8((this.groups.length << 4) | STRUCT_ELEMENTS);
    else {
      writer.appendUint8((15 << 4) | STRUCT_ELEMENTS);
      writer.appendVarInt(this.groups.length);
    }
    for (const group of this.groups) writer.appendBytes(group);
    writer.appendBytes(empty.subarray(listHeader + 1));
    writer.appendUint32(writer.offset - start);
  }

  /** The FileMetaData's bytes, without the length writeMetadata appends. */
  private metadata(numRows: bigint, rowGroups: RowGroup[]): Uint8Array {
    const writer = new ByteWriter();
    writeMetadata(writer, this.fileMetaData(numRows, rowGroups));
    return new Uint8Array(writer.getBuffer(), 0, writer.offset - 4);
  }

  private fileMetaData(numRows: bigint, rowGroups: RowGroup[]): FileMetaData {
    return {
      version: 2,
      created_by: this.createdBy,
      schema: this.schema,
      num_rows: numRows,
      row_groups: rowGroups,
      key_value_metadata: this.keyValueMetadata,
      metadata_length: 0,
    };
  }
}
