import { OnlineEvalTab } from './pages/online-eval/OnlineEvalTab';
import { RulePage } from './pages/online-eval/RulePage';
import { ExportsTab } from './pages/exports/ExportsTab';
import { AlertsTab } from './pages/alerts/AlertsTab';
import { AlertRulePage } from './pages/alerts/AlertRulePage';
import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { Center, Loader } from '@mantine/core';
import { AuthGate } from './components/AuthGate';
import { AppLayout } from './components/AppLayout';
import { NotFoundPage } from './pages/NotFoundPage';
import { LoginPage } from './pages/LoginPage';
import { ForgotPasswordPage } from './pages/ForgotPasswordPage';
import { ResetPasswordPage } from './pages/ResetPasswordPage';
import { ChangePasswordPage } from './pages/ChangePasswordPage';
import { SettingsPage } from './pages/settings/SettingsPage';
import { ProjectsPage } from './pages/projects/ProjectsPage';
import { ProjectLayout } from './pages/projects/ProjectLayout';
import { TracesTab } from './pages/projects/TracesTab';
import { SpansTab } from './pages/projects/SpansTab';
import { TraceDetailPage } from './pages/projects/TraceDetailPage';
import { SessionsTab } from './pages/projects/SessionsTab';
import { SessionPage } from './pages/projects/SessionPage';
import { AnnotationConfigsTab } from './pages/projects/AnnotationConfigsTab';
import { DatasetsPage } from './pages/datasets/DatasetsPage';
import { DatasetExamplesPage } from './pages/datasets/DatasetExamplesPage';
import { DatasetLayout } from './pages/datasets/DatasetLayout';
import { ExperimentsPage } from './pages/datasets/ExperimentsPage';
import { EvaluatorsPage } from './pages/evaluators/EvaluatorsPage';
import { QueuesPage } from './pages/queues/QueuesPage';
import { QueuePage } from './pages/queues/QueuePage';
import { ReviewPage } from './pages/queues/ReviewPage';
import { DatasetEvaluatorsTab } from './pages/evaluators/DatasetEvaluatorsTab';
import { ComparePage } from './pages/datasets/ComparePage';
import { PlaygroundPage } from './pages/playground/PlaygroundPage';
import { PromptVersionsPage, PromptsPage } from './pages/prompts/PromptsPage';

// The charts library is large: load it with the first chart.
const OverviewTab = lazy(() => import('./pages/projects/OverviewTab').then((module) => ({ default: module.OverviewTab })));
const DashboardsPage = lazy(() => import('./pages/dashboards/DashboardsPage').then((module) => ({ default: module.DashboardsPage })));

function Charts({ page = 'overview' }: { page?: 'overview' | 'dashboards' }) {
  return (
    <Suspense
      fallback={
        <Center py="xl">
          <Loader aria-label="Loading charts" />
        </Center>
      }
    >
      {page === 'overview' ? <OverviewTab /> : <DashboardsPage />}
    </Suspense>
  );
}

/**
 * Client routes: the only list of the UI's pages. The server answers index.html to any GET that asks
 * for HTML outside its API paths (docs/ui.md), so a new page needs no server change.
 */
export function App() {
  return (
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route path="/reset-password-with-token" element={<ResetPasswordPage />} />
      <Route element={<AuthGate />}>
        <Route path="/change-password" element={<ChangePasswordPage />} />
        <Route element={<AppLayout />}>
          <Route index element={<Navigate to="/projects" replace />} />
          <Route path="/projects" element={<ProjectsPage />} />
          <Route path="/projects/:projectId" element={<ProjectLayout />}>
            <Route index element={<Navigate to="traces" replace />} />
            <Route path="traces" element={<TracesTab />} />
            <Route path="spans" element={<SpansTab />} />
            <Route path="sessions" element={<SessionsTab />} />
            <Route path="overview" element={<Charts />} />
            <Route path="annotations" element={<AnnotationConfigsTab />} />
            <Route path="online-eval" element={<OnlineEvalTab />} />
            <Route path="exports" element={<ExportsTab />} />
            <Route path="alerts" element={<AlertsTab />} />
          </Route>
          <Route path="/projects/:projectId/traces/:traceId" element={<TraceDetailPage />} />
          <Route path="/projects/:projectId/sessions/:sessionId" element={<SessionPage />} />
          <Route path="/projects/:projectId/online-eval/:ruleId" element={<RulePage />} />
          <Route path="/projects/:projectId/alerts/:ruleId" element={<AlertRulePage />} />
          <Route path="/dashboards" element={<Charts page="dashboards" />} />
          <Route path="/datasets" element={<DatasetsPage />} />
          <Route path="/datasets/:datasetId" element={<DatasetLayout />}>
            <Route index element={<Navigate to="examples" replace />} />
            <Route path="examples" element={<DatasetExamplesPage />} />
            <Route path="experiments" element={<ExperimentsPage />} />
            <Route path="evaluators" element={<DatasetEvaluatorsTab />} />
          </Route>
          <Route path="/datasets/:datasetId/compare" element={<ComparePage />} />
          <Route path="/evaluators" element={<EvaluatorsPage />} />
          <Route path="/queues" element={<QueuesPage />} />
          <Route path="/queues/:queueId" element={<QueuePage />} />
          <Route path="/queues/:queueId/review" element={<ReviewPage />} />
          <Route path="/playground" element={<PlaygroundPage />} />
          <Route path="/prompts" element={<PromptsPage />} />
          <Route path="/prompts/:promptName" element={<PromptVersionsPage />} />
          <Route path="/settings" element={<SettingsPage />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Route>
    </Routes>
  );
}
