/**
 * Everything behind the login: loads the viewer (GET /v1/user). No session → login page; a
 * pending password change → the change-password page before anything else. With auth off the
 * viewer is anonymous and there is no login at all.
 */
import { createContext, useContext, useEffect, useRef } from 'react';
import { Navigate, Outlet, useLocation, useNavigate, type Location } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Center, Loader, Stack, Text, Title } from '@mantine/core';
import { viewerKey, useViewer } from '../api/auth';
import { ApiError, onSessionExpired } from '../api/http';
import type { Viewer } from '../api/auth';

const ViewerContext = createContext<Viewer | null>(null);

/** The viewer of the page (inside AuthGate). */
export function useCurrentViewer(): Viewer {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error('useCurrentViewer outside AuthGate');
  return viewer;
}

/** `/login?returnTo=<where the user was>` (and why, when the session expired). */
export function loginPath(location: Pick<Location, 'pathname' | 'search'>, reason?: string): string {
  const params = new URLSearchParams();
  const here = `${location.pathname}${location.search}`;
  if (here !== '/' && !here.startsWith('/login')) params.set('returnTo', here);
  if (reason) params.set('reason', reason);
  const query = params.toString();
  return query ? `/login?${query}` : '/login';
}

export function FullPageLoader() {
  return (
    <Center h="100vh">
      <Loader aria-label="Loading" />
    </Center>
  );
}

export function AuthGate() {
  const viewer = useViewer();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const locationRef = useRef(location);
  locationRef.current = location;

  useEffect(
    () =>
      onSessionExpired(() => {
        const wasSignedIn = queryClient.getQueryData<Viewer>(viewerKey)?.kind === 'user';
        // The cached data goes at the next sign-in (LoginPage): removing queries now could cancel
        // ones the next page is loading.
        navigate(loginPath(locationRef.current, wasSignedIn ? 'expired' : undefined), { replace: true });
      }),
    [navigate, queryClient],
  );

  if (viewer.isPending) return <FullPageLoader />;
  if (viewer.isError) {
    if (viewer.error instanceof ApiError && viewer.error.status === 401) return <Navigate to={loginPath(location)} replace />;
    return (
      <Center h="100vh">
        <Stack align="center" gap="sm">
          <Title order={3}>Sightline is not reachable</Title>
          <Text c="dimmed">{viewer.error.message}</Text>
          <Button onClick={() => viewer.refetch()}>Try again</Button>
        </Stack>
      </Center>
    );
  }
  const data = viewer.data;
  const mustChangePassword = data.kind === 'user' && data.password_needs_reset;
  if (mustChangePassword && location.pathname !== '/change-password') return <Navigate to="/change-password" replace />;
  if (!mustChangePassword && location.pathname === '/change-password') return <Navigate to="/" replace />;
  return (
    <ViewerContext.Provider value={data}>
      <Outlet />
    </ViewerContext.Provider>
  );
}
