/**
 * Which columns a table shows, chosen from a menu and remembered in this browser (localStorage,
 * per table), as Langfuse and Phoenix do. Columns without a title (selection, status icon) are
 * always shown.
 */
import { useCallback, useState } from 'react';
import { Button, Checkbox, Menu, Stack } from '@mantine/core';
import { IconColumns } from '@tabler/icons-react';
import type { Column } from './VirtualTable';

const storageKey = (table: string) => `sightline.hidden-columns.${table}`;

function readHidden(table: string): string[] {
  try {
    const stored: unknown = JSON.parse(window.localStorage.getItem(storageKey(table)) ?? '[]');
    return Array.isArray(stored) ? stored.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    // Storage can be unavailable (private windows) or hold something else: every column then shows.
    return [];
  }
}

export interface ChosenColumns<T> {
  visible: Column<T>[];
  hidden: ReadonlySet<string>;
  toggle: (key: string, shown: boolean) => void;
}

export function useChosenColumns<T>(table: string, columns: Column<T>[]): ChosenColumns<T> {
  const [hidden, setHidden] = useState<ReadonlySet<string>>(() => new Set(readHidden(table)));
  const toggle = useCallback(
    (key: string, shown: boolean) =>
      setHidden((current) => {
        const next = new Set(current);
        if (shown) next.delete(key);
        else next.add(key);
        try {
          window.localStorage.setItem(storageKey(table), JSON.stringify([...next]));
        } catch {
          // Not remembered, still applied.
        }
        return next;
      }),
    [table],
  );
  return { visible: columns.filter((column) => !hidden.has(column.key)), hidden, toggle };
}

export function ColumnChooser<T>({ table, columns, chosen }: { table: string; columns: Column<T>[]; chosen: ChosenColumns<T> }) {
  const choosable = columns.filter((column) => typeof column.title === 'string' && column.title !== '');
  return (
    <Menu closeOnItemClick={false} position="bottom-end" withinPortal>
      <Menu.Target>
        <Button size="xs" variant="default" leftSection={<IconColumns size={14} />} aria-label={`Choose the ${table} table's columns`}>
          Columns
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Stack gap={6} p={6}>
          {choosable.map((column) => (
            <Checkbox
              key={column.key}
              size="xs"
              label={column.title as string}
              checked={!chosen.hidden.has(column.key)}
              onChange={(event) => chosen.toggle(column.key, event.currentTarget.checked)}
            />
          ))}
        </Stack>
      </Menu.Dropdown>
    </Menu>
  );
}
