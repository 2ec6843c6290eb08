// The `baton.workflows` tree: nodes from treeModel.ts, refreshed (coalesced) by core events, never by polling; its runs
// are the shared listing's (read once per refresh for the tree and the status bar).
import * as vscode from 'vscode';
import type { AvailableWorkflowsResource, ExecutionSummary } from '../../core/api.js';
import { relative } from 'node:path';
import { listSystems } from '../../host/pipelines/systemFiles.js';
import type { BatonConnection } from '../ownership.js';
import type { SharedRunListing } from '../sharedRunListing.js';
import { pipelineNodes, pipelineRunNodes, pipelinesGroupNode, type PipelineFile } from './pipelineTreeModel.js';
import { phaseNodes, specTaskNodes } from './specTreeModel.js';
import { TEAM_AGENTS_SHOWN, teamAgentNodes, teamRunNodes, teamsGroupNode } from './teamTreeModel.js';
import { TEAM_RUNS_LISTED, type TeamRunSummary } from '../../core/worker/teamRuns.js';
import {
  artifactNodes, executionNodes, findingNodes, folderNodes, messageNode, rootNodes, stepNodes, templateStepNodes, type TreeNode,
} from './treeModel.js';

/** The view id (package.json `contributes.views.baton`). */
export const WORKFLOWS_VIEW_ID = 'baton.workflows';

