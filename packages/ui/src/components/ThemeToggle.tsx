import { ActionIcon, Tooltip, useComputedColorScheme, useMantineColorScheme } from '@mantine/core';
import { useHotkeys } from '@mantine/hooks';
import { IconMoon, IconSun } from '@tabler/icons-react';

export function useToggleColorScheme() {
  const { setColorScheme } = useMantineColorScheme();
  const computed = useComputedColorScheme('light', { getInitialValueInEffect: false });
  return { scheme: computed, toggle: () => setColorScheme(computed === 'dark' ? 'light' : 'dark') };
}

/** Light/dark switch; Ctrl/⌘ + J anywhere. */
export function ThemeToggle() {
  const { scheme, toggle } = useToggleColorScheme();
  useHotkeys([['mod+J', toggle]]);
  const label = scheme === 'dark' ? 'Switch to light theme (Ctrl + J)' : 'Switch to dark theme (Ctrl + J)';
  return (
    <Tooltip label={label}>
      <ActionIcon variant="default" size="lg" onClick={toggle} aria-label={label}>
        {scheme === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}
