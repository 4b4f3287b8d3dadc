/**
 * A virtualised, keyboard-friendly table: only the visible rows are in the DOM, so a project's
 * thousands of spans scroll smoothly. ↑/↓ (or j/k) move, Enter opens, Home/End jump; clicking a
 * sortable header sorts; reaching the end loads the next page.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Center, Loader, Paper, Text, UnstyledButton } from '@mantine/core';
import { IconArrowDown, IconArrowUp, IconArrowsSort } from '@tabler/icons-react';

export interface Column<T> {
  key: string;
  title: ReactNode;
  /** CSS grid track: `120px`, `minmax(240px, 2fr)`, … */
  width: string;
  render: (row: T) => ReactNode;
  sortable?: boolean;
  align?: 'left' | 'right';
}

export interface SortState {
  key: string;
  direction: 'asc' | 'desc';
}

export interface VirtualTableProps<T> {
  label: string;
  rows: T[];
  columns: Column<T>[];
  rowKey: (row: T) => string;
  onOpen?: (row: T) => void;
  sort?: SortState | null;
  onSortChange?: (sort: SortState) => void;
  hasMore?: boolean;
  loadingMore?: boolean;
  onLoadMore?: () => void;
  loading?: boolean;
  /** Rows of the previous query are shown while the new one loads (filters changed). */
  stale?: boolean;
  empty?: ReactNode;
  height?: string;
  rowHeight?: number;
}

const HEADER_HEIGHT = 36;

