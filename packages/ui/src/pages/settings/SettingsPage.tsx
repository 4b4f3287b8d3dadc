/**
 * `/settings`: for everyone their profile, password and user API keys; for admins also users,
 * system keys, every user's keys, providers and the background jobs. Members never see the admin tabs (and the server refuses them anyway).
 */
import { Alert, Code, Container, Paper, Stack, Tabs, Text, Title } from '@mantine/core';
import {
  IconClockPlay,
  IconCoin,
  IconInfoCircle,
  IconKey,
  IconPlugConnected,
  IconServer,
  IconUser,
  IconUsers,
  IconUsersGroup,
} from '@tabler/icons-react';
import { useSearchParams } from 'react-router';
import { useUpdateSearch } from '../../lib/search';
import { useCurrentViewer } from '../../components/AuthGate';
import { allUserKeysKey, ownKeysKey, systemKeysKey, useAllUserKeys, useOwnKeys, useSystemKeys } from './queries';
import { ApiKeysSection } from './ApiKeysSection';
import { PasswordSection, ProfileSection } from './AccountSections';
import { UsersSection } from './UsersSection';
import { ModelPricesSection } from './ModelPricesSection';
import { ProvidersSection } from './ProvidersSection';
import { JobsSection } from './JobsSection';
import type { ReactNode } from 'react';
import { usePageTitle } from '../../lib/pageTitle';

function Section({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <Paper withBorder p="lg" radius="md">
      <Stack gap="md">
        <div>
          <Title order={3} size="h4">
            {title}
          </Title>
          {description ? (
            <Text size="sm" c="dimmed" mt={4}>
              {description}
            </Text>
          ) : null}
        </div>
        {children}
      </Stack>
    </Paper>
  );
}

function ModelPricesPanel({ canEdit }: { canEdit: boolean }) {
  return (
    <Section
      title="Model prices"
      description="The prices behind the cost figures, in USD per million tokens, matched against each LLM span's llm.model_name. Overrides win over the prices Sightline ships; only admins change them."
    >
      <ModelPricesSection isAdmin={canEdit} />
    </Section>
  );
}

function ProvidersPanel() {
  return (
    <Section
      title="Model providers"
      description="Keys and base URLs the playground calls providers with. Stored values are encrypted and never shown again; a variable of the same name in the server's environment wins over a stored one."
    >
      <ProvidersSection />
    </Section>
  );
}

function JobsPanel() {
  return (
    <Section
      title="Background jobs"
      description="What this server does on its own: pricing spans, applying retention, compacting partitions, converting old spans, cleaning up dead uploads. With several replicas on PostgreSQL one runs each job at a time; this is the replica that answered."
    >
      <JobsSection />
    </Section>
  );
}

const ADMIN_TABS = ['users', 'system-keys', 'user-keys', 'providers', 'jobs'];

