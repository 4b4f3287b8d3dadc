/**
 * The "Export" menu of a project's Spans and Traces tabs (docs/export.md): every span or trace the
 * tab's filters and time range select, as CSV, JSONL or Parquet. Each item is a link the browser
 * follows to the export route (the session cookie goes with it), so the file streams to disk
 * without passing through the page.
 */
import { Button, Menu, Text } from '@mantine/core';
import { IconChevronDown, IconDownload } from '@tabler/icons-react';

export type ExportFormat = 'csv' | 'jsonl' | 'parquet';

const FORMATS: { format: ExportFormat; label: string; hint: string }[] = [
  { format: 'csv', label: 'CSV', hint: 'Spreadsheets' },
  { format: 'jsonl', label: 'JSONL', hint: 'A JSON object per line' },
  { format: 'parquet', label: 'Parquet', hint: 'pandas, DuckDB, Spark' },
];

/** `href(format)` is called when the menu opens, so that a relative time range ends now. */
export function ExportMenu({ what, href }: { what: 'spans' | 'traces'; href: (format: ExportFormat) => string }) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button
          variant="default"
          size="xs"
          leftSection={<IconDownload size={14} />}
          rightSection={<IconChevronDown size={14} />}
          style={{ flexShrink: 0 }}
        >
          Export
        </Button>
      </Menu.Target>
      <Menu.Dropdown aria-label={`Export ${what}`}>
        <Menu.Label>Every {what === 'spans' ? 'span' : 'trace'} of these filters</Menu.Label>
        {FORMATS.map(({ format, label, hint }) => (
          <Menu.Item
            key={format}
            component="a"
            href={href(format)}
            download
            rightSection={
              <Text size="xs" c="dimmed">
                {hint}
              </Text>
            }
          >
            {label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
