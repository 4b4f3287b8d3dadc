/**
 * The span tree of a trace with a timeline: each row shows the span's place in the tree and a
 * bar for when it ran within the trace. Keyboard: ↑/↓ move, → expands (or goes to the first
 * child), ← collapses (or goes to the parent), Enter/Space select.
 */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { ActionIcon, Group, Paper, Text, Tooltip } from '@mantine/core';
import { IconChevronDown, IconChevronRight, IconAlertTriangleFilled } from '@tabler/icons-react';
import type { Span } from '@sightline/client/browser';
import { KindBadge } from '../../components/Badges';
import { spanKindColor } from '../../lib/spanKinds';
import { formatCompact, formatDuration, isoToMs } from '../../lib/format';

interface TreeNode {
  span: Span;
  children: TreeNode[];
  depth: number;
  parent: TreeNode | null;
}

/** Roots (no parent, or a parent that is not in the trace) and their children, each in start order. */
export function buildTree(spans: Span[]): TreeNode[] {
  const byId = new Map<string, TreeNode>();
  for (const span of spans) byId.set(span.context.span_id, { span, children: [], depth: 0, parent: null });
  const roots: TreeNode[] = [];
  for (const node of byId.values()) {
    const parent = node.span.parent_id ? byId.get(node.span.parent_id) : undefined;
    if (parent && parent !== node) {
      node.parent = parent;
      parent.children.push(node);
    } else roots.push(node);
  }
  const byStart = (a: TreeNode, b: TreeNode) => isoToMs(a.span.start_time) - isoToMs(b.span.start_time);
  const visit = (nodes: TreeNode[], depth: number) => {
    nodes.sort(byStart);
    for (const node of nodes) {
      node.depth = depth;
      visit(node.children, depth + 1);
    }
  };
  visit(roots, 0);
  return roots;
}

const ROW_HEIGHT = 36;