export function SettingsPage() {
  usePageTitle('Settings');
  const viewer = useCurrentViewer();
  const [params] = useSearchParams();
  const update = useUpdateSearch();
  const isUser = viewer.kind === 'user';
  const isAdmin = isUser && viewer.role === 'admin';
  const requested = params.get('tab') ?? 'account';
  const tab = !isAdmin && ADMIN_TABS.includes(requested) ? 'account' : requested;
  const ownKeys = useOwnKeys(isUser);
  const systemKeys = useSystemKeys(isAdmin && tab === 'system-keys');
  const allUserKeys = useAllUserKeys(isAdmin && tab === 'user-keys');

  const setTab = (value: string | null) =>
    update((next) => {
      if (!value || value === 'account') next.delete('tab');
      else next.set('tab', value);
    });

  if (!isUser) {
    // Sign-in off (the quick start): everyone who reaches the server administers it, so the
    // server-wide settings are here; there are no users or API keys.
    const openTab = ['providers', 'jobs'].includes(requested) ? requested : 'model-prices';
    return (
      <Container size="lg" py="md">
        <Stack gap="lg">
          <Title order={2}>Settings</Title>
          <Alert color="blue" icon={<IconInfoCircle size={18} />} title="Authentication is off">
            <Text size="sm">
              Everyone who can reach this server has full access, and there are no users or API keys to manage. To turn sign-in on, start
              the server with <Code>SERVICE_ENABLE_AUTH=true</Code> and a <Code>SERVICE_SECRET</Code> of at least 32 characters; then sign
              in as <Code>admin@localhost</Code>.
            </Text>
          </Alert>
          <Tabs value={openTab} onChange={setTab} keepMounted={false}>
            <Tabs.List mb="md" className="sl-tabs-scroll">
              <Tabs.Tab value="model-prices" leftSection={<IconCoin size={16} />}>
                Model prices
              </Tabs.Tab>
              <Tabs.Tab value="providers" leftSection={<IconPlugConnected size={16} />}>
                Providers
              </Tabs.Tab>
              <Tabs.Tab value="jobs" leftSection={<IconClockPlay size={16} />}>
                Jobs
              </Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="model-prices">
              <ModelPricesPanel canEdit />
            </Tabs.Panel>
            <Tabs.Panel value="providers">
              <ProvidersPanel />
            </Tabs.Panel>
            <Tabs.Panel value="jobs">
              <JobsPanel />
            </Tabs.Panel>
          </Tabs>
        </Stack>
      </Container>
    );
  }

  return (
    <Container size="lg" py="md">
      <Stack gap="lg">
        <div>
          <Title order={2}>Settings</Title>
          <Text c="dimmed" size="sm">
            Signed in as {viewer.email}
          </Text>
        </div>
        <Tabs value={tab} onChange={setTab} keepMounted={false}>
          <Tabs.List mb="md" className="sl-tabs-scroll">
            <Tabs.Tab value="account" leftSection={<IconUser size={16} />}>
              Account
            </Tabs.Tab>
            <Tabs.Tab value="api-keys" leftSection={<IconKey size={16} />}>
              My API keys
            </Tabs.Tab>
            <Tabs.Tab value="model-prices" leftSection={<IconCoin size={16} />}>
              Model prices
            </Tabs.Tab>
            {isAdmin ? (
              <>
                <Tabs.Tab value="users" leftSection={<IconUsers size={16} />}>
                  Users
                </Tabs.Tab>
                <Tabs.Tab value="system-keys" leftSection={<IconServer size={16} />}>
                  System keys
                </Tabs.Tab>
                <Tabs.Tab value="user-keys" leftSection={<IconUsersGroup size={16} />}>
                  All user keys
                </Tabs.Tab>
                <Tabs.Tab value="providers" leftSection={<IconPlugConnected size={16} />}>
                  Providers
                </Tabs.Tab>
                <Tabs.Tab value="jobs" leftSection={<IconClockPlay size={16} />}>
                  Jobs
                </Tabs.Tab>
              </>
            ) : null}
          </Tabs.List>

          <Tabs.Panel value="account">
            <Stack gap="lg">
              <Section title="Profile">
                <ProfileSection user={viewer} />
              </Section>
              <Section title="Password">
                <PasswordSection user={viewer} />
              </Section>
            </Stack>
          </Tabs.Panel>

          <Tabs.Panel value="api-keys">
            <Section
              title="My API keys"
              description="User keys act as you, with your role: for notebooks, experiments and scripts. The key is shown once, when you create it."
            >
              <ApiKeysSection
                keys={ownKeys.data}
                loading={ownKeys.isPending}
                error={ownKeys.error}
                kind="user"
                creatable
                kindLabel="API key"
                invalidate={[ownKeysKey, allUserKeysKey]}
                emptyText="You have no API keys yet."
              />
            </Section>
          </Tabs.Panel>

          <Tabs.Panel value="model-prices">
            <ModelPricesPanel canEdit={isAdmin} />
          </Tabs.Panel>

          {isAdmin ? (
            <>
              <Tabs.Panel value="users">
                <Section title="Users" description="Admins manage users; members can only change their own username and password.">
                  <UsersSection self={viewer} />
                </Section>
              </Tabs.Panel>
              <Tabs.Panel value="system-keys">
                <Section
                  title="System API keys"
                  description="System keys act for the server as a whole (sending traces, reading and writing project data) and survive the admin who created them. They cannot administer users or keys."
                >
                  <ApiKeysSection
                    keys={systemKeys.data}
                    loading={systemKeys.isPending}
                    error={systemKeys.error}
                    kind="system"
                    creatable
                    kindLabel="system key"
                    invalidate={[systemKeysKey]}
                    emptyText="No system keys yet. Create one for your tracing clients."
                  />
                </Section>
              </Tabs.Panel>
              <Tabs.Panel value="user-keys">
                <Section title="All user API keys" description="Every user's keys, with their owner. Deleting one stops it at once.">
                  <ApiKeysSection
                    keys={allUserKeys.data}
                    loading={allUserKeys.isPending}
                    error={allUserKeys.error}
                    kind="user"
                    kindLabel="user key"
                    showOwner
                    invalidate={[allUserKeysKey, ownKeysKey]}
                    emptyText="No user has an API key."
                  />
                </Section>
              </Tabs.Panel>
              <Tabs.Panel value="providers">
                <ProvidersPanel />
              </Tabs.Panel>
              <Tabs.Panel value="jobs">
                <JobsPanel />
              </Tabs.Panel>
            </>
          ) : null}
        </Tabs>
      </Stack>
    </Container>
  );
}
