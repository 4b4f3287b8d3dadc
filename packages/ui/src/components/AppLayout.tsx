/** The frame of every signed-in page: header with navigation, command palette, theme and user menu. */
import type { ReactNode } from 'react';
import { AppShell, Avatar, Badge, Box, Burger, Button, Group, Kbd, Menu, Text, ThemeIcon, Tooltip, UnstyledButton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { spotlight, type SpotlightActionData } from '@mantine/spotlight';
import { JumpTo } from './JumpTo';
import {
  IconChartDots3,
  IconLayoutDashboard,
  IconDatabase,
  IconFolder,
  IconListCheck,
  IconLockOpen,
  IconLogout,
  IconMessageChatbot,
  IconNotes,
  IconScale,
  IconSearch,
  IconSettings,
  IconSunMoon,
} from '@tabler/icons-react';
import { Link, NavLink, Outlet, useNavigate } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { logout, clearUserData } from '../api/auth';
import { useProjects } from '../pages/projects/queries';
import { useCurrentViewer } from './AuthGate';
import { Logo } from './Logo';
import { ThemeToggle, useToggleColorScheme } from './ThemeToggle';

/** The main sections: buttons in the header on wide screens, a menu behind a burger on narrow ones. */
const SECTIONS: { to: string; label: string; icon: ReactNode }[] = [
  { to: '/projects', label: 'Projects', icon: <IconFolder size={16} /> },
  { to: '/dashboards', label: 'Dashboards', icon: <IconLayoutDashboard size={16} /> },
  { to: '/datasets', label: 'Datasets', icon: <IconDatabase size={16} /> },
  { to: '/prompts', label: 'Prompts', icon: <IconNotes size={16} /> },
  { to: '/evaluators', label: 'Evaluators', icon: <IconScale size={16} /> },
  { to: '/queues', label: 'Queues', icon: <IconListCheck size={16} /> },
  { to: '/playground', label: 'Playground', icon: <IconMessageChatbot size={16} /> },
  { to: '/settings', label: 'Settings', icon: <IconSettings size={16} /> },
];

/** The sections behind a burger: a phone's header has room for the logo and a few icons only. */
function SectionsMenu() {
  const [opened, { toggle, close }] = useDisclosure(false);
  return (
    <Menu opened={opened} onChange={(open) => (open ? undefined : close())} position="bottom-start" width={220} withinPortal>
      <Menu.Target>
        <Burger opened={opened} onClick={toggle} size="sm" aria-label="Open the sections menu" hiddenFrom="lg" />
      </Menu.Target>
      <Menu.Dropdown aria-label="Sections">
        {SECTIONS.map((section) => (
          <Menu.Item key={section.to} component={Link} to={section.to} leftSection={section.icon} onClick={close}>
            {section.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

function NavButton({ to, label, icon }: { to: string; label: string; icon: ReactNode }) {
  return (
    <NavLink to={to} style={{ textDecoration: 'none' }}>
      {({ isActive }) => (
        // Narrow padding: eight sections, the search button and the account menu share one 1440 px row.
        <Button
          component="span"
          variant={isActive ? 'light' : 'subtle'}
          color={isActive ? undefined : 'gray'}
          leftSection={icon}
          size="sm"
          px={10}
        >
          {label}
        </Button>
      )}
    </NavLink>
  );
}

export function AppLayout() {
  const viewer = useCurrentViewer();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const projects = useProjects();
  const theme = useToggleColorScheme();

  const signOut = async () => {
    try {
      await logout();
    } finally {
      clearUserData(queryClient);
      navigate('/login', { replace: true });
    }
  };

  const actions: SpotlightActionData[] = [
    {
      id: 'projects',
      label: 'Projects',
      description: 'All projects with their totals',
      leftSection: <IconFolder size={18} />,
      onClick: () => navigate('/projects'),
    },
    {
      id: 'playground',
      label: 'Playground',
      description: 'Run a prompt against a model provider',
      leftSection: <IconMessageChatbot size={18} />,
      onClick: () => navigate('/playground'),
    },
    {
      id: 'queues',
      label: 'Annotation queues',
      description: 'Spans, traces and sessions waiting for human review',
      leftSection: <IconListCheck size={18} />,
      onClick: () => navigate('/queues'),
    },
    {
      id: 'settings',
      label: 'Settings',
      description: 'Profile, password, API keys and users',
      leftSection: <IconSettings size={18} />,
      onClick: () => navigate('/settings'),
    },
    { id: 'theme', label: 'Toggle light / dark theme', leftSection: <IconSunMoon size={18} />, onClick: theme.toggle },
    ...(projects.data ?? []).flatMap((project) => [
      {
        id: `project-${project.id}`,
        label: project.name,
        description: 'Traces of this project',
        leftSection: <IconChartDots3 size={18} />,
        onClick: () => navigate(`/projects/${encodeURIComponent(project.id)}/traces`),
      },
    ]),
    ...(viewer.kind === 'user'
      ? [{ id: 'logout', label: 'Sign out', leftSection: <IconLogout size={18} />, onClick: () => void signOut() }]
      : []),
  ];

  return (
    <AppShell header={{ height: 56 }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="md" wrap="nowrap" style={{ minWidth: 0 }}>
            <SectionsMenu />
            <UnstyledButton component={Link} to="/projects" aria-label="Sightline home">
              <Logo />
            </UnstyledButton>
            <Group gap={4} wrap="nowrap" component="nav" aria-label="Main" visibleFrom="lg">
              {SECTIONS.map((section) => (
                <NavButton key={section.to} {...section} />
              ))}
            </Group>
          </Group>
          <Group gap="sm" wrap="nowrap" style={{ flexShrink: 0 }}>
            {/* Icon and shortcut only: with every section in the header, a label would push the account menu off a 1440 px screen. */}
            <Button
              variant="default"
              leftSection={<IconSearch size={16} />}
              rightSection={
                <Kbd size="xs" style={{ whiteSpace: 'nowrap' }}>
                  Ctrl K
                </Kbd>
              }
              onClick={() => spotlight.open()}
              visibleFrom="sm"
              aria-label="Search and commands (Ctrl + K)"
              px="xs"
            />
            <ThemeToggle />
            {viewer.kind === 'user' ? (
              <Menu position="bottom-end" width={240} withinPortal>
                <Menu.Target>
                  <UnstyledButton aria-label={`Account menu of ${viewer.username}`} data-testid="user-menu">
                    <Group gap={8} wrap="nowrap">
                      <Avatar name={viewer.username} color="initials" size={32} />
                      {/* The name shows from 1408 px up (below that the sections would push it off the screen); the menu always names the account. */}
                      <Box visibleFrom="xl" style={{ lineHeight: 1.1, maxWidth: 140 }}>
                        <Text size="sm" fw={600} truncate="end">
                          {viewer.username}
                        </Text>
                        <Text size="xs" c="dimmed">
                          {viewer.role}
                        </Text>
                      </Box>
                    </Group>
                  </UnstyledButton>
                </Menu.Target>
                <Menu.Dropdown>
                  <Menu.Label>
                    <Text size="sm" fw={600} c="var(--mantine-color-text)" truncate="end">
                      {viewer.username} · {viewer.role}
                    </Text>
                    {viewer.email}
                  </Menu.Label>
                  <Menu.Item leftSection={<IconSettings size={16} />} component={Link} to="/settings">
                    Settings
                  </Menu.Item>
                  <Menu.Item leftSection={<IconLogout size={16} />} onClick={() => void signOut()}>
                    Sign out
                  </Menu.Item>
                </Menu.Dropdown>
              </Menu>
            ) : (
              // The word fits beside every section from 1408 px; below that a lock icon says the same.
              <>
                <Badge variant="light" color="gray" title="SERVICE_ENABLE_AUTH is off: everyone has full access" visibleFrom="xl">
                  Auth off
                </Badge>
                <Tooltip label="Auth off: SERVICE_ENABLE_AUTH is off, everyone has full access" hiddenFrom="xl">
                  <ThemeIcon variant="light" color="gray" radius="xl" aria-label="Auth off" hiddenFrom="xl">
                    <IconLockOpen size={16} />
                  </ThemeIcon>
                </Tooltip>
              </>
            )}
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
      <JumpTo actions={actions} />
    </AppShell>
  );
}