export function SpanTree({
  spans,
  selectedId,
  onSelect,
}: {
  spans: Span[];
  selectedId: string | null;
  onSelect: (spanId: string) => void;
}) {
  const roots = useMemo(() => buildTree(spans), [spans]);
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const rows = useMemo(() => {
    const list: TreeNode[] = [];
    const walk = (nodes: TreeNode[]) => {
      for (const node of nodes) {
        list.push(node);
        if (!collapsed.has(node.span.context.span_id)) walk(node.children);
      }
    };
    walk(roots);
    return list;
  }, [roots, collapsed]);
  const [traceStart, traceEnd] = useMemo(() => {
    let start = Infinity;
    let end = -Infinity;
    for (const span of spans) {
      start = Math.min(start, isoToMs(span.start_time));
      end = Math.max(end, isoToMs(span.end_time));
    }
    return [start, end];
  }, [spans]);
  const total = Math.max(traceEnd - traceStart, 0.001);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 15,
  });
  const selectedIndex = rows.findIndex((node) => node.span.context.span_id === selectedId);

  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);

  const toggle = (spanId: string) =>
    setCollapsed((previous) => {
      const next = new Set(previous);
      if (next.has(spanId)) next.delete(spanId);
      else next.add(spanId);
      return next;
    });

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const current = rows[selectedIndex];
    const go = (index: number) => {
      const node = rows[Math.max(0, Math.min(rows.length - 1, index))];
      if (node) onSelect(node.span.context.span_id);
    };
    switch (event.key) {
      case 'ArrowDown':
      case 'j':
        go(selectedIndex + 1);
        break;
      case 'ArrowUp':
      case 'k':
        go(selectedIndex - 1);
        break;
      case 'Home':
        go(0);
        break;
      case 'End':
        go(rows.length - 1);
        break;
      case 'ArrowRight':
        if (current && current.children.length > 0) {
          if (collapsed.has(current.span.context.span_id)) toggle(current.span.context.span_id);
          else go(selectedIndex + 1);
        }
        break;
      case 'ArrowLeft':
        if (current) {
          if (current.children.length > 0 && !collapsed.has(current.span.context.span_id)) toggle(current.span.context.span_id);
          else if (current.parent) onSelect(current.parent.span.context.span_id);
        }
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const ticks = [0, 0.25, 0.5, 0.75, 1];

  return (
    <Paper withBorder radius="md" p={0} style={{ overflow: 'hidden' }}>
      <div
        className="sl-tree-row"
        style={{ cursor: 'default', borderBottom: '1px solid var(--sl-border)', borderRadius: 0, minHeight: 30 }}
      >
        <Text size="xs" fw={600} c="dimmed" tt="uppercase" px="sm">
          Span tree ({spans.length})
        </Text>
        <div style={{ position: 'relative', height: 30, marginRight: 12 }} aria-hidden="true">
          {ticks.map((tick) => (
            <Text
              key={tick}
              size="10px"
              c="dimmed"
              // On a phone the timeline is about 110 px wide: only the axis's ends fit.
              visibleFrom={tick === 0 || tick === 1 ? undefined : 'xs'}
              style={{
                position: 'absolute',
                top: 8,
                whiteSpace: 'nowrap',
                left: `${tick * 100}%`,
                transform: tick === 1 ? 'translateX(-100%)' : tick === 0 ? undefined : 'translateX(-50%)',
              }}
            >
              {formatDuration(total * tick)}
            </Text>
          ))}
        </div>
      </div>
      <div
        ref={scrollRef}
        role="tree"
        aria-label="Span tree"
        tabIndex={0}
        onKeyDown={onKeyDown}
        className="sl-grid-scroll"
        style={{ height: 'min(70vh, calc(100vh - 300px))', minHeight: 240, overflow: 'auto', padding: 4 }}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const node = rows[item.index]!;
            const { span } = node;
            const id = span.context.span_id;
            const left = ((isoToMs(span.start_time) - traceStart) / total) * 100;
            const width = Math.max(((isoToMs(span.end_time) - isoToMs(span.start_time)) / total) * 100, 0.4);
            const hasChildren = node.children.length > 0;
            const isCollapsed = collapsed.has(id);
            const color =
              span.status_code === 'ERROR' ? 'var(--mantine-color-red-6)' : `var(--mantine-color-${spanKindColor(span.span_kind)}-5)`;
            return (
              // biome-ignore lint/a11y/useFocusableInteractive: the tree keeps focus and moves aria-activedescendant with the arrow keys, so items are not tab stops
              // biome-ignore lint/a11y/useKeyWithClickEvents: the focused tree handles the keys for the active item
              <div
                key={id}
                role="treeitem"
                aria-level={node.depth + 1}
                aria-expanded={hasChildren ? !isCollapsed : undefined}
                aria-selected={id === selectedId}
                aria-label={span.name}
                data-testid="span-tree-row"
                className="sl-tree-row"
                onClick={() => onSelect(id)}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: item.size, transform: `translateY(${item.start}px)` }}
              >
                <Group gap={6} wrap="nowrap" style={{ paddingLeft: 4 + node.depth * 16, minWidth: 0 }}>
                  {hasChildren ? (
                    <ActionIcon
                      size="xs"
                      variant="subtle"
                      color="gray"
                      tabIndex={-1}
                      aria-label={isCollapsed ? `Expand ${span.name}` : `Collapse ${span.name}`}
                      onClick={(event) => {
                        event.stopPropagation();
                        toggle(id);
                      }}
                    >
                      {isCollapsed ? <IconChevronRight size={14} /> : <IconChevronDown size={14} />}
                    </ActionIcon>
                  ) : (
                    <span style={{ width: 18, flexShrink: 0 }} />
                  )}
                  <KindBadge kind={span.span_kind} size="xs" />
                  <Text size="sm" truncate fw={id === selectedId ? 600 : 400} style={{ minWidth: 0 }}>
                    {span.name}
                  </Text>
                  {span.status_code === 'ERROR' ? (
                    <IconAlertTriangleFilled size={14} color="var(--mantine-color-red-6)" style={{ flexShrink: 0 }} aria-label="error" />
                  ) : null}
                  {span.token_count_total !== null ? (
                    <Text size="xs" c="dimmed" visibleFrom="xs" style={{ flexShrink: 0 }}>
                      {formatCompact(span.token_count_total)} tok
                    </Text>
                  ) : null}
                </Group>
                <Tooltip
                  label={`${span.name}: ${formatDuration(span.latency_ms)} (starts at +${formatDuration(isoToMs(span.start_time) - traceStart)})`}
                  openDelay={300}
                >
                  <div style={{ position: 'relative', height: 18, marginRight: 12 }}>
                    <div style={{ position: 'absolute', inset: '8px 0 auto 0', height: 1, background: 'var(--sl-border)' }} />
                    <div
                      style={{
                        position: 'absolute',
                        left: `${Math.min(left, 99.6)}%`,
                        width: `${Math.min(width, 100 - Math.min(left, 99.6))}%`,
                        top: 3,
                        height: 12,
                        borderRadius: 3,
                        background: color,
                        opacity: id === selectedId ? 1 : 0.8,
                      }}
                    />
                    <Text
                      size="10px"
                      c="dimmed"
                      visibleFrom="xs"
                      style={{
                        position: 'absolute',
                        top: 2,
                        whiteSpace: 'nowrap',
                        ...(left + width > 75 ? { right: `${100 - left + 1}%` } : { left: `calc(${left + width}% + 4px)` }),
                      }}
                    >
                      {formatDuration(span.latency_ms)}
                    </Text>
                  </div>
                </Tooltip>
              </div>
            );
          })}
        </div>
      </div>
    </Paper>
  );
}