export function VirtualTable<T>({
  label,
  rows,
  columns,
  rowKey,
  onOpen,
  sort,
  onSortChange,
  hasMore,
  loadingMore,
  onLoadMore,
  loading,
  stale,
  empty,
  height = 'calc(100vh - 260px)',
  rowHeight = 42,
}: VirtualTableProps<T>) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(-1);
  const template = columns.map((column) => column.width).join(' ');
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    // The sticky header sits above the first row inside the scrolling element.
    scrollMargin: HEADER_HEIGHT,
    scrollPaddingStart: HEADER_HEIGHT,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;

  useEffect(() => {
    if (hasMore && !loadingMore && onLoadMore && lastIndex >= rows.length - 8) onLoadMore();
  }, [hasMore, loadingMore, onLoadMore, lastIndex, rows.length]);

  useEffect(() => {
    if (active >= rows.length) setActive(rows.length - 1);
  }, [active, rows.length]);

  const move = (index: number) => {
    if (rows.length === 0) return;
    const next = Math.max(0, Math.min(rows.length - 1, index));
    setActive(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.target !== event.currentTarget) return; // keys typed into a link or button inside a row
    const page = Math.max(1, Math.floor((scrollRef.current?.clientHeight ?? 400) / rowHeight) - 1);
    switch (event.key) {
      case 'ArrowDown':
      case 'j':
        move(active + 1);
        break;
      case 'ArrowUp':
      case 'k':
        move(active - 1);
        break;
      case 'PageDown':
        move(active + page);
        break;
      case 'PageUp':
        move(active - page);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(rows.length - 1);
        break;
      case 'Enter':
      case 'o': {
        const row = rows[active];
        if (row && onOpen) onOpen(row);
        break;
      }
      default:
        return;
    }
    event.preventDefault();
  };

  const headerCell = (column: Column<T>) => {
    const sorted = sort?.key === column.key ? sort.direction : null;
    const content = (
      <span style={{ display: 'inline-flex', alignItems: 'center', gap: 4 }}>
        {column.title}
        {column.sortable ? (
          sorted === 'asc' ? (
            <IconArrowUp size={12} />
          ) : sorted === 'desc' ? (
            <IconArrowDown size={12} />
          ) : (
            <IconArrowsSort size={12} opacity={0.4} />
          )
        ) : null}
      </span>
    );
    return (
      // biome-ignore lint/a11y/useFocusableInteractive: the grid keeps focus and moves aria-activedescendant with the arrow keys (onKeyDown on role=grid), so rows and cells are not tab stops
      <div
        key={column.key}
        role="columnheader"
        aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : column.sortable ? 'none' : undefined}
        className="sl-grid-cell"
        style={{
          textAlign: column.align ?? 'left',
          display: 'flex',
          alignItems: 'center',
          justifyContent: column.align === 'right' ? 'flex-end' : 'flex-start',
        }}
      >
        {column.sortable && onSortChange ? (
          <UnstyledButton
            fz="xs"
            fw={600}
            c="dimmed"
            style={{ textTransform: 'uppercase', letterSpacing: '0.03em' }}
            onClick={() => onSortChange({ key: column.key, direction: sorted === 'desc' ? 'asc' : 'desc' })}
            aria-label={`Sort by ${typeof column.title === 'string' ? column.title : column.key}`}
          >
            {content}
          </UnstyledButton>
        ) : (
          content
        )}
      </div>
    );
  };

  return (
    <Paper withBorder radius="md" style={{ overflow: 'hidden' }}>
      <div
        ref={scrollRef}
        className="sl-grid-scroll"
        role="grid"
        aria-label={label}
        aria-rowcount={rows.length + 1}
        aria-busy={loading || stale ? 'true' : 'false'}
        aria-activedescendant={active >= 0 && rows[active] ? `row-${rowKey(rows[active]!)}` : undefined}
        tabIndex={0}
        onKeyDown={onKeyDown}
        style={{ height, overflow: 'auto', position: 'relative' }}
      >
        <div style={{ minWidth: 'max-content', width: '100%', opacity: stale ? 0.55 : 1, transition: 'opacity 120ms' }}>
          {/* biome-ignore lint/a11y/useFocusableInteractive: the grid keeps focus and moves aria-activedescendant with the arrow keys (onKeyDown on role=grid), so rows and cells are not tab stops */}
          <div className="sl-grid-header" role="row" aria-rowindex={1} style={{ gridTemplateColumns: template, height: HEADER_HEIGHT }}>
            {columns.map(headerCell)}
          </div>
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {items.map((item) => {
              const row = rows[item.index]!;
              const key = rowKey(row);
              return (
                // biome-ignore lint/a11y/useFocusableInteractive: the grid keeps focus and moves aria-activedescendant with the arrow keys (onKeyDown on role=grid), so rows and cells are not tab stops
                // biome-ignore lint/a11y/useKeyWithClickEvents: Enter on the focused grid opens the active row (onKeyDown)
                <div
                  key={key}
                  id={`row-${key}`}
                  role="row"
                  aria-rowindex={item.index + 2}
                  aria-selected={item.index === active}
                  className="sl-grid-row"
                  data-testid="table-row"
                  onClick={() => {
                    setActive(item.index);
                    onOpen?.(row);
                  }}
                  style={{
                    gridTemplateColumns: template,
                    position: 'absolute',
                    top: 0,
                    left: 0,
                    width: '100%',
                    height: item.size,
                    transform: `translateY(${item.start - HEADER_HEIGHT}px)`,
                  }}
                >
                  {columns.map((column) => (
                    // biome-ignore lint/a11y/useFocusableInteractive: the grid keeps focus and moves aria-activedescendant with the arrow keys (onKeyDown on role=grid), so rows and cells are not tab stops
                    <div key={column.key} role="gridcell" className="sl-grid-cell" style={{ textAlign: column.align ?? 'left' }}>
                      {column.render(row)}
                    </div>
                  ))}
                </div>
              );
            })}
          </div>
          {loading ? (
            <Center py="xl">
              <Loader size="sm" aria-label="Loading" />
            </Center>
          ) : rows.length === 0 ? (
            <Center py={48}>{empty ?? <Text c="dimmed">Nothing here</Text>}</Center>
          ) : null}
          {loadingMore ? (
            <Center py="xs">
              <Loader size="xs" />
            </Center>
          ) : null}
        </div>
      </div>
    </Paper>
  );
}