/** Supplies the tree from the connection's current source. */
export class WorkflowsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** One listing per refresh, shared by the root and the template nodes. */
  private listing: Promise<{ executions: ExecutionSummary[]; templates: Set<string>; more: boolean }> | undefined;
  /** One reading of the team runs per refresh, shared by the group and its runs. */
  private teamListing: Promise<TeamRunSummary[]> | undefined;
  /**
   * The templates whose phases come from a tasks.md, with the workflow listing they were read for: read again only when
   * that listing changes, not on every refresh (from another process's owner, every template is one answer: 20 KB with
   * the bundled ones).
   */
  private specTemplates: { key: string; names: Promise<ReadonlySet<string>> } | undefined;
  /** Called once, when the root is first produced (activation timing). */
  onFirstRender: ((state: string) => void) | undefined;

  constructor(private readonly connection: BatonConnection, private readonly runs: SharedRunListing) {
    const refreshed = runs.onRefresh(() => {
      this.listing = undefined;
      this.teamListing = undefined;
      this.changed.fire();
    });
    this.subscriptions.push({ dispose: () => refreshed.dispose() }, this.changed);
  }

  /** Re-reads everything now (the status bar too: they show one listing), every unfinished run included. */
  refresh(): void {
    this.runs.refresh({ whole: true });
  }

  /** Coalesces a burst of changes into one refresh (and a steady stream into one refresh per half second). */
  refreshSoon(): void {
    this.runs.refreshSoon();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const state = {
      none: vscode.TreeItemCollapsibleState.None,
      collapsed: vscode.TreeItemCollapsibleState.Collapsed,
      expanded: vscode.TreeItemCollapsibleState.Expanded,
    }[node.collapsible];
    const item = new vscode.TreeItem(node.label, state);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    // The screen-reader label (and what UI tests read): the label and description, not the tooltip.
    item.accessibilityInformation = { label: node.description ? `${node.label}, ${node.description}` : node.label };
    item.contextValue = node.contextValue;
    item.iconPath = new vscode.ThemeIcon(node.icon.id, node.icon.color ? new vscode.ThemeColor(node.icon.color) : undefined);
    if (node.command) item.command = { command: node.command.id, title: node.command.title, arguments: [node] };
    return item;
  }

  async getChildren(node?: TreeNode): Promise<TreeNode[]> {
    try {
      return await this.children(node);
    } catch (ex) {
      return [messageNode('failed', 'Baton could not read this', (ex as Error).message, node?.id ?? 'root')];
    }
  }

  private async children(node?: TreeNode): Promise<TreeNode[]> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (!node && folders.length > 1) return folderNodes(folders.map((f) => f.name));
    if (!node || node.ref.kind === 'folder') {
      if (node && node.ref.kind === 'folder' && node.ref.name !== folders[0]?.name) {
        return [messageNode('other-folder', 'Baton serves the first folder of the workspace', folders[0]?.name, node.id)];
      }
      return this.root();
    }
    switch (node.ref.kind) {
      case 'template':
      case 'group': {
        if (node.ref.kind === 'group' && node.ref.group === 'teams') {
          const teams = await this.teamRuns();
          return teamRunNodes(teams, teams.length >= TEAM_RUNS_LISTED);
        }
        if (node.ref.kind === 'group' && node.ref.group === 'pipelines') return pipelineNodes(this.pipelineFiles(), (await this.list()).executions);
        const { executions, templates, more } = await this.list();
        const runs = executionNodes(executions, node.ref, templates, more);
        if (runs.length > 0 || node.ref.kind !== 'template') return runs;
        const name = node.ref.template;
        const template = (await this.connection.templates()).find((t) => t.name === name);
        return template ? templateStepNodes(template) : [];
      }
      case 'pipeline': {
        const { executions, more } = await this.list();
        return pipelineRunNodes(executions, node.ref.name, more);
      }
      case 'execution': {
        const id = node.ref.execution_id;
        const run = (await this.list()).executions.find((e) => e.execution_id === id);
        const kind = run?.kind;
        if (kind === 'worker') {
          const team = (await this.teamRuns()).find((r) => r.runId === id);
          return team ? teamAgentNodes(team) : [];
        }
        // A spec workflow shows its phases with their tasks (the same steps, read through the spec's status).
        if (kind === 'spec') return phaseNodes(await this.connection.specStatus(id));
        const [status, findings, stopped] = await Promise.all([
          this.connection.workflowStatus(id), this.connection.findings(id), kind === 'pipeline' ? this.stoppedSteps(id) : {},
        ]);
        return stepNodes(status, findings, run?.orphaned === true, stopped, kind === 'pipeline');
      }
      case 'step': {
        const { execution_id, step_name, phase } = node.ref;
        const [status, findings] = await Promise.all([this.connection.workflowStatus(execution_id), this.connection.findings(execution_id)]);
        const tasks = phase === undefined ? [] : specTaskNodes(await this.connection.specStatus(execution_id), phase);
        return [
          ...tasks,
          ...artifactNodes(execution_id, status.steps.find((s) => s.step_name === step_name)?.artifacts ?? []),
          ...findingNodes(execution_id, step_name, findings),
        ];
      }
      default:
        return [];
    }
  }

  private async root(): Promise<TreeNode[]> {
    const c = this.connection;
    if (c.state === 'starting') {
      this.onFirstRender?.('starting');
      this.onFirstRender = undefined;
      return [messageNode('starting', 'Starting Baton…')];
    }
    // The view's welcome says what happened and what to do (see package.json's viewsWelcome).
    if (c.state === 'failed' || c.state === 'waiting') return [];
    const [{ executions, more }, workflows] = await Promise.all([this.list(), c.availableWorkflows()]);
    const fromTasks = await this.fromTasks(workflows.workflows);
    this.onFirstRender?.('ready');
    this.onFirstRender = undefined;
    const pipelines = pipelinesGroupNode(this.pipelineFiles(), executions);
    const teams = executions.some((e) => e.kind === 'worker') ? teamsGroupNode(await this.teamRuns()) : null;
    return [...(pipelines ? [pipelines] : []), ...(teams ? [teams] : []), ...rootNodes(workflows.workflows, executions, more, fromTasks)];
  }

  /** The names of the templates whose phases come from a tasks.md (dynamic_phases), for the listing `workflows`. */
  private fromTasks(workflows: AvailableWorkflowsResource['workflows']): Promise<ReadonlySet<string>> {
    const key = JSON.stringify(workflows);
    if (this.specTemplates?.key !== key) {
      const names = this.connection.templates().then((ts) => new Set(ts.filter((t) => t.dynamic_phases).map((t) => t.name)));
      this.specTemplates = { key, names };
      // A failed read is not kept: the next refresh asks again.
      names.catch(() => {
        if (this.specTemplates?.names === names) this.specTemplates = undefined;
      });
    }
    return this.specTemplates.names;
  }

  /** A pipeline run's steps stopped under it when it paused or stopped, with why (read here, or from the owner). */
  private stoppedSteps(runId: string): Promise<Record<string, { reason: string }>> {
    // Only why steps stopped is lost if the run's view cannot be read: the steps are still listed, as recorded.
    return this.connection.pipelineView(runId).then((v) => v.stopped ?? {}, () => ({}));
  }

  /** Team runs with their first agents (in this editor's core, or the owner's), read once per refresh. */
  private teamRuns(): Promise<TeamRunSummary[]> {
    if (this.teamListing) return this.teamListing;
    const reading = this.connection.teams().then((t) => t.runs({ agentLimit: TEAM_AGENTS_SHOWN }));
    this.teamListing = reading;
    // A failed reading is not kept: the next ask reads again.
    reading.catch(() => void (this.teamListing === reading && (this.teamListing = undefined)));
    return reading;
  }

  /** The workspace's system files (read on each refresh; a watcher refreshes when they change). */
  private pipelineFiles(): PipelineFile[] {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!folder) return [];
    return listSystems(folder).map((l) => {
      const p = l.problems.find(() => !l.system);
      return { name: l.name, path: l.path, relPath: relative(folder, l.path), problem: p ? `${p.path}${p.line ? `:${p.line}` : ''}: ${p.message}` : null };
    });
  }

  private list(): Promise<{ executions: ExecutionSummary[]; templates: Set<string>; more: boolean }> {
    this.listing ??= Promise.all([this.runs.runs(), this.connection.availableWorkflows()]).then(
      ([{ executions, more }, w]) => ({ executions, more, templates: new Set(w.workflows.map((t) => t.name)) }),
    );
    return this.listing;
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}

/** Registers the tree view; returns the provider (for refresh and timing) with its disposable. */
export function registerWorkflowsTree(
  connection: BatonConnection, runs: SharedRunListing,
): { provider: WorkflowsTreeProvider; disposable: vscode.Disposable } {
  const provider = new WorkflowsTreeProvider(connection, runs);
  const view = vscode.window.createTreeView(WORKFLOWS_VIEW_ID, { treeDataProvider: provider, showCollapseAll: true });
  // The Pipelines group lists .baton/pipelines/*.yaml: a file added, changed or removed refreshes it.
  const files = vscode.workspace.workspaceFolders?.[0]
    ? vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.workspace.workspaceFolders[0], '.baton/pipelines/*.{yaml,yml}'))
    : undefined;
  const onFiles = files ? [files, files.onDidCreate(() => provider.refreshSoon()), files.onDidChange(() => provider.refreshSoon()), files.onDidDelete(() => provider.refreshSoon())] : [];
  const setState = () => void vscode.commands.executeCommand('setContext', 'baton.state', connection.state);
  setState();
  const watch = connection.onDidChange(setState);
  return { provider, disposable: vscode.Disposable.from(view, provider, watch, ...onFiles) };
}
