import { ActionIcon, Group, Select, Switch, Tooltip } from '@mantine/core';
import { IconCalendarTime, IconRefresh } from '@tabler/icons-react';
import { RANGE_OPTIONS, useLiveRefresh, useTimeRange } from '../lib/timeRange';

/** Time range, live refresh and a manual refresh button: the controls every explorer page shares. */
export function RangeControls({ onRefresh, refreshing }: { onRefresh?: () => void; refreshing?: boolean }) {
  const { option, setRange } = useTimeRange();
  const { live, setLive } = useLiveRefresh();
  return (
    <Group gap="sm" wrap="nowrap">
      <Select
        aria-label="Time range"
        data={RANGE_OPTIONS.map(({ value, label }) => ({ value, label }))}
        value={option.value}
        onChange={(value) => value && setRange(value)}
        allowDeselect={false}
        leftSection={<IconCalendarTime size={16} />}
        w={190}
        comboboxProps={{ withinPortal: true }}
      />
      <Tooltip label="Refetch every 5 seconds">
        <Switch label="Live" checked={live} onChange={(event) => setLive(event.currentTarget.checked)} aria-label="Live refresh" />
      </Tooltip>
      {onRefresh ? (
        <Tooltip label="Refresh now">
          <ActionIcon variant="default" size="lg" onClick={onRefresh} loading={refreshing} aria-label="Refresh">
            <IconRefresh size={16} />
          </ActionIcon>
        </Tooltip>
      ) : null}
    </Group>
  );
}
